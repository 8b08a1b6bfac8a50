#!/usr/bin/env bash
# Build everything a GPU validation needs, here, into one self-contained folder that a GPU machine
# with no clang, no Rust and no network can run (docs/gpu.md):
#
#   scripts/gpu-pack.sh [--arch sm_90] [--cuda12] [--no-build] [--jobs N] [OUTDIR]
#   ... copy OUTDIR to the GPU machine, then there:   OUTDIR/gpu-check.sh
#
# OUTDIR (default gpu-pack/ at the repository root, which .gitignore lists) receives:
#   gpu-check.sh, tools/         the check and its helpers (copies of scripts/gpu-check.sh, scripts/gpu/)
#   spread/lib, spread/bin       Spread's runtime (libspread_rt.so, libomptarget.so.19.1 -> it), spread-info
#   stock/lib                    stock LLVM 19 libomptarget.so.19.1
#   lib/libomp.so.5, libomp.so   LLVM 19's OpenMP host runtime (both runtimes and every program need it)
#   stock/llvm-deps.tar.xz       libLLVM.so.19.1 and the libraries it needs beyond glibc, FileCheck-19
#   programs.tar.xz              fat binaries (nvptx64 <arch> + x86_64 images): the llvm-offload
#                                conformance corpus (with its sources, for FileCheck), test-suite/gpu/*,
#                                examples (daxpy, heat2d, somier), bench/launch, bench/transfer,
#                                bench/nowait, devprobe, ompt-events (scripts/gpu/ompt-events.c)
#   manifest.txt                 what was built, with which toolchain, the cubins' ELF encoding
#
# Options:
#   --arch SM     GPU architecture of the device images (default sm_90: H100, H200)
#   --cuda12      build the device images with CUDA 12.9's ptxas/libdevice and an nvJitLink-based
#                 nvlink (old cubin ELF encoding, which stock LLVM 19 reads; see docs/gpu.md)
#   --no-build    do not run scripts/build.sh first
#   --jobs N      parallel compiles (default 2)
# Environment: SPREAD_SHARED (default ../shared: conformance/), GPU_TESTS_DIR (default
# test-suite/gpu), SPREAD_CUDA_HOME (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/spread/cuda-13.0.88; installed from PyPI when missing).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO"
ARCH=sm_90
CUDA12=0
BUILD=1
JOBS=2
OUT=
while [ $# -gt 0 ]; do
  case $1 in
    --arch) ARCH=$2; shift 2 ;;
    --arch=*) ARCH=${1#--arch=}; shift ;;
    --cuda12) CUDA12=1; shift ;;
    --no-build) BUILD=0; shift ;;
    --jobs) JOBS=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu-pack: unknown option $1" >&2; exit 2 ;;
    *) OUT=$1; shift ;;
  esac
done
[[ $ARCH =~ ^sm_[0-9]+[a-z]?$ ]] || { echo "gpu-pack: --arch wants sm_NN, not $ARCH" >&2; exit 2; }
OUT=${OUT:-$REPO/gpu-pack}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SHARED=${SPREAD_SHARED:-$REPO/../shared}
LLVM_DIR=${LLVM_DIR:-/usr/lib/llvm-19}
CUDA_VER=13.0.88
CUDA_HOME=${SPREAD_CUDA_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/spread/cuda-$CUDA_VER}
CUDA=$CUDA_HOME/nvidia/cu13
export LIBRARY_PATH=$LLVM_DIR/lib${LIBRARY_PATH:+:$LIBRARY_PATH} # libomptarget-nvptx-*.bc
unset LD_PRELOAD

log() { printf 'gpu-pack: %s\n' "$*"; }
die() { printf 'gpu-pack: error: %s\n' "$*" >&2; exit 1; }
FAILED=()

# --- toolchain ------------------------------------------------------------------------------
pip_target() { # pip_target DIR pkg==ver...
  local dir=$1; shift
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check \
    --no-deps --target "$dir" "$@"
}
if [ ! -x "$CUDA/bin/ptxas" ] || [ ! -x "$CUDA/bin/nvlink" ] || [ ! -d "$CUDA/nvvm/libdevice" ]; then
  if grep -q -- '--cuda' scripts/setup.sh 2>/dev/null; then
    log "installing CUDA $CUDA_VER (scripts/setup.sh --cuda)"
    SPREAD_CUDA_HOME=$CUDA_HOME scripts/setup.sh --cuda
  else
    log "installing CUDA $CUDA_VER pieces from PyPI into $CUDA_HOME"
    pip_target "$CUDA_HOME" nvidia-cuda-nvcc==$CUDA_VER nvidia-nvvm==$CUDA_VER \
      nvidia-cuda-crt==$CUDA_VER nvidia-cuda-runtime==$CUDA_VER
  fi
