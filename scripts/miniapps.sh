#!/usr/bin/env bash
# Stock libomptarget vs Spread on published OpenMP-offload mini-apps (issue 25 item 5;
# results and every failure explained in docs/mini-apps.md).
#
# Usage: scripts/miniapps.sh SRC_DIR [BUILD_DIR]
#
# SRC_DIR holds the mini-apps' sources, one folder each (CI cannot download them; get them
# once with the commands below; the commits are the ones docs/mini-apps.md reports):
#
#   git clone https://github.com/ANL-CESAR/XSBench     SRC_DIR/XSBench     # ba08e5221af6106252b866e50ea123c69d31a4e2
#   git clone https://github.com/ANL-CESAR/RSBench     SRC_DIR/RSBench     # 34b644787ea9af4fb188e1253da72e09bbed9989
#   git clone https://github.com/UoB-HPC/miniBUDE      SRC_DIR/miniBUDE    # 570f66c1fd0c29b7f3ab6fa96fba87f4561aa44c
#   git clone https://github.com/UoB-HPC/BabelStream   SRC_DIR/BabelStream # 57637d572532fc028b6c0964944f1afc27ff5436
#   git clone https://github.com/UoB-HPC/TeaLeaf       SRC_DIR/TeaLeaf     # e70261c0be40537da75b258108ed2898f84f3c58
#   git clone https://github.com/UoB-HPC/CloverLeaf    SRC_DIR/CloverLeaf  # ba256dccb033d385c23a4a02983b2d137eebeca4
#   (then `git -C SRC_DIR/<name> checkout <commit>`; miniBUDE needs only data/bm1 of its decks)
#
# For each app: build it twice from the same sources, with clang-19/clang++-19 -O2 -fopenmp
# -fopenmp-targets=x86_64-unknown-linux-gnu (its own CMake where it has one) and with Spread's
# spread-cc/spread-c++; run a small problem RUNS times on each of
#   stock    the clang binary, LD_LIBRARY_PATH=/usr/lib/llvm-19/lib      (LLVM 19's libomptarget)
#   libpath  the clang binary, LD_LIBRARY_PATH=<repo>/target/spread/lib  (Spread, drop-in)
#   preload  the clang binary, stock path + LD_PRELOAD=<repo>/target/release/libspread_rt.so
#   spreadcc the spread-c++ binary, no environment (its RUNPATH names Spread's runtime)
# interleaved round by round (the machine's load changes), check every run with the app's own
# verification (or a reference value, see verify_*), and print a markdown table: verification
# of each variant, median wall time, Spread/stock ratios. BabelStream is also built with the pass
# plugin (-fpass-plugin=libspread_pass.so -Rpass=spread-auto -Rpass-missed=spread-auto) and run
# on stock and on Spread with SPREAD_AUTO=1 (its kernels spread over all devices).
#
# Environment:
#   APPS      which apps (default: "xsbench rsbench minibude babelstream tealeaf cloverleaf")
#   RUNS      runs per variant (default 3; the median is reported)
#   TIMEOUT   seconds per run before it counts as a hang (default 180)
#   REBUILD=1 rebuild even where BUILD_DIR already has the binary
#   NO_AUTO=1 skip the BabelStream SPREAD_AUTO build and runs
#   LLVM_LIB  stock libomptarget's directory (default /usr/lib/llvm-19/lib)
# BUILD_DIR defaults to SRC_DIR/spread-build; logs of every build and run are under it.
# Exit status: 0 when every run of every variant verified, 1 otherwise, 2 on a usage error.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { printf 'miniapps.sh: error: %s\n' "$*" >&2; exit 2; }

