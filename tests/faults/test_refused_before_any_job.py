"""Requests refused before any job store nothing (``--host local``): a directory target on a
read-only mount is refused up front as such (not a ``failed`` suite with fio's ``err=30``
and a resume that can never succeed, nor "no O_DIRECT"), as is fio's ``directory=`` there;
a host busy with another run refuses a suite and a resume, and the stopped suite stays as
it was."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from blockkit import read_only_bind
from busy_host import local_run_holding
from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain.storage import StorageTest, SuiteParams
from pairbench.library import Library
from pairbench.library.suites import create_suite, finish_suite, get_suite

SUITE = [
    "storage", "run", "--host", "local", "--test", "throughput", "--size", "2MiB",
    "--round-seconds", "1", "--max-rounds", "5", "--precondition-passes", "1",
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


def _one_clear_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pairbench: "), lines
    return lines[0]


def test_a_read_only_directory_is_refused_as_such_and_nothing_is_stored(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    library = tmp_path / "library.sqlite"
    with read_only_bind(source, tmp_path / "ro") as ro:
        said = _one_clear_line(_cli(library, *SUITE, "--target", str(ro)))
        assert f"{ro} is on a read-only file system" in said and "Remount it read-write" in said
        assert "resume" not in said and "O_DIRECT" not in said
        said = _one_clear_line(
            _cli(library, "run", "--pair", "local", "--tool", "fio", "--set", f"directory={ro}")
        )
        assert "read-only file system" in said
    assert _json(library, "storage", "list", "--json") == []
    assert _json(library, "runs", "list", "--json") == []
    assert list(source.iterdir()) == []


def _stopped_suite(library: Path, target: Path) -> int:
    with Library.open(library) as lib:
        params = SuiteParams(StorageTest.THROUGHPUT, str(target), 2**21, round_seconds=1)
        suite_id = create_suite(lib, "storage", "local", params.to_json())
        finish_suite(lib, suite_id, "cancelled", error="cancelled by the user")
        return suite_id


@pytest.mark.timeout(120)
def test_a_busy_host_refuses_a_suite_and_a_resume_and_stores_nothing(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    library = tmp_path / "library.sqlite"
    stopped = _stopped_suite(library, target)
    before = _json(library, "storage", "list", "--json")
    with local_run_holding(tmp_path):
        said = _one_clear_line(_cli(library, *SUITE, "--target", str(target)))
        assert "busy" in said and "ping on pair local" in said, said
        said = _one_clear_line(_cli(library, "storage", "resume", str(stopped)))
        assert "busy" in said, said
    assert _json(library, "storage", "list", "--json") == before  # no new suite, none changed
    with Library.open(library) as lib:
        assert get_suite(lib, stopped).status == "cancelled"
    assert _json(library, "runs", "list", "--json") == []
    assert list(target.iterdir()) == []
