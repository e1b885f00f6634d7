"""The room a directory suite on this computer leaves for its library: refused when the test
file and the library's share do not both fit the free space of a shared file system; no
concern of a target on another file system or another host."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pairbench.domain import LOCAL_PAIR, Host, HostPair
from pairbench.domain.failures import RunError
from pairbench.domain.storage import StorageTest, SuiteParams
from pairbench.library import Library
from pairbench.services.storage_room import keep_library_room, library_room
from testkit import require

SIZE = 64 * 2**20


def _params(target: Path) -> SuiteParams:
    return SuiteParams(StorageTest.THROUGHPUT, str(target), SIZE, round_seconds=1, max_rounds=5)


def test_a_test_file_that_leaves_the_library_no_room_is_refused(
    library: Library, tmp_path: Path
) -> None:
    params = _params(tmp_path)
    need = SIZE + library_room(params)
    keep_library_room(library, LOCAL_PAIR, params, {"free_bytes": str(need)}, SIZE)
    with pytest.raises(RunError) as info:
        keep_library_room(library, LOCAL_PAIR, params, {"free_bytes": str(need - 1)}, SIZE)
    said = str(info.value)
    assert said.startswith(f"{tmp_path} has ") and "the test file needs 64.0 MiB" in said
    assert f"the library {library.path}, on the same file system, keeps " in said


def test_a_resumed_suite_needs_room_for_the_library_alone(library: Library, tmp_path: Path) -> None:
    params = _params(tmp_path)
    with pytest.raises(RunError, match="free: the library ") as info:
        keep_library_room(library, LOCAL_PAIR, params, {"free_bytes": "0"}, 0)
    assert "test file" not in str(info.value)


def test_another_file_system_or_host_is_no_concern(library: Library, tmp_path: Path) -> None:
    other = Path("/dev/shm")
    distinct = other.is_dir() and os.stat(other).st_dev != os.stat(tmp_path).st_dev
    require(distinct, "/dev/shm is not a file system of its own here")
    keep_library_room(library, LOCAL_PAIR, _params(other), {"free_bytes": "0"}, SIZE)
    host = Host(name="far", address="192.0.2.9")
    far = HostPair(name="far", client=host, server=host)
    keep_library_room(library, far, _params(tmp_path), {"free_bytes": "0"}, SIZE)
