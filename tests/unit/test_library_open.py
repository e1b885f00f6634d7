"""Opening a library: creation, reopening, pragmas, and refusals that leave the file alone."""

from __future__ import annotations

import os
import random
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from pairbench.domain import LOCAL_HOST, LOCAL_PAIR, AuthMethod, Host, HostPair, RunSpec
from pairbench.library import Library, LibraryError
from pairbench.library.hosts import add_host, add_pair, get_pair, list_hosts, list_pairs
from pairbench.library.migrations import APPLICATION_ID, SCHEMA_VERSION
from pairbench.library.runs import create_run, get_run, list_runs

SIDECARS = ("-wal", "-shm", "-journal")
OLD_MTIME_NS = 1_500_000_000_123_456_789


@dataclass(frozen=True)
class Snapshot:
    """What must not change when a library is refused."""

    content: bytes
    mtime_ns: int
    mode: int
    neighbours: tuple[str, ...]


def _snapshot(path: Path) -> Snapshot:
    st = path.stat()
    content = b"" if path.is_dir() else path.read_bytes()
    return Snapshot(content, st.st_mtime_ns, st.st_mode, tuple(sorted(os.listdir(path.parent))))


def _age(path: Path) -> None:
    """Set an old mtime, so that any write shows as a changed mtime."""
    os.utime(path, ns=(OLD_MTIME_NS, OLD_MTIME_NS))


def _pragma(conn: sqlite3.Connection, name: str) -> object:
    return conn.execute(f"PRAGMA {name}").fetchone()[0]


def _assert_refused(path: Path, *fragments: str, max_seconds: float = 5.0) -> LibraryError:
    """Library.open(path) raises LibraryError naming the problem; nothing on disk changes."""
    _age(path)
    before = _snapshot(path)
    started = time.monotonic()
    with pytest.raises(LibraryError) as info:
        Library.open(path)
    elapsed = time.monotonic() - started
    after = _snapshot(path)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert str(path) in message
    assert elapsed < max_seconds
    assert after.content == before.content
    assert after.mtime_ns == before.mtime_ns == OLD_MTIME_NS
    assert after.mode == before.mode
    assert after.neighbours == before.neighbours
    return info.value


def _no_sidecars(path: Path) -> None:
    for suffix in SIDECARS:
        assert not Path(f"{path}{suffix}").exists(), f"{path}{suffix} was created"


def _make_library(path: Path) -> None:
    with Library.open(path) as lib:
        create_run(lib, RunSpec(pair="local", tool="iperf3", label="kept"))
    _no_sidecars(path)


# --- creating and reopening -----------------------------------------------------------------


def test_new_path_creates_library_with_local_pair(library_path: Path) -> None:
    assert not library_path.exists()
    with Library.open(library_path) as lib:
        pair = get_pair(lib, "local")
        assert pair == LOCAL_PAIR
        assert pair.description == "This computer"
        assert pair.client.name == pair.server.name == "localhost"
        assert pair.client.address == pair.server.address == "127.0.0.1"
        assert pair.client.auth is AuthMethod.LOCAL
        assert pair.client.is_local
        assert pair.target_address == "127.0.0.1"
        assert list_pairs(lib) == [LOCAL_PAIR]
        assert list_hosts(lib) == [LOCAL_HOST]
        assert list_runs(lib) == []
        assert _pragma(lib.conn, "application_id") == APPLICATION_ID
        assert _pragma(lib.conn, "user_version") == SCHEMA_VERSION
    assert library_path.is_file()
    assert library_path.read_bytes()[:16] == b"SQLite format 3\x00"


