"""Test helpers importable from any test: paths, and skip-or-fail checks for prerequisites."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# Real tool captures, copied into the repository (tests/data/fixtures/README.md says from where).
FIXTURES = REPO / "tests" / "data" / "fixtures"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def require(condition: bool, reason: str) -> None:
    """Skip when ``condition`` is false; under CI=true fail instead, with the reason."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"cannot run under CI: {reason}", pytrace=False)
    pytest.skip(reason)


def require_program(name: str) -> str:
    """The path of an installed program, or skip/fail with the install hint."""
    path = shutil.which(name)
    require(path is not None, f"{name} is not installed (make test installs it as root)")
    assert path is not None
    return path
