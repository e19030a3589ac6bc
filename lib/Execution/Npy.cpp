//===- Npy.cpp - NumPy .npy arrays ----------------------------------------===//
//
// The header is a Python dict literal with exactly the keys NumPy writes:
// 'descr', 'fortran_order' and 'shape'. Fortran-order data is reordered into
// C order on reading. bf16 is stored as
// '<V2' by some tools; remat writes and reads it as '<u2'-sized raw data
// under the descr 'bfloat16'.
//
//===----------------------------------------------------------------------===//

#include "remat/Execution/Npy.h"
#include "remat/Support/OutputFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>

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

namespace {
/// The header dict, as NumPy's `ast.literal_eval` reads it: exactly the keys
/// 'descr' (a string), 'fortran_order' (True or False) and 'shape' (a tuple
/// of non-negative integers), each key quoted with ' or ", any spacing, and
/// trailing commas allowed.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// A recursive-descent reader of the dict literal; each method returns false
/// and sets `problem` on what it cannot read.
class NpyHeaderParser {
public:
  explicit NpyHeaderParser(llvm::StringRef text) : rest(text) {}

  bool parse(NpyHeader &header);
  std::string problem;

private:
  void skipSpace() { rest = rest.ltrim(" \t\r\n"); }
  bool consume(char c) {
    skipSpace();
    if (!rest.consume_front(llvm::StringRef(&c, 1)))
      return false;
    return true;
  }
  bool fail(const llvm::Twine &message) {
    if (problem.empty())
      problem = message.str();
    return false;
  }
  bool parseString(std::string &value);
  bool parseBool(bool &value);
  bool parseShape(std::vector<int64_t> &shape);
  bool parseEntry(NpyHeader &header, llvm::StringMap<bool> &seen);

  llvm::StringRef rest;
};
} // namespace

bool NpyHeaderParser::parseString(std::string &value) {
  skipSpace();
  if (rest.empty() || (rest.front() != '\'' && rest.front() != '"'))
    return fail("a quoted string was expected");
  char quote = rest.front();
  size_t close = rest.find(quote, 1);
  if (close == llvm::StringRef::npos)
    return fail("a string is not closed");
  value = rest.slice(1, close).str();
  if (llvm::StringRef(value).contains('\\'))
    return fail("a string holds an escape");
  rest = rest.drop_front(close + 1);
  return true;
}

bool NpyHeaderParser::parseBool(bool &value) {
  skipSpace();
  if (rest.consume_front("True"))
    value = true;
  else if (rest.consume_front("False"))
    value = false;
  else
    return fail("'fortran_order' is neither True nor False");
  return true;
}

bool NpyHeaderParser::parseShape(std::vector<int64_t> &shape) {
  if (!consume('('))
    return fail("'shape' is not a tuple");
  while (!consume(')')) {
    skipSpace();
    size_t digits = rest.find_first_not_of("0123456789");
    int64_t size;
    if (digits == 0 || rest.take_front(digits).getAsInteger(10, size))
      return fail("'shape' holds something other than sizes");
    rest = rest.drop_front(digits);
    shape.push_back(size);
    if (!consume(',')) {
      if (!consume(')'))
        return fail("'shape' is not a tuple");
      break;
    }
  }
  return true;
}

bool NpyHeaderParser::parseEntry(NpyHeader &header,
                                 llvm::StringMap<bool> &seen) {
  std::string key;
  if (!parseString(key))
    return false;
  if (!consume(':'))
    return fail("a ':' is missing after '" + key + "'");
  if (!seen.try_emplace(key, true).second)
    return fail("'" + key + "' appears twice");
  if (key == "descr")
    return parseString(header.descr);
  if (key == "fortran_order")
    return parseBool(header.fortranOrder);
  if (key == "shape")
    return parseShape(header.shape);
  return fail("it has the unknown key '" + key + "'");
}

bool NpyHeaderParser::parse(NpyHeader &header) {
  llvm::StringMap<bool> seen;
  if (!consume('{'))
    return fail("it is not a dict");
  while (!consume('}')) {
    if (!parseEntry(header, seen))
      return false;
    if (!consume(',')) {
      if (!consume('}'))
        return fail("a ',' or '}' is missing");
      break;
    }
  }
  skipSpace();
  if (!rest.empty())
    return fail("text follows the dict");
  for (const char *key : {"descr", "fortran_order", "shape"})
    if (!seen.count(key))
      return fail(llvm::Twine("it has no '") + key + "'");
  return true;
}

/// The C-order copy of Fortran-order `data`: element (i0, ..., in-1) is at
/// i0 + s0 * (i1 + s1 * (...)) elements in Fortran order.
static std::vector<uint8_t> toCOrder(llvm::ArrayRef<uint8_t> data,
                                     llvm::ArrayRef<int64_t> shape,
                                     int64_t elementBytes) {
  std::vector<uint8_t> result(data.size());
  int64_t count = elementBytes == 0 ? 0 : int64_t(data.size()) / elementBytes;
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t c = 0; c < count; ++c) {
    int64_t f = 0;
    for (size_t d = shape.size(); d-- > 0;)
      f = f * shape[d] + index[d];
    std::memcpy(result.data() + c * elementBytes,
                data.data() + f * elementBytes, elementBytes);
    // The next C-order index: the last dimension fastest.
    for (size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  return result;
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
  NpyHeaderParser parser(bytes.substr(headerStart, headerLength));
  NpyHeader header;
  if (!parser.parse(header)) {
    error = "'" + path.str() + "' has a malformed header: " + parser.problem;
    return std::nullopt;
  }
  NpyArray array;
  bool known = false;
  for (const TypeName &name : kTypes)
    if (header.descr == name.descr) {
      array.type = name.type;
      known = true;
    }
  if (!known) {
    error = "'" + path.str() + "' has an unsupported element type '" +
            header.descr + "'";
    return std::nullopt;
  }
  array.shape = header.shape;
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
  if (header.fortranOrder)
    array.data = toCOrder(array.data, array.shape, getNpyTypeBytes(array.type));
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
