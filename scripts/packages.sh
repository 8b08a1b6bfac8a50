# The Debian packages Spread's build, demo and tests need: sourced by scripts/setup.sh (which
# installs them) and scripts/check-deps.sh (which checks that every tool and library those
# commands use comes from them or their hard dependencies). Edit the list here only.
#   clang-19 clang-tools-19   the compiler and the offload tools it runs (clang-offload-packager,
#                             clang-linker-wrapper: clang-19 only recommends clang-tools-19)
#   llvm-19-dev               llvm-config and headers for the pass plugin's C++ shim
#   libomp-19-dev             libomp and stock libomptarget 19 (the reference runtime)
#   llvm-19-tools             FileCheck, not (lit tests, conformance)
#   cmake make g++            the CMake package test, the examples' Makefiles, the shim's compiler
#   valgrind                  the memcheck stage (scripts/memcheck.sh --quick: lit programs under
#                             valgrind memcheck)
#   python3-pip               pip, which installs lit and, for setup.sh --cuda (run by
#                             scripts/test.sh), CUDA's ptxas/nvlink/libdevice wheels
# Python 3 comes with llvm-19-tools; lit comes from PyPI (setup.sh).
# shellcheck disable=SC2034
APT_PACKAGES=(clang-19 clang-tools-19 llvm-19-dev libomp-19-dev llvm-19-tools cmake make g++ valgrind
  python3-pip)
