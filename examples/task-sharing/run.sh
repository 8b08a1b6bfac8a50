#!/usr/bin/env bash
# Builds the task-sharing applications (nbody, matmul, stream) with spread-cc into a temporary
# directory and runs each on Spread's host devices in two configurations of unequal size, in copy
# and lazy coherence and with two resources() settings, then prints one table of the ratios.
#
#   examples/task-sharing/run.sh [extra options for every app, e.g. -q]
#
# Configurations (a 2-core machine: the host devices and the host's share split the cores):
#   1dev  SPREAD_HOST_DEVICES=1 SPREAD_HOST_DEVICE_THREADS=1 SPREAD_HOST_DEVICE_CORES=0
#         SPREAD_ANY_HOST_THREADS=1   (one device of one pinned core + a host share of 1 thread)
#   2dev  SPREAD_HOST_DEVICES=2 SPREAD_HOST_DEVICE_THREADS=1,1 SPREAD_ANY_HOST_THREADS=2
# Resources: each app's defaults ("app") and -r 100,100,100 ("100": one instance at a time per
# device and on the host).
#
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cc="${SPREAD_CC:-$root/target/release/spread-cc}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for app in nbody matmul stream; do
  "$cc" -O2 "$here/$app.c" -o "$tmp/$app" -lm 2>"$tmp/$app.build" || { cat "$tmp/$app.build"; exit 1; }
done
export LD_LIBRARY_PATH="$root/target/spread/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
unset SPREAD_HOST_DEVICES SPREAD_HOST_DEVICE_THREADS SPREAD_HOST_DEVICE_CORES SPREAD_ANY_HOST_THREADS

declare -A conf=(
  [1dev]="SPREAD_HOST_DEVICES=1 SPREAD_HOST_DEVICE_THREADS=1 SPREAD_HOST_DEVICE_CORES=0 SPREAD_ANY_HOST_THREADS=1"
  [2dev]="SPREAD_HOST_DEVICES=2 SPREAD_HOST_DEVICE_THREADS=1,1 SPREAD_ANY_HOST_THREADS=2"
)
status=0
printf '%-6s %-4s %-4s %-4s %9s %9s %9s %8s %6s %9s %9s %s\n' app conf coh res devices_s host_s hybrid_s hyb/best "%sum" MiB_dev MiB_hyb verified
for app in nbody matmul stream; do
  for c in 1dev 2dev; do
    for coh in copy lazy; do
      for res in app 100; do
        ropt=(); [ "$res" = 100 ] && ropt=(-r 100,100,100)
        out="$tmp/out"
        (env ${conf[$c]} SPREAD_COHERENCE=$coh "$tmp/$app" -Q "${ropt[@]}" "$@" >"$out") 2>"$tmp/err"
        rc=$?
        [ $rc -ne 0 ] && status=1
        awk -v app=$app -v c=$c -v coh=$coh -v res=$res -v rc=$rc '
          $1 == app && $2 == "devices-only" && $4 == "s" { td = $3 }
          $1 == app && $2 == "host-only" && $4 == "s" { th = $3 }
          $1 == app && $2 == "hybrid" && $4 == "s" { ty = $3 }
          $1 == app && $2 == "devices-only:" && $3 == "instances" { bd = $NF }
          $1 == app && $2 == "hybrid:" && $3 == "instances" { by = $NF }
          /^hybrid vs best/ { r = $6; sub(/x;$/, "", r); p = $NF }
          END { printf "%-6s %-4s %-4s %-4s %9s %9s %9s %8s %6s %9.1f %9.1f %s\n", app, c, coh, res, td, th, ty, r, p,
                       bd / 1048576, by / 1048576, rc == 0 ? "OK" : "FAILED (rc " rc ")" }' "$out"
      done
    done
  done
done
echo "($(nproc) cores; devices_s/host_s/hybrid_s: timed part of each mode; hyb/best: hybrid rate over the"
echo " better of devices-only and host-only; %sum: hybrid rate over the sum of both; MiB_dev/MiB_hyb:"
echo " bytes moved by the devices-only/hybrid modes)"
exit $status
