#!/usr/bin/env bash
# Build bench/sched/unequal.c with spread-cc and run it on two host devices of unequal size:
# device 0 gets twice the threads of device 1. With C allowed cores, C >= 3: device 1 gets
# T = C/3 threads, device 0 2T, pinned to disjoint cores (SPREAD_HOST_DEVICE_CORES), so the ideal
# (sum of the rates alone) is reachable. With fewer cores: 2 and 1 threads, not pinned (3 threads
# on 2 cores: the ideal is then an upper bound the devices cannot reach together).
# Usage: bench/sched/run.sh [n] [steps] [chunk] [chunks]   (default 32768 8 n/64 4096)
# Environment: SPREAD_CC, SPREAD_LIB_DIR, CFLAGS (see bench/spread/lib.sh); set
# SPREAD_HOST_DEVICE_THREADS / SPREAD_HOST_DEVICE_CORES yourself to override the split.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../spread/lib.sh"

build sched unequal "$ROOT/bench/sched/unequal.c"

cpus=$(python3 -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0)))))')
IFS=, read -r -a cpu <<<"$cpus"
ncpu=${#cpu[@]}
if [[ -z "${SPREAD_HOST_DEVICE_THREADS:-}${SPREAD_HOST_DEVICE_CORES:-}" ]]; then
  if ((ncpu >= 3)); then
    t=$((ncpu / 3))
    c0=$(IFS=,; echo "${cpu[*]:0:2*t}")
    c1=$(IFS=,; echo "${cpu[*]:2*t:t}")
    export SPREAD_HOST_DEVICE_THREADS="$((2 * t)),$t" SPREAD_HOST_DEVICE_CORES="$c0;$c1"
  else
    export SPREAD_HOST_DEVICE_THREADS="2,1"
  fi
fi
# Enough threads for libomp: it caps every team at OMP_NUM_THREADS.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$ncpu}"
export SPREAD_HOST_DEVICES="${SPREAD_HOST_DEVICES:-2}"
echo "== unequal ($ncpu allowed cores)"
run_bin "$OUTDIR/unequal" "${1:-32768}" "${2:-8}" "${3:-0}" 0 1 "${4:-4096}"
