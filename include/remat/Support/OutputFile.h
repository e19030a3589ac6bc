//===- OutputFile.h - files and directories written whole -------*- C++ -*-===//
//
// Every file a remat tool or pass writes goes through these classes. The
// bytes go to a temporary beside the destination (in the same directory, so
// that the final rename is atomic), and commit() renames the temporary over
// the destination once its writer is done. An output that is discarded, or
// destroyed uncommitted, removes its temporary: a failed run leaves the old
// destination as it was and nothing half-written behind. A directory output
// (the importer's weights) is built as a temporary sibling directory and
// swapped in. OutputGroup commits several outputs in a fixed order once all
// of them are written, so that a tool commits nothing unless every step
// before succeeded (docs/user-guide.md, "Output files").
//
// Outputs never destroy what the tool did not write: a directory output
// replaces only an empty directory or one that holds the marker file a
// remat tool wrote there (kOutputMarkerName), and OutputPaths refuses, before
// any work, an output that names an input or another output of the run.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SUPPORT_OUTPUTFILE_H
#define REMAT_SUPPORT_OUTPUTFILE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::remat {

/// The file every directory output holds, saying that a remat tool wrote
/// it and may replace it whole.
inline constexpr llvm::StringLiteral kOutputMarkerName = ".remat-output";

/// A file written whole or not at all. `-` is standard output and an
/// existing file that is not a regular file (/dev/null, a pipe) is written
/// in place: neither can be replaced by a rename. A symbolic link is
/// followed, so that the file it names is replaced, not the link.
class OutputFile {
public:
  /// Creates the temporary for `path`. Fails, setting `error`, when `path`
  /// is a directory or a new file cannot be created beside it.
  static FailureOr<OutputFile> create(StringRef path, std::string &error);

  OutputFile(OutputFile &&other);
  OutputFile &operator=(OutputFile &&other) = delete;
  OutputFile(const OutputFile &) = delete;
  ~OutputFile();

  /// The stream that writes the temporary.
  raw_ostream &os() { return *stream; }
  /// The destination, as given.
  StringRef getPath() const { return path; }
  /// Where the bytes are until commit(): the temporary, or the destination
  /// itself when it is written in place.
  StringRef getTemporaryPath() const;

  /// Flushes the stream and renames the temporary over the destination.
  /// On a write or rename error removes the temporary and sets `error`; the
  /// destination is then unchanged.
  LogicalResult commit(std::string &error);
  /// Removes the temporary; the destination is unchanged.
  void discard();

private:
  OutputFile(std::string path, std::string target);

  std::string path;   // as given, for messages
  std::string target; // what the rename replaces: `path`, links followed
  std::optional<llvm::sys::fs::TempFile> temp; // unset when in place
  std::unique_ptr<llvm::raw_fd_ostream> stream;
  bool done = false;
};

/// A directory written whole or not at all: its files are written into a
/// temporary sibling directory, which commit() puts in the destination's
/// place, removing the old directory. The new directory holds the marker
/// file kOutputMarkerName and keeps the old one's permissions. A
/// destination that exists and is not a directory, or is a directory that
/// is neither empty nor marked, is an error, never replaced.
class OutputDirectory {
public:
  /// Creates the temporary sibling of `path`, with the marker in it. Fails,
  /// setting `error`, when `path` exists and is not a directory, holds files
  /// but no marker, or the sibling cannot be created.
  static FailureOr<OutputDirectory> create(StringRef path, std::string &error);

  OutputDirectory(OutputDirectory &&other);
  OutputDirectory &operator=(OutputDirectory &&other) = delete;
  OutputDirectory(const OutputDirectory &) = delete;
  ~OutputDirectory();

  /// The destination, as given.
  StringRef getPath() const { return path; }
  /// The directory to write the files into until commit().
  StringRef getTemporaryPath() const { return temporary; }

  /// Moves an old destination aside to a second sibling, renames the
  /// temporary into place and removes the old directory. When the second
  /// rename fails the old directory is moved back and `error` is set.
  LogicalResult commit(std::string &error);
  /// Removes the temporary directory; the destination is unchanged.
  void discard();

private:
  OutputDirectory(std::string path, std::string target, std::string temporary)
      : path(std::move(path)), target(std::move(target)),
        temporary(std::move(temporary)) {}

  std::string path, target, temporary;
  bool done = false;
};

/// The paths one run reads and writes, claimed before any work starts.
/// Claiming an output that names an input or an output claimed before, a
/// path inside a directory output (replaced whole) or a directory output
/// holding one claimed before, or standard output (`-`) a second time, is
/// an error. `-` as an input is standard input and conflicts with nothing;
/// so does an existing file that is neither a regular file nor a directory
/// (/dev/null, a pipe), which outputs write in place. Paths are compared
/// after following symbolic links.
class OutputPaths {
public:
  /// `what` names the path in messages: an option (`-o`, `--report`) or a
  /// role (`the model`).
  LogicalResult claimInput(StringRef what, StringRef path, std::string &error);
  LogicalResult claimFile(StringRef what, StringRef path, std::string &error);
  LogicalResult claimDirectory(StringRef what, StringRef path,
                               std::string &error);

private:
  enum class Kind { Input, File, Directory };
  struct Claim {
    Kind kind;
    std::string what, path;
    /// The absolute path, links followed; empty for what never conflicts.
    std::string key;
  };
  LogicalResult claim(Claim claim, std::string &error);
  /// The message for `later` conflicting with `earlier`; "" when they do
  /// not conflict.
  static std::string describeConflict(const Claim &later, const Claim &earlier);

  std::vector<Claim> claims;
};

/// Outputs that are committed together, once all of them are written, in
/// the order they were added. Destroying the group uncommitted discards
/// every output.
/// The group claims every path added (OutputPaths): add the run's inputs
/// with addInput before or along with the outputs.
class OutputGroup {
public:
  /// Claims an input of the run: an output added later may not name it.
  LogicalResult addInput(StringRef path, std::string &error,
                         StringRef what = "the input");
  /// Adds a file output; the pointer stays valid for the group's life.
  /// `what` names it in messages (its option).
  FailureOr<OutputFile *> addFile(StringRef path, std::string &error,
                                  StringRef what = "the output");
  /// Adds a directory output; the pointer stays valid for the group's life.
  FailureOr<OutputDirectory *> addDirectory(StringRef path, std::string &error,
                                            StringRef what = "the directory");

  /// Commits every output in order. At the first failure sets `error` and
  /// discards the outputs not yet committed; those committed before stay.
  LogicalResult commit(std::string &error);

private:
  OutputPaths paths;
  std::vector<std::unique_ptr<OutputFile>> files;
  std::vector<std::unique_ptr<OutputDirectory>> directories;
  /// The commit order: (is a directory, index in its vector).
  std::vector<std::pair<bool, size_t>> order;
};

} // namespace mlir::remat

#endif // REMAT_SUPPORT_OUTPUTFILE_H
