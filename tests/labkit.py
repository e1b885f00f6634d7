"""The network lab as a session fixture (for tests/integration and tests/faults): brought up
through the real CLI, always taken down."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pairbench.lab import LabError
from pairbench.lab.state import exclusive
from testkit import require

PAIRBENCH = [sys.executable, "-m", "pairbench"]
SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
SESSION_WAIT_S = 900.0


@dataclass
class LabHandle:
    """A running lab: the library it registered in and what ``lab status --json`` said."""

    library: Path
    info: dict[str, Any] = field(default_factory=dict)

    def cli(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """Run ``pairbench --library LIBRARY ARGS`` to completion (never raises on failure)."""
        return subprocess.run(
            [*PAIRBENCH, "--library", str(self.library), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def status(self) -> dict[str, Any]:
        """``lab status --json``."""
        result = self.cli("lab", "status", "--json")
        assert result.stdout, result.stderr
        status: dict[str, Any] = json.loads(result.stdout)
        return status

    def refresh(self) -> None:
        """Re-read the lab's details (after it was rebuilt with new keys)."""
        self.info = self.status()["info"]

    def up(self, *options: str) -> None:
        """``lab up`` (must succeed), then refresh."""
        result = self.cli("lab", "up", *options)
        assert result.returncode == 0, result.stderr
        self.refresh()

    def restart(self) -> None:
        """``lab up`` again: repairs a broken lab (keys kept), unshaped."""
        self.up()

    def shape(self, *options: str) -> dict[str, Any]:
        """``lab shape OPTIONS`` (no options: unshaped); see ``shape``."""
        return shape(self, *options)


def lab_prerequisites() -> None:
    """Skip (fail under CI) unless this machine can run the lab."""
    require(os.geteuid() == 0, "the network lab needs root")
    for program in ("ip", "tc", "sysctl", "ssh", "ssh-keygen"):
        require(shutil.which(program) is not None, f"{program} is not installed")
    require(os.access(SSHD, os.X_OK), "sshd is not installed (apt-get install openssh-server)")
    probe = subprocess.run(["ip", "netns", "list"], capture_output=True, check=False)
    require(probe.returncode == 0, "`ip netns` does not work here")


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabHandle]:
    """The lab, up and unshaped, for the session; ``lab down`` at the end whatever happens.

    There is one lab per machine: a second test session waits (bounded) for the first.
    """
    lab_prerequisites()
    handle = LabHandle(tmp_path_factory.mktemp("lab") / "library.sqlite")
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(exclusive("pairbench-lab-tests", timeout_s=SESSION_WAIT_S))
        except LabError as exc:
            pytest.fail(f"another test session kept the lab for {SESSION_WAIT_S:g} s: {exc}")
        try:
            handle.up()
            yield handle
        finally:
            result = handle.cli("lab", "down")
            assert result.returncode == 0, result.stderr


def shape(lab: LabHandle, *options: str) -> dict[str, Any]:
    """``lab shape OPTIONS`` (must succeed); the lab's details as it prints them."""
    result = lab.cli("lab", "shape", *options, "--json")
    assert result.returncode == 0, result.stderr
    info: dict[str, Any] = json.loads(result.stdout)
    return info


Shaper = Callable[..., dict[str, Any]]


@pytest.fixture
def shaped(lab: LabHandle) -> Iterator[Shaper]:
    """``shape`` bound to the lab for one test, which starts and ends unshaped."""
    shape(lab)
    yield functools.partial(shape, lab)
    shape(lab)