[ $# -ge 1 ] || die "usage: scripts/miniapps.sh SRC_DIR [BUILD_DIR] (see the header for how to get the sources)"
SRC="$(cd "$1" && pwd)" || die "no such folder: $1"
B="${2:-$SRC/spread-build}"
mkdir -p "$B/logs" "$B/run" || die "cannot create $B"
B="$(cd "$B" && pwd)"

APPS="${APPS:-xsbench rsbench minibude babelstream tealeaf cloverleaf}"
RUNS="${RUNS:-3}"
TIMEOUT="${TIMEOUT:-180}"
LLVM_LIB="${LLVM_LIB:-/usr/lib/llvm-19/lib}"
SPREAD_LIB="$ROOT/target/spread/lib"
SPREAD_RT="$ROOT/target/release/libspread_rt.so"
PASS="$ROOT/target/release/libspread_pass.so"
SPREAD_CC="$ROOT/target/release/spread-cc"
SPREAD_CXX="$ROOT/target/release/spread-c++"
TRIPLE=x86_64-unknown-linux-gnu
OFFLOAD="-fopenmp -fopenmp-targets=$TRIPLE"

for t in clang-19 clang++-19 cmake make timeout; do
    command -v "$t" >/dev/null || die "$t not found (scripts/setup.sh installs it)"
done
for f in "$SPREAD_LIB/libomptarget.so.19.1" "$SPREAD_RT" "$PASS" "$SPREAD_CC" "$SPREAD_CXX" \
         "$LLVM_LIB/libomptarget.so.19.1"; do
    [ -e "$f" ] || die "$f is missing (build Spread first: scripts/build.sh)"
done

# ---------------------------------------------------------------- builds
# Each build_<app> KIND builds $B/<app>-KIND/<binary>; KIND is clang, spreadcc or auto.
# cc_for KIND C|CXX: the compiler of a kind.
cc_for() {
    case "$1:$2" in
        spreadcc:C) echo "$SPREAD_CC" ;;
        spreadcc:CXX) echo "$SPREAD_CXX" ;;
        *:C) echo clang-19 ;;
        *:CXX) echo clang++-19 ;;
    esac
}

# direct_build APP KIND SUBDIR OUT FILES...: one compile line (XSBench, RSBench: their Makefiles
# only know GPU targets; this is their line with the host target).
direct_build() {
    local app=$1 kind=$2 sub=$3 out=$4; shift 4
    mkdir -p "$B/$app-$kind"
    (cd "$SRC/$sub" && timeout 900 "$(cc_for "$kind" C)" -std=gnu99 -Wall -O2 $OFFLOAD "$@" -lm \
        -o "$B/$app-$kind/$out")
}

# cmake_build APP KIND SRCNAME CMAKE_ARGS...: the UoB-HPC CMake projects. Their RELEASE flag
# override drops the offload flags from the compile line (they ride on the default flags), so
# -O2 and the offload flags go in CXX_EXTRA_FLAGS; TeaLeaf's and CloverLeaf's RELEASE_CXX_FLAGS
# override is dead code (`elseif ()` for `else ()` in their CMakeLists.txt), setting it only
# empties their defaults (-O3 -Wall [-march=native]).
cmake_build() {
    local app=$1 kind=$2 name=$3; shift 3
    local d="$B/$app-$kind"
    rm -rf "$d"
    timeout 300 cmake -S "$SRC/$name" -B "$d" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_C_COMPILER="$(cc_for "$kind" C)" -DCMAKE_CXX_COMPILER="$(cc_for "$kind" CXX)" \
        -DOFFLOAD=ON "-DOFFLOAD_FLAGS=$OFFLOAD" "$@" &&
        timeout 1800 make -C "$d" VERBOSE=1
}

extra_flags() { # extra_flags KIND [more;flags]: CXX_EXTRA_FLAGS of a CMake build
    local f="-O2;-fopenmp;-fopenmp-targets=$TRIPLE"
    [ "$1" = auto ] && f="$f;-fpass-plugin=$PASS;-Rpass=spread-auto;-Rpass-missed=spread-auto"
    [ -n "${2:-}" ] && f="$f;$2"
    echo "-DCXX_EXTRA_FLAGS=$f"
}

build_xsbench() {
    direct_build xsbench "$1" XSBench/openmp-offload XSBench \
        Main.c io.c Simulation.c GridInit.c XSutils.c Materials.c
}
build_rsbench() {
    direct_build rsbench "$1" RSBench/openmp-offload rsbench \
        main.c simulation.c io.c init.c material.c utils.c
}
# miniBUDE's src/omp/fasten.hpp:148,153 `devices.template emplace_back(...)` is an error in
# clang 19 (-Wmissing-template-arg-list-after-template-kw, an error by default): the app's code.
build_minibude() {
    cmake_build minibude "$1" miniBUDE -DMODEL=omp -DRELEASE_FLAGS=-O2 \
        "$(extra_flags "$1" -Wno-missing-template-arg-list-after-template-kw)"
}
build_babelstream() { cmake_build babelstream "$1" BabelStream -DMODEL=omp -DRELEASE_FLAGS=-O2 "$(extra_flags "$1")"; }
build_tealeaf() { cmake_build tealeaf "$1" TeaLeaf -DMODEL=omp -DRELEASE_CXX_FLAGS=-O2 "$(extra_flags "$1")"; }
build_cloverleaf() { cmake_build cloverleaf "$1" CloverLeaf -DMODEL=omp-target -DRELEASE_CXX_FLAGS=-O2 "$(extra_flags "$1")"; }

