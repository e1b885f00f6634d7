"""The watchdog every tool runs under, on this computer: pid, group, status, and death of
the controller ending the tool within 2 s with its work directory removed."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pairbench.domain import LineSource
from pairbench.domain.processes import RunTag
from pairbench.remote.launcher import TAG_VARIABLE
from pairbench.remote.local import LocalTransport

CHILD = """
import asyncio, sys
from pairbench.domain import LineSource
from pairbench.remote.local import LocalTransport

async def main() -> None:
    # Like fio: a job process that leads a session of its own, outside the tool's group.
    process = await LocalTransport().start(
        ["sh", "-c", "setsid sleep 60 & echo $!; sleep 60"],
        stdout=LineSource.CLIENT_OUT, stderr=LineSource.CLIENT_ERR,
        tag=sys.argv[1], cleanup=sys.argv[2],
    )
    job = None
    async for line in process.lines():
        job = line.text
        break
    print(process.pid, job, flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def _run(coro_factory):  # type: ignore[no-untyped-def]
    return asyncio.run(coro_factory())


def test_the_tool_leads_its_group_carries_the_tag_and_its_status_comes_back() -> None:
    tag = str(RunTag.new())

    async def scenario() -> tuple[int, int, str, list[str]]:
        process = await LocalTransport().start(
            ["sh", "-c", "echo $PAIRBENCH_RUN_TAG; sleep 1; exit 3"],
            stdout=LineSource.CLIENT_OUT,
            stderr=LineSource.CLIENT_ERR,
            tag=tag,
        )
        assert process.pid is not None
        pgid = os.getpgid(process.pid)
        environ = ""
        lines: list[str] = []
        async for line in process.lines():
            if not lines:
                # The tool has printed, so it runs (not between fork and exec,
                # when /proc shows an empty environment): read it now.
                environ = Path(f"/proc/{process.pid}/environ").read_bytes().decode()
            lines.append(line.text)
        return process.pid, pgid, environ, [*lines, str(await process.wait())]

    pid, pgid, environ, lines = _run(scenario)
    assert pgid == pid
    assert f"{TAG_VARIABLE}={tag}" in environ.split("\0")
    assert lines == [tag, "3"]


def test_stop_ends_the_tool() -> None:
    async def scenario() -> int:
        process = await LocalTransport().start(
            ["sleep", "30"], stdout=LineSource.CLIENT_OUT, stderr=LineSource.CLIENT_ERR
        )
        assert process.pid is not None
        await process.stop(grace_s=2)
        return process.pid

    pid = _run(scenario)
    assert not _alive(pid)


def _ignored_signals(pid: int) -> set[int]:
    status = Path(f"/proc/{pid}/status").read_text()
    mask = int(next(line.split()[1] for line in status.splitlines() if line[:7] == "SigIgn:"), 16)
    return {signum for signum in range(1, 65) if mask >> (signum - 1) & 1}


def test_a_tool_that_does_not_catch_sigint_ends_by_the_stops_sigint() -> None:
    """A tool under the watchdog has SIGINT as in a terminal (a shell's ``&`` without job
    control ignores it), so a stop's first signal ends one that does not catch
    it at once (uperf -s waited a second for SIGTERM): its status says SIGINT (128 + 2)."""

    async def scenario() -> tuple[set[int], int]:
        process = await LocalTransport().start(
            ["sleep", "30"], stdout=LineSource.SERVER_OUT, stderr=LineSource.SERVER_ERR
        )
        assert process.pid is not None
        for _ in range(1000):  # between the pid line and exec: the watchdog's bash, not sleep
            if Path(f"/proc/{process.pid}/comm").read_text().strip() == "sleep":
                break
            await asyncio.sleep(0.01)
        ignored = _ignored_signals(process.pid)
        await process.stop(grace_s=20)
        return ignored, await process.wait()

    ignored, status = _run(scenario)
    assert signal.SIGINT not in ignored, ignored
    assert status == 128 + signal.SIGINT


def test_a_killed_controller_takes_its_tool_and_work_directory_along(tmp_path: Path) -> None:
    workdir = tmp_path / "pairbench.pb.test.XXXX"
    workdir.mkdir()
    (workdir / "fio.0.0").write_bytes(b"x" * 4096)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(RunTag.new()), str(workdir)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        tool_pid, job_pid = (int(x) for x in child.stdout.readline().split())
        assert _alive(tool_pid) and _alive(job_pid)
        deadline = time.monotonic() + 5
        while os.getpgid(job_pid) != job_pid:  # setsid runs just after the fork
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert os.getpgid(job_pid) != tool_pid  # out of reach of a group kill
        os.kill(child.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        child.wait(10)
        while _alive(tool_pid) or _alive(job_pid) or workdir.exists():
            assert time.monotonic() - killed_at < 2.0, "the tool outlived its controller by 2 s"
            time.sleep(0.02)
    finally:
        child.kill()
        child.wait(10)
        if child.stdout:
            child.stdout.close()
