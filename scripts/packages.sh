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

# With scripts/setup.sh --mpi (opt-in; scripts/test.sh passes it): what the MPI transport plugin
# remote-mpi/ (libspread_remote_mpi.so, remote devices on other MPI ranks) builds and runs with.
# Open MPI, not MPICH: it yields the CPU when ranks oversubscribe the cores (a 2-core CI runs 3-5
# ranks) and names a rank that died, where MPICH's launcher is silent.
#   openmpi-bin      mpirun (Open MPI 4.1.4), which the MPI lit tests and the examples launch with
#   libopenmpi-dev   mpicc and mpi.h: the mpi crate's build script asks `mpicc -show` for the
#                    flags, and bindgen reads mpi.h; also the libmpi.so link name
# Nothing else: bindgen (run by the mpi crate's build) loads libclang at build time, and
# libclang1-19 (/usr/lib/llvm-19/lib/libclang-19.so.1) with its builtin headers from
# libclang-common-19-dev, both hard dependencies of clang-19, is enough (no libclang-19-dev);
# build-probe-mpi uses `mpicc -show`, so pkg-config is not needed either.
# shellcheck disable=SC2034
MPI_PACKAGES=(openmpi-bin libopenmpi-dev)
