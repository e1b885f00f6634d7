"""A full disk under the library: a 40 MiB ext4 on a loop device (1 KiB blocks, as
``mkfs.ext4`` makes it at that size), made in the test's own folder and always unmounted,
holds the library. A run, an import and a storage suite fill it: each is stored as what it
was and says so in one line; every command afterwards answers (no death by a signal, no
traceback: SQLite's -shm on a full disk once killed them all with SIGBUS), the runs stored
before are intact, and once space is freed the next run works.

Commands meant to meet the full disk run as processes of their own (a SIGBUS must not take
the test with it); what is read while the disk has room is read in-process (``run_cli``)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from faultkit import PAIRBENCH, cli, read_until, wait_for_interval
from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.library.disk import FULL_BELOW
from pairbench.services.library import open_library
from testkit import REPO, require, require_program

HERE = Path(__file__).resolve().parent
CAPTURE = REPO / "tests" / "data" / "captures" / "iperf3" / "v312_tcp_P2_fM.out"
SPARES = 14  # the room tried block by block after the fill: SIGBUS struck at 8 to 10 KiB
SUITE = ["--test", "throughput", "--round-seconds", "1", "--max-rounds", "5", "--threads", "1"]
SUITE += ["--iodepth", "1", "--no-precondition"]

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def _own_host_locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host ``local`` locked in a folder of this test's: tests running at once do not
    find it busy."""
    monkeypatch.setenv("PAIRBENCH_LOCK_DIR", str(tmp_path / "locks"))


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A mounted 40 MiB ext4 of 1 KiB blocks (its mount point); unmounted, its loop device
    detached, whatever the test did."""
    require(os.geteuid() == 0, "mounting a file system needs root")
    require(os.path.exists("/dev/loop-control"), "this machine has no loop devices")
    for program in ("mkfs.ext4", "mount", "umount", "losetup"):
        require_program(program)
    image = tmp_path / "disk.img"
    with image.open("wb") as handle:
        handle.truncate(40 * 2**20)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], check=True, timeout=60)
    mount = tmp_path / "mnt"
    mount.mkdir()
    # barrier=0: a journal commit (each block freed costs one) skips the cache flush to the
    # image; the file system is thrown away after the test.
    options = "loop,barrier=0"
    subprocess.run(["mount", "-o", options, str(image), str(mount)], check=True, timeout=60)
    try:
        assert os.statvfs(mount).f_frsize == 1024  # the size at which -shm pages had holes
        yield mount
    finally:
        _unmount(mount)
        _detach(image)


def _unmount(mount: Path) -> None:
    """Unmount, retrying while a process just ended still holds it (bounded), else lazily."""
    deadline = time.monotonic() + 10
    while subprocess.run(["umount", str(mount)], timeout=60, check=False).returncode != 0:
        if time.monotonic() > deadline:
            subprocess.run(["umount", "-l", str(mount)], timeout=60, check=False)
            return
        time.sleep(0.2)


def _detach(image: Path) -> None:
    """Wait (bounded) for the kernel to release the image's loop device, which an unmount
    does a moment later (``mount -o loop`` sets autoclear); detach it if it is still held."""
    deadline = time.monotonic() + 10
    while True:
        held = subprocess.run(["losetup", "-j", str(image)], capture_output=True, text=True)
        devices = [line.split(":")[0] for line in held.stdout.splitlines()]
        if not devices:
            return
        if time.monotonic() > deadline:
            for device in devices:
                subprocess.run(["losetup", "-d", device], timeout=60, check=False)
            return
        time.sleep(0.1)


def _sync(mount: Path) -> None:
    """Commit the file system's journal: blocks freed by a removal are free only then."""
    folder = os.open(mount, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def _fill(mount: Path, *, leave: int = 0, spares: int = 0) -> list[Path]:
    """Fill the disk with one file, written until the kernel refuses it even to root, but
    for ``spares`` files of one block each (returned: each frees a block when removed); with
    ``leave``, stop while ``leave`` bytes are still free for users other than root."""
    kept = []
    for i in range(spares):
        spare = mount / f"spare-{i}"
        spare.write_bytes(b"s" * 1024)
        kept.append(spare)
    fd = os.open(mount / "fill", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for size in (2**20, 2**16, 4096, 1024):
            block = bytes(size)
            with contextlib.suppress(OSError):
                while not leave or _available(mount) - size >= leave:
                    os.write(fd, block)
        os.fsync(fd)
    finally:
        os.close(fd)
    _sync(mount)
    return kept


def _available(mount: Path) -> int:
    vfs = os.statvfs(mount)
    return vfs.f_bavail * vfs.f_frsize


def _free_space(mount: Path) -> None:
    (mount / "fill").unlink()
    _sync(mount)


def _start(library: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*PAIRBENCH, "--library", str(library), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _ended(proc: subprocess.Popen[str], timeout_s: float = 60) -> tuple[int, str, str]:
    """Wait for a started command: (status, stdout, stderr); killed if it outstays."""
    try:
        out, err = proc.communicate(timeout=timeout_s)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    return proc.returncode, out, err


def _read(library: Path, *args: str) -> Any:
    """A command's JSON output, the command run in this process (the disk has room)."""
    out, err = io.StringIO(), io.StringIO()
    status = run_cli(["--library", str(library), *args], Environment(stdout=out, stderr=err))
    assert status == 0, err.getvalue()
    return json.loads(out.getvalue())


def _answered(status: int, err: str) -> str:
    """The command ended by itself (a death by signal N is a negative status here, or
    128+N from a shell), without a traceback; its stderr."""
    assert 0 <= status < 128, (status, err)
    assert "Traceback" not in err, err
    return err


def _full_line(err: str, mount: Path) -> str:
    """The one line saying the library's disk is full, naming it and its free space."""
    lines = [line for line in err.splitlines() if "the library's disk is full" in line]
    assert len(lines) == 1, err
    line = lines[0]
    assert f": {mount} (ext4 on /dev/loop" in line and " free" in line, line
    assert line.endswith(f"free space on {mount} and try again"), line
    return line


def _completed(line: str) -> bool:
    """A suite's line saying a job's run completed ("    run 3 completed: ...")."""
    return line.lstrip().startswith("run ") and " completed" in line


def _samples(run: dict[str, Any]) -> int:
    return sum(len(series["v"]) for series in run["series"])


def test_a_run_fills_the_disk_then_every_command_answers_and_nothing_is_lost(
    disk: Path,
) -> None:
    require_program("iperf3")
    library = disk / "library.sqlite"
    first = _read(library, "import", "iperf3", str(CAPTURE), "--json")["id"]
    before = {first: _read(library, "runs", "show", str(first), "--json")}

    # The disk fills while a run records: it stops, stored as interrupted with what it kept.
    run = _start(library, *_iperf3("duration=8"))  # ends once the disk is full
    try:
        wait_for_interval(run)
        wait_for_interval(run)  # the first second is committed by now (a commit each 0.2 s)
        _fill(disk)
    finally:
        status, out, err = _ended(run)
    assert status == 4, (out, err)  # RUN_INTERRUPTED
    line = _full_line(_answered(status, err), disk)
    assert line.startswith("pairbench: run ") and " interrupted: " in line, line
    filled, kept = int(line.split()[2]), int(line.split("interrupted with its ")[1].split()[0])

    # Every command answers on the full disk: reading works, storing is refused in one line.
    listed = cli(library, "runs", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert [row["id"] for row in json.loads(listed.stdout)] == [filled, first]
    checked = cli(library, "library", "check")
    assert checked.returncode == 0 and "ok" in checked.stdout, (checked.stdout, checked.stderr)
    _full_line(_answered(checked.returncode, checked.stderr), disk)  # a note, not a problem
    for refused in (
        cli(library, *_iperf3("duration=1")),
        cli(library, "import", "iperf3", str(CAPTURE)),
        cli(library, "hosts", "add", "spare", "--address", "192.0.2.7"),
    ):
        assert refused.returncode == 1, (refused.stdout, refused.stderr)
        _full_line(_answered(refused.returncode, refused.stderr), disk)

    # Room again: every run reads as it was stored, and the next run works.
    _free_space(disk)
    assert {i: _read(library, "runs", "show", str(i), "--json") for i in before} == before
    stored = _read(library, "runs", "show", str(filled), "--json")
    assert stored["status"] == "interrupted" and "disk is full" in stored["error"], stored
    assert _samples(stored) == kept > 0  # its line told what the library holds
    status, out, err = _ended(_start(library, *_iperf3("duration=1", "--json")), 90)
    assert status == 0 and json.loads(out.splitlines()[-1])["status"] == "completed", err
    assert "Traceback" not in err


def test_every_command_answers_at_every_amount_of_room(disk: Path) -> None:
    """SQLite's -shm on a disk of 1 KiB blocks: with a few blocks free, the first command to
    open the library died of SIGBUS (8 to 10 KiB here), with fewer it said "disk I/O error"."""
    library = disk / "library.sqlite"
    _read(library, "import", "iperf3", str(CAPTURE), "--json")
    with open_library(library):  # while a program has it open, no page of -shm is a hole
        shm = os.stat(f"{library}-shm")
        assert shm.st_blocks * 512 >= shm.st_size > 0
    spares = _fill(disk, spares=SPARES)
    sweep = subprocess.run(
        [sys.executable, str(HERE / "full_disk_child.py"), str(library), str(disk)]
        + [str(spare) for spare in spares],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert sweep.returncode == 0, sweep.stderr
    rounds = [line.split() for line in sweep.stdout.splitlines()]
    assert len(rounds) == 2 * (SPARES + 1), sweep.stdout
    assert [r for r in rounds if r[2] != "0"] == [], sweep.stdout  # no signal, no error


def test_commands_answer_while_a_recording_program_holds_the_full_library(disk: Path) -> None:
    """The window's case: a program keeps the library open (its -shm in use, allocated by
    it) while the disk fills; a command reads through that -shm rather than its own."""
    library = disk / "library.sqlite"
    _read(library, "import", "iperf3", str(CAPTURE), "--json")
    holder = subprocess.Popen(
        [sys.executable, str(HERE / "recording_child.py"), str(library)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdin is not None and holder.stdout is not None
        assert holder.stdout.readline().startswith("run ")
        holder.stdin.write("commit\n")
        holder.stdin.flush()
        assert holder.stdout.readline().startswith("committed ")
        _fill(disk)
        listed, checked = cli(library, "runs", "list", "--json"), cli(library, "library", "check")
        for result in (listed, checked):
            assert result.returncode == 0, (result.stdout, result.stderr)
            _answered(result.returncode, result.stderr)
        assert len(json.loads(listed.stdout)) == 2  # the import and the recording run
    finally:
        holder.kill()
        _ended(holder)


def _iperf3(*settings: str) -> list[str]:
    """``run`` of iperf3 on this computer with these settings (``--set``) and options."""
    args = ["run", "--pair", "local", "--tool", "iperf3"]
    for setting in settings:
        args += [setting] if setting.startswith("--") else ["--set", setting]
    return args


def test_an_import_that_fills_the_disk_stores_nothing(disk: Path, tmp_path: Path) -> None:
    ping = require_program("ping")
    library = disk / "library.sqlite"
    _read(library, "import", "iperf3", str(CAPTURE), "--json")
    listed = _read(library, "runs", "list", "--json")
    output = tmp_path / "ping.out"  # a real output, larger than the room left: 3.6 MB
    with output.open("w") as handle:
        command = [ping, "-c", "60000", "-i", "0", "-n", "127.0.0.1"]
        subprocess.run(command, stdout=handle, check=True, timeout=60)
    # 1.5 MiB left for users (2 MiB more for root): storing it would fill the disk.
    _fill(disk, leave=FULL_BELOW + 2**19)
    refused = cli(library, "import", "ping", str(output))
    assert refused.returncode == 1, (refused.stdout, refused.stderr)
    line = _full_line(_answered(refused.returncode, refused.stderr), disk)
    assert "nothing was imported" in line, line
    _free_space(disk)
    assert _read(library, "runs", "list", "--json") == listed  # not even a stub
    assert _read(library, "import", "ping", str(output), "--json")["status"] == "completed"


def test_a_storage_suite_keeps_room_for_the_library_and_meets_a_full_disk(disk: Path) -> None:
    require_program("fio")
    library = disk / "library.sqlite"
    target = disk / "target"
    target.mkdir()
    assert _read(library, "storage", "list", "--json") == []  # the library is made
    suite = ["storage", "run", "--host", "local", *SUITE, "--target", str(target)]

    # A test file that fits the free space but leaves the library no room is refused.
    room = (_available(disk) - 2**20) // 2**20
    refused = cli(library, *suite, "--size", f"{room}MiB")
    assert refused.returncode == 1, (refused.stdout, refused.stderr)
    said = _answered(refused.returncode, refused.stderr)
    assert f"the library {library}, on the same file system, keeps" in said, said
    assert list(target.iterdir()) == []
    assert _read(library, "storage", "list", "--json") == []

    # A suite that fits; the disk fills after its first job: interrupted, resumable.
    running = _start(library, *suite, "--size", "1MiB")
    try:
        read_until(running, _completed, "a job's end", 60)
        _fill(disk)
    finally:
        status, out, err = _ended(running)
    assert status == 4, (out, err)
    assert "the library's disk is full" in _answered(status, err), err
    suite_id = int(out.split("suite ")[1].split(":")[0])

    # Resumed on the full disk: refused in one line; with room, it goes on where it stopped.
    refused = cli(library, "storage", "resume", str(suite_id))
    assert refused.returncode == 1, (refused.stdout, refused.stderr)
    said = _answered(refused.returncode, refused.stderr)
    assert len(said.splitlines()) == 1 and f"the library {library}" in said, said
    _free_space(disk)
    shown = _read(library, "storage", "show", str(suite_id), "--json")
    assert shown["status"] == "interrupted" and "disk is full" in shown["error"], shown
    done = [job for job in shown["jobs"] if job["status"] == "completed"]
    assert done, shown
    resumed = _start(library, "storage", "resume", str(suite_id))
    try:
        read_until(resumed, _completed, "a job's end", 60)
        resumed.send_signal(signal.SIGINT)
    finally:
        status, out, err = _ended(resumed)
    assert status == 130 and "Traceback" not in err, (out, err)  # cancelled, resumable
    again = _read(library, "storage", "show", str(suite_id), "--json")
    assert len([job for job in again["jobs"] if job["status"] == "completed"]) > len(done)
