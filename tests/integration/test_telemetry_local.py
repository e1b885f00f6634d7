"""Host telemetry on this computer's pair (``local``): every tool's run carries its verdict and
its hosts' series, and the sampler ends with the run whether it ends, is cancelled or its
controller is killed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from local_run_helpers import start_cli, wait_for_lines
from pairbench.domain.diagnosis import NETWORK_LIMITS, STORAGE_LIMITS
from pairbench.remote.launcher import TAG_VARIABLE
from testkit import require_program

pytestmark = pytest.mark.lab


def _cli(library: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pairbench", "--library", str(library), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _shown(library: Path, run_id: int) -> dict[str, Any]:
    result = _cli(library, "runs", "show", str(run_id), "--json")
    assert result.returncode == 0, result.stderr
    shown: dict[str, Any] = json.loads(result.stdout)
    return shown


def _tagged_by(controller: int) -> list[int]:
    """Pids of processes carrying a run tag of the controller ``controller`` (its pid)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        for item in environ:
            if item.startswith(f"{TAG_VARIABLE}=".encode()):
                parts = item.split(b"=", 1)[1].split(b".")
                if len(parts) > 2 and parts[2] == str(controller).encode():
                    found.append(int(entry.name))
    return found


def _none_left(controller: int, within_s: float = 5.0) -> list[int]:
    deadline = time.monotonic() + within_s
    while (left := _tagged_by(controller)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


RUNS = {
    "iperf3": ("duration=2",),
    "iperf2": ("duration=2",),
    "nuttcp": ("duration=2",),
    "ping": ("count=5", "interval=0.2"),
    "fio": ("runtime=2", "size=16M", "rw=randread", "ioengine=psync", "iodepth=1"),
}
PROGRAMS = {"iperf2": "iperf"}


@pytest.mark.parametrize("tool", sorted(RUNS))
def test_every_tools_run_carries_its_verdict_and_its_hosts(
    library_path: Path, tmp_path: Path, tool: str
) -> None:
    require_program(PROGRAMS.get(tool, tool))
    settings = list(RUNS[tool]) + ([f"directory={tmp_path}"] if tool == "fio" else [])
    args = ["run", "--pair", "local", "--tool", tool, "--json"]
    for setting in settings:
        args += ["--set", setting]
    proc = start_cli(library_path, *args)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert _none_left(proc.pid) == []  # the samplers ended with the run
    shown = _shown(library_path, json.loads(out.strip().splitlines()[-1])["id"])
    verdict = shown["diagnosis"]
    assert set(verdict) == {"limit", "host", "evidence"} and verdict["evidence"]
    assert verdict["limit"] in (STORAGE_LIMITS if tool == "fio" else NETWORK_LIMITS)
    if tool == "ping":
        assert verdict["limit"] == "rate"
    streams = {s["stream"] for s in shown["series"]}
    role = "server" if tool == "fio" else "client"  # one sampler, on the main command's host
    assert {f"{role}:cpu", f"{role}:cpu0", f"{role}:proc"} <= streams
    if tool == "fio":
        assert "server:disk" in streams  # the disk under tmp_path, from /proc/diskstats
    else:
        assert "client:net" in streams and "client:tcp" in streams
        assert shown["analyses"]["telemetry"]["hosts"]["client"]["dev"] == "lo"
    assert shown["analyses"]["telemetry"]["one_host"] is True


def test_a_cancelled_run_keeps_its_telemetry_and_leaves_no_sampler(library_path: Path) -> None:
    require_program("iperf3")
    proc = start_cli(
        library_path, "run", "--pair", "local", "--tool", "iperf3", "--set", "duration=30"
    )
    assert len(wait_for_lines(proc, "bit/s", 2, timeout_s=60)) == 2
    assert _tagged_by(proc.pid)  # the tool and its samplers, tagged with the run
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert _none_left(proc.pid) == []
    run_id = int(out.split("run ")[1].split(":")[0])
    shown = _shown(library_path, run_id)
    assert shown["status"] == "cancelled"
    assert any(s["stream"] == "client:cpu" for s in shown["series"])
    assert shown["analyses"]["diagnosis"]["limit"]


def test_a_killed_controller_leaves_no_sampler(library_path: Path) -> None:
    """Its watchdog sees the controller's pipe close and ends the sampler like the tool."""
    require_program("iperf3")
    proc = start_cli(
        library_path, "run", "--pair", "local", "--tool", "iperf3", "--set", "duration=30"
    )
    assert len(wait_for_lines(proc, "bit/s", 2, timeout_s=60)) == 2
    samplers = [
        pid
        for pid in _tagged_by(proc.pid)
        if b"pairbench-sampler" in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]
    assert samplers, "a sampler runs beside the tool"
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=30)
    assert _none_left(proc.pid, within_s=10) == []
