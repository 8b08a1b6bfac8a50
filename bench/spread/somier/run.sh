#!/usr/bin/env bash
# The Somier versions side by side (examples/somier, seed 000 section V, Tables I and II):
# baseline `target` on 1 device; `target spread` one buffer on 1, 2 and 4 devices; two buffers
# and double buffering on 2 and 4 devices. Prints ms per time step (median over ROUNDS runs) and
# the ratio to the baseline, in the default environment (libomp's hidden helper threads off,
# Spread owns `nowait`) and with the helpers turned on (libomp's own default). Every
# run is verified against the serial version; the script fails if one is not.
#
# Usage: bench/spread/somier/run.sh [somier options]   (default: --n 96 --steps 10 --planes 8)
# Environment: ROUNDS (default 3), SPREAD_CC, SPREAD_LIB_DIR, CFLAGS (bench/spread/lib.sh),
#              SPREAD_HOST_DEVICES (default 4; configurations needing more devices are skipped)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
S="$ROOT/examples/somier"
build somier somier "$S/main.c" "$S/baseline.c" "$S/spread.c"
BIN="$OUTDIR/somier"
ROUNDS="${ROUNDS:-3}"
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer"
ARGS=("$@")
[[ ${#ARGS[@]} -gt 0 ]] || ARGS=(--n 96 --steps 10 --planes 8)
NDEV=$(run_bin "$OUTDIR/somier" --variant serial --n 4 --steps 0 --devices all |
  awk '/^somier:/ { s = $0; sub(/.*devices \[/, "", s); sub(/\].*/, "", s); print split(s, a, ",") }')

# Each configuration runs twice: in the environment as given ("default") and with libomp's
# hidden helper threads on (LIBOMP_USE_HIDDEN_HELPER_TASK=1: libomp then runs every `nowait`
# target task on one of them, as with stock; see bench/spread/README.md).
echo "== somier ${ARGS[*]} ($NDEV devices, median of $ROUNDS runs; ms per time step)"
printf '%-9s %-8s %10s %8s %12s %8s  %s\n' variant devices default ratio helpers_on ratio result

median() { sort -g | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

# measure <variant> <devices> [env...]: prints the median ms/step; sets result=FAILED on failure
measure() {
  local v=$1 d=$2 out line times=()
  shift 2
  for ((r = 0; r < ROUNDS; r++)); do
    if ! out=$(env "$@" LD_LIBRARY_PATH="$SPREAD_LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      "$BIN" --quiet --variant "$v" --devices "$d" "${ARGS[@]}"); then
      echo "$out" >&2
      result=FAILED
    fi
    line=$(awk -v v="$v" '$1 == v' <<<"$out")
    [[ "$line" == *"verified: OK"* ]] || result=FAILED
    times+=("$(awk '{print $4}' <<<"$line")")
  done
  printf '%s\n' "${times[@]}" | median
}

base1="" base2="" fail=0
for cfg in baseline:0 one:0 one:0,1 one:0,1,2,3 two:0,1 two:0,1,2,3 double:0,1 double:0,1,2,3; do
  v=${cfg%%:*} d=${cfg#*:}
  need=$(awk -F, '{print NF}' <<<"$d")
  if ((need > NDEV)); then
    printf '%-9s %-8s %10s %8s %12s %8s  %s\n' "$v" "$d" - - - - "skipped ($NDEV devices)"
    continue
  fi
  result=OK
  m1=$(measure "$v" "$d")
  m2=$(measure "$v" "$d" LIBOMP_USE_HIDDEN_HELPER_TASK=1)
  [[ -n "$base1" ]] || { base1=$m1; base2=$m2; }
  r1=$(awk -v a="$m1" -v b="$base1" 'BEGIN { printf "%.2f", a / b }')
  r2=$(awk -v a="$m2" -v b="$base2" 'BEGIN { printf "%.2f", a / b }')
  printf '%-9s %-8s %10.3f %8s %12.3f %8s  %s\n' "$v" "$d" "$m1" "$r1" "$m2" "$r2" "$result"
  [[ $result == OK ]] || fail=1
done
exit "$fail"
