//===- Random.cpp - the counter-based generator of remat's executors ------===//

#include "remat/Execution/Random.h"

#include <cmath>

using namespace mlir::remat;

uint64_t mlir::remat::getStreamKey(uint64_t seed, llvm::StringRef name) {
  uint64_t hash = 0xcbf29ce484222325ULL; // FNV-1a, 64 bit
  for (unsigned char c : name) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return mixBits(seed ^ hash);
}

uint64_t mlir::remat::getRandomBits(uint64_t key, uint64_t index) {
  return mixBits(key + (index + 1) * kSplitMixIncrement);
}

double mlir::remat::getUniform(uint64_t key, uint64_t index) {
  return double(getRandomBits(key, index) >> 11) * 0x1.0p-53;
}

double mlir::remat::getNormal(uint64_t key, uint64_t index) {
  double u1 = getUniform(key, 2 * index), u2 = getUniform(key, 2 * index + 1);
  return std::sqrt(-2.0 * std::log(1.0 - u1)) *
         std::cos(2.0 * 3.14159265358979323846 * u2);
}
