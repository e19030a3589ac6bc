//===- StepWriter.h - what the CUDA lowerings of nn ops share ---*- C++ -*-===//
//
// The emitted step is C++ text in two parts: generated kernels (before the
// step function) and the statements of the step function. A StepWriter
// knows where every value lives - an argument's device pointer or its
// planned offset in the arena - and hands out both streams. Lowerings are in
// ElementwiseKernels.cpp (generated kernels, fused along chains of
// element-wise ops) and LibraryCalls.cpp (cuDNN, cuBLAS and the runtime's
// kernels, Runtime/*.cuh).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_TARGET_CUDA_STEPWRITER_H
#define REMAT_LIB_TARGET_CUDA_STEPWRITER_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::remat::cuda {

class StepWriter {
public:
  explicit StepWriter(FunctionOpInterface function);

  /// The C type of `value`'s elements (`float`, `int64_t`), or "" when the
  /// CUDA lowering has none.
  static std::string getElementCType(Value value);
  /// A typed device pointer to `value`: `((float *)(arena + 256))`,
  /// `((const int64_t *)args[1])`.
  std::string getPointer(Value value) const;
  std::string getConstPointer(Value value) const;
  /// `pointer, bytes` of `op`'s planned workspace (`nullptr, 0` for none).
  std::string getWorkspace(Operation *op) const;
  /// A C++ string literal naming the op in messages (its `remat.name`).
  static std::string getOpLabel(Operation *op);

  /// `prefix` followed by a number unique in the step.
  std::string getUniqueName(llvm::StringRef prefix) {
    return prefix.str() + std::to_string(uniqueCount++);
  }
  llvm::raw_string_ostream &kernels() { return kernelStream; }
  llvm::raw_string_ostream &body() { return bodyStream; }

private:
  std::string getPointer(Value value, bool isConst) const;

  llvm::DenseMap<Value, int64_t> argumentIndex;
  int uniqueCount = 0;
  std::string kernelText, bodyText;
  llvm::raw_string_ostream kernelStream{kernelText};
  llvm::raw_string_ostream bodyStream{bodyText};
};

/// Element count of a ranked tensor value.
int64_t getElementCount(Value value);
/// Sizes of a ranked tensor value.
ArrayRef<int64_t> getShape(Value value);

/// Whether `op` becomes (part of) a generated element-wise kernel.
bool isElementwise(Operation *op);
/// Whether one kernel for `group` (as emitElementwiseGroup writes it) would
/// write bytes that another of its threads still reads or writes: the memory
/// plan lets a result reuse the slot of a value that died at an earlier op,
/// which is safe op by op but not within one kernel, whose threads run the
/// whole group element by element (and read broadcast operands at other
/// elements).
bool hasFusionHazard(ArrayRef<Operation *> group);
/// Writes one kernel for `group`: element-wise ops in schedule order of one
/// result shape, each after the first reading its predecessor's result.
/// Values read only inside the group stay in registers.
void emitElementwiseGroup(ArrayRef<Operation *> group, StepWriter &writer);

/// Writes the library or runtime call of a non-element-wise op; fails with
/// a diagnostic on an op that has no CUDA lowering.
LogicalResult emitLibraryCall(Operation *op, StepWriter &writer);

} // namespace mlir::remat::cuda

#endif // REMAT_LIB_TARGET_CUDA_STEPWRITER_H
