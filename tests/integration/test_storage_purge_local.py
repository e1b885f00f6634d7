"""The storage suite's purge on real block devices of this computer, as CloudHarmony's
(ATA secure erase left out, as theirs without a password): ``blkdiscard``, else a zero fill
of the active range; a device neither works on is refused before anything is stored, unless
``--no-purge``. Loop devices that each test makes and removes, over a file in RAM: on tmpfs
(it punches holes: the device discards), on ramfs (it cannot: no discard), read-only (no
discard, no writes). A purge later in a suite (before the 128 KiB stage) checks the device
first as fio's runs do: a device mounted since is left alone."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from blockkit import mounted
from pairbench.domain.failures import RunError, TargetChangedError
from pairbench.domain.storage import StorageTest, SuiteParams
from pairbench.engine.storage_target import purge_device
from pairbench.remote.local import LocalTransport
from pairbench.services.storage_purge import purger
from testkit import require, require_program

SIZE = 16 * 2**20
PATTERN = b"\xab" * 4096


def _run(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (argv, done.stderr)
    return done.stdout.strip()


@contextmanager
def _loop(backing: Path, *, read_only: bool = False) -> Iterator[str]:
    """A 16 MiB loop device over ``backing``, filled with the pattern first."""
    require(os.geteuid() == 0, "purging a block device needs root")
    require_program("losetup")
    require(os.path.exists("/dev/loop-control"), "this machine has no loop devices")
    with backing.open("wb") as handle:
        for _ in range(SIZE // len(PATTERN)):
            handle.write(PATTERN)
    mode = ["--read-only"] if read_only else []
    device = _run("losetup", *mode, "--find", "--show", str(backing))
    try:
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], timeout=30, check=False)
        backing.unlink()


@contextmanager
def _ramfs(where: Path) -> Iterator[Path]:
    """A ramfs mounted at ``where`` (its files cannot punch holes)."""
    require(os.geteuid() == 0, "mounting ramfs needs root")
    where.mkdir()
    _run("mount", "-t", "ramfs", "ramfs", str(where))
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], timeout=60, check=False)


@pytest.fixture
def discarding_device() -> Iterator[str]:
    """A loop device over a file on tmpfs (/dev/shm): it discards."""
    folder = Path("/dev/shm") if os.access("/dev/shm", os.W_OK) else Path("/var/tmp")
    with _loop(folder / f"pairbench-purge-{uuid.uuid4().hex[:8]}.img") as device:
        yield device


def _read(device: str) -> bytes:
    with open(device, "rb") as handle:
        return handle.read()


def test_blkdiscard_purges_a_device_that_discards(discarding_device: str) -> None:
    assert _read(discarding_device)[:4096] == PATTERN
    note = asyncio.run(purge_device(LocalTransport(), discarding_device, SIZE))
    assert note == "purged with blkdiscard"
    assert _read(discarding_device) == bytes(SIZE)  # its discard punched holes: zeros


def test_a_device_without_discard_is_purged_with_a_zero_fill(tmp_path: Path) -> None:
    with _ramfs(tmp_path / "ramfs") as folder, _loop(folder / "device.img") as device:
        active = SIZE // 2
        note = asyncio.run(purge_device(LocalTransport(), device, active))
        assert note.startswith(f"purged with a zero fill of {active} bytes (blkdiscard said:")
        data = _read(device)
        assert data[:active] == bytes(active)  # the active range zeroed
        assert data[active : active + len(PATTERN)] == PATTERN  # nothing past it touched


def test_a_device_nothing_purges_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    # Read-only: neither blkdiscard nor a zero fill can purge it.
    with _ramfs(tmp_path / "ramfs") as folder, _loop(folder / "d.img", read_only=True) as device:
        with pytest.raises(RunError, match="could not be purged") as caught:
            asyncio.run(purge_device(LocalTransport(), device, SIZE))
        said = str(caught.value)
        assert "blkdiscard:" in said and "zero fill:" in said and "--no-purge" in said
        # The suite refuses it before storing anything, in one line.
        env = dict(os.environ, PAIRBENCH_LIBRARY=str(tmp_path / "library.sqlite"))
        base = [sys.executable, "-m", "pairbench", "storage"]
        run = [*base, "run", "--host", "local", "--test", "throughput", "--target", device]
        run += ["--confirm", device, "--round-seconds", "1"]
        refused = subprocess.run(run, env=env, capture_output=True, text=True, timeout=300)
        assert refused.returncode == 1, (refused.stdout, refused.stderr)
        assert "could not be purged" in refused.stderr, refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1  # one line, no traceback
        listed = subprocess.run([*base, "list", "--json"], env=env, capture_output=True, text=True)
        assert json.loads(listed.stdout) == []
        assert _read(device) == PATTERN * (SIZE // len(PATTERN))  # nothing written


def _blkid(device: str) -> str:
    probe = subprocess.run(
        ["blkid", "-p", "-o", "value", "-s", "TYPE", device],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return probe.stdout.strip()


def test_a_later_purge_leaves_a_device_mounted_since_alone(
    discarding_device: str, tmp_path: Path
) -> None:
    require_program("mkfs.ext4")
    params = SuiteParams(StorageTest.THROUGHPUT, discarding_device, size=SIZE, prep_each_stage=True)
    purge = purger(LocalTransport(), params, "")
    _run("mkfs.ext4", "-q", "-F", discarding_device)  # someone made a file system and mounted it
    with mounted(discarding_device, tmp_path / "mnt") as mount_point:
        (mount_point / "theirs.txt").write_text("their data")
        with pytest.raises(TargetChangedError, match=f"in use \\(mounted on {mount_point}\\)"):
            asyncio.run(purge())
        assert (mount_point / "theirs.txt").read_text() == "their data"
    assert _blkid(discarding_device) == "ext4"  # neither discarded nor zero-filled
    # Unmounted again, the same purge goes ahead.
    assert asyncio.run(purge()) == "purged with blkdiscard"
    assert _read(discarding_device) == bytes(SIZE)
