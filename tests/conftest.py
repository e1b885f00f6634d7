"""Shared fixtures; under CI=true a skipped test fails the session (nothing may be skipped)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from labkit import lab, shaped
from pairbench.library import Library
from testkit import FIXTURES, IN_CI, REPO, require, require_program

# ``lab`` and ``shaped`` are fixtures: registered here, once, for every test folder.
__all__ = ["FIXTURES", "IN_CI", "REPO", "lab", "require", "require_program", "shaped"]

# Qt tests draw offscreen unless a display was chosen explicitly.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# Under pytest-xdist (`make test` runs tests/unit and tests/ui on both cores), each worker
# keeps its own host locks: two workers' runs on this computer are separate "machines" for
# the busy-host check (their tools use free ports and private work directories), while a
# test and the processes it starts share its worker's locks. Lab tests never run this way.
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ["PAIRBENCH_LOCK_DIR"] = f"/tmp/pairbench-test-locks-{os.getpid()}"


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove this worker's lock folder (its lock files are released by then)."""
    folder = os.environ.get("PAIRBENCH_LOCK_DIR", "")
    if os.environ.get("PYTEST_XDIST_WORKER") and folder.startswith("/tmp/pairbench-test-locks-"):
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def library_path(tmp_path: Path) -> Path:
    """A path for a fresh library file."""
    return tmp_path / "library.sqlite"


@pytest.fixture
def library(library_path: Path) -> Iterator[Library]:
    """A fresh, open library."""
    lib = Library.open(library_path)
    try:
        yield lib
    finally:
        lib.close()


@pytest.fixture
def fixtures_dir() -> Path:
    """``tests/data/fixtures`` (real tool outputs, copied from the team's shared captures)."""
    require(FIXTURES.is_dir(), f"fixtures not found at {FIXTURES}")
    return FIXTURES


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Under CI a skip is a failure: nothing may be silently left out."""
    if not IN_CI:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter else 0
    if skipped and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if reporter:
            reporter.write_line(f"CI=true: {skipped} skipped test(s) count as failures")
