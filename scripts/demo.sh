#!/usr/bin/env bash
# Spread demo: set up, build the runtime, build examples/multidevice and run
# it on Spread (a 1-D heat stencil split over every host offload device,
# verified against a serial computation).
#
# Usage: scripts/demo.sh [N] [steps] [--concurrent]
#   arguments are passed to the example (see examples/multidevice/main.c)
# Environment:
#   SKIP_SETUP=1        do not run scripts/setup.sh
#   SKIP_BUILD=1        do not run scripts/build.sh
#   SPREAD_HOST_DEVICES number of host devices Spread exposes (default 4)
#   SPREAD_CC           compiler for the example (default clang-19; a CC in
#                       the environment is deliberately ignored)
#   SPREAD_LIB_DIR      directory holding Spread's libomptarget.so.19.1
#                       (default target/spread/lib)
# Exit status: the example's (0 = verified OK).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

say() { printf '\n==> %s\n' "$*"; }
die() { printf 'demo.sh: error: %s\n' "$*" >&2; exit 2; }

run_script() { # run_script <name>
  local s="$ROOT/scripts/$1"
  [[ -f "$s" ]] || die "scripts/$1 not found (it is part of the repository; is the checkout complete?)"
  say "scripts/$1"
  bash "$s" || die "scripts/$1 failed (exit $?)"
}

if [[ "${SKIP_SETUP:-0}" != 1 ]]; then run_script setup.sh; fi
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then run_script build.sh; fi

LIBDIR="${SPREAD_LIB_DIR:-$ROOT/target/spread/lib}"
[[ -e "$LIBDIR/libomptarget.so.19.1" ]] ||
  die "$LIBDIR/libomptarget.so.19.1 is missing; scripts/build.sh should have created it"

say "building examples/multidevice"
make -C "$ROOT/examples/multidevice" CC="${SPREAD_CC:-clang-19}" >/dev/null ||
  die "building examples/multidevice failed"

INFO="$ROOT/target/release/spread-info"
if [[ -x "$INFO" ]]; then
  say "target/release/spread-info"
  LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$INFO" ||
    echo "(spread-info exited with status $?)"
fi

resolved="$(LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  ldd "$ROOT/examples/multidevice/multidevice" 2>/dev/null |
  awk '/libomptarget/ {print $3}')" || true
say "LD_LIBRARY_PATH=${LIBDIR#$ROOT/} examples/multidevice/multidevice $*"
set +e
LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  "$ROOT/examples/multidevice/multidevice" "$@"
rc=$?
set -e
echo "(libomptarget.so.19.1 resolved to: ${resolved:-?}${resolved:+ -> $(readlink -f "$resolved")})"

# Somier (seed 000): the target spread versions built by spread-cc, which links Spread's
# runtime itself (no LD_LIBRARY_PATH needed), checked against the serial run.
if [[ $rc -eq 0 ]]; then
  say "building examples/somier with target/release/spread-cc"
  make -C "$ROOT/examples/somier" >/dev/null || die "building examples/somier failed"
  say "examples/somier/somier --variant all"
  set +e
  "$ROOT/examples/somier/somier" --variant all
  rc=$?
  set -e
fi
if [[ $rc -eq 0 ]]; then
  say "demo finished: verified OK"
else
  say "demo FAILED (exit status $rc)"
fi
exit $rc
