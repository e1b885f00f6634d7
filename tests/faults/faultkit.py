"""Helpers for fault trials: start ``pairbench`` as a user would, find what runs left behind."""

from __future__ import annotations

import glob
import json
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pairbench.remote.launcher import TAG_VARIABLE

PAIRBENCH = [sys.executable, "-m", "pairbench"]
# A live interval line of ``pairbench run``: "    2.0 s     200 Mbit/s ..."
INTERVAL_LINE = re.compile(r"^\s*\d+\.\d s\s")


def tagged_processes(only: set[int] | None = None) -> dict[int, str]:
    """Every process on this machine started by a Pairbench run (the lab's hosts share its
    process table; ``only``: among these pids, e.g. ``labkit.lab_pids()``, the lab's hosts
    alone, what a test beside other workers looks at): pid → command line."""
    return {pid: cmdline for pid, (cmdline, _tag) in _tagged(only).items()}


def run_tags(only: set[int] | None = None) -> set[str]:
    """The run tags (``PAIRBENCH_RUN_TAG``) of the processes ``tagged_processes`` finds."""
    return {tag for _cmdline, tag in _tagged(only).values()}


def _tagged(only: set[int] | None) -> dict[int, tuple[str, str]]:
    found: dict[int, tuple[str, str]] = {}
    needle = f"{TAG_VARIABLE}=".encode()
    every = (int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit())
    for pid in every if only is None else only:
        try:
            data = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        tags = [entry[len(needle) :] for entry in data.split(b"\0") if entry.startswith(needle)]
        if tags:
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
            except OSError:
                continue
            if state != "Z":
                text = cmdline.decode(errors="replace").strip()
                found[pid] = (text, tags[0].decode(errors="replace"))
    return found


def tagged_workdirs(tags: set[str] | None = None) -> list[str]:
    """Work directories of runs (``pairbench.pb.*``) in /tmp, where the lab's hosts make them
    (``tags``: only those of these runs; other workers' runs make theirs there too)."""
    if tags is None:
        return sorted(glob.glob("/tmp/pairbench.pb.*"))
    return sorted(p for tag in tags for p in glob.glob(f"/tmp/pairbench.{glob.escape(tag)}.*"))


def start_run(
    library: Path, tool: str, *settings: str, json_out: bool = False
) -> subprocess.Popen[str]:
    """``pairbench run --pair lab --tool TOOL --set ...`` as a child process."""
    args = [*PAIRBENCH, "--library", str(library), "run", "--pair", "lab", "--tool", tool]
    for setting in settings:
        args += ["--set", setting]
    if json_out:
        args.append("--json")
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def cli(
    library: Path, *args: str, timeout_s: float = 60.0, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``pairbench --library LIBRARY ARGS...`` as a process of its own, its output captured."""
    return subprocess.run(
        [*PAIRBENCH, "--library", str(library), *args],
        capture_output=True,
        text=True,
        timeout=timeout_s,
        env=None if env is None else dict(env),
        check=False,
    )


def read_until(
    proc: subprocess.Popen[str], wanted: Callable[[str], object], what: str, timeout_s: float
) -> str:
    """Read a command's stdout up to the first line ``wanted`` accepts (that line), saying
    ``what`` was awaited when the command ends or the time is up first."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout_s
    seen: list[str] = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            err = proc.stderr.read() if proc.stderr else ""
            raise AssertionError(f"the command ended before {what}: {seen} {err}")
        seen.append(line.rstrip())
        if wanted(line):
            return line
    raise AssertionError(f"no {what} within {timeout_s} s: {seen}")


def wait_for_interval(proc: subprocess.Popen[str], timeout_s: float = 30.0) -> str:
    """Read the run's output up to its first live interval line (the tools are measuring)."""
    return read_until(proc, INTERVAL_LINE.match, "its first interval", timeout_s)


def finish(proc: subprocess.Popen[str], timeout_s: float = 60.0) -> tuple[int, str, str]:
    """Wait for a run started with ``start_run``; (exit status, stdout, stderr)."""
    out, err = proc.communicate(timeout=timeout_s)
    return proc.returncode, out, err


def run_json(library: Path, tool: str, *settings: str) -> tuple[int, dict[str, Any], str]:
    """A whole run with ``--json``: (exit status, the final object, stderr)."""
    status, out, err = finish(start_run(library, tool, *settings, json_out=True), 120)
    lines = [line for line in out.splitlines() if line.startswith("{")]
    return status, (json.loads(lines[-1]) if lines else {}), err
