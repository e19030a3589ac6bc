//===- cuda_emulation.h - a host emulation of the CUDA surface of steps ---===//
//
// TEST INFRASTRUCTURE ONLY: this is not a CUDA implementation. It lets the
// sources `remat-translate --emit-cuda` writes run on a CPU, so that CI can
// compare their results with remat-run's (test/Target/Cuda/emulated.test);
// emulate.py turns an emitted source into host C++ that includes this file.
// Nothing here is fast, and nothing here says anything about performance or
// device memory on a GPU.
//
// What it emulates, and how:
//
// - Kernels: `kernel<<<grid, block, shmem, stream>>>(args)` becomes
//   `remat_emu::Launch(kernel, "kernel", grid, block, shmem, stream)(args)`,
//   which runs the grid's blocks one after another and, in each block, its
//   threads one after another on one OS thread. Threads are cooperative
//   fibers: a thread runs until it finishes or waits at __syncthreads or a
//   warp shuffle; a fiber is only made when a thread actually waits, so a
//   kernel without barriers costs one fiber per block. A barrier releases
//   when every thread of the block (every lane of the warp, for shuffles)
//   that has not finished waits there, as on Volta and later; anything else
//   is reported as a deadlock. `__shared__` becomes `static` (blocks never
//   overlap), atomicAdd is a plain add (one OS thread). Launch
//   configurations are checked as CUDA checks them (block and grid sizes);
//   a failed launch is reported by cudaGetLastError. REMAT_EMU_ORDER=reverse
//   runs blocks and threads last first, so that a race (a result that
//   depends on the order) shows as a difference between two runs.
// - The CUDA runtime: device memory is host memory (256-byte aligned,
//   filled with 0xff bytes - NaN floats, -1 integers - when allocated, as
//   uninitialized device memory would be anything); copies and memsets check
//   that their device ranges lie inside one allocation and do not overlap;
//   streams run everything at once (synchronously); events read the wall
//   clock; cudaMemGetInfo reports a fixed fake total minus the allocations
//   (rounded up to 2 MiB), so the harness's memory figures are not GPU
//   measurements.
// - cuBLAS: cublasSgemm and cublasSgemmStridedBatched as the column-major
//   reference product (double accumulation), with the library's argument
//   checks (sizes, leading dimensions), alpha and beta (beta == 0 never
//   reads C), and TF32 rounding of the inputs if the handle asks for TF32.
// - cuDNN: the legacy convolution API on NCHW float tensors as naive
//   reference loops (cross-correlation or convolution, padding, stride,
//   dilation, groups, alpha and beta), with descriptor checks. The
//   Get*Algorithm_v7 heuristics rank two algorithms: one that needs a
//   workspace (so that the runtime's workspace fitting is exercised: it must
//   be skipped when the plan gives none, and when it runs its workspace is
//   overwritten) and the no-workspace one. Every algorithm computes the same
//   reference result; TF32 math types round the inputs as TF32 would.
//
// Errors that no CUDA call could report (a deadlocked barrier, a copy out of
// its allocation) print "cuda emulation: error: ..." and exit with status 3.
//
//===----------------------------------------------------------------------===//

#ifndef REMAT_TEST_CUDA_EMULATION_H
#define REMAT_TEST_CUDA_EMULATION_H

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <vector>

// Device code calls these unqualified, as CUDA's math library provides them.
using std::isinf;
using std::isnan;

namespace remat_emu {

[[noreturn, gnu::format(printf, 1, 2)]] inline void fatal(const char *format,
                                                          ...) {
  std::fflush(stdout);
  std::fprintf(stderr, "cuda emulation: error: ");
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fprintf(stderr, "\n");
  std::exit(3);
}

} // namespace remat_emu

//===----------------------------------------------------------------------===//
// Built-in variables and types
//===----------------------------------------------------------------------===//

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1)
      : x(x), y(y), z(z) {}
};

// Set by the scheduler whenever a thread (re)starts running.
inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

//===----------------------------------------------------------------------===//
// The CUDA runtime: errors, memory, streams, events
//===----------------------------------------------------------------------===//

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
};
typedef cudaError_t cudaError;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMultiProcessorCount = 16,
};

struct CUstream_st {
  int unused;
};
typedef CUstream_st *cudaStream_t;
struct CUevent_st {
  bool recorded = false;
  std::chrono::steady_clock::time_point time;
};
typedef CUevent_st *cudaEvent_t;

inline const char *cudaGetErrorString(cudaError_t error) {
  switch (error) {
  case cudaSuccess:
    return "no error";
  case cudaErrorInvalidValue:
    return "invalid argument";
  case cudaErrorMemoryAllocation:
    return "out of memory";
  case cudaErrorInvalidConfiguration:
    return "invalid configuration argument";
  case cudaErrorInvalidPitchValue:
    return "invalid pitch argument";
  case cudaErrorInvalidDevicePointer:
    return "invalid device pointer";
  case cudaErrorInvalidMemcpyDirection:
    return "invalid copy direction for memcpy";
  case cudaErrorInvalidDevice:
    return "invalid device ordinal";
  case cudaErrorInvalidResourceHandle:
    return "invalid resource handle";
  }
  return "unknown error";
}

namespace remat_emu {

/// The emulated device: its allocations, the fake memory figures and the
/// error the next cudaGetLastError returns.
struct Device {
  struct Allocation {
    char *base;
    size_t bytes;
  };
  std::vector<Allocation> allocations;
  /// What cudaMemGetInfo reports: an H200's 141 GiB less the allocations,
  /// each rounded up to the driver's 2 MiB pages. Not a measurement.
  static constexpr size_t kTotalBytes = size_t(141) << 30;
  static constexpr size_t kPageBytes = size_t(2) << 20;
  size_t allocatedBytes = 0;
  cudaError_t lastError = cudaSuccess;
  int multiProcessors = 132;
};
inline Device device;

/// The allocation holding [p, p + bytes), or null.
inline const Device::Allocation *findAllocation(const void *p, size_t bytes) {
  const char *c = static_cast<const char *>(p);
  for (const Device::Allocation &a : device.allocations)
    if (c >= a.base && c <= a.base + a.bytes && bytes <= size_t(a.base + a.bytes - c))
      return &a;
  return nullptr;
}

inline bool isDevicePointer(const void *p) {
  return p && findAllocation(p, 0) != nullptr;
}

#ifdef REMAT_STEP_LIBRARY
/// A step built as a library (Library.cuh) runs on buffers its host owns
/// (remat's Python tests: CPU tensors): the host lends them as device
/// allocations for the step's run and takes them back after.
extern "C" __attribute__((visibility("default"))) void
remat_emu_lend(void *base, size_t bytes) {
  device.allocations.push_back({static_cast<char *>(base), bytes});
}
extern "C" __attribute__((visibility("default"))) void
remat_emu_take_back(void *base) {
  for (size_t i = device.allocations.size(); i-- > 0;)
    if (device.allocations[i].base == base) {
      device.allocations.erase(device.allocations.begin() + i);
      return;
    }
}
#endif

/// Fails the run unless [p, p + bytes) is device memory (an emitted step
/// reading or writing outside its arena is a bug the emulation reports).
inline void checkDeviceRange(const void *p, size_t bytes, const char *what) {
  if (bytes == 0)
    return;
  if (!p || !findAllocation(p, bytes))
    fatal("%s: %zu bytes at %p are not inside one device allocation", what,
          bytes, p);
}

inline bool overlaps(const void *a, size_t aBytes, const void *b,
                     size_t bBytes) {
  const char *x = static_cast<const char *>(a), *y = static_cast<const char *>(b);
  return aBytes > 0 && bBytes > 0 && x < y + bBytes && y < x + aBytes;
}

} // namespace remat_emu

inline cudaError_t cudaGetLastError() {
  cudaError_t error = remat_emu::device.lastError;
  remat_emu::device.lastError = cudaSuccess;
  return error;
}
inline cudaError_t cudaPeekAtLastError() { return remat_emu::device.lastError; }

inline cudaError_t cudaSetDevice(int ordinal) {
  return ordinal == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}
