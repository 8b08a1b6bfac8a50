#!/usr/bin/env bash
# Runs the README's two commands (scripts/demo.sh, scripts/test.sh) on a fresh Debian bookworm
# system with only a Rust toolchain: a minimal debootstrap chroot, this machine's Rust toolchain
# copied in, a clean clone of the repository's HEAD and the shared directory beside it. What
# this machine has installed by hand cannot help inside the chroot, so a missing install step
# fails here as it would on a new machine.
#
# Usage: sudo scripts/fresh-machine-check.sh [DIR]     (default DIR: /var/tmp/spread-fresh)
#   DIR/root is the chroot (made once with debootstrap, reused afterwards: delete DIR to start
#   from scratch); the logs are DIR/demo.log and DIR/test.log.
# Needs: root, debootstrap (apt-get install debootstrap), network access to Debian's mirror,
# a Rust toolchain in ~/.cargo and ~/.rustup, about 6 GB of disk. Takes 20-30 minutes on 2 cores.
# Environment: SPREAD_SHARED (default: ../shared beside the repository), MIRROR.
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${1:-/var/tmp/spread-fresh}
ROOT=$DIR/root
SHARED=${SPREAD_SHARED:-$REPO/../shared}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
CARGO_DIR=${CARGO_HOME:-$HOME/.cargo}
RUSTUP_DIR=${RUSTUP_HOME:-$HOME/.rustup}

die() { printf 'fresh-machine-check: error: %s\n' "$*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run as root (chroot and mounts)"
command -v debootstrap >/dev/null || die "debootstrap not found (apt-get install debootstrap)"
[ -x "$CARGO_DIR/bin/cargo" ] || die "no Rust toolchain in $CARGO_DIR"
[ -d "$SHARED/conformance" ] || die "shared directory not found at $SHARED (set SPREAD_SHARED)"

mkdir -p "$DIR"
if [ ! -x "$ROOT/bin/bash" ]; then
  echo "fresh-machine-check: debootstrap bookworm into $ROOT"
  debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$DIR/debootstrap.log" 2>&1 ||
    die "debootstrap failed (see $DIR/debootstrap.log)"
fi

mounts=(proc sys dev dev/pts)
cleanup() {
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount -l "$ROOT/${mounts[$i]}" 2>/dev/null || true
  done
}
trap cleanup EXIT
mount -t proc proc "$ROOT/proc"
mount --rbind /sys "$ROOT/sys"
mount --rbind /dev "$ROOT/dev"
mount -t devpts devpts "$ROOT/dev/pts" 2>/dev/null || true
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"

# The "only a Rust toolchain" of a new machine: the toolchain, and the C compiler and linker
# rustup's toolchain needs to link (rustup itself asks for them).
echo "fresh-machine-check: Rust toolchain and its linker"
rm -rf "$ROOT/root/.cargo" "$ROOT/root/.rustup"
cp -a "$CARGO_DIR" "$ROOT/root/.cargo"
cp -a "$RUSTUP_DIR" "$ROOT/root/.rustup"
rm -rf "$ROOT/root/.cargo/registry" "$ROOT/root/.cargo/git"
chroot "$ROOT" /usr/bin/env DEBIAN_FRONTEND=noninteractive bash -c \
  'apt-get update -qq && apt-get install -y -qq --no-install-recommends gcc libc6-dev ca-certificates >/dev/null'
# This machine's trusted certificates (a TLS-inspecting proxy between it and crates.io or PyPI
# brings its own authority): part of the network the chroot shares, not of the system under test.
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  cp /etc/ssl/certs/ca-certificates.crt "$ROOT/usr/local/share/ca-certificates/host-machine.crt"
  chroot "$ROOT" update-ca-certificates >/dev/null 2>&1 || true
fi

echo "fresh-machine-check: clean clone of $(git -C "$REPO" rev-parse --short HEAD)"
rm -rf "$ROOT/work"
mkdir -p "$ROOT/work"
git clone -q "$REPO" "$ROOT/work/main"
cp -a "$SHARED" "$ROOT/work/shared"

run() { # run NAME COMMAND
  local name=$1 rc=0
  shift
  echo "fresh-machine-check: $name (log: $DIR/$name.log)"
  chroot "$ROOT" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
    PATH=/root/.cargo/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c "cd /work/main && $*" >"$DIR/$name.log" 2>&1 || rc=$?
  tail -n 3 "$DIR/$name.log"
  [ "$rc" -eq 0 ] || die "$name failed with exit status $rc (see $DIR/$name.log)"
}
run demo ./scripts/demo.sh
run test ./scripts/test.sh
echo "fresh-machine-check: both commands passed on a fresh bookworm"
