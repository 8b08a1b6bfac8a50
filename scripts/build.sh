#!/usr/bin/env bash
# Build the workspace in release mode and lay out the runtime under the file
# name programs look for:
#   target/release/libspread_rt.so            the runtime (LD_PRELOAD it)
#   target/release/spread-info                device listing tool
#   target/spread/lib/libomptarget.so.19.1 -> ../../release/libspread_rt.so
#   target/spread/lib/libomptarget.so -> libomptarget.so.19.1
#                                             (put this directory on LD_LIBRARY_PATH)
# Extra arguments go to cargo.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi

# For crates built on llvm-sys (LLVM 19).
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-/usr/lib/llvm-19}

cargo build --release --workspace "$@"

lib=target/release/libspread_rt.so
[ -f "$lib" ] || { echo "build: $lib was not produced" >&2; exit 1; }
mkdir -p target/spread/lib
ln -sfn ../../release/libspread_rt.so target/spread/lib/libomptarget.so.19.1
# The link-time name, so `-L target/spread/lib` links programs against Spread (spread-cc does).
ln -sfn libomptarget.so.19.1 target/spread/lib/libomptarget.so
echo "build: runtime $PWD/$lib"
echo "build: drop-in $PWD/target/spread/lib/libomptarget.so.19.1"
