# Shared by the bench/spread run.sh scripts (sourced). Sets ROOT, SPREAD_CC, SPREAD_LIB_DIR,
# OUTDIR and defines die, build.
#   SPREAD_CC       compiler (default <repo>/target/release/spread-cc)
#   SPREAD_LIB_DIR  directory with Spread's libomptarget.so.19.1 (default <repo>/target/spread/lib)
#   CFLAGS          extra compiler flags (default -O2)
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SPREAD_CC="${SPREAD_CC:-$ROOT/target/release/spread-cc}"
SPREAD_LIB_DIR="${SPREAD_LIB_DIR:-$ROOT/target/spread/lib}"
BENCH_CFLAGS="${CFLAGS:--O2}"

die() { printf '%s: error: %s\n' "$(basename "$0")" "$*" >&2; exit 2; }

[[ -x "$SPREAD_CC" ]] ||
  die "$SPREAD_CC not found; run scripts/build.sh first (or set SPREAD_CC=/path/to/spread-cc)"
[[ -e "$SPREAD_LIB_DIR/libomptarget.so.19.1" ]] ||
  die "Spread's libomptarget.so.19.1 not found in $SPREAD_LIB_DIR; run scripts/build.sh first"

# build <name> <output> <sources...>: compile with spread-cc into build/bench/spread/<name>/
build() {
  local name=$1 out=$2
  shift 2
  OUTDIR="$ROOT/build/bench/spread/$name"
  mkdir -p "$OUTDIR"
  # shellcheck disable=SC2086
  "$SPREAD_CC" $BENCH_CFLAGS -Wall "$@" -o "$OUTDIR/$out" -lm ||
    die "compiling $name with $SPREAD_CC failed"
}

# run_bin <binary> [args...]: run on Spread (the library path wins over any RPATH to stock LLVM)
run_bin() {
  LD_LIBRARY_PATH="$SPREAD_LIB_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"
}
