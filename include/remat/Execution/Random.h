//===- Random.h - the counter-based generator of remat's executors -*- C++ -*-//
//
// One generator for every executor (remat-run and the CUDA harness), so that
// the same seed gives the same inputs and the same dropout masks anywhere.
// Counter-based: element i of a stream is a pure function of the stream's
// key and i, so any element can be computed independently and in parallel.
//
//   key(seed, name)  = mix(seed ^ fnv1a64(name))
//   bits(key, i)     = mix(key + (i + 1) * 0x9e3779b97f4a7c15)
//   uniform(key, i)  = (bits(key, i) >> 11) * 2^-53            in [0, 1)
//   normal(key, i)   = sqrt(-2 ln(1 - uniform(key, 2i)))
//                      * cos(2 pi uniform(key, 2i + 1))
//
// where mix is splitmix64's finalizer. Dropout keeps element i when
// uniform(mix(seed value), i) >= p.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_EXECUTION_RANDOM_H
#define REMAT_EXECUTION_RANDOM_H

#include "remat/Support/SplitMix.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::remat {

/// The key of the stream that fills the argument `name` under `seed`.
uint64_t getStreamKey(uint64_t seed, llvm::StringRef name);

uint64_t getRandomBits(uint64_t key, uint64_t index);
double getUniform(uint64_t key, uint64_t index);
double getNormal(uint64_t key, uint64_t index);

} // namespace mlir::remat

#endif // REMAT_EXECUTION_RANDOM_H
