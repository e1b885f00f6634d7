"""engine.workdir_files on this computer (the real transport, the real script): folders made
and files uploaded into a run's work directory, and files brought back from it, bounded (no
link followed, at most so many bytes of a file, so many files, so many bytes in all)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from pairbench.domain.failures import TransportError
from pairbench.engine import workdir_files
from pairbench.engine.workdir_files import (
    MAX_FILE_BYTES,
    collect_files,
    parse_collected,
    prepare_workdir,
)
from pairbench.remote.local import LocalTransport
from pairbench.tools.base import CollectedFile, Commands


def _collect(folder: Path, *patterns: str) -> dict[str, CollectedFile]:
    return asyncio.run(collect_files(LocalTransport(), str(folder), patterns))


def test_files_come_back_whole_exactly_and_links_never(tmp_path: Path) -> None:
    (tmp_path / "a_bw.1.log").write_text("500, 1, 0, 0, 0\n1000, 2, 1, 0, 0\n")
    (tmp_path / "no newline.log").write_text("x\n\ny")  # a blank line, no end of line
    (tmp_path / "empty.log").write_text("")
    (tmp_path / "other.txt").write_text("not asked for")
    secret = tmp_path / "secret"
    secret.write_text("never read")
    (tmp_path / "link.log").symlink_to(secret)
    (tmp_path / "dir.log").mkdir()
    got = _collect(tmp_path, "*.log")
    assert got == {
        "a_bw.1.log": CollectedFile("500, 1, 0, 0, 0\n1000, 2, 1, 0, 0\n", 33, True),
        "no newline.log": CollectedFile("x\n\ny", 4, True),
        "empty.log": CollectedFile("", 0, True),
    }
    assert _collect(tmp_path, "*.none") == {}


def test_a_big_file_comes_back_in_part_and_the_count_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = "1234, 5678, 0, 0, 0\n" * (MAX_FILE_BYTES // 20 + 50)
    (tmp_path / "big.log").write_text(big)
    got = _collect(tmp_path, "*.log")["big.log"]
    assert got.size == len(big) and not got.complete
    assert got.text == big[:MAX_FILE_BYTES]
    for n in range(5):
        (tmp_path / f"f{n}.log").write_text(f"{n}\n")
    monkeypatch.setattr(workdir_files, "MAX_FILES", 3)
    monkeypatch.setattr(workdir_files, "MAX_TOTAL_BYTES", MAX_FILE_BYTES + 2)
    got_all = _collect(tmp_path, "*.log")
    assert sorted(got_all) == ["big.log", "f0.log", "f1.log"]
    assert got_all["f0.log"] == CollectedFile("0\n", 2, True)  # 2 bytes left for it
    assert got_all["f1.log"] == CollectedFile("", 2, False)  # none left


def test_a_missing_work_directory_is_a_transport_error(tmp_path: Path) -> None:
    with pytest.raises(TransportError, match="cannot read the work directory"):
        _collect(tmp_path / "gone", "*.log")


def test_output_cut_inside_a_file_leaves_that_file_out() -> None:
    mark = "==m=="
    text = f"{mark} 3 10 a.log\nabc\n{mark}\n{mark} 9 10 b.log\nab"
    assert parse_collected(text, mark) == {"a.log": CollectedFile("abc", 3, True)}


def test_folders_are_made_before_files_are_uploaded(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    commands = Commands(client=["true"], folders=("tmp", "a/b"), files={"tmp/job.fio": "[a]\n"})
    asyncio.run(prepare_workdir(LocalTransport(), str(workdir), commands))
    assert (workdir / "tmp" / "job.fio").read_text() == "[a]\n"
    assert (workdir / "a" / "b").is_dir()
    assert oct(os.stat(workdir / "tmp" / "job.fio").st_mode & 0o777) == oct(0o600)
