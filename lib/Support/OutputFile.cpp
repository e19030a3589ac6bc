//===- OutputFile.cpp - files and directories written whole ---------------===//
//
// Temporaries are named after their destination (`out.mlir.tmp-a1b2c3d4`,
// `out.mlir.weights.tmp-a1b2c3d4`) so that one left by a crash or a failed
// rename says what it was for. File temporaries are removed on a fatal
// signal as LLVM's TempFile does; a directory swap keeps the old directory
// as `<dir>.old-XXXXXXXX` until the new one is in place. OutputPaths
// compares absolute paths with links followed; a path that does not exist
// yet is compared through its parent directory's real path.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Errc.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::remat;
namespace fs = llvm::sys::fs;

/// The message for a failure to write `path`.
static std::string cannotWrite(StringRef path, const llvm::Twine &why) {
  return ("cannot write '" + path + "': " + why).str();
}

/// `path` with symbolic links followed, so that a rename replaces the file
/// a link names rather than the link; `path` itself when it names nothing.
static std::string followLinks(StringRef path) {
  llvm::SmallString<256> real;
  if (fs::is_symlink_file(path) && !fs::real_path(path, real))
    return std::string(real);
  return path.str();
}

//===----------------------------------------------------------------------===//
// OutputFile
//===----------------------------------------------------------------------===//

OutputFile::OutputFile(std::string path, std::string target)
    : path(std::move(path)), target(std::move(target)) {}

OutputFile::OutputFile(OutputFile &&other)
    : path(std::move(other.path)), target(std::move(other.target)),
      temp(std::move(other.temp)), stream(std::move(other.stream)),
      done(other.done) {
  other.temp.reset();
  other.done = true;
}

OutputFile::~OutputFile() { discard(); }

FailureOr<OutputFile> OutputFile::create(StringRef path, std::string &error) {
  std::error_code code;
  if (path == "-") {
    OutputFile file(path.str(), path.str());
    file.stream = std::make_unique<llvm::raw_fd_ostream>("-", code);
    if (code) {
      error = cannotWrite(path, code.message());
      return failure();
    }
    return std::move(file);
  }
  std::string target = followLinks(path);
  fs::file_status status;
  bool exists = !fs::status(target, status);
  if (exists && fs::is_directory(status)) {
    error = cannotWrite(path, "it is a directory");
    return failure();
  }
  OutputFile file(path.str(), target);
  if (exists && !fs::is_regular_file(status)) {
    // A device or a pipe: a rename would replace it with a plain file.
    file.stream = std::make_unique<llvm::raw_fd_ostream>(target, code);
    if (code) {
      error = cannotWrite(path, code.message());
      return failure();
    }
    return std::move(file);
  }
  llvm::Expected<fs::TempFile> temp =
      fs::TempFile::create(target + ".tmp-%%%%%%%%");
  if (!temp) {
    error = cannotWrite(path, llvm::toString(temp.takeError()));
    return failure();
  }
  // The new file keeps the permissions of the one it replaces.
  if (exists)
    (void)fs::setPermissions(temp->FD, status.permissions());
  file.stream = std::make_unique<llvm::raw_fd_ostream>(temp->FD,
                                                       /*shouldClose=*/false);
  file.temp.emplace(std::move(*temp));
  return std::move(file);
}

StringRef OutputFile::getTemporaryPath() const {
  return temp ? StringRef(temp->TmpName) : StringRef(target);
}

LogicalResult OutputFile::commit(std::string &error) {
  if (done) {
    error = cannotWrite(path, "the output was already closed");
    return failure();
  }
  stream->flush();
  if (stream->has_error()) {
    error = cannotWrite(path, stream->error().message());
    discard();
    return failure();
  }
  stream.reset();
  done = true;
  if (!temp)
    return success();
  llvm::Error renamed = temp->keep(target);
  temp.reset();
  if (renamed) {
    // keep() removes the temporary when neither rename nor copy worked.
    error = cannotWrite(path, llvm::toString(std::move(renamed)));
    return failure();
  }
  return success();
}

void OutputFile::discard() {
  if (stream) {
    // A stream destroyed with an unreported error aborts the process.
    stream->clear_error();
    stream.reset();
  }
  if (temp) {
    llvm::consumeError(temp->discard());
    temp.reset();
  }
  done = true;
}

//===----------------------------------------------------------------------===//
// OutputDirectory
//===----------------------------------------------------------------------===//

/// Creates a fresh directory named after `model` (whose `%` are replaced by
/// random characters) and returns its path in `result`.
static std::error_code createUniqueSibling(const llvm::Twine &model,
                                           SmallVectorImpl<char> &result) {
  for (int attempt = 0; attempt < 128; ++attempt) {
    fs::createUniquePath(model, result, /*MakeAbsolute=*/false);
    // As mkdir makes it: every permission the umask leaves.
    std::error_code code =
        fs::create_directory(result, /*IgnoreExisting=*/false, fs::all_all);
    if (code != llvm::errc::file_exists)
      return code;
  }
  return std::make_error_code(std::errc::file_exists);
}

