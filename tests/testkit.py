"""Test helpers importable from any test: paths, skip-or-fail checks for prerequisites, and a
bounded wait for a child process's line."""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import IO

import pytest

REPO = Path(__file__).resolve().parents[1]
# Real tool captures, copied into the repository (tests/data/fixtures/README.md says from where).
FIXTURES = REPO / "tests" / "data" / "fixtures"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require(condition: bool, reason: str) -> None:
    """Skip when ``condition`` is false; under CI=true fail instead, with the reason."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"cannot run under CI: {reason}", pytrace=False)
    pytest.skip(reason)


def require_program(name: str) -> str:
    """The path of an installed program, or skip/fail with the install hint."""
    path = shutil.which(name)
    require(path is not None, f"{name} is not installed (make test installs it as root)")
    assert path is not None
    return path


def read_until(
    proc: subprocess.Popen[str], needle: str, timeout_s: float, stdout: bool = False
) -> str:
    """What ``proc`` wrote on stderr (``stdout``: on stdout; a text pipe) up to and including
    the first line that contains ``needle``: the event a test waits for instead of a fixed
    sleep. Fails the test when the child ends or ``timeout_s`` passes first; the rest stays in
    the pipe."""
    stream = proc.stdout if stdout else proc.stderr
    assert stream is not None
    lines: queue.Queue[str | None] = queue.Queue()

    def read(stream: IO[str]) -> None:
        for line in stream:
            lines.put(line)
            if needle in line:
                return
        lines.put(None)  # the child closed the pipe without it

    threading.Thread(target=read, args=(stream,), daemon=True).start()
    said: list[str] = []
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            pytest.fail(f"no {needle!r} within {timeout_s:g} s; it said: {''.join(said)}")
        if line is None:
            pytest.fail(f"it ended (exit {proc.wait()}) without {needle!r}: {''.join(said)}")
        said.append(line)
        if needle in line:
            return "".join(said)
