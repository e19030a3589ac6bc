//===- MemoryModel.cpp - live bytes of a schedule -------------------------===//
//
// A sweep over a difference array: linear in buffers plus steps. The sweep
// sums in 128 bits, so a step whose live bytes leave the int64 range is
// found exactly rather than wrapped into a wrong (even negative) figure.
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/MemoryModel.h"

#include "llvm/Support/CheckedArithmetic.h"

#include <cassert>
#include <limits>

using namespace mlir::remat;

LiveProfile mlir::remat::computeLiveProfile(int64_t argumentBytes,
                                            llvm::ArrayRef<Lifetime> buffers,
                                            int64_t numSteps) {
  LiveProfile profile;
  profile.peakBytes = argumentBytes;
  if (numSteps <= 0)
    return profile;
  std::vector<__int128> delta(numSteps + 1, 0);
  for (const Lifetime &buffer : buffers) {
    assert(0 <= buffer.first && buffer.first <= buffer.last &&
           buffer.last < numSteps && "lifetime outside the schedule");
    delta[buffer.first] += buffer.bytes;
    delta[buffer.last + 1] -= buffer.bytes;
  }
  profile.liveBytes.reserve(numSteps);
  __int128 live = argumentBytes;
  for (int64_t step = 0; step < numSteps; ++step) {
    live += delta[step];
    if (live > std::numeric_limits<int64_t>::max() ||
        live < std::numeric_limits<int64_t>::min()) {
      profile.overflowStep = step;
      return profile;
    }
    profile.liveBytes.push_back(static_cast<int64_t>(live));
    if (profile.peakStep < 0 || live > profile.peakBytes) {
      profile.peakBytes = static_cast<int64_t>(live);
      profile.peakStep = step;
    }
  }
  return profile;
}

std::optional<int64_t> mlir::remat::addBytes(int64_t a, int64_t b) {
  return llvm::checkedAdd(a, b);
}

int64_t mlir::remat::addBytesSaturated(int64_t a, int64_t b) {
  if (std::optional<int64_t> sum = llvm::checkedAdd(a, b))
    return *sum;
  return b > 0 ? std::numeric_limits<int64_t>::max()
               : std::numeric_limits<int64_t>::min();
}