inline cudaError_t cudaGetDevice(int *ordinal) {
  if (!ordinal)
    return cudaErrorInvalidValue;
  *ordinal = 0;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attribute,
                                          int ordinal) {
  if (!value || ordinal != 0)
    return ordinal != 0 ? cudaErrorInvalidDevice : cudaErrorInvalidValue;
  switch (attribute) {
  case cudaDevAttrMaxThreadsPerBlock:
    *value = 1024;
    return cudaSuccess;
  case cudaDevAttrMultiProcessorCount:
    *value = remat_emu::device.multiProcessors;
    return cudaSuccess;
  }
  return cudaErrorInvalidValue;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }

inline cudaError_t cudaMalloc(void **pointer, size_t bytes) {
  if (!pointer)
    return cudaErrorInvalidValue;
  size_t rounded = (bytes + 255) / 256 * 256;
  char *base = static_cast<char *>(std::aligned_alloc(256, rounded ? rounded : 256));
  if (!base)
    return cudaErrorMemoryAllocation;
  // Fresh device memory holds anything: NaN floats and -1 integers here.
  std::memset(base, 0xff, rounded ? rounded : 256);
  remat_emu::device.allocations.push_back({base, bytes});
  remat_emu::device.allocatedBytes +=
      (bytes + remat_emu::Device::kPageBytes - 1) /
      remat_emu::Device::kPageBytes * remat_emu::Device::kPageBytes;
  *pointer = base;
  return cudaSuccess;
}
/// cuda_runtime.h's typed overload (`cudaMalloc(&floatPointer, bytes)`).
template <typename T> inline cudaError_t cudaMalloc(T **pointer, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void **>(pointer), bytes);
}

inline cudaError_t cudaFree(void *pointer) {
  if (!pointer)
    return cudaSuccess; // also what creates the context on a GPU
  auto &all = remat_emu::device.allocations;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].base == pointer) {
      remat_emu::device.allocatedBytes -=
          (all[i].bytes + remat_emu::Device::kPageBytes - 1) /
          remat_emu::Device::kPageBytes * remat_emu::Device::kPageBytes;
      std::free(all[i].base);
      all.erase(all.begin() + i);
      return cudaSuccess;
    }
  return cudaErrorInvalidDevicePointer;
}

/// Pinned host memory: plain host memory here (the harness copies each
/// step's loss into it).
inline cudaError_t cudaMallocHost(void **pointer, size_t bytes) {
  if (!pointer)
    return cudaErrorInvalidValue;
  *pointer = std::malloc(bytes ? bytes : 1);
  return *pointer ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <typename T>
inline cudaError_t cudaMallocHost(T **pointer, size_t bytes) {
  return cudaMallocHost(reinterpret_cast<void **>(pointer), bytes);
}
inline cudaError_t cudaFreeHost(void *pointer) {
  std::free(pointer);
  return cudaSuccess;
}

inline cudaError_t cudaMemGetInfo(size_t *freeBytes, size_t *totalBytes) {
  if (!freeBytes || !totalBytes)
    return cudaErrorInvalidValue;
  *totalBytes = remat_emu::Device::kTotalBytes;
  *freeBytes = remat_emu::Device::kTotalBytes - remat_emu::device.allocatedBytes;
  return cudaSuccess;
}

namespace remat_emu {

/// The checks of a copy of `bytes` in direction `kind`.
inline cudaError_t checkCopy(void *dst, const void *src, size_t bytes,
                             cudaMemcpyKind kind, const char *what) {
  if (bytes == 0)
    return cudaSuccess;
  if (!dst || !src)
    return cudaErrorInvalidValue;
  bool dstDevice, srcDevice;
  switch (kind) {
  case cudaMemcpyHostToDevice:
    dstDevice = true, srcDevice = false;
    break;
  case cudaMemcpyDeviceToHost:
    dstDevice = false, srcDevice = true;
    break;
  case cudaMemcpyDeviceToDevice:
    dstDevice = srcDevice = true;
    break;
  case cudaMemcpyHostToHost:
    dstDevice = srcDevice = false;
    break;
  case cudaMemcpyDefault:
    dstDevice = isDevicePointer(dst), srcDevice = isDevicePointer(src);
    break;
  default:
    return cudaErrorInvalidMemcpyDirection;
  }
  if (dstDevice != isDevicePointer(dst) || srcDevice != isDevicePointer(src))
    return cudaErrorInvalidValue;
  if (dstDevice)
    checkDeviceRange(dst, bytes, what);
  if (srcDevice)
    checkDeviceRange(src, bytes, what);
  return cudaSuccess;
}

} // namespace remat_emu

inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes,
                              cudaMemcpyKind kind) {
  cudaError_t status = remat_emu::checkCopy(dst, src, bytes, kind, "cudaMemcpy");
  if (status != cudaSuccess || bytes == 0)
    return status;
  if (remat_emu::overlaps(dst, bytes, src, bytes))
    remat_emu::fatal("cudaMemcpy: overlapping ranges (%p, %p, %zu bytes)", dst,
                     src, bytes);
  std::memcpy(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                                   cudaMemcpyKind kind, cudaStream_t = nullptr) {
  return cudaMemcpy(dst, src, bytes, kind);
}

inline cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                                     size_t spitch, size_t width,
                                     size_t height, cudaMemcpyKind kind,
                                     cudaStream_t = nullptr) {
  if (width == 0 || height == 0)
    return cudaSuccess;
  if (width > dpitch || width > spitch)
    return cudaErrorInvalidPitchValue;
  size_t dstExtent = dpitch * (height - 1) + width;
  size_t srcExtent = spitch * (height - 1) + width;
  cudaError_t status = remat_emu::checkCopy(dst, src, 0, kind, "cudaMemcpy2DAsync");
  if (status == cudaSuccess)
    status = remat_emu::checkCopy(dst, src, 1, kind, "cudaMemcpy2DAsync");
  if (status != cudaSuccess)
    return status;
  if (remat_emu::isDevicePointer(dst))
    remat_emu::checkDeviceRange(dst, dstExtent, "cudaMemcpy2DAsync (destination)");
  if (remat_emu::isDevicePointer(src))
    remat_emu::checkDeviceRange(src, srcExtent, "cudaMemcpy2DAsync (source)");
  if (remat_emu::overlaps(dst, dstExtent, src, srcExtent))
    remat_emu::fatal("cudaMemcpy2DAsync: overlapping ranges");
  for (size_t row = 0; row < height; ++row)
    std::memcpy(static_cast<char *>(dst) + row * dpitch,
                static_cast<const char *>(src) + row * spitch, width);
  return cudaSuccess;
}