fi
[ -x "$CUDA/bin/ptxas" ] || die "no ptxas in $CUDA"
DEVICE_CUDA=$CUDA
if [ "$CUDA12" = 1 ]; then
  C12_HOME=${SPREAD_CUDA12_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/spread/cuda-12.9.86}
  if [ ! -x "$C12_HOME/nvidia/cuda_nvcc/bin/ptxas" ] || [ ! -d "$C12_HOME/nvidia/nvjitlink" ]; then
    log "installing CUDA 12.9 ptxas, libdevice and nvJitLink from PyPI into $C12_HOME"
    pip_target "$C12_HOME" nvidia-cuda-nvcc-cu12==12.9.86 nvidia-nvjitlink-cu12==12.9.86
  fi
  # A CUDA directory clang accepts: 12.9's ptxas and libdevice, CUDA 13's headers (clang reads
  # the version from include/cuda.h) and an nvlink that links with 12.9's nvJitLink (the PyPI
  # wheels carry no CUDA 12 nvlink; CUDA 13's nvlink would rewrite the cubin in the new encoding).
  DEVICE_CUDA=$C12_HOME/clang-cuda
  rm -rf "$DEVICE_CUDA"
  mkdir -p "$DEVICE_CUDA/bin" "$DEVICE_CUDA/nvvm/libdevice"
  ln -s "$C12_HOME/nvidia/cuda_nvcc/bin/ptxas" "$DEVICE_CUDA/bin/ptxas"
  cp "$C12_HOME/nvidia/cuda_nvcc/nvvm/libdevice/"*.bc "$DEVICE_CUDA/nvvm/libdevice/"
  ln -s "$CUDA/include" "$DEVICE_CUDA/include"
  cat >"$DEVICE_CUDA/bin/nvlink" <<EOF
#!/bin/sh
exec python3 "$REPO/scripts/gpu/nvlink-jit.py" --nvjitlink "$C12_HOME/nvidia/nvjitlink/lib/libnvJitLink.so.12" "\$@"
EOF
  chmod +x "$DEVICE_CUDA/bin/nvlink"
fi
FAT=(-fopenmp -fopenmp-targets=nvptx64-nvidia-cuda,x86_64-unknown-linux-gnu
  -Xopenmp-target=nvptx64-nvidia-cuda -march="$ARCH" --cuda-path="$DEVICE_CUDA")
GPU_FLAGS="-Xopenmp-target=nvptx64-nvidia-cuda -march=$ARCH --cuda-path=$DEVICE_CUDA"

# --- build ----------------------------------------------------------------------------------
if [ "$BUILD" = 1 ]; then
  log "building Spread (scripts/build.sh)"
  ./scripts/build.sh >/dev/null
fi
for f in target/release/libspread_rt.so target/release/spread-info target/release/spread-cc; do
  [ -x "$f" ] || die "$f missing: run scripts/build.sh"
done

log "writing $OUT (arch $ARCH, device toolchain $DEVICE_CUDA)"
find "$OUT" -mindepth 1 -delete
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$OUT/spread/lib" "$OUT/spread/bin" "$OUT/stock/lib" "$OUT/lib" "$OUT/tools" \
  "$STAGE/progs/bin" "$STAGE/progs/gpu-tests" "$STAGE/deps"

# Spread: debug info stripped from the copies (the build keeps its own).
strip -g -o "$OUT/spread/lib/libspread_rt.so" target/release/libspread_rt.so
ln -s libspread_rt.so "$OUT/spread/lib/libomptarget.so.19.1"
ln -s libomptarget.so.19.1 "$OUT/spread/lib/libomptarget.so"
strip -g -o "$OUT/spread/bin/spread-info" target/release/spread-info

