"""The migration ladder: every earlier schema version opens, upgrades and keeps its data."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from pairbench.domain import LOCAL_PAIR, AuthMethod, RunStatus
from pairbench.library import Library, LibraryError, migrations
from pairbench.library.analyses import get_analyses
from pairbench.library.codec import dumps
from pairbench.library.hosts import get_host, get_pair
from pairbench.library.migrations import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, migrate
from pairbench.library.runs import get_run, list_runs
from pairbench.library.series import load_raw_output, load_series

EARLIER_VERSIONS = list(range(SCHEMA_VERSION))
# Version 0 is an empty file: Pairbench creates libraries whole, so one is never left at 0 and
# an empty file is refused (test_library_open); every later version opens and upgrades.
EARLIER_LIBRARIES = list(range(1, SCHEMA_VERSION))

SERIES_T = [1.0, 2.0, 3.0, 4.0, 5.0]
SERIES_V = [941.5e6, 0.1, -3.25, 1e-300, 2.0**60 + 1.0]


@contextmanager
def _raw(path: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        yield conn
    finally:
        conn.close()


def _pragma(conn: sqlite3.Connection, name: str) -> int:
    return int(conn.execute(f"PRAGMA {name}").fetchone()[0])


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _seed_v1(conn: sqlite3.Connection) -> dict[str, int]:
    """Data in the version-1 schema, written with plain SQL as an old Pairbench would."""
    conn.execute("BEGIN")
    conn.execute(
        "INSERT INTO hosts (name, address, port, user, auth, key_path, jump, tags) "
        "VALUES ('db1', '10.1.1.1', 2222, 'bench', 'key', '/k/id', 'bastion', ?)",
        (dumps({"zone": "eu-1"}),),
    )
    conn.execute(
        "INSERT INTO pairs (name, client_host_id, server_host_id, data_address, description, "
        "tags) SELECT 'p1', l.id, d.id, '192.168.9.9', 'to db1', ? FROM hosts l, hosts d "
        "WHERE l.name = 'localhost' AND d.name = 'db1'",
        (dumps({"kind": "lan"}),),
    )
    done = conn.execute(
        "INSERT INTO runs (pair, tool, tool_version, params, status, started_at, ended_at, "
        "updated_at, summary, summary_complete, host_facts, label, tags, notes, error) "
        "VALUES ('p1', 'iperf3', '3.12', ?, 'completed', 100.0, 110.5, 110.5, ?, 1, ?, "
        "'old run', ?, 'some notes', NULL)",
        (
            dumps({"duration": "10"}),
            dumps({"throughput_bps": 941.5e6, "retransmits": 3}),
            dumps({"client": {"kernel": "6.1"}}),
            dumps({"env": "test"}),
        ),
    ).lastrowid
    series_id = conn.execute(
        "INSERT INTO series (run_id, stream, metric, unit) VALUES (?, 'sum', "
        "'throughput_bps', 'bit/s')",
        (done,),
    ).lastrowid
    t = np.array(SERIES_T, dtype="<f8")
    v = np.array(SERIES_V, dtype="<f8")
    conn.execute(
        "INSERT INTO chunks (series_id, seq, n, t, v) VALUES (?, 0, 2, ?, ?)",
        (series_id, t[:2].tobytes(), v[:2].tobytes()),
    )
    conn.execute(
        "INSERT INTO chunks (series_id, seq, n, t, v) VALUES (?, 1, 3, ?, ?)",
        (series_id, t[2:].tobytes(), v[2:].tobytes()),
    )
    conn.execute(
        "INSERT INTO raw_chunks (run_id, seq, source, text) VALUES (?, 0, 'client.stdout', "
        "'line 1\nline 2')",
        (done,),
    )
    orphan = conn.execute(
        "INSERT INTO runs (pair, tool, status, started_at, updated_at, owner_host, owner_pid, "
        "owner_token) VALUES ('local', 'ping', 'running', 200.0, 203.0, ?, ?, 'gone')",
        (socket.gethostname(), _dead_pid()),
    ).lastrowid
    conn.execute("COMMIT")
    return {"done": int(done or 0), "orphan": int(orphan or 0)}


def _check_v1(lib: Library, ids: dict[str, int]) -> None:
    host = get_host(lib, "db1")
    assert (host.address, host.port, host.user, host.auth) == ("10.1.1.1", 2222, "bench", "key")
    assert host.auth is AuthMethod.KEY
    assert (host.key_path, host.jump, dict(host.tags)) == ("/k/id", "bastion", {"zone": "eu-1"})
    pair = get_pair(lib, "p1")
    assert pair.client.name == "localhost"
    assert pair.server == host
    assert (pair.data_address, pair.description, dict(pair.tags)) == (
        "192.168.9.9",
        "to db1",
        {"kind": "lan"},
    )

    run = get_run(lib, ids["done"])
    assert run.status is RunStatus.COMPLETED
    assert (run.spec.pair, run.spec.tool, dict(run.spec.params)) == (
        "p1",
        "iperf3",
        {"duration": "10"},
    )
    assert (run.started_at, run.ended_at, run.tool_version) == (100.0, 110.5, "3.12")
    assert dict(run.summary) == {"throughput_bps": 941.5e6, "retransmits": 3.0}
    assert run.summary_complete
    assert {k: dict(v) for k, v in run.host_facts.items()} == {"client": {"kernel": "6.1"}}
    assert (run.label, dict(run.tags), run.notes, run.error) == (
        "old run",
        {"env": "test"},
        "some notes",
        None,
    )
    [series] = load_series(lib, ids["done"])
    assert (series.stream, series.metric, series.unit) == ("sum", "throughput_bps", "bit/s")
    assert series.t.tolist() == SERIES_T
    assert series.v.tolist() == SERIES_V
    assert load_raw_output(lib, ids["done"]) == [("client.stdout", "line 1\nline 2")]

    orphan = get_run(lib, ids["orphan"])
    assert orphan.status is RunStatus.INTERRUPTED
    assert orphan.ended_at == 203.0


def _seed_v2(conn: sqlite3.Connection) -> dict[str, int]:
    """Pinned host keys, new in version 2."""
    conn.executemany(
        "INSERT INTO host_keys (host_name, key, added_at) VALUES (?, ?, ?)",
        [("db1", "ssh-ed25519 AAAAold", 10.0), ("db1", "ssh-ed25519 AAAAnew", 20.0)],
    )
    return {}


def _check_v2(lib: Library, ids: dict[str, int]) -> None:
    rows = lib.conn.execute(
        "SELECT host_name, key, added_at FROM host_keys ORDER BY added_at"
    ).fetchall()
    assert rows == [("db1", "ssh-ed25519 AAAAold", 10.0), ("db1", "ssh-ed25519 AAAAnew", 20.0)]


def _seed_v3(conn: sqlite3.Connection) -> dict[str, int]:
    """A stored analysis (new in version 3) of the version-1 completed run."""
    run_id = conn.execute("SELECT id FROM runs WHERE label = 'old run'").fetchone()[0]
    conn.execute(
        "INSERT INTO analyses (run_id, kind, json, created_at) VALUES (?, 'burst', ?, 30.0)",
        (run_id, dumps({"detected": True, "bucket_bits": 1.7e10})),
    )
    return {}


def _check_v3(lib: Library, ids: dict[str, int]) -> None:
    assert get_analyses(lib, ids["done"]) == {"burst": {"bucket_bits": 1.7e10, "detected": True}}


def _seed_v5(conn: sqlite3.Connection) -> dict[str, int]:
    """A run in the shared-time layout (new in version 5): two series on one time row."""
    run_id = conn.execute(
        "INSERT INTO runs (pair, tool, status, started_at, ended_at, updated_at, label) "
        "VALUES ('local', 'ping', 'completed', 300.0, 305.0, 305.0, 'shared axis')"
    ).lastrowid
    t = np.array(SERIES_T, dtype="<f8").tobytes()
    time_id = conn.execute(
        "INSERT INTO times (run_id, n, t) VALUES (?, 5, ?)", (run_id, t)
    ).lastrowid
    for metric, scale in (("rtt_ms", 1.0), ("rtt_max_ms", 2.0)):
        series_id = conn.execute(
            "INSERT INTO series (run_id, stream, metric, unit) VALUES (?, 'sum', ?, 'ms')",
            (run_id, metric),
        ).lastrowid
        v = (np.array(SERIES_V, dtype="<f8") * scale).tobytes()
        conn.execute(
            "INSERT INTO chunks (series_id, seq, n, time_id, v) VALUES (?, 0, 5, ?, ?)",
            (series_id, time_id, v),
        )
    return {"one_axis": int(run_id or 0)}


def _check_v5(lib: Library, ids: dict[str, int]) -> None:
    loaded = load_series(lib, ids["one_axis"])
    assert [(s.metric, s.t.tolist(), s.v.tolist()) for s in loaded] == [
        ("rtt_max_ms", SERIES_T, [x * 2.0 for x in SERIES_V]),
        ("rtt_ms", SERIES_T, SERIES_V),
    ]


KEPT_UUID = "0f3e2a1c-5b6d-4e7f-8a9b-0c1d2e3f4a5b"


def _seed_v10(conn: sqlite3.Connection) -> dict[str, int]:
    """UUIDs (a run's new in 9, a suite's and a campaign's in 10), given then at the first
    publish: the version-1 run has one, a suite and a campaign none."""
    conn.execute("UPDATE runs SET uuid = ? WHERE label = 'old run'", (KEPT_UUID,))
    suite = conn.execute(
        "INSERT INTO suites (kind, host, params, status, created_at, updated_at) "
        "VALUES ('file', 'local', '{}', 'completed', 1.0, 2.0)"
    ).lastrowid
    campaign = conn.execute(
        "INSERT INTO campaigns (name, plan, cells, seed, status, created_at, updated_at) "
        "VALUES ('c', '{}', '[]', 7, 'completed', 1.0, 2.0)"
    ).lastrowid
    return {"suite": int(suite or 0), "campaign": int(campaign or 0)}


def _check_v10(lib: Library, ids: dict[str, int]) -> None:
    kept = lib.conn.execute("SELECT uuid FROM runs WHERE id = ?", (ids["done"],)).fetchone()
    assert kept == (KEPT_UUID,)  # a UUID a run has is never changed
    for table in ("suites", "campaigns"):
        assert lib.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone() == (1,)


def _check_uuids(lib: Library) -> None:
    """Every run, suite and campaign has a UUID of its own (11: those made before got one)."""
    found = [
        str(key)
        for table in ("runs", "suites", "campaigns")
        for (key,) in lib.conn.execute(f"SELECT uuid FROM {table}")
    ]
    assert len(set(found)) == len(found)
    for key in found:
        assert key == str(uuid.UUID(key))  # lower case, with hyphens
        assert key == KEPT_UUID or uuid.UUID(key).version == 4


# The version whose migration added hosts.ssh.
SSH_OPTIONS_VERSION = 12


def _seed_ssh_options(conn: sqlite3.Connection) -> dict[str, int]:
    """A host imported from an ssh_config (hosts.ssh, new in SSH_OPTIONS_VERSION)."""
    ssh = (
        '{"identity_files":["/home/u/.ssh/id_a","/home/u/.ssh/id_b"],"identities_only":true,'
        '"known_hosts":[],"host_key_alias":"far.alias","accept_new_host_keys":true,'
        '"jumps":[{"name":"gate","address":"198.51.100.1","port":2222,"user":"ops",'
        '"ssh":{"proxy_command":"nc -x socks:1080 %h %p"}}]}'
    )
    conn.execute(
        "INSERT INTO hosts (name, address, port, user, auth, key_path, jump, tags, ssh) "
        "VALUES ('far', '10.9.0.1', 22, 'deploy', 'agent', NULL, NULL, '{}', ?)",
        (ssh,),
    )
    return {}


def _check_ssh_options(lib: Library, ids: dict[str, int]) -> None:
    far = get_host(lib, "far")
    assert far.ssh.identity_files == ("/home/u/.ssh/id_a", "/home/u/.ssh/id_b")
    assert far.ssh.identities_only and far.ssh.accept_new_host_keys
    assert far.ssh.known_hosts == () and far.ssh.host_key_alias == "far.alias"
    (gate,) = far.ssh.jumps
    assert (gate.name, gate.address, gate.port, gate.user) == ("gate", "198.51.100.1", 2222, "ops")
    assert gate.ssh.proxy_command == "nc -x socks:1080 %h %p"
    assert get_host(lib, "db1").ssh.empty  # a host of an older version: nothing from a config


Seed = Callable[[sqlite3.Connection], dict[str, int]]
Check = Callable[[Library, dict[str, int]], None]

# Data that each schema version introduced, written as that version's Pairbench would. A file
# at version v gets every step up to v. Add a step when a migration adds something to keep.
SEED_STEPS: dict[int, tuple[Seed, Check]] = {
    1: (_seed_v1, _check_v1),
    2: (_seed_v2, _check_v2),
    3: (_seed_v3, _check_v3),
    5: (_seed_v5, _check_v5),
    10: (_seed_v10, _check_v10),
    SSH_OPTIONS_VERSION: (_seed_ssh_options, _check_ssh_options),
}


def _steps_for(version: int) -> list[tuple[Seed, Check]]:
    return [SEED_STEPS[v] for v in sorted(SEED_STEPS) if v <= version]


def _check(lib: Library, version: int, ids: dict[str, int]) -> None:
    for _seed_step, check in _steps_for(version):
        check(lib, ids)
    _check_uuids(lib)
    if not _steps_for(version):
        assert list_runs(lib) == []


def _build(path: Path, version: int) -> dict[str, int]:
    """A library file at ``version`` (version 0: an empty file, no schema), with seed data."""
    with _raw(path) as conn:
        ids: dict[str, int] = {}
        # Each step's data is written in the schema of its own version, then upgraded.
        for step in range(version + 1):
            assert migrate(conn, target=step) == max(step - 1, 0)
            if step in SEED_STEPS:
                ids.update(SEED_STEPS[step][0](conn))
        assert _pragma(conn, "user_version") == version
    assert path.exists()
    if version == 0:
        assert path.stat().st_size == 0
    return ids


def _schema(conn: sqlite3.Connection) -> list[tuple[str, str, str]]:
    rows = conn.execute(
        "SELECT type, name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name"
    ).fetchall()
    return [(str(a), str(b), str(c)) for a, b, c in rows]


def test_schema_version_follows_the_ladder() -> None:
    assert SCHEMA_VERSION == len(MIGRATIONS) >= 1
    assert all(script.strip() for script in MIGRATIONS)


def _local_pairs(lib: Library) -> int:
    return int(lib.conn.execute("SELECT COUNT(*) FROM pairs WHERE name = 'local'").fetchone()[0])


@pytest.mark.parametrize("version", EARLIER_LIBRARIES)
def test_every_earlier_version_upgrades_and_keeps_its_data(
    library_path: Path, version: int
) -> None:
    ids = _build(library_path, version)
    with Library.open(library_path) as lib:
        assert _pragma(lib.conn, "user_version") == SCHEMA_VERSION
        assert _pragma(lib.conn, "application_id") == APPLICATION_ID
        assert str(lib.conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() == "wal"
        assert get_pair(lib, "local") == LOCAL_PAIR
        assert _local_pairs(lib) == 1
        _check(lib, version, ids)
    # It opens again without migrating anything twice.
    with Library.open(library_path) as lib:
        assert _pragma(lib.conn, "user_version") == SCHEMA_VERSION
        assert _local_pairs(lib) == 1
        _check(lib, version, ids)


def test_seed_data_of_the_current_version_round_trips(library_path: Path) -> None:
    """The seed steps themselves are valid for the newest schema (so later upgrades test them)."""
    assert max(SEED_STEPS) <= SCHEMA_VERSION
    ids = _build(library_path, SCHEMA_VERSION)
    with Library.open(library_path) as lib:
        _check(lib, SCHEMA_VERSION, ids)


@pytest.mark.parametrize("version", EARLIER_LIBRARIES)
def test_upgraded_schema_equals_a_new_librarys(tmp_path: Path, version: int) -> None:
    fresh = tmp_path / "fresh.sqlite"
    old = tmp_path / "old.sqlite"
    with Library.open(fresh) as lib:
        expected = _schema(lib.conn)
    _build(old, version)
    with Library.open(old) as lib:
        assert _schema(lib.conn) == expected


@pytest.mark.parametrize("version", EARLIER_VERSIONS)
def test_migrate_steps_one_version_at_a_time(library_path: Path, version: int) -> None:
    _build(library_path, version)
    with _raw(library_path) as conn:
        for target in range(version + 1, SCHEMA_VERSION + 1):
            assert migrate(conn, target=target) == target - 1
            assert _pragma(conn, "user_version") == target
            assert _pragma(conn, "application_id") == APPLICATION_ID
            assert not conn.in_transaction
        assert migrate(conn) == SCHEMA_VERSION  # nothing left to do
        assert _pragma(conn, "user_version") == SCHEMA_VERSION


def test_statements_are_split_without_losing_any() -> None:
    for script in MIGRATIONS:
        statements = migrations._split_statements(script)
        assert statements
        assert all(sqlite3.complete_statement(s) for s in statements)
        assert all(not s.lstrip().startswith("--") for s in statements)


def test_failed_migration_leaves_the_previous_whole_version(
    library_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Library.open(library_path) as lib:
        lib.conn.execute("UPDATE pairs SET description = 'mine' WHERE name = 'local'")
    broken = """
    CREATE TABLE extra (x INTEGER NOT NULL);
    INSERT INTO extra (x) VALUES (1);
    UPDATE pairs SET description = 'changed by the broken step';
    INSERT INTO no_such_table (x) VALUES (2);
    """
    monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, broken])
    with _raw(library_path) as conn:
        with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
            migrate(conn, target=SCHEMA_VERSION + 1)
        assert not conn.in_transaction
        assert _pragma(conn, "user_version") == SCHEMA_VERSION
        assert _pragma(conn, "application_id") == APPLICATION_ID
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "extra" not in tables
        assert conn.execute("SELECT description FROM pairs").fetchall() == [("mine",)]
    monkeypatch.undo()
    assert len(migrations.MIGRATIONS) == SCHEMA_VERSION
    with Library.open(library_path) as lib:
        assert _pragma(lib.conn, "user_version") == SCHEMA_VERSION
        assert get_pair(lib, "local").description == "mine"


def test_failed_later_step_keeps_earlier_steps(
    library_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two new steps, the second broken: the first one stays applied as a whole version."""
    good = "CREATE TABLE extra_ok (x INTEGER);"
    broken = "CREATE TABLE extra_bad (x INTEGER);\nSELECT * FROM no_such_table;"
    Library.open(library_path).close()
    monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, good, broken])
    with _raw(library_path) as conn:
        with pytest.raises(sqlite3.OperationalError):
            migrate(conn, target=SCHEMA_VERSION + 2)
        assert _pragma(conn, "user_version") == SCHEMA_VERSION + 1
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        assert "extra_ok" in tables
        assert "extra_bad" not in tables