inline cudaError_t cudaMemsetAsync(void *pointer, int value, size_t bytes,
                                   cudaStream_t = nullptr) {
  if (bytes == 0)
    return cudaSuccess;
  if (!remat_emu::isDevicePointer(pointer))
    return cudaErrorInvalidValue;
  remat_emu::checkDeviceRange(pointer, bytes, "cudaMemsetAsync");
  std::memset(pointer, value, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void *pointer, int value, size_t bytes) {
  return cudaMemsetAsync(pointer, value, bytes);
}

inline cudaError_t cudaStreamCreate(cudaStream_t *stream) {
  if (!stream)
    return cudaErrorInvalidValue;
  *stream = new CUstream_st{};
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (!stream)
    return cudaErrorInvalidResourceHandle;
  delete stream;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

inline cudaError_t cudaEventCreate(cudaEvent_t *event) {
  if (!event)
    return cudaErrorInvalidValue;
  *event = new CUevent_st{};
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t event) {
  if (!event)
    return cudaErrorInvalidResourceHandle;
  delete event;
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t = nullptr) {
  if (!event)
    return cudaErrorInvalidResourceHandle;
  event->recorded = true;
  event->time = std::chrono::steady_clock::now();
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return event ? cudaSuccess : cudaErrorInvalidResourceHandle;
}
/// Wall-clock milliseconds between the two records (the steps run on the
/// CPU: not a GPU time).
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start,
                                        cudaEvent_t stop) {
  if (!ms)
    return cudaErrorInvalidValue;
  if (!start || !stop || !start->recorded || !stop->recorded)
    return cudaErrorInvalidResourceHandle;
  *ms = std::chrono::duration<float, std::milli>(stop->time - start->time).count();
  return cudaSuccess;
}

//===----------------------------------------------------------------------===//
// Kernels: blocks of cooperative threads
//===----------------------------------------------------------------------===//

namespace remat_emu {

/// A fiber's saved registers. On x86-64 ELF a switch is a few instructions
/// (remat_emu_switch below: the callee-saved registers and the stack
/// pointer; one definition, so this header goes into one translation unit);
/// elsewhere, or with REMAT_EMU_UCONTEXT defined, ucontext's swapcontext,
/// which costs a system call per switch.
#if defined(__x86_64__) && defined(__ELF__) && !defined(REMAT_EMU_UCONTEXT)
struct FiberContext {
  void *sp = nullptr;
};
extern "C" void remat_emu_switch(void **save, void *load);
asm(R"(
  .pushsection .text
  .globl remat_emu_switch
  .type remat_emu_switch, @function
remat_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size remat_emu_switch, .-remat_emu_switch
  .popsection
)");
inline void switchContext(FiberContext &from, FiberContext &to) {
  remat_emu_switch(&from.sp, to.sp);
}
/// A context that starts `entry` (which never returns) on the stack.
inline void makeContext(FiberContext &context, char *stack, size_t bytes,
                        void (*entry)()) {
  void **sp = reinterpret_cast<void **>(stack + bytes); // 16-byte aligned
  *--sp = nullptr;                         // entry's return address
  *--sp = reinterpret_cast<void *>(entry); // where the switch returns to
  for (int i = 0; i < 6; ++i)
    *--sp = nullptr; // rbp, rbx, r12-r15
  context.sp = sp;
}
#else
struct FiberContext {
  ucontext_t context;
};
inline void switchContext(FiberContext &from, FiberContext &to) {
  if (swapcontext(&from.context, &to.context) != 0)
    fatal("swapcontext failed");
}
inline void makeContext(FiberContext &context, char *stack, size_t bytes,
                        void (*entry)()) {
  if (getcontext(&context.context) != 0)
    fatal("getcontext failed");
  context.context.uc_stack.ss_sp = stack;
  context.context.uc_stack.ss_size = bytes;
  context.context.uc_link = nullptr;
  makecontext(&context.context, entry, 0);
}
#endif

/// One fiber: the stack and saved context of a thread that waits (or of the
/// runner that starts threads one after another).
struct Fiber {
  FiberContext context;
  char *stack = nullptr; // the usable stack, above a guard page
  unsigned thread = 0;   // the thread it runs now
  bool done = false;     // returned to the scheduler for good
};

enum class ThreadState : unsigned char {
  Running,
  AtBlockBarrier,
  AtWarpBarrier,
  Finished,
};

/// The block being run (one at a time).
struct BlockRun {
  static constexpr size_t kStackBytes = size_t(256) << 10;
  FiberContext scheduler;
  void (*body)(void *) = nullptr; // runs the kernel for the current thread
  void *bodyData = nullptr;
  unsigned threads = 0, nextThread = 0, finished = 0;
  std::vector<ThreadState> state;
  std::vector<Fiber *> waiting; // by thread: its fiber while it waits
  Fiber *current = nullptr;
  // Warp shuffles: two slots per thread, used alternately, so that a lane
  // may write its next value while slower lanes still read the last one.
  std::vector<uint64_t> shuffleSlots;
  std::vector<unsigned char> shufflePhase; // by thread: the slot to use next
  std::vector<Fiber *> pool; // fibers whose stacks can be reused
  const char *kernelName = ""; // the kernel running, for messages
  /// REMAT_EMU_ORDER=reverse runs blocks and threads last first: a result
  /// that changes with the order (beyond float rounding) shows a race.
  bool reverse = [] {
    const char *order = std::getenv("REMAT_EMU_ORDER");
    if (order && std::strcmp(order, "reverse") != 0 &&
        std::strcmp(order, "forward") != 0)
      fatal("REMAT_EMU_ORDER must be forward or reverse, not '%s'", order);
    return order && std::strcmp(order, "reverse") == 0;
  }();
};
inline BlockRun block;

inline void setThreadIndex(unsigned t) {
  threadIdx.x = t % blockDim.x;
  threadIdx.y = (t / blockDim.x) % blockDim.y;
  threadIdx.z = t / (blockDim.x * blockDim.y);
}

inline void runnerEntry();

inline Fiber *newFiber() {
  Fiber *fiber;
  if (!block.pool.empty()) {
    fiber = block.pool.back();
    block.pool.pop_back();
  } else {
    fiber = new Fiber;
    size_t page = size_t(sysconf(_SC_PAGESIZE));
    void *memory = mmap(nullptr, BlockRun::kStackBytes + page,
                        PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
    if (memory == MAP_FAILED)
      fatal("cannot map a fiber stack");
    mprotect(memory, page, PROT_NONE); // overflow faults instead of corrupting
    fiber->stack = static_cast<char *>(memory) + page;
  }
  fiber->done = false;
  makeContext(fiber->context, fiber->stack, BlockRun::kStackBytes,
              runnerEntry);
  return fiber;
}

/// Switches to `fiber` (running `thread`) until it waits or finishes.
inline void resume(Fiber *fiber) {
  block.current = fiber;
  setThreadIndex(fiber->thread);
  switchContext(block.scheduler, fiber->context);
  if (fiber->done)
    block.pool.push_back(fiber);
}

/// A fiber's body: starts the block's threads one after another, each as a
/// plain call. When a thread waits, this fiber stays with it and the
/// scheduler makes a new runner for the next threads; a thread resumed from
/// a barrier after all threads have started just finishes.
inline void runnerEntry() {
  Fiber *self = block.current;
  while (block.nextThread < block.threads) {
    unsigned n = block.nextThread++;
    unsigned t = block.reverse ? block.threads - 1 - n : n;
    self->thread = t;
    setThreadIndex(t);
    block.state[t] = ThreadState::Running;
    block.body(block.bodyData);
    block.state[t] = ThreadState::Finished;
    ++block.finished;
  }
  self->done = true;
  switchContext(self->context, block.scheduler);
  fatal("a finished fiber was resumed");
}

/// The calling thread waits at a barrier of `kind` until the scheduler
/// releases it.
inline void wait(ThreadState kind) {
  Fiber *self = block.current;
  if (!self)
    fatal("a barrier outside a kernel");
  unsigned t = self->thread;
  block.state[t] = kind;
  block.waiting[t] = self;
  switchContext(self->context, block.scheduler);
  // Resumed: the scheduler has set threadIdx and block.current.
}

[[noreturn]] inline void deadlock() {
  unsigned atBlock = 0, atWarp = 0;
  for (ThreadState s : block.state) {
    atBlock += s == ThreadState::AtBlockBarrier;
    atWarp += s == ThreadState::AtWarpBarrier;
  }
  fatal("kernel %s, block (%u, %u, %u): deadlock: %u threads at "
        "__syncthreads, %u at a warp shuffle, %u finished, of %u",
        block.kernelName, blockIdx.x, blockIdx.y, blockIdx.z, atBlock, atWarp,
        block.finished, block.threads);
}

/// Runs one block of the current launch.
inline void runBlock() {
  block.nextThread = 0;
  block.finished = 0;
  std::fill(block.state.begin(), block.state.end(), ThreadState::Running);
  std::fill(block.waiting.begin(), block.waiting.end(), nullptr);
  std::fill(block.shufflePhase.begin(), block.shufflePhase.end(), 0);
  std::vector<unsigned> released;
  for (;;) {
    if (block.nextThread < block.threads) {
      resume(newFiber());
      continue;
    }
    if (block.finished == block.threads)
      return;
    // Every thread has started and none runs: release a barrier.
    released.clear();
    unsigned live = block.threads - block.finished, atBlock = 0;
    for (ThreadState s : block.state)
      atBlock += s == ThreadState::AtBlockBarrier;
    if (atBlock == live) {
      for (unsigned t = 0; t < block.threads; ++t)
        if (block.state[t] == ThreadState::AtBlockBarrier)
          released.push_back(t);
    } else {
      for (unsigned warp = 0; warp * 32 < block.threads; ++warp) {
        unsigned end = std::min(block.threads, warp * 32 + 32);
        unsigned waiting = 0, running = 0;
        for (unsigned t = warp * 32; t < end; ++t) {
          waiting += block.state[t] == ThreadState::AtWarpBarrier;
          running += block.state[t] != ThreadState::Finished;
        }
        if (waiting > 0 && waiting == running)
          for (unsigned t = warp * 32; t < end; ++t)
            if (block.state[t] == ThreadState::AtWarpBarrier)
              released.push_back(t);
      }
    }
    if (released.empty())
      deadlock();
    for (unsigned t : released)
      block.state[t] = ThreadState::Running;
    if (block.reverse)
      std::reverse(released.begin(), released.end());
    for (unsigned t : released) {
      Fiber *fiber = block.waiting[t];
      block.waiting[t] = nullptr;
      resume(fiber);
    }
  }
}

/// Runs `kernel(args...)` over the grid (see the file comment).
template <typename... Params> class Launch {
public:
  Launch(void (*kernel)(Params...), const char *name, dim3 grid, dim3 threads,
         size_t shmem = 0, cudaStream_t = nullptr)
      : kernel(kernel), name(name), grid(grid), threads(threads),
        shmem(shmem) {}

  template <typename... Args> void operator()(Args &&...args) {
    static_assert(sizeof...(Args) == sizeof...(Params),
                  "kernel launched with the wrong number of arguments");
    std::tuple<Params...> values(static_cast<Params>(args)...);
    unsigned count = threads.x * threads.y * threads.z;
    if (threads.x == 0 || threads.y == 0 || threads.z == 0 ||
        threads.x > 1024 || threads.y > 1024 || threads.z > 64 ||
        uint64_t(threads.x) * threads.y * threads.z > 1024 || grid.x == 0 ||
        grid.y == 0 || grid.z == 0 || grid.x > 0x7fffffffu ||
        grid.y > 65535 || grid.z > 65535 || shmem > 48 * 1024) {
      device.lastError = cudaErrorInvalidConfiguration;
      return;
    }
    if (block.current)
      fatal("a kernel launched from a kernel");
    gridDim = grid;
    blockDim = threads;
    block.threads = count;
    block.state.assign(count, ThreadState::Running);
    block.waiting.assign(count, nullptr);
    block.shuffleSlots.assign(2 * size_t(count), 0);
    block.shufflePhase.assign(count, 0);
    block.body = [](void *data) {
      auto *self = static_cast<Launch *>(data);
      std::apply(self->kernel, *self->current);
    };
    block.bodyData = this;
    block.kernelName = name;
    current = &values;
    for (unsigned z = 0; z < grid.z; ++z)
      for (unsigned y = 0; y < grid.y; ++y)
        for (unsigned x = 0; x < grid.x; ++x) {
          if (block.reverse)
            blockIdx = {grid.x - 1 - x, grid.y - 1 - y, grid.z - 1 - z};
          else
            blockIdx = {x, y, z};
          runBlock();
        }
    block.current = nullptr;
    current = nullptr;
  }

private:
  void (*kernel)(Params...);
  const char *name;
  dim3 grid, threads;
  size_t shmem;
  std::tuple<Params...> *current = nullptr;
};

} // namespace remat_emu

//===----------------------------------------------------------------------===//
// Device intrinsics
//===----------------------------------------------------------------------===//

inline void __syncthreads() {
  remat_emu::wait(remat_emu::ThreadState::AtBlockBarrier);
}

/// The value of lane + delta of the warp (the caller's own where that is
/// past the warp). Every lane of the warp must call it (full mask only).
template <typename T>
inline T __shfl_down_sync(unsigned mask, T value, unsigned delta,
                          int width = 32) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "shuffle of a wide type");
  using namespace remat_emu;
  if (mask != 0xffffffffu || width != 32)
    fatal("__shfl_down_sync with mask %#x and width %d: the emulation takes "
          "full warps only",
          mask, width);
  unsigned t = block.current->thread;
  unsigned lane = t % 32;
  uint64_t *slots = &block.shuffleSlots[block.shufflePhase[t] * size_t(block.threads)];
  block.shufflePhase[t] ^= 1;
  std::memcpy(&slots[t], &value, sizeof(T));
  wait(ThreadState::AtWarpBarrier); // every lane has written
  // No lane can write these slots again before every lane has passed the
  // next shuffle's barrier, i.e. has read here.
  T result = value;
  if (lane + delta < 32 && t + delta < block.threads)
    std::memcpy(&result, &slots[t + delta], sizeof(T));
  return result;
}

