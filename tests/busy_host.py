"""Another Pairbench run holding this computer (``local``): a real ping run on loopback,
started as a user would from a library of its own (only the host lock is shared), held
until the block ends, then cancelled."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

# A live interval line of ``pairbench run``: "    0.2 s       0.0210 ms ..."
_INTERVAL = re.compile(r"^\s*\d+\.\d s\s")


@contextlib.contextmanager
def local_run_holding(folder: Path, timeout_s: float = 30.0) -> Iterator[int]:
    """A ping run on ``local`` (its library in ``folder``), measuring (so holding the host's
    lock) while the block runs; yields its pid."""
    argv = [sys.executable, "-m", "pairbench", "--library", str(folder / "holder.sqlite")]
    argv += ["run", "--pair", "local", "--tool", "ping", "--set", "count=300"]
    argv += ["--set", "interval=0.2"]
    holder = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert holder.stdout is not None
        seen: list[str] = []
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and not (seen and _INTERVAL.match(seen[-1])):
            line = holder.stdout.readline()
            if not line:
                raise AssertionError(f"the holding run ended: {seen} {holder.stderr.read()}")
            seen.append(line)
        assert seen and _INTERVAL.match(seen[-1]), seen
        yield holder.pid
    finally:
        holder.send_signal(signal.SIGINT)
        try:
            holder.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            holder.kill()
            holder.communicate(timeout=30)
