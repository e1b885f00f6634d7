"""A storage suite's purges beyond its start, on this computer for real (``LocalTransport``,
real files, real ``dd``): a directory suite's purge renews the test file in its own private
directory only after checking it (never at the name earlier versions used, never through a
planted link); a zero fill never makes a file where a device should be; and the scheduler,
at the purge before the 128 KiB stage, notes a purge that fails and goes on, but stops at a
target no longer as it checked it. (Devices: tests/integration/test_storage_purge_local.py.)"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, NoReturn, TypeVar, cast

import pytest

from pairbench.domain.failures import RunError, TargetChangedError
from pairbench.domain.storage import JobKey, StorageTest, SuiteParams, SuiteStatus
from pairbench.engine import storage_files as files
from pairbench.engine.execute import Prepared
from pairbench.engine.storage_suite import run_suite
from pairbench.engine.storage_target import purge_device
from pairbench.library import Library
from pairbench.library.suites import create_suite, get_suite, record_job, suite_jobs
from pairbench.remote.local import LocalTransport
from pairbench.services.storage_purge import purger

T = TypeVar("T")
VICTIM = b"somebody else's data\n" * 1000


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def _directory_suite(tmp_path: Path) -> tuple[SuiteParams, Path, Path]:
    """A directory suite's params, its private directory (a test file in it), and a victim
    file with a link to it planted at the name earlier versions gave suite 1's test file."""
    target = tmp_path / "target"
    target.mkdir()
    target.chmod(0o1777)  # like /tmp: anyone may plant a name here
    victim = tmp_path / "victim.bin"
    victim.write_bytes(VICTIM)
    (target / "pairbench-suite-1.dat").symlink_to(victim)
    made = Path(_run(files.make_test_dir(LocalTransport(), str(target))))
    (made / "test.dat").write_bytes(b"\xab" * 65536)
    params = SuiteParams(StorageTest.THROUGHPUT, str(target), size=65536, prep_each_stage=True)
    return params, made, victim


def test_a_directory_suites_purge_renews_the_test_file_in_its_own_directory(
    tmp_path: Path,
) -> None:
    params, made, victim = _directory_suite(tmp_path)
    note = _run(purger(LocalTransport(), params, str(made))())
    assert note == f"a new test file ({made}/test.dat removed; the next job makes it anew)"
    assert not (made / "test.dat").exists()  # fio's next job makes it anew, in there
    info = os.lstat(made)
    assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o700
    planted = made.parent / "pairbench-suite-1.dat"
    assert planted.is_symlink() and os.readlink(planted) == str(victim)  # left as it was
    assert victim.read_bytes() == VICTIM
    assert sorted(p.name for p in made.parent.iterdir()) == sorted([planted.name, made.name])


@pytest.mark.parametrize("change", ["gone", "mode", "link"])
def test_a_private_directory_no_longer_as_made_stops_the_purge_untouched(
    tmp_path: Path, change: str
) -> None:
    params, made, victim = _directory_suite(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "test.dat").write_bytes(VICTIM)
    if change == "gone":
        (made / "test.dat").unlink()
        made.rmdir()
        said = "is gone; resume the suite"
    elif change == "mode":
        made.chmod(0o755)
        said = "has mode 755, not 700"
    else:
        (made / "test.dat").unlink()
        made.rmdir()
        made.symlink_to(elsewhere)  # planted where the suite's directory was
        said = "is now a symbolic link"
    with pytest.raises(TargetChangedError, match=said):
        _run(purger(LocalTransport(), params, str(made))())
    assert (elsewhere / "test.dat").read_bytes() == VICTIM and victim.read_bytes() == VICTIM
    if change == "mode":
        assert (made / "test.dat").read_bytes() == b"\xab" * 65536  # nothing removed


def test_a_zero_fill_never_makes_a_file_where_the_device_should_be(tmp_path: Path) -> None:
    missing = tmp_path / "sdz"  # no device there (gone since it was checked, say)
    with pytest.raises(RunError, match="could not be purged") as caught:
        _run(purge_device(LocalTransport(), str(missing), 2**20))
    assert "blkdiscard:" in str(caught.value) and "zero fill:" in str(caught.value)
    assert not missing.exists()  # dd's conv=nocreat: it writes to an existing device only


class _Unprepared:
    """The suite's fio, never to be reached before the purge has had its say."""

    def __getattr__(self, name: str) -> NoReturn:
        raise _ReachedTheJobError(name)


class _ReachedTheJobError(Exception):
    pass


UNPREPARED = cast(Prepared, _Unprepared())


def _at_the_128k_purge(library: Library) -> tuple[int, SuiteParams]:
    """A device throughput suite whose 1 MiB stage is done (5 rounds): its next job is the
    128 KiB stage's preconditioning, purged first."""
    params = SuiteParams(
        StorageTest.THROUGHPUT, "/dev/pairbench-none", size=2**26, precondition_passes=1,
        max_rounds=5, prep_each_stage=True,
    )  # fmt: skip
    suite_id = create_suite(library, "storage", "local", params.to_json())
    record_job(library, suite_id, (-1, 1, 0), None, "completed", {"write_iops": 1.0})
    for r in range(1, 6):
        record_job(library, suite_id, (0, r, 0), None, "completed", {"read_bytes_per_s": 2e8})
        record_job(library, suite_id, (0, r, 1), None, "completed", {"write_bytes_per_s": 1e8})
    return suite_id, params


def test_a_target_changed_at_the_128k_purge_fails_the_suite_before_any_write(
    library: Library,
) -> None:
    suite_id, params = _at_the_128k_purge(library)
    jobs = len(suite_jobs(library, suite_id))

    async def changed() -> str:
        raise TargetChangedError("local: refusing to run fio on /dev/x: it is in use")

    outcome = _run(run_suite(library, suite_id, params, UNPREPARED, purge=changed))
    assert outcome.status is SuiteStatus.FAILED
    assert (
        outcome.error
        == "before throughput 128k: local: refusing to run fio on /dev/x: it is in use"
    )
    assert outcome.progress.next_job == JobKey(-2, 1, 0)  # a resume starts there, purging
    suite = get_suite(library, suite_id)
    assert suite.status == "failed" and len(suite_jobs(library, suite_id)) == jobs
    assert "purge before throughput 128k" not in suite.facts


def test_a_purge_that_fails_is_noted_and_the_suite_goes_on(library: Library) -> None:
    suite_id, params = _at_the_128k_purge(library)

    async def unpurgeable() -> str:
        raise RunError("local: /dev/x could not be purged (blkdiscard: no; zero fill: no)")

    with pytest.raises(_ReachedTheJobError):  # on to the 128 KiB stage's preconditioning
        _run(run_suite(library, suite_id, params, UNPREPARED, purge=unpurgeable))
    facts = get_suite(library, suite_id).facts
    assert facts["purge before throughput 128k"] == (
        "not purged: local: /dev/x could not be purged (blkdiscard: no; zero fill: no)"
    )