def test_creates_missing_parent_folders(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "library.sqlite"
    with Library.open(path) as lib:
        assert get_pair(lib, "local") == LOCAL_PAIR
    assert path.is_file()


def test_accepts_str_and_user_relative_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    with Library.open("~/lib.sqlite") as lib:
        assert lib.path == tmp_path / "lib.sqlite"
    assert (tmp_path / "lib.sqlite").is_file()


def test_reopen_keeps_everything_and_adds_no_second_local_pair(library_path: Path) -> None:
    server = Host(name="srv", address="10.0.0.2", user="bench", tags={"zone": "a"})
    with Library.open(library_path) as lib:
        add_host(lib, server)
        add_pair(lib, HostPair(name="lan", client=LOCAL_HOST, server=server, description="d"))
        run_id = create_run(lib, RunSpec(pair="lan", tool="ping", label="first"))
    for _ in range(3):
        with Library.open(library_path) as lib:
            assert [p.name for p in list_pairs(lib)] == ["lan", "local"]
            assert get_pair(lib, "lan").server == server
            assert get_pair(lib, "local") == LOCAL_PAIR
            assert get_run(lib, run_id).label == "first"
            assert lib.conn.execute("SELECT COUNT(*) FROM hosts").fetchone()[0] == 2
            assert _pragma(lib.conn, "user_version") == SCHEMA_VERSION


def test_wal_mode_is_on_and_persistent(library: Library, library_path: Path) -> None:
    assert str(_pragma(library.conn, "journal_mode")).lower() == "wal"
    other = sqlite3.connect(library_path)
    try:
        assert str(_pragma(other, "journal_mode")).lower() == "wal"
    finally:
        other.close()


def test_foreign_keys_are_enforced(library: Library) -> None:
    assert _pragma(library.conn, "foreign_keys") == 1
    with pytest.raises(sqlite3.IntegrityError):
        library.conn.execute(
            "INSERT INTO series (run_id, stream, metric) VALUES (?, 'sum', 'rtt_ms')", (12345,)
        )
    with pytest.raises(sqlite3.IntegrityError):
        library.conn.execute("DELETE FROM hosts WHERE name = 'localhost'")
    assert get_pair(library, "local") == LOCAL_PAIR


def test_two_connections_share_the_library(library_path: Path) -> None:
    """The engine thread and the GUI thread each open their own Library on one file."""
    with Library.open(library_path) as engine, Library.open(library_path) as gui:
        run_id = create_run(engine, RunSpec(pair="local", tool="iperf3"))
        assert get_run(gui, run_id).spec.tool == "iperf3"
        gui.conn.execute("BEGIN")
        assert [r.id for r in list_runs(gui)] == [run_id]
        create_run(engine, RunSpec(pair="local", tool="fio"))  # writer is not blocked
        assert [r.id for r in list_runs(gui)] == [run_id]  # reader keeps its snapshot
        gui.conn.execute("COMMIT")
        assert len(list_runs(gui)) == 2


def test_close_is_idempotent_and_context_manager_closes(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        pass
    with pytest.raises(sqlite3.ProgrammingError):
        lib.conn.execute("SELECT 1")
    lib.close()


def test_creation_is_atomic_and_leaves_no_temporary_file(library_path: Path) -> None:
    """A library is built whole under a temporary name and linked into place: the folder
    then holds the library and nothing else of the creation."""
    with Library.open(library_path) as lib:
        assert _pragma(lib.conn, "application_id") == APPLICATION_ID
    leftovers = [p.name for p in library_path.parent.iterdir() if "creating" in p.name]
    assert leftovers == []


def test_two_processes_creating_one_library_both_succeed(library_path: Path) -> None:
    """Losing the race to create the file is not an error: the loser opens the winner's."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        results = pool.map(_open_and_count_pairs, [str(library_path)] * 8)
    assert results == [1] * 8


def _open_and_count_pairs(path: str) -> int:
    with Library.open(path) as lib:
        return len(list_pairs(lib))


# --- refusals -------------------------------------------------------------------------------


def _random_bytes(path: Path) -> None:
    path.write_bytes(random.Random(20240601).randbytes(64 * 1024))


def _text_file(path: Path) -> None:
    path.write_text("host,throughput\nlocal,941000000\n" * 100)


def _short_text_file(path: Path) -> None:
    path.write_text("hi\n")


def _foreign_sqlite(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE foo (id INTEGER PRIMARY KEY, name TEXT)")
    conn.executemany("INSERT INTO foo (name) VALUES (?)", [(f"row{i}",) for i in range(50)])
    conn.commit()
    conn.close()


def _foreign_sqlite_wal(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE foo (id INTEGER PRIMARY KEY)")
    conn.execute("INSERT INTO foo DEFAULT VALUES")
    conn.commit()
    conn.close()


def _foreign_sqlite_with_application_id(path: Path) -> None:
    """Another program that marks its files with its own application_id."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE foo (id INTEGER PRIMARY KEY)")
    conn.execute("PRAGMA application_id = 1234")
    conn.commit()
    conn.close()


def _foreign_sqlite_with_our_user_version(path: Path) -> None:
    """Another program that also counts versions in user_version, at the same number as ours."""
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE foo (id INTEGER PRIMARY KEY)")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.commit()
    conn.close()


def _foreign_empty_sqlite_with_application_id(path: Path) -> None:
    """An empty database another program has already claimed."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA application_id = 1234")
    conn.close()


def _empty_file(path: Path) -> None:
    """A zero-byte file: Pairbench never leaves one (it creates libraries whole)."""
    path.touch()


def _empty_foreign_sqlite(path: Path) -> None:
    """An SQLite file with a header and nothing else, made by another program."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    assert path.stat().st_size > 0


def _corrupt_sqlite(path: Path) -> None:
    """An SQLite header followed by garbage."""
    data = random.Random(7).randbytes(8192)
    path.write_bytes(b"SQLite format 3\x00" + data[16:])


def _newer_library(path: Path) -> None:
    _make_library(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    _no_sidecars(path)


def _read_only_library(path: Path) -> None:
    _make_library(path)
    path.chmod(0o444)


def _read_only_empty_file(path: Path) -> None:
    path.touch()
    path.chmod(0o444)


REFUSALS: dict[str, tuple[Callable[[Path], None], tuple[str, ...]]] = {
    "random-bytes": (_random_bytes, ("not a Pairbench library", "not an SQLite file")),
    "text-file": (_text_file, ("not a Pairbench library",)),
    "short-text-file": (_short_text_file, ("not a Pairbench library",)),
    "foreign-sqlite": (_foreign_sqlite, ("another program",)),
    "foreign-sqlite-wal": (_foreign_sqlite_wal, ("another program",)),
    "foreign-sqlite-app-id": (_foreign_sqlite_with_application_id, ("another program",)),
    "foreign-sqlite-version": (_foreign_sqlite_with_our_user_version, ("another program",)),
    "foreign-empty-app-id": (_foreign_empty_sqlite_with_application_id, ("another program",)),
    "empty-file": (_empty_file, ("empty file", "not a Pairbench library")),
    "empty-foreign-sqlite": (_empty_foreign_sqlite, ("another program",)),
    "corrupt-sqlite": (_corrupt_sqlite, ("not a Pairbench library",)),
    "newer-schema": (_newer_library, ("newer", f"version {SCHEMA_VERSION + 1}", "upgrade")),
    "read-only": (_read_only_library, ("read-only",)),
    "read-only-empty": (_read_only_empty_file, ("read-only",)),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_refuses_and_leaves_file_unchanged(library_path: Path, case: str) -> None:
    make, fragments = REFUSALS[case]
    make(library_path)
    _no_sidecars(library_path)
    _assert_refused(library_path, *fragments)
    _no_sidecars(library_path)
    # Refusing twice is just as harmless.
    _assert_refused(library_path, *fragments)
    _no_sidecars(library_path)


def test_foreign_sqlite_data_is_intact_after_refusal(library_path: Path) -> None:
    _foreign_sqlite(library_path)
    _assert_refused(library_path, "another program")
    conn = sqlite3.connect(library_path)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
        assert names == ["foo"]
        assert conn.execute("SELECT COUNT(*) FROM foo").fetchone()[0] == 50
        assert _pragma(conn, "journal_mode") == "delete"
    finally:
        conn.close()


def test_newer_library_is_still_readable_by_sqlite_after_refusal(library_path: Path) -> None:
    _newer_library(library_path)
    _assert_refused(library_path, "newer")
    conn = sqlite3.connect(library_path)
    try:
        assert _pragma(conn, "user_version") == SCHEMA_VERSION + 1
        assert conn.execute("SELECT label FROM runs").fetchall() == [("kept",)]
    finally:
        conn.close()


def test_read_only_library_opens_again_once_writable(library_path: Path) -> None:
    _read_only_library(library_path)
    _assert_refused(library_path, "read-only", "writable")
    library_path.chmod(0o644)
    with Library.open(library_path) as lib:
        assert [r.label for r in list_runs(lib)] == ["kept"]


def test_directory_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "library.sqlite"
    path.mkdir()
    (path / "inside.txt").write_text("keep me")
    before = sorted(os.listdir(path))
    _assert_refused(path, "not a file")
    assert sorted(os.listdir(path)) == before
    assert (path / "inside.txt").read_text() == "keep me"
    _no_sidecars(path)


def test_locked_library_is_refused_quickly(library_path: Path) -> None:
    _make_library(library_path)
    holder = sqlite3.connect(library_path, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        sidecars_before = {s for s in SIDECARS if Path(f"{library_path}{s}").exists()}
        error = _assert_refused(library_path, "locked", max_seconds=5.0)
        assert "try again" in str(error)
        sidecars_after = {s for s in SIDECARS if Path(f"{library_path}{s}").exists()}
        assert sidecars_after == sidecars_before
        holder.execute("ROLLBACK")
    finally:
        holder.close()
    _no_sidecars(library_path)
    with Library.open(library_path) as lib:
        assert [r.label for r in list_runs(lib)] == ["kept"]


def test_short_write_lock_is_waited_out(library_path: Path) -> None:
    """A writer that holds the lock for less than the busy timeout does not make open fail."""
    import threading

    _make_library(library_path)
    holder = sqlite3.connect(library_path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    timer = threading.Timer(0.3, lambda: holder.execute("COMMIT"))
    timer.start()
    try:
        with Library.open(library_path) as lib:
            assert [r.label for r in list_runs(lib)] == ["kept"]
    finally:
        timer.join()
        holder.close()
