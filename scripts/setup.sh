#!/usr/bin/env bash
# Install what Spread's build and tests need, but only what is missing:
#   apt: the packages in scripts/packages.sh
#   PyPI: lit
#   Rust: cargo (checked, not installed), rustfmt and clippy (added with rustup
#   when missing)
#   with --cuda (opt-in): the CUDA 13 pieces clang needs to build nvptx64 offload images
#   (ptxas, nvlink, libdevice, headers), from NVIDIA's PyPI wheels (below)
#   with --mpi (opt-in): Open MPI (mpirun, mpicc, libmpi: MPI_PACKAGES in scripts/packages.sh),
#   for the MPI transport plugin remote-mpi/ (remote devices on other MPI ranks)
# Fast and quiet when everything is there; safe to run any number of times.
# The options combine: scripts/setup.sh --cuda --mpi (what scripts/test.sh runs).
#
# Usage: scripts/setup.sh [--cuda] [--mpi]
# Environment (--cuda):
#   SPREAD_CUDA_PATH   an existing CUDA toolkit (/usr/local/cuda, Debian's /usr/lib/cuda, ...):
#                      checked and used, nothing is installed
#   SPREAD_CUDA_HOME   where the wheels go (default
#                      ${XDG_CACHE_HOME:-$HOME/.cache}/spread/cuda-13.0.88); the CUDA path is
#                      then $SPREAD_CUDA_HOME/nvidia/cu13, where spread-cc looks by default
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

want_cuda=0
want_mpi=0
for arg in "$@"; do
  case $arg in
    --cuda) want_cuda=1 ;;
    --mpi) want_mpi=1 ;;
    -h | --help)
      sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    *)
      printf 'setup: error: unknown argument %s (usage: scripts/setup.sh [--cuda] [--mpi])\n' "$arg" >&2
      exit 2
      ;;
  esac
done

# shellcheck source=packages.sh
. "$(dirname "${BASH_SOURCE[0]}")/packages.sh"
LLVM_DIR=${LLVM_DIR:-/usr/lib/llvm-19}

log() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

apt_updated=0
apt_install() {
  if [ "$apt_updated" -eq 0 ]; then
    as_root apt-get update -qq
    apt_updated=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

# Run a command as root: directly when we are root, else through sudo.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root to run '$*' (not root and no sudo)"
  fi
}

# --- apt packages ------------------------------------------------------------
pkg_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

wanted=("${APT_PACKAGES[@]}")
[ "$want_mpi" -eq 0 ] || wanted+=("${MPI_PACKAGES[@]}")
if command -v dpkg-query >/dev/null 2>&1; then
  missing=()
  for p in "${wanted[@]}"; do
    pkg_installed "$p" || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "installing ${missing[*]}"
    apt_install "${missing[@]}"
  fi
else
  # Not a Debian system: check for the tools and say what is missing.
  for t in clang-19 clang++-19 cmake "$LLVM_DIR/bin/FileCheck" "$LLVM_DIR/bin/not"; do
    command -v "$t" >/dev/null 2>&1 || [ -x "$t" ] ||
      die "$t not found; install LLVM 19 (clang, libomp, tools) and cmake"
  done
  if [ "$want_mpi" -eq 1 ]; then
    for t in mpicc mpirun; do
      command -v "$t" >/dev/null 2>&1 ||
        die "$t not found; install an MPI-3.1 implementation with its compiler wrapper (Open MPI 4.1 recommended)"
    done
  fi
fi

# --- lit ---------------------------------------------------------------------
have_lit() {
  command -v lit >/dev/null 2>&1 || python3 -c 'import lit.main' >/dev/null 2>&1 ||
    [ -x "$(python3 -m site --user-base 2>/dev/null)/bin/lit" ]
}

# pip for python3 (python3-pip is in the package list; another python3 first on PATH may lack it)
ensure_pip() {
  command -v python3 >/dev/null 2>&1 || die "python3 not found"
  if ! python3 -m pip --version >/dev/null 2>&1; then
    if command -v dpkg-query >/dev/null 2>&1; then
      apt_install python3-pip
    fi
  fi
}

if ! have_lit; then
  ensure_pip
  log "installing lit from PyPI"
  pip_install() {
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check \
      --no-warn-script-location "$@" lit
  }
  # In a virtualenv --user is refused; on a distribution Python (PEP 668) plain
  # installs are refused, so fall back to --break-system-packages (a --user
  # install of one pure-Python package touches nothing of the system's).
  if [ -n "${VIRTUAL_ENV:-}" ]; then
    pip_install || true
  else
    pip_install --user 2>/dev/null || pip_install --user --break-system-packages || true
  fi
  if ! have_lit; then
    if [ -f "$LLVM_DIR/build/utils/lit/lit.py" ]; then
      log "warning: could not install lit; the tests will use $LLVM_DIR/build/utils/lit/lit.py"
    else
      die "could not install lit (try: python3 -m pip install --user lit)"
    fi
  fi
