#!/usr/bin/env bash
# Command latency and copy bandwidth of a remote device (MPI rank 1) against rank 0's own host
# device, measured in the same run, over shared memory and over TCP on the loopback interface;
# the head's cost per enqueued command (in-process); then the scaling model
# (docs/remote-scaling.md) with the measured round trip and bandwidth. As root, also over the
# emulated cluster (scripts/emulated-cluster.sh: two "nodes", network namespaces joined by veth
# links shaped with tbf to SPREAD_BENCH_LINK, default 10gbit), ranks on different nodes talking
# TCP through the bridge; elsewhere that part is skipped with a note.
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
# Calibration for the model from a latency.c table: the remote empty region's round trip and
# its 1 MiB copy bandwidth.
calibration() {
  awk '$1 == 1 { printf "rt_us=%s\nbw_gbs=%.3f\n", $2, $8 / 1000 }' "$1"
}
export SPREAD_REMOTE=mpi SPREAD_DEVICES=host SPREAD_HOST_DEVICES=1
for net in shm tcp; do
  case $net in
    shm) mca=(--mca btl self,vader) ;;
    tcp) mca=(--mca btl self,tcp --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo) ;;
  esac
  echo "== $net: device 0 = rank 0's host device, device 1 = rank 1's host device"
  "${mpirun[@]}" "${mca[@]}" "$out/latency" "$reps" | tee "$out/$net.txt"
  calibration "$out/$net.txt" >"$out/$net.calib"
  echo
done
nets=(shm tcp)
link=${SPREAD_BENCH_LINK:-10gbit}
if scripts/emulated-cluster.sh up 2 "$link" >/dev/null 2>"$out/emu.err"; then
  trap 'scripts/emulated-cluster.sh down >/dev/null' EXIT
  echo "== emu: two emulated nodes, veth links shaped to $link (tbf), TCP through a bridge"
  timeout 300 scripts/emulated-cluster.sh run 2 "$out/latency" "$reps" | tee "$out/emu.txt"
  calibration "$out/emu.txt" >"$out/emu.calib"
  nets+=(emu)
  echo
else
  echo "== emu: skipped ($(tail -1 "$out/emu.err"))"
  echo
fi
echo "== the head's cost per enqueued command (in-process transport, the same code path but MPI):"
cargo test --release -q -p spread-rt remote::tests::head_cost -- --ignored --nocapture 2>&1 |
  grep -E '^send_us=|commands in' || echo "(cargo not available: skipped)"
echo
for net in "${nets[@]}"; do
  # The emulated links are TCP: the model's tcp preset, with the constants measured on them.
  preset=$net; [ "$net" = emu ] && preset=tcp
  echo "== scaling model, $net constants measured here ($(tr '\n' ' ' <"$out/$net.calib"))"
  python3 bench/remote/scaling_model.py --network "$preset" --calibrate "$out/$net.calib" \
    --schemes A,B,C-flat,A-task
  echo
done
# The nowait depend stencil graph (scheme A-task as Spread runs it today): one task per node and
# step, each after its neighbours' previous ones; wall time, efficiency against one task alone,
# and the head's messages per step (SPREAD_INFO=remote's counts over the 100 steps).
ranks=${SPREAD_BENCH_RANKS:-8}
target/release/spread-cc -O2 bench/remote/stencil_graph.c -o "$out/stencil_graph"
if scripts/emulated-cluster.sh up "$ranks" "$link" >/dev/null 2>"$out/emu.err"; then
  trap 'scripts/emulated-cluster.sh down >/dev/null' EXIT
  echo "== nowait depend stencil graph: $ranks emulated nodes ($link), 100 steps of 1 ms tasks"
  SPREAD_INFO=remote timeout 300 scripts/emulated-cluster.sh run "$ranks" "$out/stencil_graph" 100 1000 2>&1 |
    grep -E '^stencil_graph|remote: MPI rank' | tee "$out/stencil.txt"
  awk '/ messages in / { m += $7 } END { printf "head messages per step: %.1f\n", m / 100 }' "$out/stencil.txt"
else
  echo "== stencil graph on the emulated cluster: skipped ($(tail -1 "$out/emu.err"))"
fi
