#!/usr/bin/env bash
# Installs the Debian packages Pairbench needs to run and test (as root), or prints the command.
set -euo pipefail

PKGS=(
  iperf3 iperf fio nuttcp iputils-ping openssh-server openssh-client iproute2 ethtool procps
  # fio's shipped example job files: the reference of tests/integration/test_fio_examples.py.
  fio-examples
  # The storage suite: lsblk, blkid, blkdiscard, losetup (util-linux), its tests' mkfs.ext4
  # (e2fsprogs), lspci for NVMe controllers (pciutils).
  util-linux e2fsprogs pciutils
  # Its differential tests run CloudHarmony's own block-storage code (PHP): tests/reference.
  php-cli
  xvfb xauth
  libglib2.0-0 libgl1 libegl1 libxkbcommon0 libfontconfig1 fontconfig-config fonts-dejavu-core
  libdbus-1-3 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0
  libxcb-image0 libxcb-randr0 libxcb-render-util0 libxcb-xinerama0 libxcb-xkb1
  # The bundle: PyInstaller needs binutils (objdump, strip); its smoke test looks at the X11
  # window (x11-utils: xwininfo, xprop) and validates the .desktop file (desktop-file-utils).
  binutils x11-utils desktop-file-utils
  # The team library's tests start a real PostgreSQL server (initdb, postgres) on loopback.
  postgresql
  # The lab's uperf and iperf3 3.21 are built from source (packaging/vendor_tools.py).
  autoconf automake libtool gcc make pkg-config libssl-dev
)
# Debian's own python3 needs python3-venv for `python3 -m venv`.
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
  PKGS+=(python3-venv python3-pip)
fi

missing=()
for pkg in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "Pairbench needs these Debian packages: ${missing[*]}" >&2
  echo "Run as root:" >&2
  echo "  $cmd" >&2
  exit 1
fi
echo "Installing Debian packages: ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
