//===- FileName.h - names used as one file name -----------------*- C++ -*-===//
//
// Names that come from a module (a result's remat.name, an argument's) and
// become a file inside a directory the user named (`<dir>/<name>.npy`) must
// stay inside it: one path component, never `..`.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SUPPORT_FILENAME_H
#define REMAT_SUPPORT_FILENAME_H

#include "llvm/ADT/StringRef.h"

namespace mlir::remat {

/// Why `name` cannot be one file name inside a directory (empty, `.` or
/// `..`, or holding a path separator or a NUL), or an empty string when it
/// can.
inline llvm::StringRef whyNotPlainFileName(llvm::StringRef name) {
  if (name.empty())
    return "it is empty";
  if (name == "." || name == "..")
    return "it names a directory";
  if (name.find_first_of(llvm::StringRef("/\\\0", 3)) != llvm::StringRef::npos)
    return "it holds a path separator or a NUL";
  return "";
}

} // namespace mlir::remat

#endif // REMAT_SUPPORT_FILENAME_H
