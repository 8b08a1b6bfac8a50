#!/usr/bin/env bash
# Checks the MPI transport plugin under mpirun on this machine (about 15 s on 2 cores):
#   1. examples/pingpong (the crate linked as an rlib) with 2 ranks over shared memory
#      (btl self,vader) and over TCP on the loopback interface (btl self,tcp);
#   2. examples/program_uses_mpi: a program that initialises MPI itself is refused cleanly;
#   3. tests/dlopen.c: a program that does not link MPI dlopens libspread_remote_mpi.so with
#      RTLD_NOW|RTLD_LOCAL (as Spread's runtime does), initialises MPI through it and moves
#      1 MiB each way.
# Usage: remote-mpi/check.sh [--target-dir DIR]   (default: remote-mpi/target)
# Needs mpirun and mpicc (scripts/setup.sh --mpi).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
target=target
if [ "${1:-}" = --target-dir ]; then target=$2; fi
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
for t in mpirun mpicc; do
  command -v "$t" >/dev/null 2>&1 || { echo "check: $t not found (run scripts/setup.sh --mpi)" >&2; exit 1; }
done
cargo build --release --lib --examples --target-dir "$target"
lib=$(cd "$target/release" && pwd)/libspread_remote_mpi.so
mpirun=(timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2)
tcp=(--mca btl self,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo)

echo "check: pingpong over shared memory"
"${mpirun[@]}" --mca btl self,vader "$target/release/examples/pingpong"
echo "check: pingpong over TCP on lo"
"${mpirun[@]}" "${tcp[@]}" "$target/release/examples/pingpong"

echo "check: a program that uses MPI itself"
timeout 60 mpirun --allow-run-as-root -np 1 "$target/release/examples/program_uses_mpi"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O1 -Wall -Werror -Iinclude tests/dlopen.c -ldl -o "$tmp/dlopen-check"
echo "check: dlopen(RTLD_NOW|RTLD_LOCAL) from a program without MPI"
"${mpirun[@]}" --mca btl self,vader "$tmp/dlopen-check" "$lib" local
echo "check: all passed"
