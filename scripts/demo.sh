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
#   SPREAD_CUDA=1       also the NVIDIA path (unvalidated: no GPU run yet): setup.sh --cuda
#                       installs CUDA 13's ptxas/nvlink/libdevice, then the heat stencil is built
#                       with spread-cc --offload-arch=$SPREAD_CUDA_ARCH (default sm_90) into one
#                       binary with an nvptx64 and an x86_64 image, and run (on GPUs if any,
#                       else on host devices)
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

run_script() { # run_script <name> [args]
  local s="$ROOT/scripts/$1"
  [[ -f "$s" ]] || die "scripts/$1 not found (it is part of the repository; is the checkout complete?)"
  say "scripts/$*"
  bash "$s" "${@:2}" || die "scripts/$1 failed (exit $?)"
}

CUDA=${SPREAD_CUDA:-0}
[[ $CUDA == 0 || $CUDA == 1 ]] || die "SPREAD_CUDA must be 0 or 1, not '$CUDA'"
if [[ "${SKIP_SETUP:-0}" != 1 ]]; then
  if [[ $CUDA == 1 ]]; then run_script setup.sh --cuda; else run_script setup.sh; fi
fi
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
# SPREAD_CUDA=1: one binary with an nvptx64 and an x86_64 image; each device runs the image it
# can (SPREAD_INFO=devices says which).
if [[ $rc -eq 0 && $CUDA == 1 ]]; then
  arch=${SPREAD_CUDA_ARCH:-sm_90}
  fat="$ROOT/target/demo/multidevice-$arch"
  mkdir -p "$ROOT/target/demo"
  say "target/release/spread-cc -O2 --offload-arch=$arch examples/multidevice/main.c -o ${fat#$ROOT/}"
  "$ROOT/target/release/spread-cc" -O2 --offload-arch="$arch" "$ROOT/examples/multidevice/main.c" \
    -o "$fat" -lm || die "building the nvptx64 + x86_64 binary failed"
  LLVM_OBJDUMP=${LLVM_DIR:-/usr/lib/llvm-19}/bin/llvm-objdump
  if [[ -x "$LLVM_OBJDUMP" ]]; then
    echo "offload images: $("$LLVM_OBJDUMP" --offloading "$fat" | awk '$1 == "triple" {printf "%s%s", sep, $2; sep=", "}')"
  fi
  say "SPREAD_INFO=devices ${fat#$ROOT/} $*"
  set +e
  SPREAD_INFO=devices "$fat" "$@"
  rc=$?
  set -e
fi
if [[ $rc -eq 0 ]]; then
  say "demo finished: verified OK"
else
  say "demo FAILED (exit status $rc)"
fi
exit $rc
