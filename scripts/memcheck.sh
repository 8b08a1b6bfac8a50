#!/usr/bin/env bash
# Memory checking of the end-to-end tests: builds a representative set of the lit suite's programs
# (test-suite/runtime, test-suite/memory, test-suite/spread) and runs each on Spread under valgrind
# memcheck. Every error with a frame in libspread_rt.so counts as Spread's; the others (stacks
# entirely in libomp, ld.so, libc or the test program) are counted apart. The only suppressions are
# those in scripts/memcheck.supp (each with its reason), and none may name Spread.
#
#   scripts/memcheck.sh [--quick] [NAME...]
#
#   --quick   a faster subset (the test command, scripts/test.sh, runs them all): every program
#             but the slowest under valgrind and those that add little to the others
#   NAME...   only these programs (names from the table below)
#
# Output: one line per program, "memcheck NAME: spread E1, other E2, exit S, Ns" (E = error
# contexts reported by valgrind, leaks counted only when definite), the Spread errors' stacks, and
# a last line "memcheck: P programs, spread E1, other E2, Ns". Logs (valgrind XML and text) are in
# target/memcheck/. Exit status 1 when a program has Spread errors or does not end as expected.
#
# Needs valgrind (Debian: apt-get install valgrind; scripts/setup.sh installs it, it is in
# scripts/packages.sh) and a build (scripts/build.sh).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
LLVM_DIR=${LLVM_DIR:-/usr/lib/llvm-19}
OUT=$REPO/target/memcheck
LIBDIR=$REPO/target/spread/lib
CC="$LLVM_DIR/bin/clang -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu"
CXX="$LLVM_DIR/bin/clang++ -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu"
SPREAD_CC=$REPO/target/release/spread-cc
# Programs choose their own offload settings (as in scripts/test.sh).
unset OMP_TARGET_OFFLOAD LD_PRELOAD
for v in $(compgen -e | grep -E '^(LIBOMPTARGET_|SPREAD_|OMP_|KMP_)' || true); do unset "$v"; done

quick=0
names=()
for a in "$@"; do
  case $a in
    --quick) quick=1 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "memcheck: unknown option $a" >&2; exit 2 ;;
    *) names+=("$a") ;;
  esac
done

if ! command -v valgrind >/dev/null 2>&1; then
  echo "memcheck: valgrind not found (Debian: apt-get install valgrind, or scripts/setup.sh)" >&2
  exit 2
fi
if [ ! -e "$LIBDIR/libomptarget.so.19.1" ] || [ ! -x "$SPREAD_CC" ]; then
  echo "memcheck: build first (scripts/build.sh)" >&2
  exit 2
fi

# The programs: NAME QUICK BUILD SOURCE EXPECT [ENV=VALUE...] [-- ARGS...]
#   QUICK   q: in the --quick subset; -: full run only
#   BUILD   cc (clang-19 offload, run with Spread on the library path), cxx, spread (spread-cc,
#           which links Spread itself), cc-lomptarget (clang-19 with -lomptarget, Spread first)
#   EXPECT  ok: exits 0; fail: exits non-zero (a fatal runtime error: leaks are not checked)
PROGRAMS=(
  "omp_api q cc runtime/omp_api.c ok"
  "mapping_refcount q cc runtime/mapping_refcount.c ok"
  "multi_device_arrays q cc runtime/multi_device_arrays.c ok"
  "declare_target q cc runtime/declare_target.c ok"
  "declare_mapper q cxx runtime/declare_mapper.cpp ok"
  "device_copy_isolation q cc runtime/device_copy_isolation.c ok"
  "firstprivate - cc runtime/firstprivate.c ok"
  "ptr_and_obj q cc runtime/ptr_and_obj.c ok"
  "noncontiguous_update q cc runtime/noncontiguous_update.c ok"
  "nowait_depend q cc runtime/nowait_depend.c ok"
  "nowait_initial_thread q cc runtime/nowait_initial_thread.c ok"
  "concurrent_devices - cc runtime/concurrent_devices.c ok SPREAD_HOST_THREADS=8"
  "info_data_transfer q cc runtime/info_data_transfer.c ok LIBOMPTARGET_INFO=32"
  "offload_env_disabled - cc runtime/offload_env.c ok OMP_TARGET_OFFLOAD=disabled"
  "no_devices q cc runtime/no_devices.c ok SPREAD_HOST_DEVICES=0"
  "corrupt_image q cc runtime/corrupt_image.c ok"
  "thread_capacity - cc runtime/thread_capacity.c ok"
  "stress_threads q cc runtime/stress_threads.c ok -- 6 100"
  "bad_args q cc runtime/bad_args.c ok"
  "bad_args_free_twice q cc runtime/bad_args_spread.c fail -- twice"
  "bad_args_target_past q cc runtime/bad_args.c fail -- target-past"
  "present_fail q cc runtime/present_fail.c fail"
  "omp_api_bad_device - cc runtime/omp_api_bad_device.c fail"
  "out_of_memory q cc runtime/out_of_memory.c fail"
  "spaces q spread memory/spaces.c ok"
  "traits q spread memory/traits.c ok OMP_PLACES=cores"
  "allocate q spread memory/allocate.c ok"
  "bad_input q spread memory/bad_input.c ok"
  "peer_api q spread memory/peer_api.c ok"
  "peer_directive q spread memory/peer_directive.c ok"
  "interpose q cc-lomptarget memory/interpose.c ok"
  "paper_distribution q spread spread/paper_distribution.c ok SPREAD_INFO=chunks"
  "directive_forms q spread spread/directive_forms.c ok"
  "spread_nowait_depend q spread spread/nowait_depend.c ok"
  "trace q spread spread/trace.c ok SPREAD_TRACE=@OUT@/trace.json"
  "spread_errors_dev q spread spread/errors.c fail -DBAD_DEVICE"
  "auto_forms q spread auto/forms.c ok SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 -- 1001"
  "auto_resident q spread auto/resident.c ok SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 -- 1001"
  "auto_reduction - spread auto/reduction.c ok SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 -- 1001"
)

