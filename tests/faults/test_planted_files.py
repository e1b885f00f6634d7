"""Planted files on this computer (``--host local``, ``--pair local``), with real fio: a link
planted where the storage suite used to put its test file is never written through (the
suite writes in a private directory of its own) and stays as it was; a target others may
write without the sticky bit is refused; ``run --tool fio --set file=EXISTING`` needs the
file confirmed, never follows a link, and reading a big enough file needs nothing."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from testkit import require_program

PAIRBENCH = [sys.executable, "-m", "pairbench"]
# Bytes nobody gave the suite: a pattern longer than the suite's 2 MiB test file.
VICTIM = bytes(range(256)) * (3 * 2**20 // 256)
SUITE = [
    "storage", "run", "--host", "local", "--test", "throughput", "--size", "2MiB",
    "--round-seconds", "1", "--max-rounds", "5", "--precondition-passes", "1",
    "--threads", "1", "--iodepth", "4",
]  # fmt: skip


def _cli(library: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pairbench --library LIBRARY ARGS`` run in this process (as a user would type it)."""
    out, err = io.StringIO(), io.StringIO()
    status = run_cli(["--library", str(library), *args], Environment(stdout=out, stderr=err))
    return subprocess.CompletedProcess(args, status, out.getvalue(), err.getvalue())


def _json(library: Path, *args: str) -> Any:
    done = _cli(library, *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim.bin"
    victim.write_bytes(VICTIM)
    return victim


@pytest.mark.timeout(180)
def test_a_link_planted_at_the_suites_file_name_is_never_written(tmp_path: Path) -> None:
    require_program("fio")
    shared = tmp_path / "shared"  # like /tmp: everyone may write, with the sticky bit
    shared.mkdir()
    shared.chmod(0o1777)
    victim = _victim(tmp_path)
    library = tmp_path / "library.sqlite"
    planted = shared / "pairbench-suite-1.dat"  # the name earlier versions used for suite 1
    planted.symlink_to(victim)
    proc = subprocess.Popen(
        [*PAIRBENCH, "--library", str(library), *SUITE, "--target", str(shared)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    seen: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # until the preconditioning pass and a job ended
            line = proc.stdout.readline()
            if not line:
                break
            seen.append(line.rstrip())
            if line.startswith("[3/"):
                break
        assert seen and seen[-1].startswith("[3/"), (seen, proc.stderr and proc.stderr.read())
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert victim.read_bytes() == VICTIM  # not a byte of it written
    assert planted.is_symlink() and os.readlink(planted) == str(victim)
    (suite,) = _json(library, "storage", "list", "--json")
    assert suite["status"] == "cancelled"
    facts = _json(library, "storage", "show", str(suite["id"]), "--json")["facts"]
    test_dir = Path(facts["test_dir"])
    assert test_dir.parent == shared and test_dir.name.startswith("pairbench-suite.")
    assert sorted(p.name for p in shared.iterdir()) == sorted([planted.name, test_dir.name])
    info = os.lstat(test_dir)
    assert stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == os.getuid()
    test_file = test_dir / "test.dat"  # the suite's data went here, kept for a resume
    assert stat.S_ISREG(os.lstat(test_file).st_mode) and test_file.stat().st_size == 2 * 2**20


def test_a_target_others_may_write_without_the_sticky_bit_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "open"
    target.mkdir()
    target.chmod(0o777)
    library = tmp_path / "library.sqlite"
    done = _cli(library, *SUITE, "--target", str(target))
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "without the sticky bit" in done.stderr and f"chmod +t {target}" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert list(target.iterdir()) == []  # not even the O_DIRECT probe
    assert _json(library, "storage", "list", "--json") == []


def _fio(library: Path, *settings: str) -> subprocess.CompletedProcess[str]:
    args = ["run", "--pair", "local", "--tool", "fio", "--set", "runtime=1", "--set", "bs=64k"]
    for setting in settings:
        args += ["--set", setting]
    return _cli(library, *args, "--json")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.timeout(180)
def test_fio_on_an_existing_file_needs_it_confirmed_and_never_follows_a_link(
    tmp_path: Path,
) -> None:
    require_program("fio")
    library = tmp_path / "library.sqlite"
    existing = _victim(tmp_path)
    for rw in ("write", "randrw"):
        refused = _fio(library, f"rw={rw}", f"file={existing}", "size=1M")
        assert refused.returncode == 1, (refused.stdout, refused.stderr)
        assert (
            f"--set confirm_destroy={existing}" in refused.stderr and "DESTROYED" in refused.stderr
        )
    link = tmp_path / "link.bin"
    link.symlink_to(existing)
    refused = _fio(library, "rw=write", f"file={link}", "size=1M", f"confirm_destroy={link}")
    assert refused.returncode == 1 and "symbolic link" in refused.stderr, refused.stderr
    small = tmp_path / "small.bin"
    small.write_bytes(VICTIM[:4096])
    refused = _fio(library, "rw=read", f"file={small}", "size=1M")  # fio would lay it out
    assert refused.returncode == 1 and "less than size" in refused.stderr, refused.stderr
    assert existing.read_bytes() == VICTIM and small.read_bytes() == VICTIM[:4096]
    assert link.is_symlink()
    assert _json(library, "runs", "list", "--json") == []  # refused before anything was stored
    # Reading within a file big enough writes nothing, and needs nothing confirmed.
    read = _fio(library, "rw=randread", f"file={existing}", "size=1M")
    assert read.returncode == 0, read.stderr
    assert existing.read_bytes() == VICTIM
    # Confirmed, the file is the user's to overwrite.
    before = _digest(existing)
    written = _fio(
        library, "rw=write", f"file={existing}", "size=1M", f"confirm_destroy={existing}"
    )
    assert written.returncode == 0, written.stderr
    assert json.loads(written.stdout.splitlines()[-1])["status"] == "completed"
    assert _digest(existing) != before


@pytest.mark.timeout(120)
def test_fio_with_a_directory_writes_only_in_a_work_directory_of_its_own(tmp_path: Path) -> None:
    """fio's ``directory=`` gets a new ``mktemp -d`` work directory inside it (0700), so a
    link planted at fio's own file name there is never followed; the work directory goes
    after the run."""
    require_program("fio")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    victim = _victim(tmp_path)
    planted = shared / "pairbench.0.0"  # fio's name for job "pairbench", its first file
    planted.symlink_to(victim)
    library = tmp_path / "library.sqlite"
    done = _fio(library, "rw=write", f"directory={shared}", "size=1M")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["status"] == "completed"
    assert victim.read_bytes() == VICTIM
    assert [p.name for p in shared.iterdir()] == [planted.name] and planted.is_symlink()
