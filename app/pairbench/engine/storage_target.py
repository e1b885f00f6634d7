"""A storage suite's target on its host: checked before anything is written (a device that
exists, unmounted, holding no partition table or file system unless forced; a directory
that is writable, safe from others' links and has room for the test file), described
(model, size, rotational flag, scheduler, NVMe controllers, O_DIRECT support), and purged."""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from pairbench.domain.failures import (
    RunError,
    TargetChangedError,
    TargetHoldsDataError,
    ToolMissingError,
    TransportError,
)
from pairbench.remote.base import Transport
from pairbench.tools.fio_devices import (
    device_host_check,
    in_use_check_argv,
    refuse_if_in_use,
    refuse_if_mounted,
)
from pairbench.tools.fio_paths import directory_problem, parse_path_states, path_state_argv

_LSBLK_COLUMNS = "NAME,MODEL,SIZE,ROTA,SCHED,TYPE,FSTYPE,PTTYPE,LOG-SEC,MOUNTPOINTS"
_NVME = "Non-Volatile memory controller"


@dataclass(frozen=True, slots=True)
class TargetFacts:
    """What the suite learnt about its target; ``facts`` are stored with the suite."""

    size_bytes: int  # the device's size; for a file target the size asked for
    logical_sector: int
    direct: bool  # O_DIRECT works there
    facts: dict[str, str]


async def host_run(transport: Transport, argv: Sequence[str], timeout_s: float = 30.0) -> Any:
    """``transport.run``; a host that cannot run it is a ``RunError`` saying so."""
    try:
        return await transport.run(argv, timeout_s=timeout_s)
    except ToolMissingError as exc:
        raise RunError(f"{transport.host_name}: {argv[0]} is not installed: {exc}") from exc
    except (TransportError, TimeoutError, OSError) as exc:
        raise RunError(f"{transport.host_name}: {' '.join(argv[:2])} failed: {exc}") from exc


async def host_output(transport: Transport, argv: Sequence[str]) -> str:
    """What a command printed, or "" when it is missing or fails (facts that may be absent)."""
    try:
        result = await transport.run(argv, timeout_s=10.0)
    except (TransportError, TimeoutError, OSError):
        return ""
    return str(result.stdout) if result.exit_status == 0 else ""


async def cpu_count(transport: Transport) -> int:
    """The host's CPUs (``nproc``), 1 when it cannot tell."""
    text = (await host_output(transport, ["nproc"])).strip()
    return int(text) if text.isdigit() and int(text) > 0 else 1


async def inspect_device(
    transport: Transport, device: str, *, force: bool, remedy: str = ""
) -> TargetFacts:
    """Check and describe a raw device; ``RunError`` (nothing written) when it does not
    exist, is mounted or used, or (``TargetHoldsDataError``) holds a partition table or file
    system and not ``force``; ``remedy`` says how to force it (default: ``--force``)."""
    host = transport.host_name
    result = await host_run(transport, ["lsblk", "-J", "-b", "-o", _LSBLK_COLUMNS, device])
    if result.exit_status != 0:
        said = (result.stderr or result.stdout).strip()[:200]
        raise RunError(f"{host}: {device} is not a block device ({said})")
    try:
        refuse_if_mounted(result.stdout, device)
    except ValueError as exc:
        raise RunError(f"{host}: {exc}") from exc
    entry = json.loads(result.stdout)["blockdevices"][0]
    uses = await host_run(transport, in_use_check_argv(device))
    if uses.exit_status != 0:
        raise RunError(f"{host}: cannot tell whether {device} is in use (is it a block device?)")
    try:
        refuse_if_in_use(uses.stdout, device)
    except ValueError as exc:
        raise RunError(f"{host}: {exc}") from exc
    held = await _signatures(transport, device)
    if entry.get("children"):
        held.append("partitions")
    if held and not force:
        raise TargetHoldsDataError(
            f"{host}: {device} holds {' and '.join(held)}; the suite would destroy it. "
            f"{remedy or 'Test another device, or force it (--force) if its data may go'}",
            host,
            device,
            held,
        )
    size = int(entry.get("size") or 0)
    if size <= 0:
        raise RunError(f"{host}: {device} has no size (an empty loop device or a card reader?)")
    nvme = (await host_output(transport, ["lspci", "-mm"])).splitlines()
    facts = {
        "target": device,
        "kind": "device",
        "model": str(entry.get("model") or "").strip(),
        "size_bytes": str(size),
        "rotational": "yes" if str(entry.get("rota")).lower() in ("1", "true") else "no",
        "scheduler": str(entry.get("sched") or ""),
        "logical_sector": str(entry.get("log-sec") or 512),
        "nvme_controllers": "; ".join(line for line in nvme if _NVME in line),
        "held": ", ".join(held),
    }
    sector = int(entry.get("log-sec") or 512)
    return TargetFacts(size, sector, True, {k: v for k, v in facts.items() if v})