fi

# --- Rust --------------------------------------------------------------------
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! command -v cargo >/dev/null 2>&1; then
  cat >&2 <<'EOF'
setup: error: cargo not found. Spread needs a Rust toolchain (1.88 or newer):
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y
    . "$HOME/.cargo/env"
then run this script again.
EOF
  exit 1
fi
# 1.88: naked functions (the variadic entry points of capi/league_exports.rs).
rust_minor=$(rustc --version 2>/dev/null | sed -n 's/^rustc 1\.\([0-9]*\).*/\1/p')
if [ -n "$rust_minor" ] && [ "$rust_minor" -lt 88 ]; then
  if command -v rustup >/dev/null 2>&1; then
    log "Rust 1.$rust_minor is older than 1.88: rustup update stable"
    rustup update stable
  else
    die "Rust 1.$rust_minor is older than 1.88, which Spread needs, and there is no rustup to update it"
  fi
fi
components=()
cargo fmt --version >/dev/null 2>&1 || components+=(rustfmt)
cargo clippy --version >/dev/null 2>&1 || components+=(clippy)
if [ "${#components[@]}" -gt 0 ]; then
  if command -v rustup >/dev/null 2>&1; then
    log "adding Rust components ${components[*]}"
    rustup component add "${components[@]}"
  else
    die "cargo ${components[*]} missing and no rustup to add them"
  fi
fi

# --- CUDA (--cuda) -----------------------------------------------------------
# clang-19 builds nvptx64 images with ptxas and nvlink (bin/), libdevice
# (nvvm/libdevice/libdevice.10.bc) and the CUDA headers (include/). NVIDIA publishes them as
# wheels; --no-deps --target unpacks them into one directory without touching any Python.
CUDA_VERSION=13.0.88
CUDA_WHEELS=(nvidia-cuda-nvcc nvidia-nvvm nvidia-cuda-crt nvidia-cuda-runtime)

# cuda_problem DIR: what DIR lacks to be a CUDA path for clang (empty when nothing).
cuda_problem() {
  local f
  for f in bin/ptxas bin/nvlink nvvm/libdevice/libdevice.10.bc include/cuda.h; do
    if [ ! -e "$1/$f" ]; then
      printf '%s has no %s' "$1" "$f"
      return
    fi
  done
}

if [ "$want_cuda" -eq 1 ]; then
  t0=$SECONDS
  if [ -n "${SPREAD_CUDA_PATH:-}" ]; then
    why=$(cuda_problem "$SPREAD_CUDA_PATH")
    [ -z "$why" ] || die "SPREAD_CUDA_PATH: $why (unset it to install CUDA $CUDA_VERSION's wheels)"
    cuda_path=$SPREAD_CUDA_PATH
  else
    cuda_home=${SPREAD_CUDA_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/spread/cuda-$CUDA_VERSION}
    cuda_path=$cuda_home/nvidia/cu13
    if [ -n "$(cuda_problem "$cuda_path")" ]; then
      ensure_pip
      log "installing CUDA $CUDA_VERSION's ptxas, nvlink, libdevice and headers (PyPI wheels ${CUDA_WHEELS[*]}, about 100 MB) into $cuda_home"
      mkdir -p "$(dirname "$cuda_home")"
      # Unpack next to the final place and rename: an interrupted install leaves no half toolkit.
      staging=$(mktemp -d "$cuda_home.partial.XXXXXX")
      trap 'rm -rf "$staging"' EXIT
      specs=()
      for w in "${CUDA_WHEELS[@]}"; do specs+=("$w==$CUDA_VERSION"); done
      PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check \
        --no-warn-script-location --no-deps --no-compile --target "$staging" "${specs[@]}" ||
        die "pip could not install ${specs[*]}"
      why=$(cuda_problem "$staging/nvidia/cu13")
      [ -z "$why" ] || die "the wheels did not give a usable CUDA path: $why"
      rm -rf "$cuda_home"
      mv "$staging" "$cuda_home"
      trap - EXIT
      log "installed in $((SECONDS - t0))s"
    fi
  fi
  log "CUDA path: $cuda_path (spread-cc --offload-arch=sm_XX uses it$([ -n "${SPREAD_CUDA_PATH:-}" ] && echo ' through SPREAD_CUDA_PATH'))"
fi