def test_failed_first_migration_leaves_no_file(
    library_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Creation that fails inside the first migration leaves nothing at the library's path
    (it is built under a temporary name), so the next open creates it whole."""
    broken_first = MIGRATIONS[0] + "\nSELECT * FROM nope;\n"
    monkeypatch.setattr(migrations, "MIGRATIONS", [broken_first, *MIGRATIONS[1:]])
    with pytest.raises(LibraryError, match="nope"):
        Library.open(library_path)
    assert not library_path.exists()
    assert list(library_path.parent.iterdir()) == []
    monkeypatch.undo()
    with Library.open(library_path) as lib:
        assert get_pair(lib, "local") == LOCAL_PAIR
        assert _pragma(lib.conn, "user_version") == SCHEMA_VERSION


def test_disk_full_during_first_migration_reports_the_real_error(tmp_path: Path) -> None:
    path = tmp_path / "full.sqlite"
    with _raw(path) as conn:
        conn.execute("PRAGMA max_page_count = 2")
        with pytest.raises(sqlite3.OperationalError, match="full"):
            migrate(conn)
        assert not conn.in_transaction
        assert _pragma(conn, "user_version") == 0
    assert not os.path.exists(f"{path}-journal")


def test_disk_full_during_a_migration_reports_the_real_error(
    library_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SQLite rolls the whole step back by itself when the disk fills up; the error must say
    "full" (not "cannot rollback") and the file must stay at the previous version."""
    Library.open(library_path).close()
    # A one-row insert: SQLite undoes the whole transaction, not just the statement.
    bulky = "INSERT INTO hosts (name, address, auth) VALUES ('big', randomblob(800000), 'agent');"
    monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS, bulky])
    with _raw(library_path) as conn:
        pages = _pragma(conn, "page_count")
        conn.execute(f"PRAGMA max_page_count = {pages}")
        with pytest.raises(sqlite3.OperationalError, match="full"):
            migrate(conn, target=SCHEMA_VERSION + 1)
        assert not conn.in_transaction
        assert _pragma(conn, "user_version") == SCHEMA_VERSION
        assert conn.execute("SELECT COUNT(*) FROM hosts WHERE name = 'big'").fetchone()[0] == 0
    monkeypatch.undo()
    with Library.open(library_path) as lib:
        assert get_pair(lib, "local") == LOCAL_PAIR
