"""Real block devices and mounts for tests (root): a loop device over a file in RAM, made by
``losetup --find`` (never a fixed number) and always detached; a read-only bind mount; a
device mounted for a moment. Each skips without its prerequisite (fails under CI=true)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

from testkit import require


def loop_device(size_mib: int, sector: int = 512) -> Iterator[str]:
    """A fresh loop device of ``size_mib`` MiB (``sector``-byte logical sectors); a
    generator: ``for device in loop_device(64): ...`` or ``yield from`` in a fixture."""
    require(os.geteuid() == 0, "loop devices need root")
    require(shutil.which("losetup") is not None, "losetup is not installed")
    require(os.path.exists("/dev/loop-control"), "this machine has no loop devices")
    folder = Path("/dev/shm") if os.access("/dev/shm", os.W_OK) else Path("/var/tmp")
    backing = folder / f"pairbench-test-{uuid.uuid4().hex[:8]}.img"
    with backing.open("wb") as handle:
        handle.truncate(size_mib * 2**20)
    made = subprocess.run(
        ["losetup", "--sector-size", str(sector), "--find", "--show", str(backing)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    try:
        assert made.returncode == 0, made.stderr
        yield made.stdout.strip()
    finally:
        if made.returncode == 0:
            subprocess.run(["losetup", "-d", made.stdout.strip()], timeout=30, check=False)
        backing.unlink()


@contextlib.contextmanager
def read_only_bind(source: Path, mount_point: Path) -> Iterator[Path]:
    """``source`` bind-mounted read-only at ``mount_point`` (made here), unmounted after."""
    require(os.geteuid() == 0, "a read-only bind mount needs root")
    mount_point.mkdir()
    subprocess.run(["mount", "--bind", str(source), str(mount_point)], check=True, timeout=30)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(mount_point)], check=True, timeout=30)
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=False, timeout=30)


@contextlib.contextmanager
def mounted(device: str, mount_point: Path) -> Iterator[Path]:
    """``device`` mounted at ``mount_point`` (made if missing), unmounted after."""
    mount_point.mkdir(exist_ok=True)
    done = subprocess.run(["mount", device, str(mount_point)], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=False, timeout=60)
