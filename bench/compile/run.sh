#!/usr/bin/env bash
# Compile time of files with many spread constructs (bench/compile/README.md).
#
#   bench/compile/run.sh [N...]          # default: 300 1000 3000
#
# For each N, generates a C file with N 'target spread' constructs in one function (gen.py) and
# times spread-cc -O0 -c with the pass, with --spread-no-pass, and the driver's lowering alone
# (--spread-print-lowered); then plain clang on N plain 'target' regions for comparison.
# SPREAD_PASS_PLUGIN=... compares another build of the pass.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cc=$root/target/release/spread-cc
clang=${SPREAD_CLANG:-clang-19}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(300 1000 3000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t() { local s e; s=$(date +%s.%N); "$@" > /dev/null; e=$(date +%s.%N); echo "$e - $s" | bc; }
printf '%6s %10s %10s %10s %12s\n' N pass_s no_pass_s lower_s plain_clang_s
for n in "${sizes[@]}"; do
  python3 "$root/bench/compile/gen.py" "$n" > "$tmp/s$n.c"
  python3 "$root/bench/compile/gen.py" "$n" --plain > "$tmp/p$n.c"
  a=$(t "$cc" -O0 -c "$tmp/s$n.c" -o "$tmp/s.o")
  b=$(t "$cc" -O0 --spread-no-pass -c "$tmp/s$n.c" -o "$tmp/s.o")
  c=$(t "$cc" --spread-print-lowered "$tmp/s$n.c")
  d=$(t "$clang" -O0 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -c "$tmp/p$n.c" -o "$tmp/p.o")
  printf '%6s %10.2f %10.2f %10.2f %12.2f\n' "$n" "$a" "$b" "$c" "$d"
done
