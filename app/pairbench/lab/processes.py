"""The lab's processes: is a pid alive, which ones are the lab's, ending them (bounded waits)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path


def pid_alive(pid: int) -> bool:
    """True while a process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def cmdline(pid: int) -> str:
    """A process's command line with spaces between arguments ("" when it is gone)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace").strip()


def alive_with(pid: int | None, needle: str) -> bool:
    """True when ``pid`` is alive and its command line mentions ``needle`` (no reused pids)."""
    return pid is not None and pid_alive(pid) and needle in cmdline(pid)


def pids_mentioning(needle: str) -> list[int]:
    """Live processes whose command line contains ``needle`` (never this process)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        if needle in cmdline(int(entry.name)) and pid_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def kill_pids(pids: Iterable[int], grace_s: float = 2.0) -> None:
    """SIGTERM, then SIGKILL what is still alive after ``grace_s`` (bounded waits)."""
    targets = {pid for pid in pids if pid > 1 and pid != os.getpid()}
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 1.0)):
        for pid in targets:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            targets = {pid for pid in targets if pid_alive(pid)}
            if not targets:
                return
            time.sleep(0.05)
