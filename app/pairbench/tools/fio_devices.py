"""fio on a raw device: is it in use (mounted in any mount namespace, swap, holding another
device), as a constant script's output or lsblk's JSON; refusals say why."""

from __future__ import annotations

import json
import posixpath
from typing import Final

from pairbench.tools.base import HostCheck, ParamError

# lsblk TYPE values of devices that hold a disk in use by the kernel (LVM, dm-crypt, RAID...).
_HOLDER_TYPES: Final = ("lvm", "crypt", "dm", "mpath", "raid", "md")

# Where the device (or a partition of it) is mounted in ANY mount namespace of the host, swap
# on it, and what is built on it (LVM, dm-crypt, RAID): lsblk reads the mounts of its own
# namespace only, so a device mounted outside it (a container's host, or the lab's network
# namespaces) would look free. A constant script; the device is its argument $1.
IN_USE_SCRIPT = r"""
dev=$(readlink -f -- "$1") || exit 3
name=${dev##*/}
sys=/sys/class/block/$name
[ -r "$sys/dev" ] || exit 3
ids=$(cat "$sys/dev"; for p in "$sys"/"$name"*/dev; do [ -r "$p" ] && cat "$p"; done)
awk -v ids="$ids" 'BEGIN { n = split(ids, list, "\n"); for (i = 1; i <= n; i++) want[list[i]] = 1 }
  ($3 in want) { print "mounted on " $5 }' /proc/[0-9]*/mountinfo 2>/dev/null | sort -u | head -5
for p in "$dev" "$dev"[0-9]* "$dev"p[0-9]*; do
  grep -q "^$p " /proc/swaps 2>/dev/null && echo "swap on $p"
done
for h in "$sys"/holders/* "$sys"/"$name"*/holders/*; do [ -e "$h" ] && echo "held by ${h##*/}"; done
exit 0
"""


def in_use_check_argv(device: str) -> list[str]:
    """argv that prints how ``device`` is in use in any mount namespace (nothing: free)."""
    return ["sh", "-c", IN_USE_SCRIPT, "sh", device]


def device_host_check(device: str) -> HostCheck:
    """The host check before fio runs on ``device``: refused when ``IN_USE_SCRIPT`` finds
    it mounted in any mount namespace, swap, or holding another device."""
    return HostCheck(in_use_check_argv(device), lambda text: refuse_if_in_use(text, device))


def refuse_if_in_use(script_output: str, device: str) -> None:
    """``ParamError`` when ``IN_USE_SCRIPT`` found the device (or a partition) mounted, swap
    on it, or a device built on it."""
    found = [line.strip() for line in script_output.splitlines() if line.strip()]
    if found:
        raise ParamError(
            f"refusing to run fio on {device}: it is in use ({'; '.join(found[:5])}). Unmount "
            "it (and everything on it) first, or test a file system with directory=..."
        )


def mounted_device_check_argv(device: str) -> list[str]:
    """argv that lists ``device`` and everything on it (partitions, LVM...) as lsblk JSON."""
    return ["lsblk", "-J", "-o", "NAME,MOUNTPOINTS,TYPE", device]


def refuse_if_mounted(lsblk_json_text: str, device: str) -> None:
    """``ParamError`` unless lsblk shows ``device`` unmounted and unused.

    Refused: a mount point (``[SWAP]`` included) on the device or anything on it (its
    partitions, their LVM volumes...), or a holder device (LVM, dm-crypt, RAID, multipath) on
    it. ``"mountpoints": [null]`` is lsblk's way of saying "not mounted". lsblk run with the
    device argument lists just that device (under its kernel name, even for a
    ``/dev/disk/by-id`` link); a full listing is searched for the device's name.
    """
    try:
        data = json.loads(lsblk_json_text)
    except (ValueError, RecursionError) as exc:
        raise ParamError(f"cannot check whether {device} is in use: lsblk said {exc}") from exc
    devices = data.get("blockdevices") if isinstance(data, dict) else None
    if not isinstance(devices, list) or not devices:
        raise ParamError(f"cannot check whether {device} is in use: lsblk lists no device")
    if len(devices) > 1:
        name = posixpath.basename(device)
        devices = [d for d in devices if isinstance(d, dict) and d.get("name") == name]
        if not devices:
            raise ParamError(f"cannot check whether {device} is in use: lsblk does not list it")
    for entry in devices:
        problem = _in_use(entry, top=True)
        if problem:
            raise ParamError(
                f"refusing to run fio on {device}: {problem}. Unmount it (and everything on "
                f"it) first, or test a file system with directory=..."
            )


def _in_use(entry: object, *, top: bool, depth: int = 0) -> str | None:
    """Why an lsblk entry (or anything below it) is in use, or None."""
    if not isinstance(entry, dict) or depth > 16:
        return "lsblk output is not understood"
    name = str(entry.get("name", "?"))
    points = entry.get("mountpoints", entry.get("mountpoint"))
    if not isinstance(points, list):
        points = [points]
    mounted = [str(p) for p in points if p is not None]
    if mounted:
        return f"{name} is mounted on {', '.join(mounted)}"
    kind = str(entry.get("type", ""))
    if not top and kind.startswith(_HOLDER_TYPES):
        return f"{name} ({kind}) is built on it"
    children = entry.get("children") or []
    if not isinstance(children, list):
        return "lsblk output is not understood"
    for child in children:
        problem = _in_use(child, top=False, depth=depth + 1)
        if problem:
            return problem
    return None
