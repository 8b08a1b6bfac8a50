#!/usr/bin/env bash
# Command latency and copy bandwidth of a remote device (MPI rank 1) against rank 0's own host
# device, measured in the same run, over shared memory and over TCP on the loopback interface;
# the head's cost per enqueued command (in-process); then the scaling model
# (docs/remote-scaling.md) with the measured round trip and bandwidth.
#
# Usage: bench/remote/run.sh [repetitions]   (default 200)
# Needs scripts/setup.sh --mpi and scripts/build.sh (the MPI plugin built).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
reps=${1:-200}
out=target/bench-remote
mkdir -p "$out"
[ -e target/release/libspread_remote_mpi.so ] ||
  { echo "run.sh: the MPI plugin is not built (scripts/setup.sh --mpi; scripts/build.sh)" >&2; exit 1; }
target/release/spread-cc -O2 bench/remote/latency.c -o "$out/latency"
mpirun=(timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2)
export SPREAD_REMOTE=mpi SPREAD_DEVICES=host SPREAD_HOST_DEVICES=1
for net in shm tcp; do
  case $net in
    shm) mca=(--mca btl self,vader) ;;
    tcp) mca=(--mca btl self,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo) ;;
  esac
  echo "== $net: device 0 = rank 0's host device, device 1 = rank 1's host device"
  "${mpirun[@]}" "${mca[@]}" "$out/latency" "$reps" | tee "$out/$net.txt"
  # Calibration for the model: the remote empty region's round trip and 1 MiB copy bandwidth.
  awk '$1 == 1 { printf "rt_us=%s\nbw_gbs=%.3f\n", $2, $8 / 1000 }' "$out/$net.txt" >"$out/$net.calib"
  echo
done
echo "== the head's cost per enqueued command (in-process transport, the same code path but MPI):"
cargo test --release -q -p spread-rt remote::tests::head_cost -- --ignored --nocapture 2>&1 |
  grep -E '^send_us=|commands in' || echo "(cargo not available: skipped)"
echo
for net in shm tcp; do
  echo "== scaling model, $net constants measured here ($(tr '\n' ' ' <"$out/$net.calib"))"
  python3 bench/remote/scaling_model.py --network "$net" --calibrate "$out/$net.calib" \
    --schemes A,B,C-flat,A-task
  echo
done
