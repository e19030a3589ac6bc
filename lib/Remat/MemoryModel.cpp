//===- MemoryModel.cpp - live bytes of a schedule -------------------------===//
//
// A sweep over a difference array: linear in buffers plus steps.
//
//===----------------------------------------------------------------------===//

#include "remat/Remat/MemoryModel.h"

#include <cassert>

using namespace mlir::remat;

LiveProfile mlir::remat::computeLiveProfile(int64_t argumentBytes,
                                            llvm::ArrayRef<Lifetime> buffers,
                                            int64_t numSteps) {
  LiveProfile profile;
  profile.peakBytes = argumentBytes;
  if (numSteps <= 0)
    return profile;
  std::vector<int64_t> delta(numSteps + 1, 0);
  for (const Lifetime &buffer : buffers) {
    assert(0 <= buffer.first && buffer.first <= buffer.last &&
           buffer.last < numSteps && "lifetime outside the schedule");
    delta[buffer.first] += buffer.bytes;
    delta[buffer.last + 1] -= buffer.bytes;
  }
  profile.liveBytes.resize(numSteps);
  int64_t live = argumentBytes;
  for (int64_t step = 0; step < numSteps; ++step) {
    live += delta[step];
    profile.liveBytes[step] = live;
    if (profile.peakStep < 0 || live > profile.peakBytes) {
      profile.peakBytes = live;
      profile.peakStep = step;
    }
  }
  return profile;
}
