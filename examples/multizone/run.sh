#!/usr/bin/env bash
# Runs examples/multizone for every layout (sp, lu, bt) and schedule (static, dynamic,
# static_opt, adaptive), each in the hybrid configuration and the devices-only baseline, and
# prints the summary tables. One process per layout, so that the static_opt/adaptive rates a
# construct learns come from that layout's tasks.
#
#   examples/multizone/run.sh [multizone options]     e.g. --class W, --cpus 1:2 --gpus 2:1
#   CLASS=S (default) / W / A; MZ=path/to/multizone (default: next to this script, built with
#   make when missing)
#
# Default devices: two host devices (SPREAD_DEVICES=host SPREAD_HOST_DEVICES=2) unless the
# environment sets them.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
mz="${MZ:-$here/multizone}"
if [ ! -x "$mz" ]; then
  make -C "$here" >/dev/null
fi
export LD_LIBRARY_PATH="$root/target/spread/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SPREAD_DEVICES="${SPREAD_DEVICES:-host}"
export SPREAD_HOST_DEVICES="${SPREAD_HOST_DEVICES:-2}"
class="${CLASS:-S}"

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
status=0
for layout in sp lu bt; do
  "$mz" --class "$class" --layout "$layout" --quiet "$@" >>"$out" || status=1
done

echo "multizone, class $class ($(nproc) cores, SPREAD_DEVICES=$SPREAD_DEVICES SPREAD_HOST_DEVICES=$SPREAD_HOST_DEVICES${SPREAD_HOST_DEVICE_THREADS:+ SPREAD_HOST_DEVICE_THREADS=$SPREAD_HOST_DEVICE_THREADS})"
grep -E '^layout ' "$out"
echo
# the summary table: one header, the rows of every layout
grep -m1 -E '^lay +schedule' "$out"
awk '/^summary /{on=1; next} on && /^lay +schedule/{next} on && /^(sp|lu|bt) +[a-z_]+ +[0-9]/{print; next} /^hybrid vs/{on=0}' "$out"
echo
grep -m1 -E '^hybrid vs devices-only' "$out" | sed 's/, this run)/, same process)/' || true
grep -E '^  (sp|lu|bt) +[a-z_]+ +[0-9.]+x' "$out" || true
echo
grep -E 'verified: FAILED|verification FAILED' "$out" || true
grep -E '^(sp|lu|bt) serial' "$out"
if [ "$status" = 0 ]; then echo "run.sh: every run verified: OK"; else echo "run.sh: verification FAILED"; fi
exit "$status"
