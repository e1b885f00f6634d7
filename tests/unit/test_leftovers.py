"""Leftovers of earlier runs on a host, found by run tag before a run (on this computer)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pairbench.domain.failures import HostInUseError
from pairbench.domain.processes import RunTag, process_token, this_machine
from pairbench.engine.leftovers import clear_leftovers
from pairbench.remote.launcher import TAG_VARIABLE
from pairbench.remote.local import LocalTransport


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


# The leftover scan of "This computer" sees every process of the machine (and kills those of a
# dead Pairbench): alone, or another worker's run would clear this test's planted leftovers.
pytestmark = pytest.mark.serial


@pytest.fixture
def spawned() -> Iterator[list[subprocess.Popen[bytes]]]:
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for proc in procs:
        proc.kill()
        proc.wait()


def _tagged_sleep(procs: list[subprocess.Popen[bytes]], tag: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        ["sleep", "60"], env={**os.environ, TAG_VARIABLE: tag}, start_new_session=True
    )
    procs.append(proc)
    time.sleep(0.05)
    return proc


def test_a_dead_controllers_tool_and_work_directory_are_removed(
    spawned: list[subprocess.Popen[bytes]],
) -> None:
    tag = str(RunTag(this_machine(), _dead_pid(), "1", "abcdef"))
    tool = _tagged_sleep(spawned, tag)
    # In $TMPDIR, where runs make theirs (the session's own: tests/sessionkit.py).
    workdir = Path(tempfile.mkdtemp(prefix=f"pairbench.{tag}.", dir=tempfile.gettempdir()))
    (workdir / "fio.0.0").write_bytes(b"x")
    notes = asyncio.run(clear_leftovers(LocalTransport(), wait_s=5))
    assert tool.wait(5) != 0  # killed
    assert not workdir.exists()
    assert any("stopped 1 process" in n for n in notes), notes
    assert any(str(workdir) in n for n in notes), notes


def test_another_computers_live_run_is_refused_after_the_wait(
    spawned: list[subprocess.Popen[bytes]],
) -> None:
    tag = str(RunTag("0badc0de", 4242, "77", "abcdef"))
    tool = _tagged_sleep(spawned, tag)
    started = time.monotonic()
    with pytest.raises(HostInUseError) as info:
        asyncio.run(clear_leftovers(LocalTransport(), wait_s=1.0))
    assert time.monotonic() - started >= 1.0
    assert f"pid {tool.pid}" in str(info.value) and tag in str(info.value)
    assert tool.poll() is None  # not ours to stop


def test_a_live_run_of_this_computer_is_left_alone(
    spawned: list[subprocess.Popen[bytes]],
) -> None:
    """Another Pairbench of this computer (this test process stands in for it) runs on a pair
    that shares this machine's process table: its tools are no leftovers."""
    holder = subprocess.Popen(["sleep", "60"])
    spawned.append(holder)  # type: ignore[arg-type]
    tag = str(RunTag(this_machine(), holder.pid, process_token(holder.pid), "abcdef"))
    tool = _tagged_sleep(spawned, tag)
    notes = asyncio.run(clear_leftovers(LocalTransport(), wait_s=1.0))
    assert tool.poll() is None
    assert notes == []
