#!/usr/bin/env bash
# nowait benchmark: the same binary (bench/nowait/nowait.c) on stock LLVM 19 libomptarget and on
# Spread, median seconds per case and the Spread/stock ratio.
#
# Usage: bench/nowait/run.sh [reps]          (default 5)
# Environment: SPREAD_LIB_DIR, STOCK_LIB_DIR, CC as for bench/launch/run.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CC="${CC:-clang-19}"
STOCK_LIB_DIR="${STOCK_LIB_DIR:-/usr/lib/llvm-19/lib}"
SPREAD_LIB_DIR="${SPREAD_LIB_DIR:-$ROOT/target/spread/lib}"
OUTDIR="$ROOT/build/bench/nowait"
BIN="$OUTDIR/nowait"
REPS="${1:-5}"
die() { printf 'bench/nowait/run.sh: error: %s\n' "$*" >&2; exit 2; }
[[ -e "$SPREAD_LIB_DIR/libomptarget.so.19.1" ]] || die "run scripts/build.sh first (or set SPREAD_LIB_DIR)"
mkdir -p "$OUTDIR"
"$CC" -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -O2 -Wall "$ROOT/bench/nowait/nowait.c" \
  -o "$BIN" || die "compiling nowait.c failed"
unset OMP_NUM_THREADS
for rt in stock spread; do
  dir=$STOCK_LIB_DIR
  [[ $rt == spread ]] && dir=$SPREAD_LIB_DIR
  LD_LIBRARY_PATH="$dir" "$BIN" "$REPS" >"$OUTDIR/$rt.txt" || { cat "$OUTDIR/$rt.txt"; die "$rt run failed"; }
done
val() { awk -v k="$1" '$1 == k {print $2}' "$OUTDIR/$2.txt"; }
echo "target nowait overlap, median seconds of $REPS runs ($(val devices spread) devices, $(nproc) cores)"
printf '%-40s %8s %8s %13s\n' case stock spread spread/stock
for c in initial threads; do
  case $c in
  initial) what="4 x 50 ms, 4 devices, initial thread" ;;
  threads) what="160 x 1 ms, 8 threads, 1 device" ;;
  esac
  s=$(val "$c" stock) p=$(val "$c" spread)
  printf '%-40s %8s %8s %13s\n' "$what" "$s" "$p" "$(awk -v a="$p" -v b="$s" 'BEGIN{printf "%.2f", a/b}')"
done
