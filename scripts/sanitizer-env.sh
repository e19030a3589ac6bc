# sanitizer-env.sh - sourced by sanitize.sh and fuzz.sh: the runtime options
# of the sanitized build.
#
# Every report stops the program with a non-zero exit (UBSan's too:
# halt_on_error, and the build's -fno-sanitize-recover=all), with a symbolized
# stack. LeakSanitizer is on (the suites and the fuzz targets run leak-free,
# LibTorch included); so are the stack-use-after-return and
# initialization-order checks. One leak inside CBC's CoinUtils, when a time
# limit stops the exact solver, is suppressed (lsan.supp).
#
# allow_user_poisoning=0: LLVM's allocator headers poison and unpoison their
# slabs when the code that includes them is instrumented, but libLLVM and
# libMLIR are not. A slab that remat's code (an attribute's storage, built
# inline) starts is poisoned whole, and MLIR's own allocations from it are
# then reported as use-after-poison (an installed remat-run parsing a file,
# depending on where slabs end). remat does no manual poisoning of its own.
llvm_bin=/usr/lib/llvm-22/bin
export ASAN_SYMBOLIZER_PATH="$llvm_bin/llvm-symbolizer"
export UBSAN_SYMBOLIZER_PATH="$llvm_bin/llvm-symbolizer"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1:allow_user_poisoning=0}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