# Stock LLVM 19.
cp -L "$LLVM_DIR/lib/libomptarget.so.19.1" "$OUT/stock/lib/"
cp -L "$LLVM_DIR/lib/libomp.so.5" "$OUT/lib/"
# Stock libomptarget connects its OMPT support by dlopen("libomp.so"): without this name its
# tools see no device work at all (gpu-check's step "ompt").
ln -sf libomp.so.5 "$OUT/lib/libomp.so"
# Everything libomptarget and FileCheck load, except glibc itself (ld.so, libc, libm, ...):
# gpu-check.sh uses the GPU machine's own copy of each where it has one.
cp -L "$LLVM_DIR/bin/FileCheck" "$STAGE/deps/FileCheck"
{
  ldd "$LLVM_DIR/lib/libomptarget.so.19.1"
  ldd "$LLVM_DIR/bin/FileCheck"
} | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u | while read -r soname path; do
  case $soname in
    libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*|libomp.so.5) ;;
    *) cp -L "$path" "$STAGE/deps/$soname" ;;
  esac
done
log "stock dependencies: $(cd "$STAGE/deps" && ls | tr '\n' ' ')"
# xz takes minutes: keep the result, keyed by the files' contents.
key=$(cd "$STAGE/deps" && sha256sum -- * | sha256sum | cut -c1-16)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/spread/gpu-pack-deps-$key.tar.xz
if [ -f "$cache" ]; then
  log "stock dependencies: using the compressed copy in $cache"
else
  log "compressing them (xz, a few minutes)"
  mkdir -p "$(dirname "$cache")"
  python3 scripts/gpu/txz.py "$cache" "$STAGE/deps"
fi
cp "$cache" "$OUT/stock/llvm-deps.tar.xz"

# --- programs -------------------------------------------------------------------------------
P=$STAGE/progs/bin
build() { # build NAME command...   (records a failure instead of stopping)
  local name=$1; shift
  if "$@" >"$STAGE/$name.log" 2>&1; then
    log "built $name"
  else
    log "FAILED to build $name:"; tail -5 "$STAGE/$name.log" | sed 's/^/    /'
    FAILED+=("$name")
  fi
}
SPREAD_CC=target/release/spread-cc
build devprobe clang-19 -O2 "${FAT[@]}" scripts/gpu/devprobe.c -o "$P/devprobe"
build launch clang-19 -O2 -Wall "${FAT[@]}" bench/launch/launch.c -o "$P/launch"
build transfer clang-19 -O2 -Wall "${FAT[@]}" bench/transfer/transfer.c -o "$P/transfer"
build nowait clang-19 -O2 -Wall "${FAT[@]}" bench/nowait/nowait.c -o "$P/nowait"
build ompt-events clang-19 -O2 -Wall "${FAT[@]}" -I test-suite/Inputs -DTOOL_DEVICE_HOOK=trace_device \
  -DTOOL_FINALIZE_HOOK=trace_summary scripts/gpu/ompt-events.c -o "$P/ompt-events"
build somier-target clang-19 -O2 -Wall "${FAT[@]}" -DSOMIER_NO_SPREAD \
  examples/somier/main.c examples/somier/baseline.c -o "$P/somier-target" -lm
# spread-cc passes clang's offload options through (checked: both images are in its output).
build daxpy "$SPREAD_CC" -O2 -Wall -Wno-pass-failed "${FAT[@]:1}" examples/daxpy/main.c \
  -o "$P/daxpy" -lm
build heat2d "$SPREAD_CC" -O2 -Wall "${FAT[@]:1}" examples/heat2d/main.c -o "$P/heat2d" -lm
build somier "$SPREAD_CC" -O2 -Wall "${FAT[@]:1}" examples/somier/main.c \
  examples/somier/baseline.c examples/somier/spread.c -o "$P/somier" -lm

