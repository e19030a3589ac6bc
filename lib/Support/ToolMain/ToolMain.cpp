//===- ToolMain.cpp - the edge of every remat tool ------------------------===//
//
// Built with exceptions (the rest of the tools are not): the catch is here.
// An exception unwinds through the frames compiled without them, which have
// unwind tables but no cleanups; the output temporaries those frames held
// are removed through LLVM's remove-on-signal list instead.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/ToolMain.h"

#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <exception>
#include <stdexcept>

using namespace mlir;

std::string mlir::remat::getExceptionMessage(llvm::StringRef what) {
  size_t backtrace = what.find("\nException raised from ");
  return what.take_front(backtrace).rtrim().str();
}

/// Prints the error line, removes uncommitted temporaries and returns 1.
static int reportEscaped(llvm::StringRef toolName, llvm::StringRef message) {
  llvm::errs() << toolName << ": error: " << message << "\n";
  llvm::errs().flush();
  llvm::sys::RunInterruptHandlers();
  return 1;
}

int mlir::remat::runToolMain(llvm::StringRef toolName,
                             llvm::function_ref<int()> body) {
  try {
    // The tests' way to check that each tool's edge catches.
    if (const char *message = std::getenv("REMAT_TEST_THROW_AT_TOOL_EDGE"))
      throw std::runtime_error(message);
    return body();
  } catch (const std::bad_alloc &) {
    return reportEscaped(toolName, "out of memory");
  } catch (const std::exception &error) {
    return reportEscaped(toolName, getExceptionMessage(error.what()));
  } catch (...) {
    return reportEscaped(toolName, "an unknown exception escaped");
  }
}
