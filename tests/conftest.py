"""Shared fixtures; under CI=true a skipped test fails the session (nothing may be skipped)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

import sessionkit
from labkit import lab, shaped
from pairbench.library import Library
from teamkit import team_passwords, team_server
from testkit import FIXTURES, IN_CI, REPO, require, require_program

# ``lab``, ``shaped``, ``team_server`` and ``team_passwords`` are fixtures: registered here,
# once, for every folder.
__all__ = [
    "FIXTURES",
    "IN_CI",
    "REPO",
    "lab",
    "require",
    "require_program",
    "shaped",
    "team_passwords",
    "team_server",
]

# Qt tests draw offscreen unless a display was chosen explicitly.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_configure(config: pytest.Config) -> None:
    """This session's own host-lock folder, temporary and XDG directories (``sessionkit``).

    Ctrl-C handled as usual even when the suite was started with SIGINT ignored (a script's
    background job: POSIX shells start those so), so that the programs the tests start and
    interrupt get SIGINT as they would from a terminal or a CI runner. The programs' own
    answer to an inherited "ignored" is tested on purpose (tests/unit/test_cli_signals.py,
    the lab's cancelled tool build)."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    sessionkit.isolate(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The environment as it was; the session's private directory removed (done at the end
    of the session already, unless it ended early)."""
    sessionkit.restore()


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
