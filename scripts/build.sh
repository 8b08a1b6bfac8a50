#!/usr/bin/env bash
# Build the workspace in release mode and lay out the runtime under the file
# name programs look for:
#   target/release/libspread_rt.so            the runtime (LD_PRELOAD it)
#   target/release/spread-info                device listing tool
#   target/spread/lib/libomptarget.so.19.1 -> ../../release/libspread_rt.so
#   target/spread/lib/libomptarget.so -> libomptarget.so.19.1
#                                             (put this directory on LD_LIBRARY_PATH)
# and, when MPI is there (mpicc on PATH, e.g. after scripts/setup.sh --mpi), the MPI transport
# plugin remote-mpi/ (its own cargo workspace; built into the same target directory):
#   target/release/libspread_remote_mpi.so
#   target/spread/lib/libspread_remote_mpi.so -> ../../release/libspread_remote_mpi.so
# Extra arguments go to the workspace's cargo build.
# Environment: SPREAD_MPI=1 requires the MPI plugin (fails when MPI is missing), SPREAD_MPI=0
# skips it; unset, it is built when mpicc is on PATH.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi

# For crates built on llvm-sys (LLVM 19).
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-/usr/lib/llvm-19}

# The MPI transport plugin: decided before the long build, so a bad setting fails at once.
case ${SPREAD_MPI:-} in
  1)
    command -v mpicc >/dev/null 2>&1 || {
      echo "build: error: SPREAD_MPI=1 but mpicc is not on PATH (scripts/setup.sh --mpi installs Open MPI)" >&2
      exit 1
    }
    mpi_why=
    ;;
  0) mpi_why="SPREAD_MPI=0" ;;
  '')
    if command -v mpicc >/dev/null 2>&1; then
      mpi_why=
    else
      mpi_why="mpicc is not on PATH; scripts/setup.sh --mpi installs Open MPI"
    fi
    ;;
  *)
    echo "build: error: SPREAD_MPI=$SPREAD_MPI (expected 1, 0 or unset)" >&2
    exit 1
    ;;
esac
cargo build --release --workspace "$@"

lib=target/release/libspread_rt.so
[ -f "$lib" ] || { echo "build: $lib was not produced" >&2; exit 1; }
mkdir -p target/spread/lib
ln -sfn ../../release/libspread_rt.so target/spread/lib/libomptarget.so.19.1
# The link-time name, so `-L target/spread/lib` links programs against Spread (spread-cc does).
ln -sfn libomptarget.so.19.1 target/spread/lib/libomptarget.so
echo "build: runtime $PWD/$lib"
echo "build: drop-in $PWD/target/spread/lib/libomptarget.so.19.1"

# --- the MPI transport plugin --------------------------------------------------
if [ -n "$mpi_why" ]; then
  echo "build: MPI plugin skipped ($mpi_why)"
  exit 0
fi
cargo build --release --manifest-path remote-mpi/Cargo.toml --target-dir target
mpi_lib=target/release/libspread_remote_mpi.so
[ -f "$mpi_lib" ] || { echo "build: $mpi_lib was not produced" >&2; exit 1; }
ln -sfn ../../release/libspread_remote_mpi.so target/spread/lib/libspread_remote_mpi.so
echo "build: MPI plugin $PWD/$mpi_lib"