/// Whether the directory `dir` may be replaced: it holds the marker a remat
/// tool wrote, or nothing at all.
static bool isReplaceable(StringRef dir) {
  llvm::SmallString<256> marker(dir);
  llvm::sys::path::append(marker, kOutputMarkerName);
  if (fs::is_regular_file(marker))
    return true;
  std::error_code code;
  fs::directory_iterator it(dir, code);
  return !code && it == fs::directory_iterator();
}

/// Writes the marker file into the directory `dir`.
static std::error_code writeMarker(StringRef dir) {
  llvm::SmallString<256> marker(dir);
  llvm::sys::path::append(marker, kOutputMarkerName);
  std::error_code code;
  llvm::raw_fd_ostream os(marker, code);
  if (code)
    return code;
  os << "A remat tool wrote this directory and replaces it whole when it "
        "writes it again.\nremat tools never replace a directory that holds "
        "files but not this one.\n";
  os.close();
  return os.error();
}

OutputDirectory::OutputDirectory(OutputDirectory &&other)
    : path(std::move(other.path)), target(std::move(other.target)),
      temporary(std::move(other.temporary)), done(other.done) {
  other.done = true;
}

OutputDirectory::~OutputDirectory() { discard(); }

FailureOr<OutputDirectory> OutputDirectory::create(StringRef path,
                                                   std::string &error) {
  // `DIR/` names DIR: its siblings are DIR.tmp-..., not DIR/.tmp-...
  StringRef name = path.size() > 1 ? path.rtrim('/') : path;
  std::string target = followLinks(name.empty() ? path : name);
  if (fs::exists(target) && !fs::is_directory(target)) {
    error = cannotWrite(path, "it exists and is not a directory");
    return failure();
  }
  if (fs::is_directory(target) && !isReplaceable(target)) {
    error = cannotWrite(path, "it is a directory that a remat tool did not "
                              "write (it holds files but no " +
                                  kOutputMarkerName +
                                  "), and writing it would replace it whole; "
                                  "name a new or empty directory");
    return failure();
  }
  llvm::SmallString<256> temporary;
  if (std::error_code code =
          createUniqueSibling(target + ".tmp-%%%%%%%%", temporary)) {
    error = cannotWrite(path, code.message());
    return failure();
  }
  OutputDirectory directory(path.str(), target, std::string(temporary));
  if (std::error_code code = writeMarker(temporary)) {
    error = cannotWrite(path, code.message());
    return failure();
  }
  return std::move(directory);
}

LogicalResult OutputDirectory::commit(std::string &error) {
  if (done) {
    error = cannotWrite(path, "the output was already closed");
    return failure();
  }
  auto fail = [&](std::error_code code) {
    error = cannotWrite(path, code.message());
    discard();
    return failure();
  };
  if (!fs::exists(target)) {
    if (std::error_code code = fs::rename(temporary, target))
      return fail(code);
    done = true;
    return success();
  }
  if (!fs::is_directory(target))
    return fail(std::make_error_code(std::errc::not_a_directory));
  // The new directory keeps the old one's permissions.
  fs::file_status previous;
  if (std::error_code code = fs::status(target, previous))
    return fail(code);
  if (std::error_code code =
          fs::setPermissions(temporary, previous.permissions()))
    return fail(code);
  // Move the old directory aside (a name no one else takes), put the new
  // one in its place, then remove the old one.
  llvm::SmallString<256> old;
  for (int attempt = 0; attempt < 128; ++attempt) {
    fs::createUniquePath(target + ".old-%%%%%%%%", old, /*MakeAbsolute=*/false);
    if (!fs::exists(old))
      break;
  }
  if (std::error_code code = fs::rename(target, old))
    return fail(code);
  if (std::error_code code = fs::rename(temporary, target)) {
    (void)fs::rename(old, target);
    return fail(code);
  }
  done = true;
  (void)fs::remove_directories(old);
  return success();
}

void OutputDirectory::discard() {
  if (!done)
    (void)fs::remove_directories(temporary);
  done = true;
}

//===----------------------------------------------------------------------===//
// OutputPaths
//===----------------------------------------------------------------------===//

/// `path` made absolute with links followed: its real path when it exists,
/// else its parent's real path and its name, else `path` made absolute
/// with `.` and `..` removed.
static std::string getPathKey(StringRef path) {
  StringRef name = path.size() > 1 ? path.rtrim('/') : path;
  llvm::SmallString<256> real;
  if (!fs::real_path(name, real))
    return std::string(real);
  llvm::SmallString<256> absolute(name);
  (void)fs::make_absolute(absolute);
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
  StringRef parent = llvm::sys::path::parent_path(absolute);
  if (!parent.empty() && !fs::real_path(parent, real)) {
    llvm::sys::path::append(real, llvm::sys::path::filename(absolute));
    return std::string(real);
  }
  return std::string(absolute);
}

