//===- Npy.cpp - NumPy .npy arrays ----------------------------------------===//
//
// The header is a Python dict literal; only the keys NumPy writes are read:
// 'descr', 'fortran_order' (must be False) and 'shape'. bf16 is stored as
// '<V2' by some tools; remat writes and reads it as '<u2'-sized raw data
// under the descr 'bfloat16'.
//
//===----------------------------------------------------------------------===//

#include "remat/Execution/Npy.h"
#include "remat/Support/OutputFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;
using namespace mlir::remat;

namespace {
struct TypeName {
  NpyType type;
  const char *descr;
  int64_t bytes;
};
const TypeName kTypes[] = {
    {NpyType::F16, "<f2", 2}, {NpyType::BF16, "bfloat16", 2},
    {NpyType::F32, "<f4", 4}, {NpyType::F64, "<f8", 8},
    {NpyType::I32, "<i4", 4}, {NpyType::I64, "<i8", 8},
    {NpyType::U8, "|u1", 1},
};
} // namespace

int64_t mlir::remat::getNpyTypeBytes(NpyType type) {
  for (const TypeName &name : kTypes)
    if (name.type == type)
      return name.bytes;
  return 1;
}

int64_t NpyArray::getNumElements() const {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

/// The text between the quotes after `key` in the header dict.
static std::optional<llvm::StringRef> getQuoted(llvm::StringRef header,
                                                llvm::StringRef key) {
  size_t at = header.find(key);
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = header.drop_front(at + key.size());
  size_t colon = rest.find(':');
  if (colon == llvm::StringRef::npos)
    return std::nullopt;
  rest = rest.drop_front(colon + 1);
  size_t open = rest.find_first_of("'\"");
  if (open == llvm::StringRef::npos)
    return std::nullopt;
  char quote = rest[open];
  size_t close = rest.find(quote, open + 1);
  if (close == llvm::StringRef::npos)
    return std::nullopt;
  return rest.slice(open + 1, close);
}

std::optional<NpyArray> mlir::remat::readNpy(llvm::StringRef path,
                                             std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read '" + path.str() + "': " + buffer.getError().message();
    return std::nullopt;
  }
  return parseNpy((*buffer)->getBuffer(), path, error);
}

std::optional<NpyArray> mlir::remat::parseNpy(llvm::StringRef bytes,
                                              llvm::StringRef path,
                                              std::string &error) {
  if (!bytes.starts_with("\x93NUMPY") || bytes.size() < 10) {
    error = "'" + path.str() + "' is not a .npy file";
    return std::nullopt;
  }
  uint8_t major = bytes[6];
  size_t headerStart = major == 1 ? 10 : 12;
  if (bytes.size() < headerStart) {
    error = "'" + path.str() + "' has a truncated header";
    return std::nullopt;
  }
  auto byteAt = [&](size_t i) { return uint32_t(uint8_t(bytes[i])); };
  size_t headerLength = major == 1
                            ? byteAt(8) | (byteAt(9) << 8)
                            : byteAt(8) | (byteAt(9) << 8) |
                                  (byteAt(10) << 16) | (byteAt(11) << 24);
  if (bytes.size() < headerStart + headerLength) {
    error = "'" + path.str() + "' has a truncated header";
    return std::nullopt;
  }
  llvm::StringRef header = bytes.substr(headerStart, headerLength);
  NpyArray array;
  std::optional<llvm::StringRef> descr = getQuoted(header, "descr");
  bool known = false;
  for (const TypeName &name : kTypes)
    if (descr && *descr == name.descr) {
      array.type = name.type;
      known = true;
    }
  if (!known) {
    error = "'" + path.str() + "' has an unsupported element type '" +
            (descr ? descr->str() : std::string("?")) + "'";
    return std::nullopt;
  }
  if (header.contains("'fortran_order': True")) {
    error = "'" + path.str() + "' is in Fortran order; remat reads C order";
    return std::nullopt;
  }
  size_t shapeAt = header.find("'shape':");
  size_t open = header.find('(', shapeAt);
  size_t close = header.find(')', open);
  if (shapeAt == llvm::StringRef::npos || open == llvm::StringRef::npos ||
      close == llvm::StringRef::npos) {
    error = "'" + path.str() + "' has no shape in its header";
    return std::nullopt;
  }
  llvm::SmallVector<llvm::StringRef> dims;
  header.slice(open + 1, close).split(dims, ',', -1, false);
  for (llvm::StringRef dim : dims) {
    int64_t size;
    if (dim.trim().getAsInteger(10, size) || size < 0) {
      error = "'" + path.str() + "' has a malformed shape";
      return std::nullopt;
    }
    array.shape.push_back(size);
  }
  // The data's size, checked for overflow: a header may claim anything.
  int64_t dataBytes = getNpyTypeBytes(array.type);
  for (int64_t size : array.shape) {
    if (llvm::MulOverflow(dataBytes, size, dataBytes)) {
      error = "'" + path.str() + "' has a shape of more than 2^63 bytes";
      return std::nullopt;
    }
  }
  llvm::StringRef data = bytes.drop_front(headerStart + headerLength);
  if (static_cast<int64_t>(data.size()) != dataBytes) {
    error = "'" + path.str() + "' holds " + std::to_string(data.size()) +
            " data bytes, its header says " + std::to_string(dataBytes);
    return std::nullopt;
  }
  array.data.assign(data.begin(), data.end());
  return array;
}

void mlir::remat::writeNpy(llvm::raw_ostream &os, const NpyArray &array) {
  std::string header = "{'descr': '";
  for (const TypeName &name : kTypes)
    if (name.type == array.type)
      header += name.descr;
  header += "', 'fortran_order': False, 'shape': (";
  for (int64_t size : array.shape)
    header += std::to_string(size) + ", ";
  if (array.shape.size() > 1)
    header.erase(header.size() - 1);
  else if (array.shape.size() == 1)
    header.erase(header.size() - 1);
  header += "), }";
  // Pad with spaces and a newline so that the data starts 64-aligned.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  os << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 0xff)
     << char(header.size() >> 8) << header;
  os.write(reinterpret_cast<const char *>(array.data.data()),
           array.data.size());
}

bool mlir::remat::writeNpy(llvm::StringRef path, const NpyArray &array,
                           std::string &error) {
  FailureOr<OutputFile> file = OutputFile::create(path, error);
  if (failed(file))
    return false;
  writeNpy(file->os(), array);
  return succeeded(file->commit(error));
}
