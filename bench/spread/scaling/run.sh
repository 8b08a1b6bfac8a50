#!/usr/bin/env bash
# Build bench/spread/scaling/scaling.c with spread-cc and run it on Spread; it prints the table.
# Usage: bench/spread/scaling/run.sh [seconds] [reps] [D0] [D1]   (default 1.0 3 0 1)
# Environment: SPREAD_CC, SPREAD_LIB_DIR, CFLAGS (see bench/spread/lib.sh), SPREAD_HOST_DEVICES.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
build scaling scaling "$ROOT/bench/spread/scaling/scaling.c"
echo "== scaling"
run_bin "$OUTDIR/scaling" "$@"