# test-suite/gpu: each file names its own build command (scripts/gpu/buildcmd.py).
: >"$STAGE/progs/gpu-tests/index.tsv"
shopt -s nullglob
GPU_TESTS=${GPU_TESTS_DIR:-test-suite/gpu}
gpu_srcs=("$GPU_TESTS"/*.c "$GPU_TESTS"/*.cpp)
shopt -u nullglob
for src in "${gpu_srcs[@]}"; do
  name=$(basename "$src"); name=${name%.*}
  if ! spec=$(python3 scripts/gpu/buildcmd.py "$src" "$STAGE/progs/gpu-tests/$name" \
      --arch "$ARCH" --cuda "$DEVICE_CUDA" --repo "$REPO" 2>&1); then
    log "FAILED to build gpu test $name: $spec"; FAILED+=("gpu/$name"); continue
  fi
  cmd=$(printf '%s\n' "$spec" | sed -n 's/^cmd\t//p')
  targs=$(printf '%s\n' "$spec" | sed -n 's/^args\t//p')
  tout=$(printf '%s\n' "$spec" | sed -n 's/^timeout\t//p')
  if (cd "$(dirname "$src")" && bash -c "$cmd") >"$STAGE/gpu-$name.log" 2>&1; then
    printf '%s\t%s\t%s\n' "$name" "$tout" "$targs" >>"$STAGE/progs/gpu-tests/index.tsv"
    log "built gpu test $name"
  else
    log "FAILED to build gpu test $name: $cmd"; tail -5 "$STAGE/gpu-$name.log" | sed 's/^/    /'
    FAILED+=("gpu/$name")
  fi
done
log "$GPU_TESTS: ${#gpu_srcs[@]} program(s)"

# The conformance corpus (sources travel too: FileCheck reads the CHECK lines from them).
CONF_SRC=$SHARED/conformance/llvm-offload
if [ -f "$CONF_SRC/run.py" ]; then
  log "compiling the llvm-offload conformance corpus (a few minutes)"
  python3 scripts/gpu/conformance.py pack --run-py "$CONF_SRC/run.py" --tests "$CONF_SRC/tests" \
    --out "$STAGE/progs/conformance" --gpu-flags "$GPU_FLAGS" -j "$JOBS" | sed 's/^/gpu-pack: /' ||
    FAILED+=(conformance)
else
  log "no conformance corpus at $CONF_SRC (set SPREAD_SHARED): left out"
fi

# --- manifest, check, size ------------------------------------------------------------------
cubins=$(python3 scripts/gpu/cubins.py --summary "$P"/* 2>/dev/null || true)
glibc_of() { # the newest GLIBC_ symbol version the ELF files under the given paths need
  find "$@" -type f -exec objdump -T {} + 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV |
    tail -1 || true
}
glibc=$(glibc_of "$OUT/spread" "$OUT/lib" "$STAGE/progs")
glibc_stock=$(glibc_of "$OUT/stock/lib" "$STAGE/deps")
{
  echo "pack_format 1"
  echo "built $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -n)"
  echo "git $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!gpu-pack' 2>/dev/null || echo -dirty)"
  echo "arch $ARCH"
  echo "device_toolchain $([ "$CUDA12" = 1 ] && echo "CUDA 12.9.86 ptxas + nvJitLink" || echo "CUDA $CUDA_VER")"
  echo "clang $(clang-19 --version | head -1)"
  echo "cubin_encoding $cubins"
  echo "glibc_needed ${glibc#GLIBC_}"
  echo "glibc_needed_stock ${glibc_stock#GLIBC_}"
  echo "gpu_tests $(wc -l <"$STAGE/progs/gpu-tests/index.tsv")"
  echo "build_failures ${FAILED[*]:-none}"
} >"$OUT/manifest.txt"
python3 scripts/gpu/txz.py "$OUT/programs.tar.xz" "$STAGE/progs"
cp scripts/gpu-check.sh "$OUT/gpu-check.sh"
cp scripts/gpu/*.py "$OUT/tools/"
cat >"$OUT/README.txt" <<'EOF'
Spread GPU validation pack (made by scripts/gpu-pack.sh; see docs/gpu.md in the repository).
On the GPU machine:   ./gpu-check.sh            (--require-gpu: a missing GPU is an error)
Needs there: bash, python3, tar, an NVIDIA driver (libcuda.so.1); nothing else.
Results: printed, and written to $OUT/gpu-check.txt when $OUT is set.
EOF

log "manifest:"; sed 's/^/    /' "$OUT/manifest.txt"
size=$(du -sb "$OUT" | cut -f1)
log "pack $OUT: $(du -sh "$OUT" | cut -f1) ($size bytes)"
(cd "$OUT" && du -ah --max-depth=2 . | sort -k2 | sed 's/^/    /')
if [ "$size" -gt $((55 * 1024 * 1024)) ]; then
  log "WARNING: the pack is over 55 MiB; a runner that carries 64 MiB may refuse it"
fi
if [ "${#FAILED[@]}" -gt 0 ]; then
  log "done, but these failed to build: ${FAILED[*]}"
  exit 3
fi
log "done: now run $OUT/gpu-check.sh on the GPU machine"