// One OS thread runs every emulated thread: atomics are plain operations.
inline float atomicAdd(float *address, float value) {
  float old = *address;
  *address = old + value;
  return old;
}
inline double atomicAdd(double *address, double value) {
  double old = *address;
  *address = old + value;
  return old;
}
inline int atomicAdd(int *address, int value) {
  int old = *address;
  *address = old + value;
  return old;
}
inline unsigned long long atomicAdd(unsigned long long *address,
                                    unsigned long long value) {
  unsigned long long old = *address;
  *address = old + value;
  return old;
}

// Round-to-nearest intrinsics (never contracted into FMAs on the host
// either: the build does not enable FMA contraction).
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }

namespace remat_emu {

/// `value` rounded to TF32 (10 mantissa bits, nearest even), as tensor
/// cores read float inputs under TF32 math.
inline float roundToTf32(float value) {
  if (!std::isfinite(value))
    return value;
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  bits += 0xfffu + ((bits >> 13) & 1u);
  bits &= ~0x1fffu;
  std::memcpy(&value, &bits, 4);
  return value;
}

} // namespace remat_emu

//===----------------------------------------------------------------------===//
// cuBLAS
//===----------------------------------------------------------------------===//

enum cublasStatus_t {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
};
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 };
enum cublasMath_t {
  CUBLAS_DEFAULT_MATH = 0,
  CUBLAS_TENSOR_OP_MATH = 1,
  CUBLAS_PEDANTIC_MATH = 2,
  CUBLAS_TF32_TENSOR_OP_MATH = 3,
};

struct cublasContext {
  cudaStream_t stream = nullptr;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
  void *workspace = nullptr;
  size_t workspaceBytes = 0;
};
typedef cublasContext *cublasHandle_t;

