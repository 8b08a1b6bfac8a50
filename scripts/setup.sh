#!/usr/bin/env bash
# Install what Spread's build and tests need, but only what is missing:
#   apt: the packages in scripts/packages.sh
#   PyPI: lit
#   Rust: cargo (checked, not installed), rustfmt and clippy (added with rustup
#   when missing)
# Fast and quiet when everything is there; safe to run any number of times.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

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

if command -v dpkg-query >/dev/null 2>&1; then
  missing=()
  for p in "${APT_PACKAGES[@]}"; do
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
fi

# --- lit ---------------------------------------------------------------------
have_lit() {
  command -v lit >/dev/null 2>&1 || python3 -c 'import lit.main' >/dev/null 2>&1 ||
    [ -x "$(python3 -m site --user-base 2>/dev/null)/bin/lit" ]
}

if ! have_lit; then
  command -v python3 >/dev/null 2>&1 || die "python3 not found"
  log "installing lit from PyPI"
  if ! python3 -m pip --version >/dev/null 2>&1; then
    if command -v dpkg-query >/dev/null 2>&1; then
      apt_install python3-pip
    fi
  fi
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
setup: error: cargo not found. Spread needs a Rust toolchain (1.80 or newer):
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y
    . "$HOME/.cargo/env"
then run this script again.
EOF
  exit 1
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
