"""A directory suite's own files on this computer, for real (``LocalTransport``): its private
directory made new and 0700, checked before fio touches it again, removed exactly; and every
file Pairbench writes on a host made exclusively, never through a planted link."""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

from pairbench.domain.failures import RunError, TransportError
from pairbench.engine import storage_files as files
from pairbench.remote.local import LocalTransport

T = TypeVar("T")
VICTIM = b"somebody else's data\n"


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "elsewhere" / "victim"
    victim.parent.mkdir()
    victim.write_bytes(VICTIM)
    return victim


def test_the_suite_directory_is_new_private_and_named_by_the_template(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    made = _run(files.make_test_dir(LocalTransport(), str(target)))
    again = _run(files.make_test_dir(LocalTransport(), str(target)))
    assert made != again and files.is_test_dir_of(str(target), made)
    info = os.lstat(made)
    assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o700
    assert info.st_uid == os.getuid()
    assert files.test_file_in(made) == f"{made}/test.dat"
    assert _run(files.check_test_dir(LocalTransport(), str(target), made)) is True
    assert not files.is_test_dir_of(str(target), f"{target}/pairbench-suite-1.dat")
    assert not files.is_test_dir_of(str(target), f"{tmp_path}/pairbench-suite.abcdefgh")


def test_a_directory_swapped_for_a_link_is_refused_and_left_alone(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    victim = _victim(tmp_path)
    made = Path(_run(files.make_test_dir(LocalTransport(), str(target))))
    made.rmdir()
    made.symlink_to(victim.parent)  # planted where the suite's directory was
    (victim.parent / "test.dat").write_bytes(VICTIM)
    with pytest.raises(RunError, match="is now a symbolic link"):
        _run(files.check_test_dir(LocalTransport(), str(target), str(made)))
    note = _run(files.remove_test_dir(LocalTransport(), str(target), str(made)))
    assert note.startswith("left as it is") and "symbolic link" in note
    assert (victim.parent / "test.dat").read_bytes() == VICTIM  # not removed through it
    assert made.is_symlink() and victim.read_bytes() == VICTIM


@pytest.mark.parametrize("change", ["file link", "mode", "fifo"])
def test_a_changed_directory_or_test_file_is_refused(tmp_path: Path, change: str) -> None:
    target = tmp_path / "target"
    target.mkdir()
    victim = _victim(tmp_path)
    made = Path(_run(files.make_test_dir(LocalTransport(), str(target))))
    test_file = made / "test.dat"
    if change == "file link":
        test_file.symlink_to(victim)
        said = "test.dat is a symbolic link"
    elif change == "mode":
        made.chmod(0o777)
        said = "has mode 777, not 700"
    else:
        os.mkfifo(test_file)
        said = "not a regular file"
    with pytest.raises(RunError, match=said):
        _run(files.check_test_dir(LocalTransport(), str(target), str(made)))
    assert victim.read_bytes() == VICTIM


def test_removal_takes_exactly_what_the_suite_made(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    (target / "yours.txt").write_text("kept")
    made = Path(_run(files.make_test_dir(LocalTransport(), str(target))))
    (made / "test.dat").write_bytes(b"\0" * 4096)
    note = _run(files.remove_test_dir(LocalTransport(), str(target), str(made)))
    assert note.endswith("and its directory removed") and not made.exists()
    assert [p.name for p in target.iterdir()] == ["yours.txt"]
    # Something else put in the suite's directory: the test file goes, the rest stays.
    made = Path(_run(files.make_test_dir(LocalTransport(), str(target))))
    (made / "test.dat").write_bytes(b"\0")
    (made / "other").write_text("not the suite's")
    note = _run(files.remove_test_dir(LocalTransport(), str(target), str(made)))
    assert note.startswith("could not remove") and (made / "other").read_text()
    assert not (made / "test.dat").exists()


def test_a_resume_makes_a_new_directory_when_the_recorded_one_is_gone(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    made = _run(files.make_test_dir(LocalTransport(), str(target)))
    assert _run(files.reopen_test_dir(LocalTransport(), str(target), made)) == (made, "")
    Path(made).rmdir()
    again, note = _run(files.reopen_test_dir(LocalTransport(), str(target), made))
    assert again != made and Path(again).is_dir() and f"{made} was gone" in note
    legacy, note = _run(files.reopen_test_dir(LocalTransport(), str(target), ""))
    assert Path(legacy).is_dir() and "no directory was recorded" in note


def test_a_file_written_on_a_host_is_new_and_never_written_through_a_link(
    tmp_path: Path,
) -> None:
    victim = _victim(tmp_path)
    planted = tmp_path / "job.fio"
    planted.symlink_to(victim)
    with pytest.raises(TransportError, match="cannot write"):
        _run(LocalTransport().write_file(str(planted), "[job]\nrw=write\n"))
    dangling = tmp_path / "profile.xml"
    dangling.symlink_to(tmp_path / "made-through-the-link")
    with pytest.raises(TransportError, match="cannot write"):
        _run(LocalTransport().write_bytes(str(dangling), b"<profile/>"))
    existing = tmp_path / "existing"
    existing.write_bytes(VICTIM)
    with pytest.raises(TransportError, match="File exists"):
        _run(LocalTransport().write_bytes(str(existing), b"new"))
    assert victim.read_bytes() == VICTIM and existing.read_bytes() == VICTIM
    assert planted.is_symlink() and not (tmp_path / "made-through-the-link").exists()
    fresh = tmp_path / "fresh"
    _run(LocalTransport().write_bytes(str(fresh), b"archive"))
    assert fresh.read_bytes() == b"archive" and stat.S_IMODE(fresh.stat().st_mode) == 0o600
