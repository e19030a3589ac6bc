//===- ToolDiagnostics.cpp - diagnostics as remat's tools print them ------===//
//
// Replaces the handler SourceMgrDiagnosticHandler registers with one that
// prints locations without a line by name and leaves long source lines
// unquoted, and otherwise defers to SourceMgrDiagnosticHandler.
//
//===----------------------------------------------------------------------===//

#include "remat/Support/ToolDiagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::remat;

static llvm::SourceMgr::DiagKind getDiagKind(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Note:
    return llvm::SourceMgr::DK_Note;
  case DiagnosticSeverity::Warning:
    return llvm::SourceMgr::DK_Warning;
  case DiagnosticSeverity::Error:
    return llvm::SourceMgr::DK_Error;
  case DiagnosticSeverity::Remark:
    return llvm::SourceMgr::DK_Remark;
  }
  return llvm::SourceMgr::DK_Error;
}

ToolDiagnosticHandler::ToolDiagnosticHandler(llvm::SourceMgr &mgr,
                                             MLIRContext *context)
    : SourceMgrDiagnosticHandler(mgr, context), sourceMgr(mgr) {
  setHandler([this](Diagnostic &diagnostic) { emit(diagnostic); });
}

bool ToolDiagnosticHandler::isLongLine(FileLineColLoc loc) const {
  for (unsigned id = 1, e = sourceMgr.getNumBuffers(); id <= e; ++id) {
    const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(id);
    if (buffer->getBufferIdentifier() != loc.getFilename().getValue())
      continue;
    llvm::SMLoc start = sourceMgr.FindLocForLineAndColumn(id, loc.getLine(), 1);
    if (!start.isValid())
      return false;
    llvm::StringRef rest(start.getPointer(),
                         buffer->getBufferEnd() - start.getPointer());
    return rest.take_until([](char c) { return c == '\n'; }).size() >
           kMaxQuotedLine;
  }
  return false;
}

void ToolDiagnosticHandler::emitOne(Location loc, const Twine &message,
                                    DiagnosticSeverity severity) {
  auto fileLoc = loc->findInstanceOf<FileLineColLoc>();
  if (fileLoc && fileLoc.getLine() == 0) {
    llvm::SMDiagnostic(fileLoc.getFilename().getValue(), getDiagKind(severity),
                       message.str())
        .print(nullptr, llvm::errs());
    return;
  }
  emitDiagnostic(loc, message, severity,
                 /*displaySourceLine=*/!fileLoc || !isLongLine(fileLoc));
}

void ToolDiagnosticHandler::emit(Diagnostic &diagnostic) {
  emitOne(diagnostic.getLocation(), diagnostic.str(),
          diagnostic.getSeverity());
  for (Diagnostic &note : diagnostic.getNotes())
    emitOne(note.getLocation(), note.str(), note.getSeverity());
}