bin_of() { # bin_of APP KIND
    case $1 in
        xsbench) echo "$B/xsbench-$2/XSBench" ;;
        rsbench) echo "$B/rsbench-$2/rsbench" ;;
        minibude) echo "$B/minibude-$2/omp-bude" ;;
        babelstream) echo "$B/babelstream-$2/omp-stream" ;;
        tealeaf) echo "$B/tealeaf-$2/omp-tealeaf" ;;
        cloverleaf) echo "$B/cloverleaf-$2/omp-target-cloverleaf" ;;
    esac
}

declare -A BUILT # BUILT[app-kind] = ok | failed
build() { # build APP KIND
    local app=$1 kind=$2 bin log
    bin="$(bin_of "$app" "$kind")"
    log="$B/logs/build-$app-$kind.log"
    if [ -x "$bin" ] && [ "${REBUILD:-0}" != 1 ]; then
        BUILT[$app-$kind]=ok
        return
    fi
    printf '  build %-12s %-8s ... ' "$app" "$kind" >&2
    if "build_$app" "$kind" >"$log" 2>&1 && [ -x "$bin" ]; then
        BUILT[$app-$kind]=ok
        echo "ok" >&2
    else
        BUILT[$app-$kind]=failed
        echo "FAILED (see $log)" >&2
        grep -m3 -E 'error|Error' "$log" >&2
    fi
}

# ---------------------------------------------------------------- runs and verification
# Problem sizes (a few seconds each on 2 loaded cores) and what verifies them.
# XSBench/RSBench validate their checksum only for their default lookup counts (17M / 10M
# lookups, minutes here); for the smaller counts used here the reference checksum is the one
# their openmp-threading versions (no offloading) print for the same arguments.
XS_ARGS="-s small -m event -l 1000000"; XS_REF=999388
RS_ARGS="-s small -m event -l 200000"; RS_REF=702961
BUDE_ARGS="-n 1024 -i 2" # bm1 deck; miniBUDE compares the energies with data/bm1/ref_energies.out
BABEL_ARGS="-s 4194304 -n 20" # 3 x 33.6 MB arrays of doubles; BabelStream checks every array and the dot sum
# TeaLeaf: tea.in (CG, test problem 5) on 256x256 cells, 4 steps. TeaLeaf checks the final
# temperature against a problems file; 256x256@4 is not in its tea.problems, the value below is
# what its serial model (MODEL=serial, clang++-19 -O2, same commit) prints.
TEA_REF="256 256 4 1.028083267417014e+02"
# CloverLeaf: clover_bm_short.in on 240x240 cells, 40 steps, no test_problem (its references are
# for 960x960 and larger). The final field summary of clover.out is compared with the one its
# serial model prints, every column but Pressure: src/omp-target/field_summary.cpp:120 passes
# `mass` where the serial model passes `press` (the app's bug, the same on every runtime).
CLOVER_REF="1.000000e+02 2.800000e+01 2.800000e-01 4.086113e+01 2.082625e+00 4.294376e+01"

prepare_run_dir() { # prepare_run_dir APP DIR: input decks
    local d=$2
    mkdir -p "$d"
    case $1 in
        tealeaf)
            sed -e 's/^x_cells=.*/x_cells=256/' -e 's/^y_cells=.*/y_cells=256/' \
                -e 's/^end_step=.*/end_step=4/' "$SRC/TeaLeaf/tea.in" >"$d/tea.in"
            echo "$TEA_REF" >"$d/tea.problems"
            ;;
        cloverleaf)
            sed -e 's/x_cells=960/x_cells=240/' -e 's/y_cells=960/y_cells=240/' \
                -e 's/end_step=87/end_step=40/' -e '/test_problem/d' \
                "$SRC/CloverLeaf/InputDecks/clover_bm_short.in" >"$d/clover.in"
            rm -f "$d/clover.out"
            ;;
    esac
}

app_cmd() { # app_cmd APP BIN: the command line of one run (in the run directory)
    case $1 in
        xsbench) echo "$2 $XS_ARGS" ;;
        rsbench) echo "$2 $RS_ARGS" ;;
        minibude) echo "$2 --deck $SRC/miniBUDE/data/bm1 $BUDE_ARGS" ;;
        babelstream) echo "$2 $BABEL_ARGS" ;;
        tealeaf) echo "$2 --file tea.in --problems tea.problems" ;;
        cloverleaf) echo "$2 --file clover.in" ;;
    esac
}