inline cublasStatus_t cublasCreate(cublasHandle_t *handle) {
  if (!handle)
    return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetStream(cublasHandle_t handle,
                                      cudaStream_t stream) {
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  // As cuBLAS: setting the stream resets the workspace to the default pool.
  handle->workspace = nullptr;
  handle->workspaceBytes = 0;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasGetStream(cublasHandle_t handle,
                                      cudaStream_t *stream) {
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!stream)
    return CUBLAS_STATUS_INVALID_VALUE;
  *stream = handle->stream;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetMathMode(cublasHandle_t handle,
                                        cublasMath_t math) {
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->math = math;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetWorkspace(cublasHandle_t handle,
                                         void *workspace, size_t bytes) {
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (bytes > 0 && !workspace)
    return CUBLAS_STATUS_INVALID_VALUE;
  handle->workspace = workspace;
  handle->workspaceBytes = bytes;
  return CUBLAS_STATUS_SUCCESS;
}

/// C = alpha op(A) op(B) + beta C, column-major, `batch` times.
inline cublasStatus_t cublasSgemmStridedBatched(
    cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,
    int m, int n, int k, const float *alpha, const float *A, int lda,
    long long strideA, const float *B, int ldb, long long strideB,
    const float *beta, float *C, int ldc, long long strideC, int batch) {
  using namespace remat_emu;
  if (!handle)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  bool opA = transa != CUBLAS_OP_N, opB = transb != CUBLAS_OP_N;
  // cuBLAS's argument checks.
  if (transa > CUBLAS_OP_C || transb > CUBLAS_OP_C || m < 0 || n < 0 ||
      k < 0 || batch < 0 || lda < std::max(1, opA ? k : m) ||
      ldb < std::max(1, opB ? n : k) || ldc < std::max(1, m) || !alpha ||
      !beta)
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0 || batch == 0)
    return CUBLAS_STATUS_SUCCESS;
  bool tf32 = handle->math == CUBLAS_TF32_TENSOR_OP_MATH;
  auto input = [&](float v) { return tf32 ? roundToTf32(v) : v; };
  // Extents of the operands (each matrix's last column ends there).
  size_t aCols = opA ? m : k, bCols = opB ? k : n;
  size_t aRows = opA ? k : m, bRows = opB ? n : k;
  for (int b = 0; b < batch; ++b) {
    const float *a = A + b * strideA, *bb = B + b * strideB;
    float *c = C + b * strideC;
    if (k > 0 && *alpha != 0.0f) {
      checkDeviceRange(a, ((aCols - 1) * lda + aRows) * 4, "cuBLAS SGEMM (A)");
      checkDeviceRange(bb, ((bCols - 1) * ldb + bRows) * 4, "cuBLAS SGEMM (B)");
    }
    checkDeviceRange(c, (size_t(n - 1) * ldc + m) * 4, "cuBLAS SGEMM (C)");
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double sum = 0.0;
        if (*alpha != 0.0f)
          for (int l = 0; l < k; ++l) {
            float av = opA ? a[l + size_t(i) * lda] : a[i + size_t(l) * lda];
            float bv = opB ? bb[j + size_t(l) * ldb] : bb[l + size_t(j) * ldb];
            sum += double(input(av)) * double(input(bv));
          }
        float &out = c[i + size_t(j) * ldc];
        double result = double(*alpha) * sum;
        if (*beta != 0.0f)
          result += double(*beta) * double(out);
        out = float(result);
      }
  }
  return CUBLAS_STATUS_SUCCESS;
}

inline cublasStatus_t cublasSgemm(cublasHandle_t handle,
                                  cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n,
                                  int k, const float *alpha, const float *A,
                                  int lda, const float *B, int ldb,
                                  const float *beta, float *C, int ldc) {
  return cublasSgemmStridedBatched(handle, transa, transb, m, n, k, alpha, A,
                                   lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
}

//===----------------------------------------------------------------------===//
// cuDNN (the legacy convolution API, NCHW float)
//===----------------------------------------------------------------------===//

enum cudnnStatus_t {
  CUDNN_STATUS_SUCCESS = 0,
  CUDNN_STATUS_NOT_INITIALIZED = 1001,
  CUDNN_STATUS_BAD_PARAM = 2000,
  CUDNN_STATUS_BAD_PARAM_NULL_POINTER = 2002,
  CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH = 2008,
  CUDNN_STATUS_NOT_SUPPORTED = 3000,
  CUDNN_STATUS_INTERNAL_ERROR = 4000,
  CUDNN_STATUS_EXECUTION_FAILED = 5000,
};
/// cuDNN 9: statuses are grouped by thousands.
#define CUDNN_STATUS_CATEGORY(status) ((int(status) / 1000) * 1000)

enum cudnnTensorFormat_t {
  CUDNN_TENSOR_NCHW = 0,
  CUDNN_TENSOR_NHWC = 1,
  CUDNN_TENSOR_NCHW_VECT_C = 2,
};
enum cudnnDataType_t {
  CUDNN_DATA_FLOAT = 0,
  CUDNN_DATA_DOUBLE = 1,
  CUDNN_DATA_HALF = 2,
};
enum cudnnConvolutionMode_t {
  CUDNN_CONVOLUTION = 0,
  CUDNN_CROSS_CORRELATION = 1,
};
enum cudnnMathType_t {
  CUDNN_DEFAULT_MATH = 0,
  CUDNN_TENSOR_OP_MATH = 1,
  CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
  CUDNN_FMA_MATH = 3,
};
enum cudnnDeterminism_t {
  CUDNN_NON_DETERMINISTIC = 0,
  CUDNN_DETERMINISTIC = 1,
};
enum cudnnConvolutionFwdAlgo_t {
  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM = 0,
  CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1,
  CUDNN_CONVOLUTION_FWD_ALGO_GEMM = 2,
  CUDNN_CONVOLUTION_FWD_ALGO_DIRECT = 3,
  CUDNN_CONVOLUTION_FWD_ALGO_FFT = 4,
  CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING = 5,
  CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD = 6,
  CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED = 7,
  CUDNN_CONVOLUTION_FWD_ALGO_COUNT = 8,
};
enum cudnnConvolutionBwdDataAlgo_t {
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 = 0,
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_1 = 1,
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT = 2,
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING = 3,
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD = 4,
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED = 5,
  CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT = 6,
};
enum cudnnConvolutionBwdFilterAlgo_t {
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 = 0,
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 = 1,
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT = 2,
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3 = 3,
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD = 4,
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED = 5,
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING = 6,
  CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT = 7,
};

template <typename Algo> struct cudnnConvolutionAlgoPerf {
  Algo algo;
  cudnnStatus_t status;
  float time;
  size_t memory;
  cudnnDeterminism_t determinism;
  cudnnMathType_t mathType;
  int reserved[3];
};
typedef cudnnConvolutionAlgoPerf<cudnnConvolutionFwdAlgo_t>
    cudnnConvolutionFwdAlgoPerf_t;
typedef cudnnConvolutionAlgoPerf<cudnnConvolutionBwdDataAlgo_t>
    cudnnConvolutionBwdDataAlgoPerf_t;
typedef cudnnConvolutionAlgoPerf<cudnnConvolutionBwdFilterAlgo_t>
    cudnnConvolutionBwdFilterAlgoPerf_t;

struct cudnnContext {
  cudaStream_t stream = nullptr;
};
typedef cudnnContext *cudnnHandle_t;
/// Tensors and filters of rank 4 or 5 (NCHW, NCDHW), dense, row-major.
struct cudnnTensorStruct {
  bool set = false;
  int rank = 0;
  int dims[5] = {};
};
typedef cudnnTensorStruct *cudnnTensorDescriptor_t;
struct cudnnFilterStruct {
  bool set = false;
  int rank = 0;
  int dims[5] = {};
};
typedef cudnnFilterStruct *cudnnFilterDescriptor_t;
/// 2 or 3 spatial dimensions.
struct cudnnConvolutionStruct {
  bool set = false;
  int spatialDims = 0;
  int padding[3] = {}, stride[3] = {1, 1, 1}, dilation[3] = {1, 1, 1};
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
  int groups = 1;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};
typedef cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;

inline const char *cudnnGetErrorString(cudnnStatus_t status) {
  switch (status) {
  case CUDNN_STATUS_SUCCESS:
    return "CUDNN_STATUS_SUCCESS";
  case CUDNN_STATUS_NOT_INITIALIZED:
    return "CUDNN_STATUS_NOT_INITIALIZED";
  case CUDNN_STATUS_BAD_PARAM:
    return "CUDNN_STATUS_BAD_PARAM";
  case CUDNN_STATUS_BAD_PARAM_NULL_POINTER:
    return "CUDNN_STATUS_BAD_PARAM_NULL_POINTER";
  case CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH:
    return "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH";
  case CUDNN_STATUS_NOT_SUPPORTED:
    return "CUDNN_STATUS_NOT_SUPPORTED";
  case CUDNN_STATUS_INTERNAL_ERROR:
    return "CUDNN_STATUS_INTERNAL_ERROR";
  case CUDNN_STATUS_EXECUTION_FAILED:
    return "CUDNN_STATUS_EXECUTION_FAILED";
  }
  return "CUDNN_STATUS_UNKNOWN";
}

inline cudnnStatus_t cudnnCreate(cudnnHandle_t *handle) {
  if (!handle)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  *handle = new cudnnContext;
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
  delete handle;
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnSetStream(cudnnHandle_t handle, cudaStream_t stream) {
  if (!handle)
    return CUDNN_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnGetStream(cudnnHandle_t handle,
                                    cudaStream_t *stream) {
  if (!handle)
    return CUDNN_STATUS_NOT_INITIALIZED;
  if (!stream)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  *stream = handle->stream;
  return CUDNN_STATUS_SUCCESS;
}

#define REMAT_EMU_CUDNN_CREATE_DESTROY(Kind, Struct)                           \
  inline cudnnStatus_t cudnnCreate##Kind##Descriptor(Struct **descriptor) {    \
    if (!descriptor)                                                           \
      return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;                              \
    *descriptor = new Struct;                                                  \
    return CUDNN_STATUS_SUCCESS;                                               \
  }                                                                            \
  inline cudnnStatus_t cudnnDestroy##Kind##Descriptor(Struct *descriptor) {    \
    delete descriptor;                                                         \
    return CUDNN_STATUS_SUCCESS;                                               \
  }
REMAT_EMU_CUDNN_CREATE_DESTROY(Tensor, cudnnTensorStruct)
REMAT_EMU_CUDNN_CREATE_DESTROY(Filter, cudnnFilterStruct)
REMAT_EMU_CUDNN_CREATE_DESTROY(Convolution, cudnnConvolutionStruct)
#undef REMAT_EMU_CUDNN_CREATE_DESTROY

/// Only dense row-major float tensors of rank 4 or 5 (what the runtime sets).
inline cudnnStatus_t cudnnSetTensorNdDescriptor(cudnnTensorDescriptor_t desc,
                                                cudnnDataType_t type, int rank,
                                                const int dims[],
                                                const int strides[]) {
  if (!desc || !dims || !strides)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (rank < 3 || rank > 8)
    return CUDNN_STATUS_BAD_PARAM;
  for (int d = 0; d < rank; ++d)
    if (dims[d] <= 0 || strides[d] <= 0)
      return CUDNN_STATUS_BAD_PARAM;
  if (type != CUDNN_DATA_FLOAT || rank > 5)
    return CUDNN_STATUS_NOT_SUPPORTED; // in the emulation
  int packed = 1;
  for (int d = rank - 1; d >= 0; --d) {
    if (strides[d] != packed)
      return CUDNN_STATUS_NOT_SUPPORTED; // in the emulation
    packed *= dims[d];
  }
  desc->set = true;
  desc->rank = rank;
  std::copy(dims, dims + rank, desc->dims);
  return CUDNN_STATUS_SUCCESS;
}

inline cudnnStatus_t cudnnSetFilterNdDescriptor(cudnnFilterDescriptor_t desc,
                                                cudnnDataType_t type,
                                                cudnnTensorFormat_t format,
                                                int rank, const int dims[]) {
  if (!desc || !dims)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (rank < 3 || rank > 8 || format > CUDNN_TENSOR_NCHW_VECT_C)
    return CUDNN_STATUS_BAD_PARAM;
  for (int d = 0; d < rank; ++d)
    if (dims[d] <= 0)
      return CUDNN_STATUS_BAD_PARAM;
  if (format != CUDNN_TENSOR_NCHW || type != CUDNN_DATA_FLOAT || rank < 4 ||
      rank > 5)
    return CUDNN_STATUS_NOT_SUPPORTED;
  desc->set = true;
  desc->rank = rank;
  std::copy(dims, dims + rank, desc->dims);
  return CUDNN_STATUS_SUCCESS;
}

inline cudnnStatus_t cudnnSetConvolutionNdDescriptor(
    cudnnConvolutionDescriptor_t desc, int spatialDims, const int padding[],
    const int stride[], const int dilation[], cudnnConvolutionMode_t mode,
    cudnnDataType_t computeType) {
  if (!desc || !padding || !stride || !dilation)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (spatialDims < 1 || spatialDims > 6 ||
      (mode != CUDNN_CONVOLUTION && mode != CUDNN_CROSS_CORRELATION))
    return CUDNN_STATUS_BAD_PARAM;
  for (int d = 0; d < spatialDims; ++d)
    if (padding[d] < 0 || stride[d] <= 0 || dilation[d] <= 0)
      return CUDNN_STATUS_BAD_PARAM;
  if (computeType != CUDNN_DATA_FLOAT || spatialDims < 2 || spatialDims > 3)
    return CUDNN_STATUS_NOT_SUPPORTED;
  desc->set = true;
  desc->spatialDims = spatialDims;
  std::copy(padding, padding + spatialDims, desc->padding);
  std::copy(stride, stride + spatialDims, desc->stride);
  std::copy(dilation, dilation + spatialDims, desc->dilation);
  desc->mode = mode;
  return CUDNN_STATUS_SUCCESS;
}

inline cudnnStatus_t
cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t desc, int groups) {
  if (!desc)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (groups < 1)
    return CUDNN_STATUS_BAD_PARAM;
  desc->groups = groups;
  return CUDNN_STATUS_SUCCESS;
}

inline cudnnStatus_t
cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t desc,
                            cudnnMathType_t math) {
  if (!desc)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (math > CUDNN_FMA_MATH)
    return CUDNN_STATUS_BAD_PARAM;
  desc->math = math;
  return CUDNN_STATUS_SUCCESS;
}

