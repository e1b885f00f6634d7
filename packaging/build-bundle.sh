#!/usr/bin/env bash
# Builds the one-folder bundle DIST/pairbench/ and DIST/pairbench-VERSION-linux-x86_64.tar.gz
# from a fresh PyInstaller work directory (nothing cached from an earlier build).
#   usage: packaging/build-bundle.sh [DIST]      (default DIST: dist/ in the repository)
#   PYTHON: the Python with Pairbench and PyInstaller installed (default .venv/bin/python)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="$(realpath -m "${1:-$ROOT/dist}")"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"

# PyInstaller reads shared-library dependencies with binutils' objdump; the spec strips with strip.
if ! command -v objdump >/dev/null || ! command -v strip >/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "build-bundle: building the bundle needs Debian's binutils. Run as root:" >&2
    echo "  apt-get update && apt-get install -y --no-install-recommends binutils" >&2
    exit 1
  fi
  echo "build-bundle: installing Debian's binutils" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends binutils
fi

VERSION="$("$PYTHON" -c 'import pairbench; print(pairbench.__version__)')"
ARCH="$(uname -m)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/pairbench-bundle-build.XXXXXX")"
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"' EXIT

mkdir -p "$DIST"
rm -rf "$DIST/pairbench" "$DIST/pairbench-$VERSION-linux-$ARCH.tar.gz"
start=$SECONDS
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$DIST" --workpath "$WORK" "$ROOT/packaging/pairbench.spec"

# Beside the program: the desktop-entry installer (icons and .desktop come from _internal/).
install -m 0755 "$ROOT/packaging/install-desktop-entry.sh" "$DIST/pairbench/"

tar -C "$DIST" -czf "$DIST/pairbench-$VERSION-linux-$ARCH.tar.gz" pairbench
size_mb=$(du -sm "$DIST/pairbench" | cut -f1)
tar_mb=$(du -m "$DIST/pairbench-$VERSION-linux-$ARCH.tar.gz" | cut -f1)
echo "build-bundle: $DIST/pairbench/pairbench (${size_mb} MB unpacked)," \
  "$DIST/pairbench-$VERSION-linux-$ARCH.tar.gz (${tar_mb} MB), $((SECONDS - start)) s"