/// Whether `path` exists and is neither a regular file nor a directory (a
/// device, a pipe): outputs write such a file in place.
static bool isSpecialFile(StringRef path) {
  fs::file_status status;
  return !fs::status(path, status) && !fs::is_regular_file(status) &&
         !fs::is_directory(status);
}

/// Whether `inner` is `outer` or a path inside the directory `outer`.
static bool isWithin(StringRef inner, StringRef outer) {
  if (inner == outer)
    return true;
  llvm::SmallString<256> prefix(outer);
  if (!prefix.ends_with("/"))
    prefix += '/';
  return inner.starts_with(prefix);
}

LogicalResult OutputPaths::claimInput(StringRef what, StringRef path,
                                      std::string &error) {
  return claim({Kind::Input, what.str(), path.str(), ""}, error);
}

LogicalResult OutputPaths::claimFile(StringRef what, StringRef path,
                                     std::string &error) {
  return claim({Kind::File, what.str(), path.str(), ""}, error);
}

LogicalResult OutputPaths::claimDirectory(StringRef what, StringRef path,
                                          std::string &error) {
  return claim({Kind::Directory, what.str(), path.str(), ""}, error);
}

/// `what 'path'`, for messages.
static std::string quote(StringRef what, StringRef path) {
  return (what + " '" + path + "'").str();
}

/// The message for a path `inner` inside the directory output `directory`.
static std::string describeInside(StringRef inner, bool innerIsInput,
                                  StringRef directory) {
  return (inner + " is inside " + directory +
          ", a directory output that is replaced whole: " +
          (innerIsInput ? "the input would be deleted; name another directory"
                        : "write it outside that directory"))
      .str();
}

std::string OutputPaths::describeConflict(const Claim &later,
                                          const Claim &earlier) {
  std::string laterName = quote(later.what, later.path);
  std::string earlierName = quote(earlier.what, earlier.path);
  bool laterIsInput = later.kind == Kind::Input;
  bool earlierIsInput = earlier.kind == Kind::Input;
  if (earlier.kind == Kind::Directory && isWithin(later.key, earlier.key))
    return describeInside(laterName, laterIsInput, earlierName);
  if (later.kind == Kind::Directory && isWithin(earlier.key, later.key))
    return describeInside(earlierName, earlierIsInput, laterName);
  if (later.key != earlier.key)
    return "";
  if (laterIsInput || earlierIsInput)
    return laterName + " names the same file as " + earlierName +
           ": an output may not overwrite an input; write it elsewhere";
  return laterName + " names the same file as " + earlierName +
         ": give each output a file of its own";
}

LogicalResult OutputPaths::claim(Claim claim, std::string &error) {
  if (claim.path == "-") {
    if (claim.kind == Kind::Input)
      return success();
    for (const Claim &earlier : claims) {
      if (earlier.kind == Kind::Input || earlier.path != "-")
        continue;
      error = earlier.what + " and " + claim.what +
              " both write to standard output ('-'): send one of them to a "
              "file";
      return failure();
    }
    claims.push_back(std::move(claim));
    return success();
  }
  if (isSpecialFile(claim.path))
    return success();
  claim.key = getPathKey(claim.path);
  for (const Claim &earlier : claims) {
    if (earlier.key.empty() ||
        (earlier.kind == Kind::Input && claim.kind == Kind::Input))
      continue;
    std::string message = describeConflict(claim, earlier);
    if (!message.empty()) {
      error = std::move(message);
      return failure();
    }
  }
  claims.push_back(std::move(claim));
  return success();
}

//===----------------------------------------------------------------------===//
// OutputGroup
//===----------------------------------------------------------------------===//

LogicalResult OutputGroup::addInput(StringRef path, std::string &error,
                                    StringRef what) {
  return paths.claimInput(what, path, error);
}

FailureOr<OutputFile *> OutputGroup::addFile(StringRef path, std::string &error,
                                             StringRef what) {
  if (failed(paths.claimFile(what, path, error)))
    return failure();
  FailureOr<OutputFile> file = OutputFile::create(path, error);
  if (failed(file))
    return failure();
  files.push_back(std::make_unique<OutputFile>(std::move(*file)));
  order.emplace_back(false, files.size() - 1);
  return files.back().get();
}

FailureOr<OutputDirectory *>
OutputGroup::addDirectory(StringRef path, std::string &error, StringRef what) {
  if (failed(paths.claimDirectory(what, path, error)))
    return failure();
  FailureOr<OutputDirectory> directory = OutputDirectory::create(path, error);
  if (failed(directory))
    return failure();
  directories.push_back(
      std::make_unique<OutputDirectory>(std::move(*directory)));
  order.emplace_back(true, directories.size() - 1);
  return directories.back().get();
}

LogicalResult OutputGroup::commit(std::string &error) {
  for (auto [isDirectory, index] : order) {
    LogicalResult committed = isDirectory ? directories[index]->commit(error)
                                          : files[index]->commit(error);
    if (failed(committed)) {
      // The destructors discard the rest.
      files.clear();
      directories.clear();
      order.clear();
      return failure();
    }
  }
  order.clear();
  return success();
}
