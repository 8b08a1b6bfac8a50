#!/usr/bin/env bash
# Hand-split stencil benchmark: the same binary (bench/stencil/stencil.c, plain OpenMP: one
# `target ... nowait` per device per step, `taskwait`, halo exchange) on stock LLVM 19
# libomptarget and on Spread, under the settings that decide how `nowait` works, median seconds
# and ratios. Runs alternate between the settings ROUNDS times; each run is the median of REPS.
#
# Usage: bench/stencil/run.sh [N] [steps]          (default 4194304 50)
# Environment: SPREAD_LIB_DIR, STOCK_LIB_DIR, CC as for bench/launch/run.sh; ROUNDS (default 3),
#   REPS (default 3); TEAMS=1 builds `target teams distribute parallel for` kernels (stock aborts
#   in most runs of that form, see stencil.c).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CC="${CC:-clang-19}"
STOCK_LIB_DIR="${STOCK_LIB_DIR:-/usr/lib/llvm-19/lib}"
SPREAD_LIB_DIR="${SPREAD_LIB_DIR:-$ROOT/target/spread/lib}"
OUTDIR="$ROOT/build/bench/stencil"
BIN="$OUTDIR/stencil"
N="${1:-4194304}"
STEPS="${2:-50}"
ROUNDS="${ROUNDS:-3}"
REPS="${REPS:-3}"
die() { printf 'bench/stencil/run.sh: error: %s\n' "$*" >&2; exit 2; }
[[ -e "$SPREAD_LIB_DIR/libomptarget.so.19.1" ]] || die "run scripts/build.sh first (or set SPREAD_LIB_DIR)"
mkdir -p "$OUTDIR"
"$CC" -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -O2 -Wall ${TEAMS:+-DTEAMS} \
  "$ROOT/bench/stencil/stencil.c" -o "$BIN" -lm || die "compiling stencil.c failed"
unset OMP_NUM_THREADS LIBOMP_USE_HIDDEN_HELPER_TASK SPREAD_NOWAIT

# name | library directory | environment | devices (empty: all)
CASES=(
  "stock|$STOCK_LIB_DIR||"
  "stock, hidden helpers off|$STOCK_LIB_DIR|LIBOMP_USE_HIDDEN_HELPER_TASK=0|"
  "Spread|$SPREAD_LIB_DIR||"
  "Spread, SPREAD_NOWAIT=libomp|$SPREAD_LIB_DIR|SPREAD_NOWAIT=libomp|"
  "Spread, hidden helpers on|$SPREAD_LIB_DIR|LIBOMP_USE_HIDDEN_HELPER_TASK=1|"
  "Spread, 1 device|$SPREAD_LIB_DIR||1"
)
# A run that aborts (stock libomp 19 with its hidden helpers does, at random:
# `kmp_tasking.cpp(4368): task_team != NULL`) is counted and tried again, up to 5 times.
declare -A T F
for ((r = 0; r < ROUNDS; r++)); do
  for i in "${!CASES[@]}"; do
    IFS='|' read -r name dir envs ndev <<<"${CASES[$i]}"
    out="$OUTDIR/case$i.$r.txt"
    for ((try = 0; try < 5; try++)); do
      # shellcheck disable=SC2086
      if env LD_LIBRARY_PATH="$dir" $envs "$BIN" "$N" "$STEPS" "$REPS" $ndev >"$out" 2>&1; then
        break
      fi
      F[$i]=$((${F[$i]:-0} + 1))
    done
    if ! grep -qx 'check OK' "$out"; then
      # Spread must never abort or compute a wrong result; stock's aborts are what they are:
      # its round is left out (a case with no round left prints "aborted").
      [[ "$dir" != "$SPREAD_LIB_DIR" ]] && ! grep -q '^check FAIL' "$out" && continue
      cat "$out"
      die "$name: failed 5 times or computed a wrong result"
    fi
    T[$i]+="$(awk '$1 == "seconds" {print $2}' "$out") "
  done
done
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{v[NR] = $1} END {if (NR) print v[int((NR + 1) / 2)]; else print "aborted"}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-"}'; }
devices=$(awk '$1 == "devices" {print $2}' "$OUTDIR/case2.0.txt")
echo "hand-split stencil: N=$N, $STEPS steps, $devices devices, $(nproc) cores; median seconds of $ROUNDS rounds"
printf '%-32s %9s %12s %13s %8s\n' setting seconds "vs stock" "vs Spread" aborts
stock=$(median "${T[0]:-}")
spread=$(median "${T[2]:-}")
for i in "${!CASES[@]}"; do
  IFS='|' read -r name _ _ _ <<<"${CASES[$i]}"
  m=$(median "${T[$i]:-}")
  printf '%-32s %9s %12s %13s %8s\n' "$name" "$m" "$(ratio "$m" "$stock")" \
    "$(ratio "$m" "$spread")" "${F[$i]:-0}"
done