inline cudnnStatus_t cudnnGetConvolutionNdForwardOutputDim(
    const cudnnConvolutionDescriptor_t conv, const cudnnTensorDescriptor_t x,
    const cudnnFilterDescriptor_t w, int rank, int outDims[]) {
  if (!conv || !x || !w || !outDims)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!conv->set || !x->set || !w->set || x->rank != rank || w->rank != rank ||
      conv->spatialDims != rank - 2 ||
      x->dims[1] != w->dims[1] * conv->groups || w->dims[0] % conv->groups)
    return CUDNN_STATUS_BAD_PARAM;
  outDims[0] = x->dims[0];
  outDims[1] = w->dims[0];
  for (int d = 0; d < conv->spatialDims; ++d) {
    int span = (w->dims[2 + d] - 1) * conv->dilation[d] + 1;
    int padded = x->dims[2 + d] + 2 * conv->padding[d];
    if (padded < span)
      return CUDNN_STATUS_BAD_PARAM;
    outDims[2 + d] = 1 + (padded - span) / conv->stride[d];
  }
  return CUDNN_STATUS_SUCCESS;
}

namespace remat_emu {

/// One convolution's sizes, checked against the descriptors as cuDNN does;
/// a 2-D convolution is a 3-D one of depth 1 (index 0 of each triple).
struct ConvGeometry {
  int n, c, k, groups;
  int in[3], kernel[3], out[3];
  int padding[3], stride[3], dilation[3];
  bool flip; // CUDNN_CONVOLUTION: the filter is flipped
  bool tf32;

