#!/usr/bin/env bash
# Automatic spreading benchmark: bench/auto/auto.c built twice (plain clang-19, and with Spread's
# pass plugin), run on stock libomptarget 19 and on Spread, with SPREAD_AUTO off and on. Prints
# each case's time and its ratio to the plain binary on stock (one device), the same run's
# baseline, and the bytes resident data moved (SPREAD_INFO=auto).
#
# Usage: bench/auto/run.sh [n] [steps] [launches]   (default 2000000 40 20000)
# Environment: ROUNDS (default 3; medians over rounds), SPREAD_LIB_DIR, STOCK_LIB_DIR, CC.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CC="${CC:-clang-19}"
STOCK_LIB_DIR="${STOCK_LIB_DIR:-/usr/lib/llvm-19/lib}"
SPREAD_LIB_DIR="${SPREAD_LIB_DIR:-$ROOT/target/spread/lib}"
PLUGIN="$ROOT/target/release/libspread_pass.so"
OUT="$ROOT/build/bench/auto"
ROUNDS="${ROUNDS:-3}"
die() { printf 'bench/auto/run.sh: error: %s\n' "$*" >&2; exit 2; }
[[ -e "$SPREAD_LIB_DIR/libomptarget.so.19.1" && -e "$PLUGIN" ]] || die "run scripts/build.sh first"
[[ -e "$STOCK_LIB_DIR/libomptarget.so.19.1" ]] || die "stock libomptarget not in $STOCK_LIB_DIR"
mkdir -p "$OUT"
FLAGS=(-fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -O2)
"$CC" "${FLAGS[@]}" "$ROOT/bench/auto/auto.c" -lm -o "$OUT/plain" || die "build failed"
"$CC" "${FLAGS[@]}" -fpass-plugin="$PLUGIN" "$ROOT/bench/auto/auto.c" -lm -o "$OUT/plugin" ||
  die "build with the plugin failed"
unset OMP_NUM_THREADS SPREAD_AUTO SPREAD_INFO

# label | binary | library dir | extra environment
CONFIGS=(
  "stock/plain|plain|$STOCK_LIB_DIR|"
  "stock/plugin|plugin|$STOCK_LIB_DIR|"
  "spread/plain|plain|$SPREAD_LIB_DIR|"
  "spread/plugin|plugin|$SPREAD_LIB_DIR|"
  "spread/plugin+AUTO|plugin|$SPREAD_LIB_DIR|SPREAD_AUTO=1 SPREAD_INFO=auto"
)
: >"$OUT/all.txt"
for ((r = 1; r <= ROUNDS; r++)); do
  for c in "${CONFIGS[@]}"; do
    IFS='|' read -r label bin dir extra <<<"$c"
    echo "round $r/$ROUNDS: $label" >&2
    # shellcheck disable=SC2086
    env $extra LD_LIBRARY_PATH="$dir" "$OUT/$bin" "$@" >"$OUT/run.txt" 2>"$OUT/run.err" ||
      { cat "$OUT/run.txt" "$OUT/run.err" >&2; die "$label failed"; }
    grep -qx 'check OK' "$OUT/run.txt" || die "$label: check failed"
    awk -v l="$label" 'NF == 2 { print l, $1, $2 }' "$OUT/run.txt" >>"$OUT/all.txt"
    [[ "$label" == *AUTO ]] && cp "$OUT/run.err" "$OUT/auto-info.txt"
  done
done
echo
echo "median of $ROUNDS round(s); n=${1:-2000000} steps=${2:-40} launches=${3:-20000};" \
  "$(nproc) cores; ratio = time / stock/plain's (one device)"
awk '
  function median(k,   m, i, j, t, a) {
    m = cnt[k]; for (i = 1; i <= m; i++) a[i] = v[k, i]
    for (i = 2; i <= m; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return m % 2 ? a[(m+1)/2] : (a[m/2] + a[m/2+1]) / 2
  }
  { k = $1 SUBSEP $2; if (!(k in cnt)) { if (!($1 in seen)) { seen[$1]; order[++n] = $1 } cases[$2] }
    v[k, ++cnt[k]] = $3 }
  END {
    printf "%-20s %14s %14s %14s\n", "configuration", "fresh s", "resident s", "launch us"
    for (i = 1; i <= n; i++) {
      c = order[i]; printf "%-20s", c
      split("fresh resident launch_us", names, " ")
      for (j = 1; j <= 3; j++) {
        x = median(c SUBSEP names[j]); b = median(order[1] SUBSEP names[j])
        printf " %7.3f (%4.2f)", x, (b > 0 ? x / b : 0)
      }
      printf "\n"
    }
  }' "$OUT/all.txt"
echo
echo "resident data moved under SPREAD_AUTO=1 (last round):"
grep 'resident .* released' "$OUT/auto-info.txt" | sed 's/^spread: auto: /  /' || true
