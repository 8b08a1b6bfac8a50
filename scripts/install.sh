#!/usr/bin/env bash
# Install Spread's toolchain and runtime under PREFIX:
#   PREFIX/bin/spread-cc, spread-c++, spread-info
#   PREFIX/lib/libspread_rt.so, libomptarget.so.19.1 -> libspread_rt.so,
#              libomptarget.so -> libomptarget.so.19.1, libspread_pass.so,
#              libspread_remote_mpi.so (when built: cluster mode's MPI transport, found next to
#              the runtime)
#   PREFIX/include/spread.h
#   PREFIX/lib/cmake/Spread/SpreadConfig.cmake, SpreadConfigVersion.cmake,
#                           SpreadToolchain.cmake, spread-launch
# spread-cc finds the header, the pass plugin and the runtime relative to itself
# (PREFIX/bin -> PREFIX/include, PREFIX/lib). Build first with scripts/build.sh.
#
# Usage: scripts/install.sh [--build] PREFIX
#   --build   run scripts/build.sh first
# Environment: DESTDIR (staging root prepended to PREFIX, as in `make install`),
#              CARGO_TARGET_DIR (where cargo put its output; default <repo>/target)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { printf 'install.sh: error: %s\n' "$*" >&2; exit 2; }

build=0
if [[ "${1:-}" == --build ]]; then
  build=1
  shift
fi
[[ $# -eq 1 && -n "$1" && "$1" != -* ]] || die "usage: scripts/install.sh [--build] PREFIX"
PREFIX=$1
[[ "$PREFIX" == /* ]] || PREFIX="$PWD/$PREFIX"
DEST="${DESTDIR:-}$PREFIX"

((build)) && bash "$ROOT/scripts/build.sh"

REL="${CARGO_TARGET_DIR:-$ROOT/target}/release"
for f in spread-cc spread-info libspread_rt.so libspread_pass.so; do
  [[ -f "$REL/$f" ]] || die "$REL/$f is missing; run scripts/build.sh first (or pass --build)"
done
[[ -f "$ROOT/runtime/include/spread.h" ]] || die "runtime/include/spread.h is missing"

install -d "$DEST/bin" "$DEST/lib" "$DEST/include" "$DEST/lib/cmake/Spread"

install -m 755 "$REL/spread-cc" "$REL/spread-info" "$DEST/bin/"
# spread-c++: the driver's C++ entry; a link to spread-cc where the build made it one.
rm -f "$DEST/bin/spread-c++"
if [[ -L "$REL/spread-c++" && "$(readlink -f "$REL/spread-c++")" == "$(readlink -f "$REL/spread-cc")" ]] ||
   [[ ! -e "$REL/spread-c++" ]]; then
  [[ -e "$REL/spread-c++" ]] ||
    echo "install.sh: note: $REL/spread-c++ not built; installing spread-c++ as a link to spread-cc" >&2
  ln -s spread-cc "$DEST/bin/spread-c++"
else
  install -m 755 "$REL/spread-c++" "$DEST/bin/spread-c++"
fi

install -m 755 "$REL/libspread_rt.so" "$REL/libspread_pass.so" "$DEST/lib/"
ln -sfn libspread_rt.so "$DEST/lib/libomptarget.so.19.1"
# Cluster mode's MPI transport (built when MPI was there): the runtime looks for it next to itself.
if [[ -f "$REL/libspread_remote_mpi.so" ]]; then
  install -m 755 "$REL/libspread_remote_mpi.so" "$DEST/lib/"
fi
ln -sfn libomptarget.so.19.1 "$DEST/lib/libomptarget.so"

install -m 644 "$ROOT/runtime/include/spread.h" "$DEST/include/"

install -m 644 "$ROOT/cmake/SpreadConfig.cmake" "$ROOT/cmake/SpreadConfigVersion.cmake" \
  "$ROOT/cmake/SpreadToolchain.cmake" "$DEST/lib/cmake/Spread/"
install -m 755 "$ROOT/cmake/spread-launch" "$DEST/lib/cmake/Spread/"

echo "install.sh: installed Spread in $DEST"
echo "  compile:  $PREFIX/bin/spread-cc prog.c -o prog"
echo "  CMake:    -DCMAKE_PREFIX_PATH=$PREFIX  (find_package(Spread))"
