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
from collections.abc import Callable, Iterator, Sequence
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
TESTS_LOCK = "pairbench-lab-tests"
_tests_lock_depth = 0


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
        stack.enter_context(tests_lock())
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


@contextlib.contextmanager
def tests_lock() -> Iterator[None]:
    """Hold the lab for this test session: another session waits (bounded) for it; in this
    process it nests (the session's ``lab`` and a ``lab_pairs`` inside it)."""
    global _tests_lock_depth
    with contextlib.ExitStack() as stack:
        if _tests_lock_depth == 0:
            try:
                stack.enter_context(exclusive(TESTS_LOCK, timeout_s=SESSION_WAIT_S))
            except LabError as exc:
                pytest.fail(f"another test session kept the lab for {SESSION_WAIT_S:g} s: {exc}")
        _tests_lock_depth += 1
        try:
            yield
        finally:
            _tests_lock_depth -= 1


@dataclass
class PairsLab:
    """A running multi-pair lab: its library and, per pair, what ``lab up --pairs N --json``
    said (``pair``, ``client``, ``server``, ``data_address``, ``shaping``, ``tags`` …)."""

    library: Path
    pairs: list[dict[str, Any]] = field(default_factory=list)

    def cli(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        """Run ``pairbench --library LIBRARY ARGS`` to completion (never raises on failure)."""
        return LabHandle(self.library).cli(*args, timeout=timeout)

    @property
    def names(self) -> list[str]:
        """The pair names, ``lab1`` … ``labN``."""
        return [pair["pair"] for pair in self.pairs]


@contextlib.contextmanager
def lab_pairs(
    count: int,
    library: Path,
    rates: Sequence[str] = (),
    delays: Sequence[str] = (),
    options: Sequence[str] = (),
) -> Iterator[PairsLab]:
    """The multi-pair lab ``lab1`` … ``lab{count}`` registered in ``library``, pair K shaped by
    ``rates[K-1]`` and ``delays[K-1]`` (each empty: unshaped, one value: all pairs) plus
    ``options`` (e.g. ``["--loss", "1%"]``); taken down (``lab down --pairs``: a single lab of the
    session stays) whatever happens. Skips without root, fails under CI=true.

    Use it in a fixture::

        @pytest.fixture(scope="module")
        def three_pairs(tmp_path_factory):
            library = tmp_path_factory.mktemp("pairs") / "library.sqlite"
            rates, delays = ["50mbit", "100mbit", "200mbit"], ["1ms", "5ms", "10ms"]
            with lab_pairs(3, library, rates, delays) as lab:
                yield lab
    """
    lab_prerequisites()
    argv = ["lab", "up", "--pairs", str(count), "--json", *options]
    if rates:
        argv += ["--rate", ",".join(rates)]
    if delays:
        argv += ["--delay", ",".join(delays)]
    handle = PairsLab(library)
    with tests_lock():
        try:
            result = handle.cli(*argv, timeout=120)
            assert result.returncode == 0, result.stderr
            handle.pairs = json.loads(result.stdout)["pairs"]
            yield handle
        finally:
            down = handle.cli("lab", "down", "--pairs")
            assert down.returncode == 0, down.stderr
