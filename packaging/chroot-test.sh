#!/usr/bin/env bash
# Runs a bundle tarball in a bare Debian 12 (debootstrap minbase: no Python at all), as root.
#   usage: packaging/chroot-test.sh TARBALL [CHROOT]     (default CHROOT: /tmp/pairbench-chroot)
# 1. with only iperf3 added: --version, a 3 s local iperf3 run, the run stored; the window
#    must refuse with the install hint (no libGL);
# 2. with libgl1 libegl1 fontconfig-config added: the window offscreen (stays up, ends on
#    SIGTERM), compare --chart as PNG, SVG and PDF.
# The chroot is kept for the next call (debootstrap takes a few minutes); delete it by hand.
set -euo pipefail

TARBALL="$(realpath "${1:?usage: chroot-test.sh TARBALL [CHROOT]}")"
ROOTFS="${2:-/tmp/pairbench-chroot}"
[ "$(id -u)" -eq 0 ] || { echo "chroot-test: run as root" >&2; exit 1; }

if [ ! -x "$ROOTFS/usr/bin/apt-get" ]; then
  command -v debootstrap >/dev/null || apt-get install -y -qq --no-install-recommends debootstrap
  echo "chroot-test: debootstrap --variant=minbase bookworm $ROOTFS" >&2
  debootstrap --variant=minbase bookworm "$ROOTFS" >/dev/null
fi
mountpoint -q "$ROOTFS/proc" || mount -t proc proc "$ROOTFS/proc"
trap 'umount "$ROOTFS/proc" 2>/dev/null || true' EXIT
cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"

in_chroot() {
  chroot "$ROOTFS" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    /bin/sh -c "$1"
}
apt_in_chroot() {
  in_chroot "DEBIAN_FRONTEND=noninteractive apt-get $* >/dev/null 2>&1"
}
failures=0
check() {  # check NAME SHELL-COMMAND: run in the chroot, report PASS/FAIL
  if in_chroot "$2" >/tmp/pairbench-chroot-check.log 2>&1; then
    echo "PASS  $1"
  else
    echo "FAIL  $1"; sed 's/^/      /' /tmp/pairbench-chroot-check.log | tail -8
    failures=$((failures + 1))
  fi
}

apt_in_chroot update -qq
apt_in_chroot install -y -qq --no-install-recommends iperf3
apt_in_chroot purge -y -qq libgl1 libegl1 fontconfig-config || true
apt_in_chroot autoremove --purge -y -qq || true
rm -rf "$ROOTFS/opt/pairbench" "$ROOTFS/root/pb"
mkdir -p "$ROOTFS/opt" "$ROOTFS/root/pb"
tar -C "$ROOTFS/opt" -xzf "$TARBALL"
P=/opt/pairbench/pairbench
L="--library /root/pb/library.sqlite"

echo "chroot-test: $(basename "$TARBALL") in $ROOTFS ($(in_chroot '. /etc/os-release; echo $PRETTY_NAME'))"
check "no Python in the chroot" '! ls /usr/bin/python* /usr/local/bin/python* 2>/dev/null'
echo "-- bare system + iperf3"
check "--version" "$P --version | grep -q '^pairbench '"
check "3 s local iperf3 run" "$P $L run --pair local --tool iperf3 --set duration=3 --json \
  2>/dev/null | tail -1 | grep -q '\"status\": \"completed\"'"
check "the run is stored" "$P $L runs show 1 | grep -q 'throughput_bps'"
check "window without libGL: the install hint" "QT_QPA_PLATFORM=offscreen $P $L 2>&1 \
  | grep -q 'apt-get install --no-install-recommends libgl1 libegl1 fontconfig-config'"

echo "-- + libgl1 libegl1 fontconfig-config"
apt_in_chroot install -y -qq --no-install-recommends libgl1 libegl1 fontconfig-config
check "second run" "$P $L run --pair local --tool iperf3 --set duration=1 >/dev/null 2>&1"
check "window offscreen: up for 5 s, exits 0 on SIGTERM" "cd /root/pb && \
  QT_QPA_PLATFORM=offscreen PAIRBENCH_REPORT_STARTUP=1 $P $L 2>win.err & p=\$!; sleep 5; \
  kill -0 \$p && kill -TERM \$p && wait \$p && grep -q 'window-shown' /root/pb/win.err"
for ext in png svg pdf; do
  check "compare --chart chart.$ext (headless)" "$P $L compare 1 2 --chart /root/pb/chart.$ext \
    >/dev/null && test -s /root/pb/chart.$ext"
done
cp "$ROOTFS/root/pb/chart.png" "${TMPDIR:-/tmp}/pairbench-chroot-chart.png" 2>/dev/null || true
echo "chroot-test: $failures failure(s); chart: ${TMPDIR:-/tmp}/pairbench-chroot-chart.png"
[ "$failures" -eq 0 ]
