#!/usr/bin/env bash
# Runs spread-cc on every malformed input of this directory: each must end with exit status 1
# and a clang-style 'file:line:col: error:' diagnostic naming the input, within 60 seconds;
# never a panic, a signal or a hang.
#   check.sh SPREAD_CC DIR OUTDIR
set -u
cc=$1 dir=$2 out=$3
mkdir -p "$out"
# generated inputs: statements nested beyond the driver's limit (stmt::MAX_NESTING), which
# must be an error rather than a stack overflow
python3 -c "print('void f(int n, int *a) {\\n#pragma omp target spread devices(0)\\n  for (int i = 0; i < n; i++)\\n' + 'if (n) ' * 150000 + 'a[i] = i;\\n}')" > "$out/deep_nesting_generated.c"
fails=0 n=0
for f in "$dir"/*.c "$out"/deep_nesting_generated.c; do
  n=$((n + 1))
  name=$(basename "$f" .c)
  timeout 60 "$cc" -c "$f" -o "$out/$name.o" > "$out/$name.out" 2> "$out/$name.err"
  rc=$?
  why=""
  if [ $rc -eq 124 ]; then why="hang (timeout)"
  elif [ $rc -ne 1 ]; then why="exit status $rc"
  elif grep -q "panicked\|RUST_BACKTRACE" "$out/$name.err"; then why="Rust panic"
  elif ! grep -Eq "^[^ ]*$name\.c:[0-9]+:[0-9]+: error: " "$out/$name.err"; then why="no 'file:line:col: error:'"
  fi
  if [ -n "$why" ]; then
    fails=$((fails + 1))
    echo "FAIL $name: $why"
    sed 's/^/  | /' "$out/$name.err" | head -20
  else
    echo "ok $name: $(grep -Em1 'error: ' "$out/$name.err")"
  fi
done
echo "malformed: $n inputs, $fails failures"
[ $fails -eq 0 ]
