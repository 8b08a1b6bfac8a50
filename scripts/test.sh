#!/usr/bin/env bash
# Spread's test command (CI runs exactly this).  Stages, in order; the first
# one that fails stops the run with its exit status:
#   setup         scripts/setup.sh --cuda --mpi (installs what is missing, the CUDA toolkit pieces
#                 that nvptx64 images need, so the GPU build path is tested on every machine, and
#                 Open MPI, so the MPI transport plugin is built and checked too)
#   build         scripts/build.sh (cargo build --release --workspace + drop-in link; the MPI
#                 plugin remote-mpi/ when mpicc is on PATH)
#   deps          scripts/check-deps.py: every tool/library/header used comes from a package
#                 setup.sh installs (with MPI: also mpirun, mpicc, mpi.h, the MPI plugin's
#                 libraries); and the check fails when one is dropped from the list
#   fmt           cargo fmt --all -- --check, and the same for remote-mpi/ (its own workspace)
#   clippy        cargo clippy --workspace --all-targets -- -D warnings, and the same for
#                 remote-mpi/ when build.sh built it
#   cargo-test    cargo test --workspace --release (and remote-mpi/'s unit tests when built)
#   lit           lit -sv test-suite (on Spread: library path and LD_PRELOAD); nvptx/ needs the
#                 CUDA toolkit (feature nvptx-toolchain), gpu/ a usable GPU (feature cuda)
#   memcheck      scripts/memcheck.sh: 39 of the lit suite's programs on Spread under
#                 valgrind memcheck; fails on any error with a frame in Spread's runtime
#   conformance-libpath   LLVM's offload tests, Spread as libomptarget.so.19.1 on LD_LIBRARY_PATH
#   conformance-preload   the same with Spread in LD_PRELOAD
#   sollve        the SOLLVE V&V suite's C tests on stock and on Spread; fails when Spread passes
#                 fewer than stock or fails a test stock passes (docs/sollve.md)
#   corpus        scripts/corpus.sh --set ci: 23 of the HeCBench corpus's real programs
#                 (../shared/conformance/hecbench), each built once with clang++-19 and run on
#                 stock, on Spread through the library path and through LD_PRELOAD (about 2
#                 minutes on 2 cores); fails when Spread does not pass what stock passes, prints
#                 other results, or hangs, crashes or exits non-zero where stock does not
#                 (target/corpus-ci/)
# The last line is "N passed, M failed" (counting stages).
#
# Environment:
#   SPREAD_SHARED   directory with conformance/ (default: ../shared next to the repo)
#   SPREAD_JOBS     parallel jobs for lit, the conformance runner and the corpus stage (default 2)
#   SPREAD_SKIP_SETUP=1  skip the setup stage (the tools are known to be there)
#   SPREAD_CORPUS   the corpus stage's programs: ci (default), or all (the 136 programs, about
#                   30 minutes on 2 cores; scripts/corpus.sh --jobs N alone does the same)
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
SHARED=${SPREAD_SHARED:-$REPO/../shared}
JOBS=${SPREAD_JOBS:-2}
LLVM_DIR=${LLVM_DIR:-/usr/lib/llvm-19}
export LLVM_SYS_191_PREFIX=${LLVM_SYS_191_PREFIX:-$LLVM_DIR} # for llvm-sys based crates
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
# Tests choose their own offload settings.
unset OMP_TARGET_OFFLOAD LD_PRELOAD
for v in $(compgen -e | grep -E '^(LIBOMPTARGET_|SPREAD_HOST_)' || true); do unset "$v"; done

passed=0
failed=0
T0=$SECONDS

summary() { echo "$passed passed, $failed failed"; }

# stage NAME COMMAND...: run one stage with errexit active inside it.
stage() {
  local name=$1 start=$SECONDS rc
  shift
  printf '\n======== [%d] %s ========\n' "$((passed + 1))" "$name"
  set +e
  (set -euo pipefail; "$@")
  rc=$?
  set -e
  if [ "$rc" -ne 0 ]; then
    failed=$((failed + 1))
    printf '======== %s: FAILED (exit %d, %ds) ========\n' "$name" "$rc" "$((SECONDS - start))"
    summary
    exit "$rc"
  fi
  passed=$((passed + 1))
  printf '======== %s: ok (%ds) ========\n' "$name" "$((SECONDS - start))"
}

# The lit driver: `lit` on PATH, the user-site one pip installs, the Python
# module, or the copy llvm-19-tools ships.
run_lit() {
  local user_lit
  user_lit="$(python3 -m site --user-base 2>/dev/null || true)/bin/lit"
  if command -v lit >/dev/null 2>&1; then
    lit "$@"
  elif [ -x "$user_lit" ]; then
    "$user_lit" "$@"
  elif python3 -c 'import lit.main' >/dev/null 2>&1; then
    python3 -c 'import sys, lit.main; sys.argv[0] = "lit"; lit.main.main()' "$@"
  else
    python3 "$LLVM_DIR/build/utils/lit/lit.py" "$@"
  fi
}

# conformance VAR=VALUE: the runner with the runtime given by VAR
# (RUNTIME_LIBRARY_PATH or RUNTIME_PRELOAD).
conformance() {
  local runner=$SHARED/conformance/llvm-offload/run.py
  if [ ! -f "$runner" ]; then
    echo "conformance runner not found: $runner (set SPREAD_SHARED)" >&2
    return 1
  fi
  env "$1" python3 "$runner" -j"$JOBS" --build target/conformance
}

