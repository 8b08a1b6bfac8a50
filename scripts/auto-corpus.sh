#!/usr/bin/env bash
# Automatic spreading (SPREAD_AUTO) on real programs: the HeCBench OpenMP offload corpus
# (../shared/conformance/hecbench, see its README.md and manifest.tsv).
#
#   scripts/auto-corpus.sh [--jobs N] [--filter REGEX] [--out DIR] [--timeout S] [--corpus DIR]
#                          [--target DIR] [--keep] [--resume] [--no-snapshot]
#
# For every manifest program whose stock verdict is PASS or NOCHECK (the manifest's verdicts
# only choose the programs), in a scratch copy of its folder under DIR/progs/<name>/:
#   build it plain, and with -fpass-plugin=target/release/libspread_pass.so
#   -Rpass=spread-auto -Rpass-missed=spread-auto (remarks kept in build-plug.log), then run
#   a  the plain binary on stock libomptarget (LD_LIBRARY_PATH=/usr/lib/llvm-19/lib)
#   b  the plugin binary on stock libomptarget
#   c  the plugin binary on Spread, SPREAD_AUTO unset
#   d  the plugin binary on Spread with SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto
#   (and a2, the plain binary on stock again, for programs without a PASS/FAIL check, to tell
#   whether their output can be compared), each under `timeout S` (default 120).
# Verdicts: the program's own PASS/FAIL; for programs without one, SAME / CLOSE / DIFF against
# run a after lines about time, bandwidth, rates are dropped (CLOSE: numbers within a relative
# 1e-6 or one unit of their printed precision; DIFF~: a and a2 differ already); TIMEOUT,
# CRASH:<signal>, RC<n>, BUILD-FAIL.
# Counts: kernels the pass accepted / refused (remarks, by reason) and launches under SPREAD_AUTO
# spread / refused (by reason) / run on their device without a descriptor over resident data
# (SPREAD_INFO=auto lines), with the resident objects' traffic.
#
#   --jobs N        programs at a time (default 1; 2 on a 2-core machine halves the time)
#   --filter REGEX  only programs whose name matches (Python regex, searched)
#   --out DIR       results (default target/auto-corpus): summary.tsv, summary.md, kernels.tsv,
#                   results.json, settings.txt, progs/<name>/{build-*.log,<run>.out,.err,.cmd}
#   --target DIR    the cargo target folder of the build to measure (default target/)
#   --keep          keep each run's scratch folder
#   --resume        keep the results (progs/<name>/result.json) an interrupted run with the
#                   same build and timeout left in DIR; run the other programs
#   --no-snapshot   use target/ directly (default: copy libspread_rt.so and libspread_pass.so to
#                   DIR/tools first, so one build serves the whole run even if target/ changes)
#
# Needs clang-19/clang++-19 with libomp-19 (scripts/setup.sh) and a build (scripts/build.sh).
# Exit status 1 when a program that is good on a (PASS, or no check and a clean exit) is not on
# b, c or d (FAIL, DIFF, a crash, a timeout, a non-zero exit, the plugin build failing).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case ${1-} in -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
for t in clang-19 clang++-19 timeout python3; do
  command -v "$t" >/dev/null || { echo "auto-corpus: $t not found (scripts/setup.sh installs it)" >&2; exit 2; }
done
exec python3 "$here/auto-corpus.py" "$@"
