#!/usr/bin/env bash
# Launch-latency benchmark: build bench/launch/launch.c once, run the same
# binary on stock LLVM 19 libomptarget and on Spread, print a comparison.
#
# Usage: bench/launch/run.sh [seconds_per_case] [reps]   (default 0.5 5)
# Environment:
#   SPREAD_LIB_DIR  directory with Spread's libomptarget.so.19.1
#                   (default: <repo>/target/spread/lib, made by scripts/build.sh)
#   STOCK_LIB_DIR   directory with stock libomptarget.so.19.1
#                   (default: /usr/lib/llvm-19/lib)
#   CC              compiler (default clang-19)
#   ROUNDS          alternate stock/Spread runs this many times (default 3);
#                   the table shows the median over rounds of each run's
#                   median
#   KEEP_OUTPUT=1   also print all raw outputs
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CC="${CC:-clang-19}"
STOCK_LIB_DIR="${STOCK_LIB_DIR:-/usr/lib/llvm-19/lib}"
SPREAD_LIB_DIR="${SPREAD_LIB_DIR:-$ROOT/target/spread/lib}"
LIB=libomptarget.so.19.1
OUTDIR="$ROOT/build/bench/launch"
BIN="$OUTDIR/launch"

die() { printf 'bench/launch/run.sh: error: %s\n' "$*" >&2; exit 2; }

[[ -e "$STOCK_LIB_DIR/$LIB" ]] ||
  die "stock $LIB not found in $STOCK_LIB_DIR (install libomp-19-dev or set STOCK_LIB_DIR=)"
[[ -e "$SPREAD_LIB_DIR/$LIB" ]] ||
  die "Spread's $LIB not found in $SPREAD_LIB_DIR; run scripts/build.sh first, or set SPREAD_LIB_DIR=<dir containing $LIB>"

mkdir -p "$OUTDIR"
"$CC" -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -O2 -Wall \
  "$ROOT/bench/launch/launch.c" -o "$BIN" || die "compiling launch.c failed"

unset OMP_NUM_THREADS

run_one() { # run_one <label> <libdir> <outfile> [launch args...]
  local label=$1 dir=$2 out=$3
  shift 3
  echo "running on $label ($dir) ..." >&2
  if ! LD_LIBRARY_PATH="$dir" "$BIN" "$@" >"$out" 2>"$out.err"; then
    cat "$out" "$out.err" >&2
    die "$label run failed"
  fi
  # make sure the dynamic loader really picked the library we asked for
  local used want
  used="$(awk '$1 == "libomptarget" {print $2}' "$out")"
  want="$(readlink -f "$dir/$LIB")"
  if [[ "$(readlink -f "$used" 2>/dev/null)" != "$want" ]]; then
    die "$label run loaded '$used', expected $want"
  fi
  grep -qx 'check OK' "$out" || { cat "$out" >&2; die "$label run: check FAILED"; }
}

ROUNDS="${ROUNDS:-3}"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer"
STOCK_OUT="$OUTDIR/stock.txt"
SPREAD_OUT="$OUTDIR/spread.txt"
: >"$STOCK_OUT"
: >"$SPREAD_OUT"
for ((r = 1; r <= ROUNDS; r++)); do
  echo "round $r/$ROUNDS" >&2
  run_one stock "$STOCK_LIB_DIR" "$OUTDIR/stock.$r.txt" "$@"
  run_one Spread "$SPREAD_LIB_DIR" "$OUTDIR/spread.$r.txt" "$@"
  cat "$OUTDIR/stock.$r.txt" >>"$STOCK_OUT"
  cat "$OUTDIR/spread.$r.txt" >>"$SPREAD_OUT"
  rm -f "$OUTDIR/stock.$r.txt"* "$OUTDIR/spread.$r.txt"*
done

if [[ "${KEEP_OUTPUT:-0}" == 1 ]]; then
  echo "--- stock";  cat "$STOCK_OUT"
  echo "--- spread"; cat "$SPREAD_OUT"
fi

if [[ "$(readlink -f "$STOCK_LIB_DIR/$LIB")" == "$(readlink -f "$SPREAD_LIB_DIR/$LIB")" ]]; then
  echo "note: SPREAD_LIB_DIR points at the stock library; both columns measure stock"
fi

echo
first() { awk -v k="$1" '$1 == k {print $2; exit}' "$2"; }
echo "target-region launch latency in microseconds per launch:" \
  "median over $ROUNDS round(s) of the median of $(first reps "$STOCK_OUT") repetitions"
echo "(devices: stock $(first devices "$STOCK_OUT"), spread $(first devices "$SPREAD_OUT");" \
  "$(first seconds_per_case "$STOCK_OUT") s per case per run)"
awk '
  function median(arr, m,   i, j, t) {
    for (i = 2; i <= m; i++)            # insertion sort, m is tiny
      for (j = i; j > 1 && arr[j-1] > arr[j]; j--) { t = arr[j]; arr[j] = arr[j-1]; arr[j-1] = t }
    return m % 2 ? arr[(m+1)/2] : (arr[m/2] + arr[m/2+1]) / 2
  }
  $1 ~ /_region_us$/ {
    if (FILENAME == ARGV[1]) {
      if (!($1 in ns)) order[++n] = $1
      S[$1, ++ns[$1]] = $2
    } else
      P[$1, ++np[$1]] = $2
  }
  END {
    printf "%-10s %11s %11s %13s\n", "case", "stock", "spread", "spread/stock"
    for (i = 1; i <= n; i++) {
      k = order[i]; name = k; sub(/_region_us$/, "", name)
      delete a; for (j = 1; j <= ns[k]; j++) a[j] = S[k, j]; s = median(a, ns[k])
      if (np[k] > 0) {
        delete a; for (j = 1; j <= np[k]; j++) a[j] = P[k, j]; p = median(a, np[k])
        printf "%-10s %11.3f %11.3f %13.2f\n", name, s, p, (s > 0 ? p / s : 0)
      } else
        printf "%-10s %11.3f %11s %13s\n", name, s, "-", "-"
    }
  }' "$STOCK_OUT" "$SPREAD_OUT"
echo "(raw output: ${STOCK_OUT#$ROOT/}, ${SPREAD_OUT#$ROOT/})"