async def _signatures(transport: Transport, device: str) -> list[str]:
    """What ``blkid -p`` finds on the device itself (a partition table, a file system, RAID
    or LVM members): read from the device, not from udev's records, which a container or a
    device made a moment ago lacks. A device blkid cannot read is treated as holding data."""
    result = await host_run(transport, ["blkid", "-p", "-o", "export", device])
    if result.exit_status == 2:  # blkid: nothing found
        return []
    if result.exit_status != 0:
        said = (result.stderr or result.stdout).strip()[:160]
        return [f"something blkid cannot tell ({said or f'exit status {result.exit_status}'})"]
    found = dict(line.split("=", 1) for line in result.stdout.splitlines() if "=" in line)
    held = []
    if found.get("PTTYPE"):
        held.append(f"a {found['PTTYPE']} partition table")
    if found.get("TYPE"):
        usage = found.get("USAGE", "filesystem")
        what = "file system" if usage == "filesystem" else usage
        held.append(f"a {found['TYPE']} {what}")
    return held


async def inspect_directory(
    transport: Transport, directory: str, size: int, *, existing_file: str = ""
) -> TargetFacts:
    """Check and describe a directory for a test file of ``size`` bytes (nothing written):
    it exists, is writable, is not on a read-only mount, nobody but its owner (this user or
    root) may swap links into it (``fio_paths.directory_problem``), and it has room (unless
    ``existing_file``, a resumed suite's file, is there already). Whether O_DIRECT works is
    probed in the suite's own directory (``with_direct``)."""
    host = transport.host_name
    report = await host_run(transport, path_state_argv(directory))
    try:
        (state,) = parse_path_states(report.stdout, (directory,))
    except ValueError as exc:
        raise RunError(f"{host}: directory {directory} cannot be used ({exc})") from exc
    problem = directory_problem(state)
    if problem:
        raise RunError(f"{host}: the target cannot be used: {problem}")
    kind = await host_run(transport, ["stat", "-f", "-c", "%T", directory])
    have = 0
    if existing_file:
        have_text = (await host_output(transport, ["stat", "-c", "%s", existing_file])).strip()
        have = int(have_text) if have_text.isdigit() else 0
    free = await host_run(transport, ["df", "-B1", "--output=avail", directory])
    lines = free.stdout.split()
    avail = int(lines[-1]) if free.exit_status == 0 and lines and lines[-1].isdigit() else -1
    if avail >= 0 and size - have > avail:
        raise RunError(
            f"{host}: {directory} has {avail / 2**30:.2f} GiB free, the test file needs "
            f"{size / 2**30:.2f} GiB; give a smaller --size or another directory"
        )
    facts = {
        "target": directory,
        "kind": "file",
        "filesystem": kind.stdout.strip() if kind.exit_status == 0 else "",
        "size_bytes": str(size),
        "free_bytes": str(avail) if avail >= 0 else "",
    }
    return TargetFacts(size, 512, False, {k: v for k, v in facts.items() if v})


def with_direct(target: TargetFacts, direct: bool) -> TargetFacts:
    """A directory's facts with what the O_DIRECT probe found (else buffered I/O, said)."""
    filesystem = target.facts.get("filesystem", "the file system")
    said = "yes" if direct else f"no: {filesystem} has no O_DIRECT; buffered I/O"
    return replace(target, direct=direct, facts={**target.facts, "direct": said})


async def check_device_unused(transport: Transport, device: str) -> None:
    """The check fio's runs on ``device`` pass (``fio_devices.device_host_check``), again
    before a purge later in a suite: ``TargetChangedError`` (nothing written) when it is no
    longer a block device, or is now mounted in any mount namespace, swap or built upon."""
    check = device_host_check(device)
    result = await host_run(transport, check.argv)
    try:
        if result.exit_status != 0:
            raise ValueError(f"cannot tell whether {device} is in use (is it a block device?)")
        check.verdict(result.stdout)
    except ValueError as exc:
        raise TargetChangedError(f"{transport.host_name}: {exc}") from exc


# dd's lowest speed the zero fill allows for (bytes/s) before it counts as hung.
_ZERO_FILL_SLOWEST = 20 * 2**20


async def _attempt(transport: Transport, argv: Sequence[str], timeout_s: float) -> str | None:
    """None when the command worked, else what went wrong (a short text)."""
    try:
        result = await transport.run(argv, timeout_s=timeout_s)
    except (TransportError, TimeoutError, OSError) as exc:
        return f"could not run ({exc})"
    if result.exit_status != 0:
        said = (result.stderr or result.stdout).strip()
        name = re.escape(posixpath.basename(argv[0]))
        said = re.sub(rf"^\S*{name}: ", "", said)  # "/usr/bin/dd: error writing ..."
        return said[:160] or f"exit status {result.exit_status}"
    return None


async def purge_device(transport: Transport, device: str, size: int) -> str:
    """Purge a device as CloudHarmony does, first method that works: (ATA secure erase is
    not tried, as CloudHarmony without a password), ``blkdiscard`` of the device, else a
    zero fill of its active range (``size`` bytes). A note of how; ``RunError`` naming what
    each method said when none works."""
    failed = await _attempt(transport, ["blkdiscard", device], 600.0)
    if failed is None:
        return "purged with blkdiscard"
    dd = ["dd", "if=/dev/zero", f"of={device}", "bs=1M", f"count={size}"]
    dd += ["iflag=count_bytes", "conv=nocreat,fsync", "status=none"]  # a device only
    zero_failed = await _attempt(transport, dd, 120.0 + size / _ZERO_FILL_SLOWEST)
    if zero_failed is None:
        return f"purged with a zero fill of {size} bytes (blkdiscard said: {failed})"
    raise RunError(
        f"{transport.host_name}: {device} could not be purged (blkdiscard: {failed}; zero "
        f"fill: {zero_failed}); test it without purging with --no-purge"
    )
