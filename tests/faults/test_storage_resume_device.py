"""A device suite resumed after ``kill -9`` (``--host local``, a real loop device, real fio):
untouched, it goes on without ``--force`` (its own data is no signature); once a file system
was made on the device and a file written there, ``storage resume`` refuses, naming what it
found, and the file system and file stay intact; ``--force`` goes on."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blockkit import loop_device, mounted
from faultkit import tagged_processes
from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from testkit import require_program

PAIRBENCH = [sys.executable, "-m", "pairbench"]
SUITE = [
    "--host", "local", "--test", "throughput", "--size", "16MiB", "--round-seconds", "1",
    "--max-rounds", "5", "--precondition-passes", "1", "--threads", "1", "--iodepth", "4",
]  # fmt: skip
KEPT = b"made after the suite stopped\n"


def _start(library: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*PAIRBENCH, "--library", str(library), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def _until_job(proc: subprocess.Popen[str], number: int, timeout_s: float = 90) -> list[str]:
    """Read progress lines until the suite's job ``number`` (1-based, of all) started."""
    assert proc.stdout is not None
    seen: list[str] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line.rstrip())
        if line.startswith(f"[{number}/"):
            return seen
    err = proc.stderr.read() if proc.stderr and proc.poll() is not None else ""
    raise AssertionError(f"job {number} did not start: {seen} {err}")


def _kill(proc: subprocess.Popen[str], device: str) -> None:
    """``kill -9`` the suite's program, then wait (bounded) until its fio is gone too (the
    watchdog ends it)."""
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    on_it = re.compile(rf"={re.escape(device)}(\s|$)")  # fio's --filename=DEVICE

    def fio_left() -> bool:
        return any(on_it.search(line) for line in tagged_processes().values())

    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and fio_left():
        time.sleep(0.1)
    assert not fio_left()


def _cli(library: Path, *args: str) -> tuple[int, str, str]:
    """``pairbench --library LIBRARY ARGS`` run in this process (as a user would type it)."""
    out, err = io.StringIO(), io.StringIO()
    status = run_cli(["--library", str(library), *args], Environment(stdout=out, stderr=err))
    return status, out.getvalue(), err.getvalue()


def _status(library: Path, suite_id: int) -> str:
    status, out, err = _cli(library, "storage", "show", str(suite_id), "--json")
    assert status == 0, err
    return str(json.loads(out)["status"])


def _blkid_type(device: str) -> str:
    done = subprocess.run(
        ["blkid", "-p", "-o", "value", "-s", "TYPE", device], capture_output=True, text=True
    )
    return done.stdout.strip()


@pytest.mark.timeout(300)
def test_a_resume_refuses_a_file_system_made_after_the_interruption(tmp_path: Path) -> None:
    require_program("fio")
    require_program("mkfs.ext4")
    library = tmp_path / "library.sqlite"
    for device in loop_device(32):
        suite = _start(library, "storage", "run", *SUITE, "--target", device, "--confirm", device)
        first = _until_job(suite, 2)  # preconditioned, the first round's job under way
        suite_id = int(first[0].split()[1].rstrip(":"))  # "suite 1: throughput on /dev/loop3"
        _kill(suite, device)
        assert _status(library, suite_id) == "interrupted"
        assert _blkid_type(device) == ""  # the suite's own data: no signature

        # Untouched, it goes on without --force.
        resumed = _start(library, "storage", "resume", str(suite_id))
        _until_job(resumed, 2)
        _kill(resumed, device)

        # A file system made on the device since, with a file on it.
        made = subprocess.run(["mkfs.ext4", "-q", "-F", device], capture_output=True, timeout=60)
        assert made.returncode == 0, made.stderr
        with mounted(device, tmp_path / "mnt") as mount_point:
            (mount_point / "kept.txt").write_bytes(KEPT)
        status, out, err = _cli(library, "storage", "resume", str(suite_id))
        assert status == 1, (out, err)
        said = err.strip()
        assert len(said.splitlines()) == 1 and "Traceback" not in said
        assert f"{device} holds a ext4 file system" in said
        assert f"pairbench storage resume {suite_id} --force" in said
        assert _blkid_type(device) == "ext4"
        with mounted(device, tmp_path / "mnt") as mount_point:
            assert (mount_point / "kept.txt").read_bytes() == KEPT
        assert _status(library, suite_id) == "interrupted"  # left as it was

        # Forced again, it goes on (and is cancelled here: its jobs run as before).
        forced = _start(library, "storage", "resume", str(suite_id), "--force")
        _until_job(forced, 2)
        forced.send_signal(signal.SIGINT)
        forced.communicate(timeout=60)
        assert forced.returncode == 130
        assert _status(library, suite_id) == "cancelled"
