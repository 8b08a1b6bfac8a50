#!/usr/bin/env bash
# Build bench/spread/spread_vs_target/spread_vs_target.c with spread-cc and run it on Spread; it prints the table.
# Usage: bench/spread/spread_vs_target/run.sh [seconds_per_case] [reps] [device]   (default 0.4 5 0)
# Environment: SPREAD_CC, SPREAD_LIB_DIR, CFLAGS (see bench/spread/lib.sh), SPREAD_HOST_DEVICES.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
build spread_vs_target spread_vs_target "$ROOT/bench/spread/spread_vs_target/spread_vs_target.c"
echo "== spread_vs_target"
run_bin "$OUTDIR/spread_vs_target" "$@"
