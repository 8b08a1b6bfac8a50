#!/usr/bin/env bash
# Long fuzzing campaign of the driver's directive front end (driver/tests/fuzz_directives.rs):
# random and mutated spread directives through lexing, parsing, lowering, splicing and the
# diagnostics, which must never panic.
#
#   scripts/fuzz-driver.sh [ITERATIONS_PER_SEED] [SEEDS...]
#
# Defaults: 5,000,000 cases for each of the seeds 1..4 (about 25 s per seed on the 2-core
# development machine). A failure prints the seed, the case number and the input.
set -euo pipefail
cd "$(dirname "$0")/.."
iters=${1:-5000000}
shift || true
seeds=("$@")
if [ ${#seeds[@]} -eq 0 ]; then
  seeds=(1 2 3 4)
fi
for seed in "${seeds[@]}"; do
  echo "fuzz-driver: seed $seed, $iters cases"
  SPREAD_FUZZ_SEED=$seed SPREAD_FUZZ_ITERS=$iters \
    cargo test --release -p spread-driver --test fuzz_directives -- --nocapture
done
