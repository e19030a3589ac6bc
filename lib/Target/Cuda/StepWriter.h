//===- StepWriter.h - what the CUDA lowerings of nn ops share ---*- C++ -*-===//
//
// The emitted step is C++ text in two parts: generated kernels (before the
// step function) and the statements of the step function. A StepWriter
// knows where every value lives (ValueStorage): in an argument's buffer (the
// argument, the new value of an updated argument, a view of either) or at
// its owner's planned offset in the arena (a view shares its source's
// bytes) - and hands out both streams. Lowerings are in
// ElementwiseKernels.cpp (generated kernels, fused along chains of
// element-wise ops) and LibraryCalls.cpp (cuDNN, cuBLAS and the runtime's
// kernels, Runtime/*.cuh).
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_LIB_TARGET_CUDA_STEPWRITER_H
#define REMAT_LIB_TARGET_CUDA_STEPWRITER_H

#include "remat/Analysis/ValueStorage.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::remat::cuda {

/// Where a value's bytes are: `argument` >= 0 for that argument's buffer
/// (at `offset` 0), -1 for the arena at `offset`.
struct BufferPlace {
  int64_t argument = -1;
  int64_t offset = 0;
  bool operator==(const BufferPlace &other) const {
    return argument == other.argument && offset == other.offset;
  }
};

class StepWriter {
public:
  explicit StepWriter(FunctionOpInterface function);

  const ValueStorage &getStorage() const { return storage; }
  /// Where `value`'s bytes are: its owner's buffer (ValueStorage), except
  /// for a materialized view.
  BufferPlace getPlace(Value value) const;
  /// Whether `value`, the result of a view op, has bytes of its own: a plan
  /// made before views shared their source's bytes gives it an arena slot of
  /// its own (an offset other than its source's), which the source's bytes
  /// may not outlive; the view is then copied into that slot.
  /// Views of arguments never are: arguments live all step, and no op reads
  /// a view of an argument after its update (the remat dialect's verifier).
  bool isMaterializedView(Value value) const;
  /// The bytes of `value` (elements times element size).
  static int64_t getByteSize(Value value);

  /// The C type of `value`'s elements (`float`, `int64_t`), or "" when the
  /// CUDA lowering has none.
  static std::string getElementCType(Value value);
  /// A typed device pointer to `value`: `((float *)(arena + 256))`,
  /// `((const int64_t *)args[1])`.
  std::string getPointer(Value value) const;
  std::string getConstPointer(Value value) const;
  /// A typed pointer `bytes` long in the scratch area after the arena (for
  /// an update whose library call is not alias-safe); the area is as large
  /// as the largest `totalBytes` any op asked for.
  std::string getScratchPointer(Value value, int64_t offset) const;
  void reserveScratch(int64_t totalBytes) {
    scratchBytes = std::max(scratchBytes, totalBytes);
  }
  int64_t getScratchBytes() const { return scratchBytes; }
  /// Where the scratch area starts in the arena block: after the planned
  /// arena, 256-byte aligned.
  int64_t getScratchOffset() const;
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

  /// An optimizer update of the step: its weight's name, its kind (`sgd`,
  /// `adam`) and the values of its op's attributes, in the runtime's
  /// Hyperparameter order, which the harness starts from and a host that
  /// loads the step as a library replaces.
  struct Update {
    std::string weight;
    std::string kind;
    std::vector<double> defaults;
  };
  /// Adds an update; returns the expression of its hyperparameter `name`
  /// (one of the runtime's Hyperparameter enumerators) for each name asked:
  /// `ctx.hyperparameters[<base> + remat_rt::kLr]`.
  std::vector<std::string> addUpdate(Update update,
                                     llvm::ArrayRef<llvm::StringRef> names);
  const std::vector<Update> &getUpdates() const { return updates; }

private:
  std::string getPointer(Value value, bool isConst) const;
  /// The planned offset of an op result (from its op's remat.placement).
  static int64_t getPlannedOffset(Value result);

  ValueStorage storage;
  int64_t arenaBytes = 0, scratchBytes = 0;
  int uniqueCount = 0;
  std::vector<Update> updates;
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
/// and an updated argument's new value takes its old value's bytes, which is
/// safe op by op but not within one kernel, whose threads run the
/// whole group element by element (and read broadcast operands at other
/// elements).
bool hasFusionHazard(ArrayRef<Operation *> group, const StepWriter &writer);
/// Writes one kernel for `group`: element-wise ops in schedule order of one
/// result shape, each after the first reading its predecessor's result.
/// Values read only inside the group stay in registers.
void emitElementwiseGroup(ArrayRef<Operation *> group, StepWriter &writer);

/// Writes the library or runtime call of a non-element-wise op; fails with
/// a diagnostic on an op that has no CUDA lowering.
LogicalResult emitLibraryCall(Operation *op, StepWriter &writer);

} // namespace mlir::remat::cuda

#endif // REMAT_LIB_TARGET_CUDA_STEPWRITER_H
