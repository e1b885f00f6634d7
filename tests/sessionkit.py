"""What a test session keeps to itself (each pytest-xdist worker is a session): its host-lock
folder, its temporary directory and its XDG directories, all in one private directory made at
the start and removed at the end. The lab instance is chosen by ``labkit``, PostgreSQL servers
by ``teamkit`` (a temporary directory and a free port each)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from pairbench.engine.host_lock import LOCK_DIR_ENV

WORKER_ENV = "PYTEST_XDIST_WORKER"
PREFIX = "pairbench-tests-"
# The XDG directories a test might write to by accident (settings, a default library, runtime
# files). XDG_CACHE_HOME stays: the vendor tools are built there once for every session.
XDG = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR")
_made: Path | None = None
_saved: dict[str, str | None] = {}


def is_xdist_controller(config: pytest.Config) -> bool:
    """True in the process that hands tests to xdist workers (it runs none itself)."""
    distributed = getattr(config.option, "dist", "no") != "no" and getattr(config.option, "tx", [])
    return bool(distributed) and not os.environ.get(WORKER_ENV)


def isolate(config: pytest.Config) -> Path | None:
    """Give this session its own folders through the environment (inherited by every program
    a test starts); the private directory, or None in the xdist controller.

    ``PAIRBENCH_LOCK_DIR`` set by hand is kept for a plain session; a worker always gets its
    own (two workers' "This computer" runs are separate machines for the busy-host check).
    """
    global _made
    if is_xdist_controller(config) or _made is not None:
        return None
    _remove_stale()
    root = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-"))
    root.chmod(0o755)  # PostgreSQL runs as `postgres` in a directory made below tmp
    tmp = root / "tmp"
    tmp.mkdir(mode=0o1777)
    tmp.chmod(0o1777)
    # pytest's own tmp_path folders stay where they were (PYTEST_DEBUG_TEMPROOT: its knob).
    values = {
        "PYTEST_DEBUG_TEMPROOT": os.environ.get("PYTEST_DEBUG_TEMPROOT") or tempfile.gettempdir()
    }
    values["TMPDIR"] = str(tmp)
    if os.environ.get(WORKER_ENV) or not os.environ.get(LOCK_DIR_ENV):
        values[LOCK_DIR_ENV] = str(root / "locks")
    for name in XDG:
        values[name] = str(root / name.removeprefix("XDG_").lower())
    for name, value in values.items():
        _saved[name] = os.environ.get(name)
        os.environ[name] = value
        if name in XDG:
            Path(value).mkdir(mode=0o700)
    tempfile.tempdir = None  # tempfile caches the directory it found first
    _made = root
    config.pluginmanager.register(_RemoveAtTheEnd(), "pairbench-session-folders")
    return root


class _RemoveAtTheEnd:
    """Removes the folders once the session's fixtures are torn down (the lab is down, the
    PostgreSQL servers stopped), and before a pytest-xdist worker reports that it finished:
    the controller may end a worker soon after, before its ``pytest_unconfigure``."""

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self) -> None:
        restore()


def _remove_stale() -> None:
    """Remove the private directories of sessions that were killed (their pid is gone)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{PREFIX}*-*"):
        pid = folder.name.removeprefix(PREFIX).split("-", 1)[0]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(folder, ignore_errors=True)


def restore() -> None:
    """Undo ``isolate``: the environment as it was, the private directory removed."""
    global _made
    for name, value in _saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    _saved.clear()
    tempfile.tempdir = None
    if _made is not None:
        shutil.rmtree(_made, ignore_errors=True)
        _made = None