# deps_check: the dependency check passes, and fails when a package is left out of the list
# (clang-tools-19, whose absence once hid behind hand-installed machines).
deps_check() {
  python3 scripts/check-deps.py
  must_need clang-tools-19 clang-offload-packager
  # With MPI, the same for libopenmpi-dev (mpi.h, which the MPI plugin's build reads).
  if command -v mpicc >/dev/null 2>&1; then
    must_need libopenmpi-dev 'mpi\.h'
  fi
}

# must_need PKG PATTERN: check-deps fails without PKG in the list, naming a file that matches
# PATTERN (what PKG provides).
must_need() {
  local out
  if out=$(SPREAD_DEPS_DROP=$1 python3 scripts/check-deps.py 2>&1); then
    echo "check-deps passed without $1 in the list; it must fail" >&2
    return 1
  fi
  grep -q "$2" <<<"$out" || {
    echo "check-deps without $1 did not name $2:" >&2
    echo "$out" >&2
    return 1
  }
  echo "check-deps without $1 fails, as it must"
}

# mpi_plugin: whether build.sh built the MPI transport plugin (its rule: mpicc on PATH, unless
# SPREAD_MPI=0). remote-mpi/ is a workspace of its own; its cargo runs share target/.
mpi_plugin() {
  [ "${SPREAD_MPI:-}" != 0 ] && command -v mpicc >/dev/null 2>&1
}
mpi_cargo() {
  local sub=$1
  shift
  cargo "$sub" --manifest-path remote-mpi/Cargo.toml --target-dir target "$@"
}

# fmt needs no MPI: remote-mpi/ is checked everywhere.
fmt_check() {
  cargo fmt --all -- --check
  cargo fmt --manifest-path remote-mpi/Cargo.toml -- --check
}

clippy_check() {
  cargo clippy --workspace --all-targets -- -D warnings
  if mpi_plugin; then
    mpi_cargo clippy --all-targets -- -D warnings
  else
    echo "clippy: remote-mpi/ skipped (the MPI plugin was not built: no mpicc)"
  fi
}

cargo_tests() {
  cargo test --workspace --release
  if mpi_plugin; then
    mpi_cargo test --release
  fi
}

# sollve: the SOLLVE V&V suite under both runtimes (about 6 minutes on 2 cores; compiled tests
# are cached in target/sollve).
sollve() {
  local runner=$SHARED/conformance/sollve/run.py last
  if [ ! -f "$runner" ]; then
    echo "SOLLVE runner not found: $runner (set SPREAD_SHARED)" >&2
    return 1
  fi
  mkdir -p target/sollve
  python3 "$runner" -j"$JOBS" --build target/sollve --results target/sollve/results.tsv \
    --spread-libdir target/spread/lib | tee target/sollve/run.log || true
  last=$(tail -n 1 target/sollve/run.log)
  # "spread N passed, stock M passed, compiled C of T; spread-only failures: K"
  if [[ ! $last =~ ^spread\ ([0-9]+)\ passed,\ stock\ ([0-9]+)\ passed.*spread-only\ failures:\ ([0-9]+) ]]; then
    echo "unexpected last line from the SOLLVE runner" >&2
    return 1
  fi
  if [ "${BASH_REMATCH[1]}" -lt "${BASH_REMATCH[2]}" ] || [ "${BASH_REMATCH[3]}" -ne 0 ]; then
    echo "Spread passes fewer SOLLVE tests than stock, or fails one stock passes:" >&2
    awk -F'\t' '$1 !~ /^#/ && $3 == "PASS" && $4 != "PASS"' target/sollve/results.tsv >&2
    return 1
  fi
}

# corpus: the HeCBench programs of set $SPREAD_CORPUS (default ci; all: every program) on stock
# and on Spread (scripts/corpus.sh; results in target/corpus-<set>/).
corpus() {
  local dir=$SHARED/conformance/hecbench set=${SPREAD_CORPUS:-ci}
  if [ ! -f "$dir/manifest.tsv" ]; then
    echo "HeCBench corpus not found: $dir (set SPREAD_SHARED)" >&2
    return 1
  fi
  local args=(--jobs "$JOBS" --corpus "$dir" --out "target/corpus-$set")
  if [ "$set" != all ]; then
    args+=(--set "$set" --timeout 60)
  fi
  bash scripts/corpus.sh "${args[@]}"
}

if [ "${SPREAD_SKIP_SETUP:-0}" != 1 ]; then
  stage setup bash scripts/setup.sh --cuda --mpi
fi
stage build bash scripts/build.sh
stage deps deps_check
stage fmt fmt_check
stage clippy clippy_check
stage cargo-test cargo_tests
stage lit run_lit -sv -j"$JOBS" test-suite
stage memcheck bash scripts/memcheck.sh
stage conformance-libpath conformance RUNTIME_LIBRARY_PATH="$REPO/target/spread/lib"
stage conformance-preload conformance RUNTIME_PRELOAD="$REPO/target/release/libspread_rt.so"
stage sollve sollve
stage corpus corpus

printf '\nall stages passed in %ds\n' "$((SECONDS - T0))"
summary
