# LibTorch from the torch wheel in the project's Python environment
# (scripts/setup-python.sh). scripts/build.sh passes that wheel's CMake
# package as Torch_DIR; otherwise it is looked up on CMAKE_PREFIX_PATH, with
# the wheel's own directories put first so that no other LibTorch on the
# system (a distribution's package, say) is mixed in.
#
# Defines RematLibTorch, an interface target that links LibTorch's CPU
# libraries without passing its headers on (only the importer and the CPU
# executor include them, through REMAT_TORCH_INCLUDE_DIRS), and
# REMAT_TORCH_CXX_STANDARD, the C++ standard its headers need.

if(Torch_DIR)
  # <site-packages>/torch/share/cmake/Torch -> <site-packages>/torch
  get_filename_component(remat_torch_root "${Torch_DIR}/../../.." ABSOLUTE)
  # find_library in TorchConfig searches the prefix path before the system.
  list(PREPEND CMAKE_PREFIX_PATH "${remat_torch_root}/share/cmake" "${remat_torch_root}")
endif()
# The package enables CUDA (the wheel is a CUDA build), giving nvcc the C++
# compiler as its host compiler when that is clang; nvcc takes no clang newer
# than 20 (the sanitized build uses clang 22). remat compiles nothing for CUDA
# through it, so nvcc gets g++ here, which stays once the language is enabled.
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang" AND NOT CMAKE_CUDA_COMPILER_LOADED)
  find_program(REMAT_CUDA_HOST_COMPILER g++ REQUIRED)
  set(CMAKE_CUDA_HOST_COMPILER "${REMAT_CUDA_HOST_COMPILER}")
  enable_language(CUDA)
endif()
find_package(Torch REQUIRED CONFIG)
get_filename_component(remat_torch_root "${Torch_DIR}/../../.." ABSOLUTE)
message(STATUS "Using LibTorch ${Torch_VERSION} from ${remat_torch_root}")

set(REMAT_TORCH_INCLUDE_DIRS ${TORCH_INCLUDE_DIRS})
set(REMAT_TORCH_CXX_STANDARD 20)

# The two CPU libraries themselves, not their imported targets: those would
# pass on Caffe2's MKL and protobuf link settings, which remat does not use.
# The wheel's libraries find their own dependencies (the NVIDIA runtime
# wheels beside torch, which libtorch_cpu names) through their RPATH; remat's
# tools find torch/lib through theirs, in the build tree and once installed.
list(APPEND CMAKE_INSTALL_RPATH "${remat_torch_root}/lib")
add_library(RematLibTorch INTERFACE)
target_link_libraries(RematLibTorch INTERFACE
  "$<TARGET_FILE:torch_cpu>" "$<TARGET_FILE:c10>")
