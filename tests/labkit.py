"""The network lab as a session fixture (for tests/integration and tests/faults): brought up
through the real CLI, always taken down.

Which lab: the default one (``pbl-…``) for a plain ``pytest`` run, as a user's ``lab up``; under
pytest-xdist each worker takes a lab instance of its own (``PAIRBENCH_LAB_INSTANCE``, see
``pairbench.lab.instance``: its own namespaces, addresses, state directories and lock), the
first free one starting from its worker number, and puts it in ``os.environ`` for as long as it
holds it, so every ``pairbench`` it starts and every in-process lab call manage that lab.
``PAIRBENCH_LAB_INSTANCE`` set by hand picks the instance for every worker of the session.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pairbench.lab import LabError
from pairbench.lab.instance import ENV as INSTANCE_ENV
from pairbench.lab.instance import MAX_INSTANCE, LabInstance, current
from pairbench.lab.state import exclusive
from pairbench.lab.topology import single
from testkit import require

PAIRBENCH = [sys.executable, "-m", "pairbench"]
SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
SESSION_WAIT_S = 900.0
TESTS_LOCK = "pairbench-lab-tests"  # the default lab's; instance K: pairbench-lab-tests.iK
WORKER_ENV = "PYTEST_XDIST_WORKER"  # gw0, gw1 … in a pytest-xdist worker
_tests_lock_depth = 0
_tests_lock_held = contextlib.ExitStack()


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

    def namespace(self, role: str) -> str:
        """The network namespace of the ``client`` or ``server`` host (``pbl-server`` …)."""
        return str(self.info[role]["namespace"])

    def address(self, role: str) -> str:
        """The data-link address of the ``client`` or ``server`` host (``10.213.0.2`` …)."""
        return str(self.info[role]["data_address"])

    @property
    def instance(self) -> LabInstance:
        """The lab instance this lab is (its name prefix, networks, state directories)."""
        return current()

    def root_link(self, role: str) -> str:
        """The root-namespace end of a host's management link (``pbl-s0`` …)."""
        return f"{self.instance.prefix}{role[0]}0"


def lab_pids() -> set[int]:
    """The processes living in the (current instance's) single lab's client and server
    namespaces: what runs on the lab's hosts, and nothing of another lab or test worker."""
    found: set[int] = set()
    for namespace in single().namespaces[:2]:
        out = subprocess.run(
            ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False
        ).stdout
        found.update(int(token) for token in out.split() if token.isdigit())
    return found


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


def tests_lock_name(number: int) -> str:
    """The lock a test session holds while it uses lab instance ``number``."""
    return TESTS_LOCK if number == 0 else f"{TESTS_LOCK}.i{number}"


def candidate_instances(environ: dict[str, str] | None = None) -> list[int]:
    """The lab instances this session may use, in order of preference: the one
    ``PAIRBENCH_LAB_INSTANCE`` names; else in a pytest-xdist worker every instance, its own
    first (gw0: 1, gw1: 2 …; another session's workers then take the next free ones); else the
    default lab (0)."""
    env = dict(os.environ) if environ is None else environ
    if env.get(INSTANCE_ENV, "").strip():
        return [current(env).number]
    worker = env.get(WORKER_ENV, "").removeprefix("gw")
    if not worker:
        return [0]
    own = int(worker) % MAX_INSTANCE + 1 if worker.isdigit() else 1
    return [own, *(n for n in range(1, MAX_INSTANCE + 1) if n != own)]


def _take_instance(stack: contextlib.ExitStack, candidates: list[int], wait_s: float) -> int:
    """Hold (in ``stack``) the tests' lock of the first free instance among ``candidates``,
    waiting (bounded) while all are held; its number."""
    if len(candidates) == 1:
        stack.enter_context(exclusive(tests_lock_name(candidates[0]), timeout_s=wait_s))
        return candidates[0]
    deadline = time.monotonic() + wait_s
    while True:
        for number in candidates:
            try:
                stack.enter_context(exclusive(tests_lock_name(number), timeout_s=0))
            except LabError:
                continue
            return number
        if time.monotonic() > deadline:
            raise LabError(f"all {len(candidates)} lab instances are in use")
        time.sleep(0.5)


@contextlib.contextmanager
def tests_lock() -> Iterator[None]:
    """Hold a lab for this test session: another session waits (bounded) for it, or under
    pytest-xdist takes another instance; in this process it nests (the session's ``lab`` and a
    module's ``lab_pairs``, in either order), the lock and the instance in ``os.environ`` held
    until the last holder is done."""
    global _tests_lock_depth, _tests_lock_held
    if _tests_lock_depth == 0:
        try:
            candidates = candidate_instances()
        except LabError as exc:
            pytest.fail(str(exc), pytrace=False)
        held = contextlib.ExitStack()
        try:
            number = _take_instance(held, candidates, SESSION_WAIT_S)
        except LabError as exc:
            pytest.fail(f"another test session kept the lab for {SESSION_WAIT_S:g} s: {exc}")
        held.enter_context(_instance_in_environment(number))
        _tests_lock_held = held
    _tests_lock_depth += 1
    try:
        yield
    finally:
        _tests_lock_depth -= 1
        if _tests_lock_depth == 0:
            _tests_lock_held.close()


@contextlib.contextmanager
def _instance_in_environment(number: int) -> Iterator[None]:
    """``PAIRBENCH_LAB_INSTANCE`` set to ``number`` (unset for the default lab), then restored."""
    before = os.environ.get(INSTANCE_ENV)
    if number:
        os.environ[INSTANCE_ENV] = str(number)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(INSTANCE_ENV, None)
        else:
            os.environ[INSTANCE_ENV] = before


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
