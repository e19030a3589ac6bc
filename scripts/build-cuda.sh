#!/usr/bin/env bash
# build-cuda.sh STEP.cu -o BINARY [--target=both|sm_90|portable] [--library] [-- NVCC_FLAGS...]
#
# Compiles a source written by `remat-translate --emit-cuda` with nvcc against
# cuBLAS and cuDNN. The target: sm_90 code for the H200 (`sm_90`), PTX for
# compute_75 that the driver compiles for any newer GPU (`portable`), or both
# in one binary (`both`, the default). Headers and libraries come from
# $CUDA_HOME (default /usr/local/cuda) or, where cuDNN/cuBLAS are installed
# from Python wheels (nvidia-cudnn-cu13, nvidia-cublas), from there. Never
# links the driver library (libcuda): the binary starts only where a GPU is.
# With --library: a shared library with the step's C entry points
# (-DREMAT_STEP_LIBRARY; docs/cuda.md) in place of the harness's program.
set -euo pipefail

usage() {
  echo "usage: $0 STEP.cu -o BINARY [--target=both|sm_90|portable] [--library] [-- NVCC_FLAGS...]" >&2
  exit 2
}

source_file="" output="" target="both"
extra=() mode=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    -o) [[ $# -ge 2 ]] || usage; output="$2"; shift 2 ;;
    --target=*) target="${1#--target=}"; shift ;;
    --library) mode=(-shared -Xcompiler -fPIC -DREMAT_STEP_LIBRARY); shift ;;
    --) shift; extra=("$@"); break ;;
    -*) usage ;;
    *) [[ -z "$source_file" ]] || usage; source_file="$1"; shift ;;
  esac
done
[[ -n "$source_file" && -n "$output" ]] || usage
[[ -f "$source_file" ]] || { echo "build-cuda.sh: no such file: $source_file" >&2; exit 1; }

case "$target" in
  sm_90) arch=(-gencode arch=compute_90,code=sm_90) ;;
  portable) arch=(-gencode arch=compute_75,code=compute_75) ;;
  both) arch=(-gencode arch=compute_90,code=sm_90 -gencode arch=compute_75,code=compute_75) ;;
  *) echo "build-cuda.sh: --target must be both, sm_90 or portable, not '$target'" >&2; exit 2 ;;
esac

cuda_home="${CUDA_HOME:-/usr/local/cuda}"
nvcc="${NVCC:-$cuda_home/bin/nvcc}"
if [[ ! -x "$nvcc" ]]; then
  nvcc="$(command -v nvcc || true)"
  [[ -n "$nvcc" ]] || { echo "build-cuda.sh: nvcc not found (set CUDA_HOME or NVCC)" >&2; exit 1; }
fi

# Directories holding a header and its library: $CUDA_HOME first, then the
# nvidia-* Python wheels.
flags=() libraries=()
# The link flag of `library` in `dir`: -lname, or -l:libname.so.N where a
# wheel ships only the versioned name.
add_library() { # dir library
  local dir="$1" library="$2" name
  name="${library#lib}"; name="${name%.so}"
  if [[ -e "$dir/$library" ]]; then
    libraries+=(-l"$name")
  else
    local versioned
    versioned="$(cd "$dir" && ls "$library".* 2>/dev/null | head -1)"
    [[ -n "$versioned" ]] || { echo "build-cuda.sh: no $library in $dir" >&2; exit 1; }
    libraries+=(-l:"$versioned")
  fi
}
find_package_dirs() { # header library
  local header="$1" library="$2"
  if [[ -f "$cuda_home/include/$header" ]] && compgen -G "$cuda_home/lib64/$library*" > /dev/null; then
    flags+=(-I"$cuda_home/include" -L"$cuda_home/lib64")
    add_library "$cuda_home/lib64" "$library"
    return 0
  fi
  local python="${PYTHON:-python3}" roots
  roots="$("$python" -c 'import nvidia, sys; print("\n".join(nvidia.__path__))' 2>/dev/null || true)"
  local root found
  for root in $roots; do
    found="$(find "$root" -name "$header" -path '*/include/*' 2>/dev/null | head -1)"
    if [[ -n "$found" ]]; then
      local include_dir lib_dir
      include_dir="$(dirname "$found")"
      lib_dir="$(dirname "$include_dir")/lib"
      flags+=(-I"$include_dir" -L"$lib_dir" -Xlinker -rpath -Xlinker "$lib_dir")
      add_library "$lib_dir" "$library"
      return 0
    fi
  done
  echo "build-cuda.sh: cannot find $header and $library in $cuda_home or in nvidia-* Python wheels" >&2
  exit 1
}
find_package_dirs cudnn.h libcudnn.so
find_package_dirs cublas_v2.h libcublas.so

exec "$nvcc" -std=c++17 -O3 "${arch[@]}" "${mode[@]}" "${flags[@]}" "${extra[@]}" \
  "$source_file" -o "$output" "${libraries[@]}"