verify() { # verify APP LOG DIR RC: prints "ok" or the reason it failed
    local app=$1 log=$2 dir=$3 rc=$4 got
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "hang (killed after ${TIMEOUT}s)"; return; fi
    if [ "$rc" -ge 128 ]; then echo "crash (signal $((rc - 128)))"; return; fi
    case $app in
        xsbench | rsbench)
            local ref=$XS_REF
            [ "$app" = rsbench ] && ref=$RS_REF
            got="$(sed -n 's/^Verification checksum: *\([0-9]*\).*/\1/p' "$log")"
            [ "$got" = "$ref" ] && echo ok || echo "checksum '${got:-none}' != $ref (rc $rc)"
            ;;
        minibude)
            if [ "$rc" = 0 ] && grep -q 'valid: true' "$log"; then echo ok; else
                echo "energies not valid (rc $rc): $(grep -m1 -E 'valid|error|what' "$log")"; fi
            ;;
        babelstream)
            if [ "$rc" = 0 ] && ! grep -qi 'validation failed' "$log" && grep -q '^Dot' "$log"; then echo ok; else
                echo "validation failed (rc $rc): $(grep -m1 -i -E 'validation|error' "$log")"; fi
            ;;
        tealeaf)
            if [ "$rc" = 0 ] && grep -q 'This run PASSED' "$log"; then echo ok; else
                echo "not PASSED (rc $rc): $(grep -m1 'Actual' "$log")"; fi
            ;;
        cloverleaf)
            got="$(grep -A1 'Volume' "$dir/clover.out" 2>/dev/null | tail -1 |
                awk '{print $3, $4, $5, $7, $8, $9}')"
            if [ "$rc" = 0 ] && [ "$got" = "$CLOVER_REF" ]; then echo ok; else
                echo "field summary '$got' != '$CLOVER_REF' (rc $rc)"; fi
            ;;
    esac
}

# variant_env VARIANT: the environment of a variant (env arguments)
variant_env() {
    case $1 in
        stock | autostock) echo "LD_LIBRARY_PATH=$LLVM_LIB" ;;
        libpath) echo "LD_LIBRARY_PATH=$SPREAD_LIB" ;;
        preload) echo "LD_LIBRARY_PATH=$LLVM_LIB LD_PRELOAD=$SPREAD_RT" ;;
        spreadcc) echo "" ;;
        auto) echo "LD_LIBRARY_PATH=$SPREAD_LIB SPREAD_AUTO=1" ;;
    esac
}
variant_kind() {
    case $1 in spreadcc) echo spreadcc ;; auto | autostock) echo auto ;; *) echo clang ;; esac
}

declare -A TIMES VERDICT # TIMES[app-variant] = "t1 t2 ..."; VERDICT[app-variant] = ok | reason
run_once() { # run_once APP VARIANT ROUND
    local app=$1 v=$2 r=$3 bin dir log t0 t1 rc res
    bin="$(bin_of "$app" "$(variant_kind "$v")")"
    dir="$B/run/$app-$v"
    log="$B/logs/run-$app-$v-$r.log"
    prepare_run_dir "$app" "$dir"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2046
    (cd "$dir" && env -u LD_PRELOAD -u LD_LIBRARY_PATH -u SPREAD_AUTO $(variant_env "$v") \
        timeout -k 5 "$TIMEOUT" $(app_cmd "$app" "$bin")) >"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    res="$(verify "$app" "$log" "$dir" "$rc")"
    TIMES[$app-$v]="${TIMES[$app-$v]:-} $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')"
    if [ "$res" != ok ]; then
        VERDICT[$app-$v]="$res (run $r, $log)"
    elif [ -z "${VERDICT[$app-$v]:-}" ]; then
        VERDICT[$app-$v]=ok
    fi
    printf '  run %-12s %-8s #%d %6ss %s\n' "$app" "$v" "$r" "${TIMES[$app-$v]##* }" "$res" >&2
}

