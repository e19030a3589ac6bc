//===- ToolDiagnostics.h - diagnostics as remat's tools print them -*- C++ -*-//
//
// The tools' diagnostic handler: SourceMgrDiagnosticHandler's output, with
// two changes that keep every message short and readable. A location with
// no line (line 0: a whole input file such as a TorchScript model, or a
// command-line option such as `--device`) prints as its name alone
// (`model.pt: error: ...`, not `model.pt:0:0:`), and a source line longer
// than kMaxQuotedLine characters (a function's signature with a hundred
// arguments) is not quoted under the message: its location is enough.
// Tools that use it also turn off printing the op after a diagnostic, which
// for a function is the whole function.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SUPPORT_TOOLDIAGNOSTICS_H
#define REMAT_SUPPORT_TOOLDIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::remat {

class ToolDiagnosticHandler : public SourceMgrDiagnosticHandler {
public:
  /// Longest source line quoted under a message.
  static constexpr size_t kMaxQuotedLine = 300;

  ToolDiagnosticHandler(llvm::SourceMgr &mgr, MLIRContext *context);

private:
  void emit(Diagnostic &diagnostic);
  void emitOne(Location loc, const Twine &message,
               DiagnosticSeverity severity);
  /// Whether the source line at `loc` is in a buffer of the source manager
  /// and longer than kMaxQuotedLine.
  bool isLongLine(FileLineColLoc loc) const;

  llvm::SourceMgr &sourceMgr;
};

} // namespace mlir::remat

#endif // REMAT_SUPPORT_TOOLDIAGNOSTICS_H
