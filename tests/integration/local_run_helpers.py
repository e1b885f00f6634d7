"""Helpers for tests that start the real ``pairbench`` CLI as a child process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PAIRBENCH = [sys.executable, "-m", "pairbench"]


def start_cli(library: Path, *args: str) -> subprocess.Popen[str]:
    """Start ``pairbench --library LIBRARY ARGS`` with line-buffered text pipes."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen(
        [*PAIRBENCH, "--library", str(library), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        bufsize=1,
        env=env,
    )


def cli_json(library: Path, *args: str) -> Any:
    """Run a CLI command to completion and parse its stdout as JSON."""
    result = subprocess.run(
        [*PAIRBENCH, "--library", str(library), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(result.stdout)


def children_of(pid: int) -> list[int]:
    """Pids of the direct children of ``pid`` (from /proc)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("PPid:") and int(line.split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """True while a process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def wait_for_lines(
    proc: subprocess.Popen[str], pattern: str, count: int, timeout_s: float
) -> list[tuple[float, str]]:
    """Read stdout until ``count`` lines containing ``pattern`` arrived; return (time, line)."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout_s
    seen: list[tuple[float, str]] = []
    while len(seen) < count and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if pattern in line:
            seen.append((time.monotonic(), line.rstrip("\n")))
    return seen
