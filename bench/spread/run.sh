#!/usr/bin/env bash
# Run every bench/spread benchmark (about a minute on a 2-core machine). Each prints its table.
# Environment: see bench/spread/README.md.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rc=0
for b in spread_vs_target scaling enter_data_throughput somier; do
  bash "$here/$b/run.sh" || { echo "bench/spread/$b failed" >&2; rc=1; }
  echo
done
exit $rc