mkdir -p "$OUT/bin" "$OUT/log"
SUPP=$REPO/scripts/memcheck.supp
T0=$SECONDS
nprog=0
tot_spread=0
tot_other=0
bad=0

for line in "${PROGRAMS[@]}"; do
  read -r -a f <<<"$line"
  name=${f[0]} q=${f[1]} build=${f[2]} src=test-suite/${f[3]} expect=${f[4]}
  if [ "${#names[@]}" -gt 0 ]; then
    keep=0
    for n in "${names[@]}"; do [ "$n" = "$name" ] && keep=1; done
    [ "$keep" = 1 ] || continue
  elif [ "$quick" = 1 ] && [ "$q" != q ]; then
    continue
  fi
  envs=() args=() cflags=() seen_dd=0
  for x in "${f[@]:5}"; do
    if [ "$seen_dd" = 1 ]; then args+=("$x")
    elif [ "$x" = -- ]; then seen_dd=1
    elif [[ $x == -D* ]]; then cflags+=("$x")
    else envs+=("${x//@OUT@/$OUT/log}")
    fi
  done
  exe=$OUT/bin/$name
  start=$SECONDS
  # -gdwarf-4 for file:line in the stacks (valgrind 3.19 reads DWARF 5 only in part); -O1 as in
  # the lit tests.
  case $build in
    cc) $CC -O1 -gdwarf-4 "${cflags[@]}" "$src" -o "$exe" ;;
    cxx) $CXX -O1 -gdwarf-4 "${cflags[@]}" "$src" -o "$exe" ;;
    spread) "$SPREAD_CC" -O1 -gdwarf-4 "${cflags[@]}" "$src" -o "$exe" ;;
    cc-lomptarget)
      $CC -O1 -gdwarf-4 -I runtime/include "${cflags[@]}" "$src" -L"$LIBDIR" -lomptarget -o "$exe"
      ;;
  esac 2> "$OUT/log/$name.build" || {
    cat "$OUT/log/$name.build" >&2
    echo "memcheck $name: build failed" >&2
    bad=1
    continue
  }
  leak=(--leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite)
  noleaks=()
  if [ "$expect" = fail ]; then leak=(--leak-check=no) noleaks=(--no-leaks); fi
  set +e
  # valgrind runs one thread at a time, and libomp's threads (its 8 hidden helpers among them)
  # wait by spinning: without --fair-sched a spinning thread can keep the others from running
  # for minutes (a nowait test took 150-360 s instead of 2 s, stress_threads seemed to hang).
  # (The group's stderr only takes bash's "Aborted" notice for the expected fatal errors.)
  {
    env OMP_NUM_THREADS=2 LD_LIBRARY_PATH="$LIBDIR" "${envs[@]}" \
    valgrind --tool=memcheck --fair-sched=yes --error-exitcode=97 "${leak[@]}" --num-callers=40 \
    --suppressions="$SUPP" --gen-suppressions=all --track-origins=yes \
    --xml=yes --xml-file="$OUT/log/$name.xml" --log-file="$OUT/log/$name.vg" \
    "$exe" "${args[@]}" > "$OUT/log/$name.out" 2>&1
  } 2>/dev/null
  rc=$?
  set -e
  nprog=$((nprog + 1))
  read -r ns no < <(python3 "$REPO/scripts/memcheck-report.py" "$OUT/log/$name.xml" \
    "$OUT/log/$name.report" "${noleaks[@]}")
  ns=${ns:-0} no=${no:-0}
  tot_spread=$((tot_spread + ns))
  tot_other=$((tot_other + no))
  status=ok
  if [ "$expect" = ok ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 97 ]; then
    status="FAILED (exit $rc, expected 0)"
  fi
  if [ "$expect" = fail ] && { [ "$rc" -eq 0 ] || [ "$rc" -eq 97 ]; }; then
    status="FAILED (exit $rc, expected a fatal error)"
  fi
  if [ "$rc" -eq 97 ] && [ "$((ns + no))" -eq 0 ]; then
    status="FAILED (valgrind reported errors the log does not show)"
  fi
  printf 'memcheck %s: spread %d, other %d, exit %d, %ds %s\n' "$name" "$ns" "$no" "$rc" \
    "$((SECONDS - start))" "$status"
  if [ "$ns" -gt 0 ] || [ "$status" != ok ]; then
    bad=1
    sed 's/^/  /' "$OUT/log/$name.report"
    if [ "$status" != ok ]; then tail -n 20 "$OUT/log/$name.out" | sed 's/^/  | /'; fi
  fi
done

printf 'memcheck: %d programs, spread %d, other %d, %ds\n' "$nprog" "$tot_spread" "$tot_other" \
  "$((SECONDS - T0))"
exit "$bad"