  size_t inputCount() const { return size_t(n) * c * in[0] * in[1] * in[2]; }
  size_t weightCount() const {
    return size_t(k) * (c / groups) * kernel[0] * kernel[1] * kernel[2];
  }
  size_t outputCount() const {
    return size_t(n) * k * out[0] * out[1] * out[2];
  }
};

inline cudnnStatus_t convGeometry(cudnnConvolutionDescriptor_t conv,
                                  cudnnTensorDescriptor_t x,
                                  cudnnFilterDescriptor_t w,
                                  cudnnTensorDescriptor_t y,
                                  ConvGeometry &g) {
  if (!conv || !x || !w || !y)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  int rank = x->rank, outDims[5];
  cudnnStatus_t status =
      cudnnGetConvolutionNdForwardOutputDim(conv, x, w, rank, outDims);
  if (status != CUDNN_STATUS_SUCCESS)
    return status;
  if (!y->set || y->rank != rank ||
      !std::equal(outDims, outDims + rank, y->dims))
    return CUDNN_STATUS_BAD_PARAM;
  g = {};
  g.n = x->dims[0], g.c = x->dims[1], g.k = w->dims[0];
  g.groups = conv->groups;
  for (int d = 0; d < 3; ++d)
    g.in[d] = g.kernel[d] = g.out[d] = g.stride[d] = g.dilation[d] = 1;
  int first = 5 - rank; // a 2-D convolution's depth stays 1
  for (int d = 0; d < rank - 2; ++d) {
    g.in[first + d] = x->dims[2 + d];
    g.kernel[first + d] = w->dims[2 + d];
    g.out[first + d] = outDims[2 + d];
    g.padding[first + d] = conv->padding[d];
    g.stride[first + d] = conv->stride[d];
    g.dilation[first + d] = conv->dilation[d];
  }
  g.flip = conv->mode == CUDNN_CONVOLUTION;
  g.tf32 = conv->math == CUDNN_TENSOR_OP_MATH ||
           conv->math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
  return CUDNN_STATUS_SUCCESS;
}

/// The input coordinate that output position `o` reads through kernel tap
/// `t` along spatial dimension `d`, or -1 where that falls in the padding.
inline int convInputAt(const ConvGeometry &g, int d, int o, int t) {
  int i = o * g.stride[d] - g.padding[d] + t * g.dilation[d];
  return i < 0 || i >= g.in[d] ? -1 : i;
}

/// Calls `visit(xIndex, wIndex, yIndex)` for every product term of the
/// convolution: y[n, k, o...] += x[n, group's c, i...] * w[k, c, t...] with
/// i = o * stride - padding + t * dilation per spatial dimension, in bounds.
template <typename Visit>
inline void convForEachTerm(const ConvGeometry &g, Visit visit) {
  int kPerGroup = g.k / g.groups, cPerGroup = g.c / g.groups;
  const int *kernel = g.kernel, *in = g.in, *out = g.out;
  for (int n = 0; n < g.n; ++n)
    for (int k = 0; k < g.k; ++k) {
      int group = k / kPerGroup;
      for (int ci = 0; ci < cPerGroup; ++ci) {
        int c = group * cPerGroup + ci;
        for (int t0 = 0; t0 < kernel[0]; ++t0)
          for (int t1 = 0; t1 < kernel[1]; ++t1)
            for (int t2 = 0; t2 < kernel[2]; ++t2) {
              int f0 = g.flip ? kernel[0] - 1 - t0 : t0;
              int f1 = g.flip ? kernel[1] - 1 - t1 : t1;
              int f2 = g.flip ? kernel[2] - 1 - t2 : t2;
              size_t wIndex =
                  (((size_t(k) * cPerGroup + ci) * kernel[0] + f0) * kernel[1] +
                   f1) *
                      kernel[2] +
                  f2;
              for (int o0 = 0; o0 < out[0]; ++o0) {
                int i0 = convInputAt(g, 0, o0, t0);
                if (i0 < 0)
                  continue;
                for (int o1 = 0; o1 < out[1]; ++o1) {
                  int i1 = convInputAt(g, 1, o1, t1);
                  if (i1 < 0)
                    continue;
                  size_t xRow =
                      (((size_t(n) * g.c + c) * in[0] + i0) * in[1] + i1) *
                      in[2];
                  size_t yRow =
                      (((size_t(n) * g.k + k) * out[0] + o0) * out[1] + o1) *
                      out[2];
                  for (int o2 = 0; o2 < out[2]; ++o2) {
                    int i2 = convInputAt(g, 2, o2, t2);
                    if (i2 >= 0)
                      visit(xRow + i2, wIndex, yRow + o2);
                  }
                }
              }
            }
      }
    }
}

/// out = alpha * sum + beta * out (beta == 0: out is not read).
inline void convStore(float *out, const std::vector<double> &sum, float alpha,
                      float beta) {
  for (size_t i = 0; i < sum.size(); ++i)
    out[i] = float(double(alpha) * sum[i] +
                   (beta != 0.0f ? double(beta) * double(out[i]) : 0.0));
}

/// The workspace an algorithm needs in the emulation: none for the
/// no-workspace algorithm (0), a tensor's worth for the others.
inline size_t convWorkspaceBytes(int algo, const ConvGeometry &g) {
  return algo == 0 ? 0 : g.inputCount() * 4 + 4096;
}

/// The checks every convolution call makes: the algorithm, the workspace
/// and the device ranges of the three tensors. Overwrites the workspace the
/// algorithm uses (as a real algorithm would use it).
inline cudnnStatus_t convCheckRun(int algo, int algoCount,
                                  const ConvGeometry &g, void *workspace,
                                  size_t workspaceBytes, const void *x,
                                  const void *w, const void *y,
                                  const float *alpha, const float *beta) {
  if (!x || !w || !y || !alpha || !beta)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (algo < 0 || algo >= algoCount)
    return CUDNN_STATUS_BAD_PARAM;
  size_t needed = convWorkspaceBytes(algo, g);
  if (needed > workspaceBytes || (needed > 0 && !workspace))
    return CUDNN_STATUS_BAD_PARAM;
  checkDeviceRange(x, g.inputCount() * 4, "cuDNN conv (x)");
  checkDeviceRange(w, g.weightCount() * 4, "cuDNN conv (w)");
  checkDeviceRange(y, g.outputCount() * 4, "cuDNN conv (y)");
  if (needed > 0) {
    checkDeviceRange(workspace, needed, "cuDNN conv (workspace)");
    std::memset(workspace, 0xa5, needed);
  }
  return CUDNN_STATUS_SUCCESS;
}

template <typename Perf, typename Algo>
inline cudnnStatus_t convHeuristics(const ConvGeometry &g, Algo workspaceAlgo,
                                    int requested, int *returned, Perf *perf,
                                    cudnnMathType_t math) {
  if (!returned || !perf || requested < 1)
    return CUDNN_STATUS_BAD_PARAM;
  // Ranked as cuDNN might: the faster algorithm needs a workspace.
  Algo ranked[2] = {workspaceAlgo, Algo(0)};
  int count = std::min(requested, 2);
  for (int i = 0; i < count; ++i) {
    perf[i] = {};
    perf[i].algo = ranked[i];
    perf[i].status = CUDNN_STATUS_SUCCESS;
    perf[i].time = -1.0f;
    perf[i].memory = convWorkspaceBytes(int(ranked[i]), g);
    perf[i].determinism = CUDNN_DETERMINISTIC;
    perf[i].mathType = math;
  }
  *returned = count;
  return CUDNN_STATUS_SUCCESS;
}

inline float convInput(const ConvGeometry &g, float value) {
  return g.tf32 ? roundToTf32(value) : value;
}

} // namespace remat_emu

inline cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t x,
    const cudnnFilterDescriptor_t w, const cudnnConvolutionDescriptor_t conv,
    const cudnnTensorDescriptor_t y, int requested, int *returned,
    cudnnConvolutionFwdAlgoPerf_t *perf) {
  if (!handle)
    return CUDNN_STATUS_NOT_INITIALIZED;
  remat_emu::ConvGeometry g;
  if (cudnnStatus_t s = remat_emu::convGeometry(conv, x, w, y, g))
    return s;
  return remat_emu::convHeuristics(g, CUDNN_CONVOLUTION_FWD_ALGO_GEMM,
                                   requested, returned, perf, conv->math);
}
inline cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t w,
    const cudnnTensorDescriptor_t dy, const cudnnConvolutionDescriptor_t conv,
    const cudnnTensorDescriptor_t dx, int requested, int *returned,
    cudnnConvolutionBwdDataAlgoPerf_t *perf) {
  if (!handle)
    return CUDNN_STATUS_NOT_INITIALIZED;
  remat_emu::ConvGeometry g;
  if (cudnnStatus_t s = remat_emu::convGeometry(conv, dx, w, dy, g))
    return s;
  return remat_emu::convHeuristics(g, CUDNN_CONVOLUTION_BWD_DATA_ALGO_1,
                                   requested, returned, perf, conv->math);
}
inline cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t x,
    const cudnnTensorDescriptor_t dy, const cudnnConvolutionDescriptor_t conv,
    const cudnnFilterDescriptor_t dw, int requested, int *returned,
    cudnnConvolutionBwdFilterAlgoPerf_t *perf) {
  if (!handle)
    return CUDNN_STATUS_NOT_INITIALIZED;
  remat_emu::ConvGeometry g;
  if (cudnnStatus_t s = remat_emu::convGeometry(conv, x, dw, dy, g))
    return s;
  return remat_emu::convHeuristics(g, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1,
                                   requested, returned, perf, conv->math);
}

