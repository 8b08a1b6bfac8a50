#!/usr/bin/env bash
# The HeCBench OpenMP offload corpus (../shared/conformance/hecbench, see its README.md and
# manifest.tsv: 136 real programs) on stock libomptarget and on Spread.
#
#   scripts/corpus.sh [--set NAME] [--filter REGEX] [--jobs N] [--timeout S] [--out DIR]
#                     [--repeat N] [--cxx clang|spread] [--corpus DIR] [--target DIR] [--keep]
#                     [--no-snapshot]
#
# Each program is built once, in a scratch copy of its folder under DIR/progs/<name>/, with
# the manifest's command: clang++-19 -O2 -std=c++17 -fopenmp
# -fopenmp-targets=x86_64-unknown-linux-gnu <flags> <sources> (C sources with clang-19, no -std),
# or spread-c++/spread-cc with --cxx spread. The same binary then runs, each time in a fresh
# copy of the folder under `timeout S` (default 120):
#   stock    LD_LIBRARY_PATH=/usr/lib/llvm-19/lib
#   libpath  LD_LIBRARY_PATH=<Spread's drop-in folder, target/spread/lib>
#   preload  LD_PRELOAD=<target/release/libspread_rt.so>, LD_LIBRARY_PATH as stock
#   stock2   stock again, for programs without a check of their own (is the output deterministic?)
# Verdicts (from this run; the manifest's columns are only shown): the program's own PASS/FAIL;
# for programs without one, SAME / CLOSE / DIFF against stock once lines about time, bandwidth,
# rates are dropped (CLOSE: numbers within a relative 1e-6 or one unit of their printed
# precision; DIFF~: stock's two runs differ already; *: lines the two stock runs disagree on
# left out); TIMEOUT, CRASH:<signal>, RC<n>, BUILD-FAIL.
#
#   --set NAME      a named subset (scripts/corpus.py, SETS): ci (23 programs, the test
#                   command's corpus stage, about 2 minutes with --jobs 2 on 2 cores)
#   --filter REGEX  only programs whose name matches (Python regex, searched; with --set,
#                   within the set)
#   --jobs N        programs at a time (default 1; 2 on a 2-core machine halves the time, and
#                   makes wall times noisier)
#   --out DIR       results (default target/corpus): summary.md, summary.tsv, results.json,
#                   settings.txt, progs/<name>/{build-*.log,<run>.out,.err,.cmd,result.json}
#   --repeat N      for the time ratios: N runs each of stock, libpath and preload, taking
#                   turns, and their medians compared (programs > 0.5 s on stock; default 1;
#                   the verdicts stay the first runs')
#   --cxx spread    build with Spread's driver (spread-c++/spread-cc) instead of clang-19
#   --spread-env NAME=VALUE  a variable for Spread's runs only (repeatable; stock runs as ever),
#                   e.g. SPREAD_TEAMS=exact
#   --corpus DIR    the corpus (default ../shared/conformance/hecbench, or $HECBENCH)
#   --target DIR    the cargo target folder of the build to measure (default target/)
#   --keep          keep each run's scratch folder
#   --no-snapshot   use target/ directly (default: copy libspread_rt.so, and with --cxx spread
#                   the driver, plugin and spread.h, to DIR/tools first, so one build serves the
#                   whole run even if target/ changes)
#
# Prints a table (per program: the three verdicts, build and run wall times, Spread/stock
# ratios) and the geometric mean of the Spread/stock wall time ratio over programs whose
# stock run takes more than 0.5 s.
# Exit status 1 when Spread, on the library path or in LD_PRELOAD, does not give what stock
# gives: stock PASS and Spread not PASS; stock without a check and a clean exit, and Spread not
# exiting cleanly, or its output differing beyond printed precision where stock's two runs
# agree; stock FAIL, crashing, exiting non-zero or timing out, and Spread ending worse (a
# timeout, a crash stock does not have, a non-zero exit where stock exits 0); or a build fails.
# A program that fails so is built and run again alone, once every other program has finished,
# up to 4 looks in all: it counts only when every look fails it and stock ended the same way in
# each (a timeout caused by another program loading the cores, or a program whose stock run
# crashes in some runs only, is not a difference between the runtimes; each look is listed).
# Other differences (Spread finishing where stock crashes) are listed, not counted.
# Needs clang-19/clang++-19 with libomp-19 (scripts/setup.sh) and a build (scripts/build.sh).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case ${1-} in -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac
for t in clang-19 clang++-19 timeout python3; do
  command -v "$t" >/dev/null || { echo "corpus: $t not found (scripts/setup.sh installs it)" >&2; exit 2; }
done
exec python3 "$here/corpus.py" "$@"