runtime_of() { # runtime_of APP VARIANT: the libomptarget a variant's binary loads (ldd)
    local bin
    bin="$(bin_of "$1" "$(variant_kind "$2")")"
    # shellcheck disable=SC2046
    env -u LD_PRELOAD -u LD_LIBRARY_PATH $(variant_env "$2") ldd "$bin" 2>/dev/null |
        awk '/libspread_rt|libomptarget/ {printf "%s%s", (n++ ? " + " : ""), ($2 == "=>" ? $3 : $1)}'
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }
ratio() { if [ "$1" = - ] || [ "$2" = - ]; then echo -; else awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; fi; }

# ---------------------------------------------------------------- main
ALL_OK=1
echo "miniapps.sh: sources $SRC, builds and logs $B, $RUNS runs per variant" >&2
for app in $APPS; do
    declare -F "build_$app" >/dev/null || die "unknown app '$app'"
    build "$app" clang
    build "$app" spreadcc
    [ "$app" = babelstream ] && [ "${NO_AUTO:-0}" != 1 ] && build "$app" auto
done

for app in $APPS; do
    variants="stock libpath preload spreadcc"
    [ "$app" = babelstream ] && [ "${NO_AUTO:-0}" != 1 ] && variants="$variants autostock auto"
    todo=""
    for v in $variants; do
        if [ "${BUILT[$app-$(variant_kind "$v")]:-}" = ok ]; then
            todo="$todo $v"
            lib="$(runtime_of "$app" "$v")"
            echo "  $app $v loads ${lib:-?}" >&2
            case $v:$lib in
                stock:*spread* | autostock:*spread* | libpath:*"$LLVM_LIB"* | preload:"$LLVM_LIB"* | spreadcc:*"$LLVM_LIB"*)
                    VERDICT[$app-$v]="wrong runtime loaded: $lib" ;;
            esac
        else
            VERDICT[$app-$v]="build failed ($B/logs/build-$app-$(variant_kind "$v").log)"
        fi
    done
    for r in $(seq 1 "$RUNS"); do
        for v in $todo; do run_once "$app" "$v" "$r"; done
    done
done

# The table: verification per variant, medians, ratios against stock.
short() { if [ "${1:-}" = ok ]; then echo ok; else echo FAIL; fi; }
echo
echo "| app | verification stock / libpath / preload / spread-c++ | time stock (s) | time Spread libpath / preload / spread-c++ (s) | ratio libpath / preload / spread-c++ |"
echo "| --- | --- | --- | --- | --- |"
for app in $APPS; do
    declare -A M=()
    for v in stock libpath preload spreadcc autostock auto; do
        M[$v]="$(echo "${TIMES[$app-$v]:-}" | median)"
    done
    echo "| $app | $(short "${VERDICT[$app-stock]:-}") / $(short "${VERDICT[$app-libpath]:-}") / $(short "${VERDICT[$app-preload]:-}") / $(short "${VERDICT[$app-spreadcc]:-}") | ${M[stock]} | ${M[libpath]} / ${M[preload]} / ${M[spreadcc]} | $(ratio "${M[libpath]}" "${M[stock]}") / $(ratio "${M[preload]}" "${M[stock]}") / $(ratio "${M[spreadcc]}" "${M[stock]}") |"
    if [ "$app" = babelstream ] && [ -n "${VERDICT[$app-auto]:-}" ]; then
        echo "| babelstream, pass plugin: stock / SPREAD_AUTO=1 | $(short "${VERDICT[$app-autostock]:-}") / $(short "${VERDICT[$app-auto]:-}") | ${M[autostock]} | ${M[auto]} | $(ratio "${M[auto]}" "${M[autostock]}") |"
    fi
done
echo
echo "All times: wall seconds of the whole process, median of $RUNS (runs: $B/logs/run-*.log)."
for app in $APPS; do
    for v in stock libpath preload spreadcc autostock auto; do
        [ -n "${VERDICT[$app-$v]:-}" ] || continue
        [ -n "${TIMES[$app-$v]:-}" ] && echo "  $app $v:${TIMES[$app-$v]}"
        if [ "${VERDICT[$app-$v]}" != ok ]; then
            echo "  FAILED $app $v: ${VERDICT[$app-$v]}"
            ALL_OK=0
        fi
    done
done
if [ "${BUILT[babelstream-auto]:-}" = ok ]; then
    log="$B/logs/build-babelstream-auto.log"
    echo
    echo "BabelStream pass remarks: $(grep -c 'can be spread over devices' "$log") kernels can be spread, $(grep -c 'remark: kernel .* runs on one device' "$log") refused (-Rpass-missed) ($log)"
fi
[ "$ALL_OK" = 1 ]