inline cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t x,
    const cudnnFilterDescriptor_t w, const cudnnConvolutionDescriptor_t conv,
    const cudnnTensorDescriptor_t y, cudnnConvolutionFwdAlgo_t algo,
    size_t *bytes) {
  remat_emu::ConvGeometry g;
  if (!handle)
    return CUDNN_STATUS_NOT_INITIALIZED;
  if (!bytes)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (cudnnStatus_t s = remat_emu::convGeometry(conv, x, w, y, g))
    return s;
  if (algo < 0 || algo >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT)
    return CUDNN_STATUS_BAD_PARAM;
  *bytes = remat_emu::convWorkspaceBytes(algo, g);
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t handle, const cudnnFilterDescriptor_t w,
    const cudnnTensorDescriptor_t dy, const cudnnConvolutionDescriptor_t conv,
    const cudnnTensorDescriptor_t dx, cudnnConvolutionBwdDataAlgo_t algo,
    size_t *bytes) {
  remat_emu::ConvGeometry g;
  if (!handle)
    return CUDNN_STATUS_NOT_INITIALIZED;
  if (!bytes)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (cudnnStatus_t s = remat_emu::convGeometry(conv, dx, w, dy, g))
    return s;
  if (algo < 0 || algo >= CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT)
    return CUDNN_STATUS_BAD_PARAM;
  *bytes = remat_emu::convWorkspaceBytes(algo, g);
  return CUDNN_STATUS_SUCCESS;
}
inline cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t handle, const cudnnTensorDescriptor_t x,
    const cudnnTensorDescriptor_t dy, const cudnnConvolutionDescriptor_t conv,
    const cudnnFilterDescriptor_t dw, cudnnConvolutionBwdFilterAlgo_t algo,
    size_t *bytes) {
  remat_emu::ConvGeometry g;
  if (!handle)
    return CUDNN_STATUS_NOT_INITIALIZED;
  if (!bytes)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (cudnnStatus_t s = remat_emu::convGeometry(conv, x, dw, dy, g))
    return s;
  if (algo < 0 || algo >= CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT)
    return CUDNN_STATUS_BAD_PARAM;
  *bytes = remat_emu::convWorkspaceBytes(algo, g);
  return CUDNN_STATUS_SUCCESS;
}

/// y = alpha conv(x, w) + beta y.
inline cudnnStatus_t cudnnConvolutionForward(
    cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc,
    const void *x, const cudnnFilterDescriptor_t wDesc, const void *w,
    const cudnnConvolutionDescriptor_t conv, cudnnConvolutionFwdAlgo_t algo,
    void *workspace, size_t workspaceBytes, const void *beta,
    const cudnnTensorDescriptor_t yDesc, void *y) {
  using namespace remat_emu;
  if (!handle)
    return CUDNN_STATUS_NOT_INITIALIZED;
  ConvGeometry g;
  if (cudnnStatus_t s = convGeometry(conv, xDesc, wDesc, yDesc, g))
    return s;
  const float *a = static_cast<const float *>(alpha),
              *b = static_cast<const float *>(beta);
  if (cudnnStatus_t s = convCheckRun(algo, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, g,
                                     workspace, workspaceBytes, x, w, y, a, b))
    return s;
  const float *xv = static_cast<const float *>(x),
              *wv = static_cast<const float *>(w);
  std::vector<double> sum(g.outputCount(), 0.0);
  convForEachTerm(g, [&](size_t xi, size_t wi, size_t yi) {
    sum[yi] += double(convInput(g, xv[xi])) * double(convInput(g, wv[wi]));
  });
  convStore(static_cast<float *>(y), sum, *a, *b);
  return CUDNN_STATUS_SUCCESS;
}

/// dx = alpha conv^T(dy, w) + beta dx.
inline cudnnStatus_t cudnnConvolutionBackwardData(
    cudnnHandle_t handle, const void *alpha, const cudnnFilterDescriptor_t wDesc,
    const void *w, const cudnnTensorDescriptor_t dyDesc, const void *dy,
    const cudnnConvolutionDescriptor_t conv,
    cudnnConvolutionBwdDataAlgo_t algo, void *workspace,
    size_t workspaceBytes, const void *beta,
    const cudnnTensorDescriptor_t dxDesc, void *dx) {
  using namespace remat_emu;
  if (!handle)
    return CUDNN_STATUS_NOT_INITIALIZED;
  ConvGeometry g;
  if (cudnnStatus_t s = convGeometry(conv, dxDesc, wDesc, dyDesc, g))
    return s;
  const float *a = static_cast<const float *>(alpha),
              *b = static_cast<const float *>(beta);
  if (cudnnStatus_t s =
          convCheckRun(algo, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, g,
                       workspace, workspaceBytes, dx, w, dy, a, b))
    return s;
  const float *dyv = static_cast<const float *>(dy),
              *wv = static_cast<const float *>(w);
  std::vector<double> sum(g.inputCount(), 0.0);
  convForEachTerm(g, [&](size_t xi, size_t wi, size_t yi) {
    sum[xi] += double(convInput(g, dyv[yi])) * double(convInput(g, wv[wi]));
  });
  convStore(static_cast<float *>(dx), sum, *a, *b);
  return CUDNN_STATUS_SUCCESS;
}

/// dw = alpha (the weight gradient from x and dy) + beta dw.
inline cudnnStatus_t cudnnConvolutionBackwardFilter(
    cudnnHandle_t handle, const void *alpha, const cudnnTensorDescriptor_t xDesc,
    const void *x, const cudnnTensorDescriptor_t dyDesc, const void *dy,
    const cudnnConvolutionDescriptor_t conv,
    cudnnConvolutionBwdFilterAlgo_t algo, void *workspace,
    size_t workspaceBytes, const void *beta,
    const cudnnFilterDescriptor_t dwDesc, void *dw) {
  using namespace remat_emu;
  if (!handle)
    return CUDNN_STATUS_NOT_INITIALIZED;
  ConvGeometry g;
  if (cudnnStatus_t s = convGeometry(conv, xDesc, dwDesc, dyDesc, g))
    return s;
  const float *a = static_cast<const float *>(alpha),
              *b = static_cast<const float *>(beta);
  if (cudnnStatus_t s =
          convCheckRun(algo, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, g,
                       workspace, workspaceBytes, x, dw, dy, a, b))
    return s;
  const float *xv = static_cast<const float *>(x),
              *dyv = static_cast<const float *>(dy);
  std::vector<double> sum(g.weightCount(), 0.0);
  convForEachTerm(g, [&](size_t xi, size_t wi, size_t yi) {
    sum[wi] += double(convInput(g, xv[xi])) * double(convInput(g, dyv[yi]));
  });
  convStore(static_cast<float *>(dw), sum, *a, *b);
  return CUDNN_STATUS_SUCCESS;
}

/// C = alpha A + beta C, A broadcast along its dims of size 1.
inline cudnnStatus_t cudnnAddTensor(cudnnHandle_t handle, const void *alpha,
                                    const cudnnTensorDescriptor_t aDesc,
                                    const void *A, const void *beta,
                                    const cudnnTensorDescriptor_t cDesc,
                                    void *C) {
  using namespace remat_emu;
  if (!handle)
    return CUDNN_STATUS_NOT_INITIALIZED;
  if (!aDesc || !cDesc || !A || !C || !alpha || !beta)
    return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
  if (!aDesc->set || !cDesc->set || aDesc->rank != cDesc->rank)
    return CUDNN_STATUS_BAD_PARAM;
  int rank = cDesc->rank;
  size_t aCount = 1, cCount = 1;
  for (int d = 0; d < rank; ++d) {
    if (aDesc->dims[d] != cDesc->dims[d] && aDesc->dims[d] != 1)
      return CUDNN_STATUS_BAD_PARAM;
    aCount *= aDesc->dims[d];
    cCount *= cDesc->dims[d];
  }
  checkDeviceRange(A, aCount * 4, "cudnnAddTensor (A)");
  checkDeviceRange(C, cCount * 4, "cudnnAddTensor (C)");
  float a = *static_cast<const float *>(alpha),
        b = *static_cast<const float *>(beta);
  const float *av = static_cast<const float *>(A);
  float *cv = static_cast<float *>(C);
  for (size_t i = 0; i < cCount; ++i) {
    // C's coordinates, last first, mapped to A's (0 where A has size 1).
    size_t rest = i, ai = 0, aStride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      size_t coordinate = rest % cDesc->dims[d];
      rest /= cDesc->dims[d];
      if (aDesc->dims[d] != 1)
        ai += coordinate * aStride;
      aStride *= aDesc->dims[d];
    }
    cv[i] = a * av[ai] + (b != 0.0f ? b * cv[i] : 0.0f);
  }
  return CUDNN_STATUS_SUCCESS;
}

#endif // REMAT_TEST_CUDA_EMULATION_H
