#!/usr/bin/env bash
# Validate Spread on a GPU machine in one command, from a pack made by scripts/gpu-pack.sh
# (docs/gpu.md). Run it from the pack folder (PACK/gpu-check.sh) or from the repository root
# (scripts/gpu-check.sh: uses gpu-pack/, or --pack DIR).
#
#   gpu-check.sh [--pack DIR] [--require-gpu] [--jobs N] [--timeout S] [--only STEP,...]
#                [--work DIR] [--keep] [--fake-gpu]      (--help of tools/gpucheck.py: all)
#
# It unpacks libLLVM and the programs into a scratch folder under $TMPDIR (--work DIR), lists
# the machine (nvidia-smi, the CUDA driver, spread-info, each runtime's devices), then runs
# every step on stock LLVM 19 and on Spread: on host devices, and on the GPU when there is one
# (else each GPU step prints SKIPPED and why). Steps: conformance, gpu-tests, somier-target,
# daxpy, heat2d, somier, launch, transfer. Ends with one summary table; everything printed is
# also written, as it goes, to $OUT/gpu-check.txt when $OUT is set.
# Exit status: 0 ok; 1 Spread fails something stock passes, or a Spread program fails to
# verify; 2 no usable GPU with --require-gpu, or a broken pack.
# Needs only bash, python3 and tar on the GPU machine (no clang, no Rust, no network).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
pack=
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --pack) pack=$2; shift 2 ;;
    --pack=*) pack=${1#--pack=}; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
if [ -z "$pack" ]; then
  if [ -f "$here/manifest.txt" ]; then
    pack=$here                              # PACK/gpu-check.sh
  else
    pack=${GPU_PACK:-$here/../gpu-pack}     # scripts/gpu-check.sh in the repository
  fi
fi
[ -f "$pack/manifest.txt" ] || {
  echo "gpu-check: no pack at $pack (make one with scripts/gpu-pack.sh, or pass --pack DIR)" >&2
  exit 2
}
pack=$(cd "$pack" && pwd)
command -v python3 >/dev/null || { echo "gpu-check: python3 is needed" >&2; exit 2; }
exec python3 "$pack/tools/gpucheck.py" --pack "$pack" "${args[@]+"${args[@]}"}"
