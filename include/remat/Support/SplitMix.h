//===- SplitMix.h - splitmix64, the project's one bit mixer ------*- C++ -*-===//
//
// splitmix64's finalizer and generator step. Shared by the executors'
// counter-based generator, the seeded graph generator and the solvers'
// deterministic sampling, so that there is one definition of the mixing.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_SUPPORT_SPLITMIX_H
#define REMAT_SUPPORT_SPLITMIX_H

#include <cstdint>

namespace mlir::remat {

/// The golden-ratio increment of splitmix64.
inline constexpr uint64_t kSplitMixIncrement = 0x9e3779b97f4a7c15ULL;

/// splitmix64's finalizer: a bijective, well-mixed function of 64 bits.
inline uint64_t mixBits(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

} // namespace mlir::remat

#endif // REMAT_SUPPORT_SPLITMIX_H
