"""A local fio run that stalls and never ends (fio 3.33 never ends a job of
``io_submit_mode=offload``, nor on SIGINT or SIGTERM: fio-examples' fixed-rate-submission.fio)
is stored as stalled and ``pairbench run`` ends with its exit status for a stall: no Python
traceback, no "Exception ignored in BaseSubprocessTransport.__del__ ... Event loop is closed" (the
transport of a process whose pipes fio's job process held open, collected after the event
loop closed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pairbench.library import Library
from pairbench.library.runs import get_run
from testkit import require_program

# A real process (the message came when the interpreter collected the transport), with the
# stall limits short, so that the run stalls out in seconds instead of 40.
CHILD = """
import sys
import pairbench.engine.stall as stall
stall.STARTUP_GRACE_S = 1.0
stall.STALL_OVERRUN_S = 1.0
from pairbench.main import main
sys.exit(main())
"""
JOB = """[fixed-rate-submit]
size=4m
rw=read
ioengine=libaio
iodepth=32
direct=1
io_submit_mode=offload
rate_iops=1000
runtime=1
"""
STALLED_EXIT = 5


@pytest.mark.timeout(120)
def test_a_stalled_local_fio_run_is_stored_stalled_without_a_traceback(tmp_path: Path) -> None:
    require_program("fio")
    job, work, library = tmp_path / "offload.fio", tmp_path / "work", tmp_path / "lib.sqlite"
    job.write_text(JOB)
    work.mkdir()
    argv = ["run", "--pair", "local", "--tool", "fio", "--set", f"jobfile={job}"]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *argv, "--set", f"directory={work}", "--json"],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PAIRBENCH_LIBRARY": str(library),
            "PAIRBENCH_LOCK_DIR": str(tmp_path / "locks"),
        },
        timeout=90,
        check=False,
    )
    assert done.returncode == STALLED_EXIT, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    assert "Exception ignored" not in done.stderr, done.stderr
    run = json.loads(done.stdout.strip().splitlines()[-1])
    assert run["status"] == "stalled", run
    with Library.open(library) as lib:
        assert get_run(lib, int(run["id"])).status.value == "stalled"
    assert list(work.iterdir()) == [], "the run left files behind"
