//===- ToolMain.h - the edge of every remat tool ----------------*- C++ -*-===//
//
// Every tool's main runs its body through runToolMain: an exception that
// escapes the body (a C++ library's std::exception, LibTorch's c10::Error,
// std::bad_alloc) becomes one clean line on stderr and exit status 1, never
// an abort with a stack dump. The temporaries of outputs not yet committed
// are removed as on a fatal signal, so nothing half-written stays behind.
// With the environment variable REMAT_TEST_THROW_AT_TOOL_EDGE set, the edge
// throws its value before the body runs: the tests check each tool with it.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SUPPORT_TOOLMAIN_H
#define REMAT_SUPPORT_TOOLMAIN_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::remat {

/// Runs `body` and returns its exit status; when it throws, prints
/// `<toolName>: error: <what the exception says>` and returns 1.
int runToolMain(llvm::StringRef toolName, llvm::function_ref<int()> body);

/// An exception's message as a tool prints it: without the backtrace that
/// LibTorch appends to its errors ("Exception raised from ...") and without
/// trailing white space.
std::string getExceptionMessage(llvm::StringRef what);

} // namespace mlir::remat

#endif // REMAT_SUPPORT_TOOLMAIN_H
