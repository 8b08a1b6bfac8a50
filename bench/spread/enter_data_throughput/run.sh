#!/usr/bin/env bash
# Build bench/spread/enter_data_throughput/enter_data_throughput.c with spread-cc and run it on Spread; it prints the table.
# Usage: bench/spread/enter_data_throughput/run.sh [MiB] [reps]   (default 128 7)
# Environment: SPREAD_CC, SPREAD_LIB_DIR, CFLAGS (see bench/spread/lib.sh), SPREAD_HOST_DEVICES.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
build enter_data_throughput enter_data_throughput "$ROOT/bench/spread/enter_data_throughput/enter_data_throughput.c"
echo "== enter_data_throughput"
run_bin "$OUTDIR/enter_data_throughput" "$@"
