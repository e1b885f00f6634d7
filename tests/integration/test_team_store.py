"""The team library's PostgreSQL store against a real server: publish, list, rights, faults."""

from __future__ import annotations

import dataclasses
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from pairbench.domain import Line, LineSource, Record, RunSpec, RunStatus
from pairbench.library import Library, Recorder
from pairbench.library.analyses import store_analysis
from pairbench.library.runs import (
    RunFilter,
    count_runs,
    create_run,
    finish_run,
    get_run,
    set_run_facts,
)
from pairbench.library.runs import list_runs as local_list_runs
from pairbench.library.series import load_raw_output, load_series
from pairbench.library.team import schema as team_schema
from pairbench.library.team import store as team_store
from pairbench.library.team.store import (
    SCHEMA_VERSION,
    TeamAuthError,
    TeamError,
    TeamPermissionError,
    TeamSchemaError,
    TeamStore,
    TeamUnreachableError,
)
from teamkit import TeamServer

METRICS = ("throughput_bps", "retransmits", "cwnd_bytes", "rtt_us")


@pytest.fixture(autouse=True)
def _no_ambient_password(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """libpq finds no password of the user's own: each test gives its own."""
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.delenv("PGSERVICE", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))


@pytest.fixture
def team(team_server: TeamServer) -> Iterator[TeamStore]:
    """alice's connection to the team library, its schema in place."""
    store = TeamStore.connect(team_server.url("alice"), password=team_server.password("alice"))
    store.ensure_schema()
    try:
        yield store
    finally:
        store.close()


def _open(tmp_path: Path, name: str) -> Library:
    return Library.open(tmp_path / f"{name}.sqlite")


def _make_run(
    lib: Library,
    *,
    started_at: float,
    records: int,
    streams: tuple[str, ...] = ("sum", "5"),
    per_flush: int = 50,
    label: str = "",
) -> int:
    """A finished run made through the library's API: series, raw output, facts, analysis."""
    spec = RunSpec(
        pair="local",
        tool="iperf3",
        params={"time": "10", "-P": "2"},
        label=label,
        tags={"zone": "a"},
    )
    run_id = create_run(lib, spec, started_at=started_at)
    set_run_facts(lib, run_id, tool_version="3.16", host_facts={"client": {"kernel": "6.1 x"}})
    recorder = Recorder(lib, run_id)
    for start in range(0, records, per_flush):
        batch = [
            Record(
                stream,
                (i + 1) * 0.1,
                METRICS,
                tuple((i + 0.1) * (k + 1) * (j + 1) / 3.0 for j in range(len(METRICS))),
            )
            for i in range(start, min(start + per_flush, records))
            for k, stream in enumerate(streams)
        ]
        recorder.add(batch)
        recorder.add_line(Line(LineSource.CLIENT_OUT, f"line {start} of run {run_id} é", 0.0))
        recorder.flush()
    recorder.add_line(Line(LineSource.SERVER_ERR, "server said ✓", 0.0))
    recorder.flush()
    finish_run(
        lib,
        run_id,
        RunStatus.COMPLETED,
        summary={"throughput_bps": 1e9 / 3, "retransmits": 7},
        complete=True,
        ended_at=started_at + records * 0.1,
    )
    store_analysis(lib, run_id, "burst", {"rate": 1.5 / 7, "n": records})
    return run_id


def _series_equal(local: Library, run_id: int, team: TeamStore, key: str) -> None:
    mine = load_series(local, run_id)
    theirs = team.load_series(key)
    assert [(s.stream, s.metric, s.unit) for s in theirs] == [
        (s.stream, s.metric, s.unit) for s in mine
    ]
    for a, b in zip(mine, theirs, strict=True):
        assert a.t.tobytes() == b.t.tobytes()
        assert a.v.tobytes() == b.v.tobytes()


def test_published_runs_list_as_the_local_library_lists_them(
    team_server: TeamServer, team: TeamStore, tmp_path: Path
) -> None:
    base = team.count_runs()
    ann, ben = _open(tmp_path, "ann"), _open(tmp_path, "ben")
    now = time.time()
    mine = [_make_run(ann, started_at=now + i / 7, records=30, label=f"l{i}") for i in range(3)]
    theirs = _make_run(ben, started_at=now + 1 / 14, records=20)
    keys = {run_id: str(uuid.uuid4()) for run_id in mine}
    for run_id in mine:
        assert team.publish(ann, run_id, keys[run_id], ran_by="ann", origin="laptop-a")
    with TeamStore.connect(team_server.url("bob"), password=team_server.password("bob")) as bob:
        assert bob.ensure_schema() == SCHEMA_VERSION
        assert bob.who() == ("bob", True)
        ben_key = str(uuid.uuid4())
        assert bob.publish(ben, theirs, ben_key, ran_by="ben", origin="laptop-b")

    listed = team.list_runs()
    assert team.count_runs() == base + 4
    assert len(listed) == base + 4
    order = [(r.run.started_at, r.run.id) for r in listed]
    assert order == sorted(order, reverse=True)
    by_key = {r.uuid: r for r in listed}
    expected = [(ann, run_id, keys[run_id], "ann", "laptop-a") for run_id in mine]
    expected.append((ben, theirs, ben_key, "ben", "laptop-b"))
    for lib, run_id, key, ran_by, origin in expected:
        got = by_key[key]
        local = get_run(lib, run_id)
        assert dataclasses.replace(got.run, id=local.id) == local
        assert (got.ran_by, got.origin) == (ran_by, origin)
        assert got.published_at >= now
    # The newest first, as the local list orders its own runs.
    newest = [by_key[keys[r.id]].run.started_at for r in local_list_runs(ann)]
    assert newest == sorted(newest, reverse=True)
    assert [r.uuid for r in team.list_runs(limit=2)] == [r.uuid for r in listed[:2]]
    ann.close()
    ben.close()


def test_a_run_published_twice_is_stored_once(
    team_server: TeamServer, team: TeamStore, tmp_path: Path
) -> None:
    lib = _open(tmp_path, "twice")
    run_id = _make_run(lib, started_at=time.time(), records=40)
    key = str(uuid.uuid4())
    base = team.count_runs()
    assert team.existing([key]) == set()
    assert team.publish(lib, run_id, key, ran_by="ann", origin="a") is True
    assert team.publish(lib, run_id, key.upper(), ran_by="ann", origin="a") is False
    assert team.existing([key, str(uuid.uuid4())]) == {key}
    assert team.count_runs() == base + 1
    with team_server.admin() as conn:
        (series,) = conn.execute(
            "SELECT count(*) FROM series s JOIN runs r ON r.id = s.run_id WHERE r.uuid = %s",
            (key,),
        ).fetchone()
    assert series == len(load_series(lib, run_id))
    lib.close()


def test_series_chunks_and_raw_output_round_trip_byte_for_byte(
    team_server: TeamServer, team: TeamStore, tmp_path: Path
) -> None:
    lib = _open(tmp_path, "bytes")
    run_id = _make_run(lib, started_at=time.time(), records=120, streams=("sum", "5", "7"))
    key = str(uuid.uuid4())
    assert team.publish(lib, run_id, key, ran_by="ann", origin="a")
    _series_equal(lib, run_id, team, key)
    local_chunks = sorted(
        (stream, metric, seq, n, bytes(t), bytes(v))
        for stream, metric, seq, n, t, v in lib.conn.execute(
            "SELECT s.stream, s.metric, c.seq, c.n, t.t, c.v FROM chunks c "
            "JOIN series s ON s.id = c.series_id JOIN times t ON t.id = c.time_id "
            "WHERE s.run_id = ?",
            (run_id,),
        )
    )
    with team_server.admin() as conn:
        team_chunks = sorted(
            (stream, metric, seq, n, bytes(t), bytes(v))
            for stream, metric, seq, n, t, v in conn.execute(
                "SELECT s.stream, s.metric, c.seq, c.n, t.t, c.v FROM chunks c "
                "JOIN series s ON s.id = c.series_id JOIN times t ON t.id = c.time_id "
                "JOIN runs r ON r.id = s.run_id WHERE r.uuid = %s",
                (key,),
            )
        )
        raw = conn.execute(
            "SELECT source, text FROM raw_chunks c JOIN runs r ON r.id = c.run_id "
            "WHERE r.uuid = %s ORDER BY seq",
            (key,),
        ).fetchall()
        analyses = conn.execute(
            "SELECT kind, json FROM analyses a JOIN runs r ON r.id = a.run_id WHERE r.uuid = %s",
            (key,),
        ).fetchall()
        (times,) = conn.execute(
            "SELECT count(*) FROM times t JOIN runs r ON r.id = t.run_id WHERE r.uuid = %s", (key,)
        ).fetchone()
    assert team_chunks == local_chunks
    assert len(team_chunks) > len(METRICS) * 3  # several flushes: several chunks per series
    assert raw == load_raw_output(lib, run_id)
    assert (
        analyses
        == lib.conn.execute(
            "SELECT kind, json FROM analyses WHERE run_id = ?", (run_id,)
        ).fetchall()
    )
    assert (
        times
        == lib.conn.execute("SELECT count(*) FROM times WHERE run_id = ?", (run_id,)).fetchone()[0]
    )
    lib.close()


def test_a_wrong_or_missing_password_is_an_auth_error_that_never_shows_it(
    team_server: TeamServer, team: TeamStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "not-" + team_server.password("alice")
    with pytest.raises(TeamAuthError) as info:
        TeamStore.connect(team_server.url("alice"), password=wrong)
    assert wrong not in str(info.value)
    assert "alice@127.0.0.1" in str(info.value)
    with pytest.raises(TeamAuthError) as info:
        TeamStore.connect(team_server.url("alice"))
    assert "~/.pgpass" in str(info.value) and "PGPASSWORD" in str(info.value)
    # libpq's own sources: PGPASSWORD, and a password in the URL (never shown in messages).
    monkeypatch.setenv("PGPASSWORD", team_server.password("alice"))
    with TeamStore.connect(team_server.url("alice")) as store:
        assert store.who() == ("alice", True)
    monkeypatch.delenv("PGPASSWORD")
    with TeamStore.connect(team_server.url("alice", password=True)) as store:
        assert team_server.password("alice") not in store.target


def test_a_reader_may_list_but_not_publish(
    team_server: TeamServer, team: TeamStore, tmp_path: Path
) -> None:
    lib = _open(tmp_path, "reader")
    run_id = _make_run(lib, started_at=time.time(), records=10)
    assert team.publish(lib, run_id, str(uuid.uuid4()), ran_by="ann", origin="a")
    with TeamStore.connect(
        team_server.url("reader"), password=team_server.password("reader")
    ) as reader:
        assert reader.ensure_schema() == SCHEMA_VERSION
        assert reader.who() == ("reader", False)
        assert [r.uuid for r in reader.list_runs()] == [r.uuid for r in team.list_runs()]
        before = reader.count_runs()
        with pytest.raises(TeamPermissionError) as info:
            reader.publish(lib, run_id, str(uuid.uuid4()), ran_by="ann", origin="a")
        assert "never widens" in str(info.value)
        assert reader.count_runs() == before
    lib.close()


def test_a_reader_on_an_empty_database_is_told_a_writer_must_connect_first(
    team_server: TeamServer,
) -> None:
    name = f"empty_{uuid.uuid4().hex[:8]}"
    team_server.create_database(name)
    url = team_server.url("reader", dbname=name)
    with TeamStore.connect(url, password=team_server.password("reader")) as reader:
        assert reader.schema_version() is None
        assert reader.who() == ("reader", False)
        with pytest.raises(TeamPermissionError) as info:
            reader.ensure_schema()
        assert "reader" in str(info.value) and "writer" in str(info.value)
        assert reader.schema_version() is None
    with TeamStore.connect(
        team_server.url("alice", dbname=name), password=team_server.password("alice")
    ) as alice:
        assert alice.who() == ("alice", True)
        assert alice.ensure_schema() == SCHEMA_VERSION
        assert alice.ensure_schema(create=False) == SCHEMA_VERSION


def test_a_newer_schema_on_the_server_is_refused(team_server: TeamServer) -> None:
    name = f"newer_{uuid.uuid4().hex[:8]}"
    team_server.create_database(name)
    url = team_server.url("alice", dbname=name)
    with TeamStore.connect(url, password=team_server.password("alice")) as alice:
        alice.ensure_schema()
    with team_server.admin(name) as conn:
        conn.execute(
            "UPDATE pb_meta SET value = %s WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),)
        )
    with TeamStore.connect(url, password=team_server.password("alice")) as alice:
        assert alice.schema_version() == SCHEMA_VERSION + 1
        for create in (True, False):
            with pytest.raises(TeamSchemaError) as info:
                alice.ensure_schema(create=create)
            assert "update Pairbench" in str(info.value)


def test_a_migration_is_applied_once_by_the_owner_of_the_tables(
    team_server: TeamServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = f"upgrade_{uuid.uuid4().hex[:8]}"
    team_server.create_database(name)

    def connect(role: str) -> TeamStore:
        return TeamStore.connect(
            team_server.url(role, dbname=name), password=team_server.password(role)
        )

    with connect("alice") as alice:
        assert alice.ensure_schema() == SCHEMA_VERSION
    step = "ALTER TABLE runs ADD COLUMN extra text NOT NULL DEFAULT ''"
    monkeypatch.setattr(team_schema, "MIGRATIONS", [*team_schema.MIGRATIONS, step])
    monkeypatch.setattr(team_store, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with connect("bob") as bob:
        with pytest.raises(TeamPermissionError) as info:
            bob.ensure_schema()
        assert "alice" in str(info.value) and "bob" in str(info.value)
        assert bob.schema_version() == SCHEMA_VERSION
    with connect("alice") as alice, connect("bob") as bob:
        assert alice.ensure_schema() == SCHEMA_VERSION + 1
        assert bob.ensure_schema() == SCHEMA_VERSION + 1
        assert alice.ensure_schema() == SCHEMA_VERSION + 1
    with team_server.admin(name) as conn:
        columns = conn.execute(
            "SELECT count(*) FROM information_schema.columns "
            "WHERE table_name = 'runs' AND column_name = 'extra'"
        ).fetchone()[0]
    assert columns == 1


def _small_runs(lib: Library, count: int, start: float) -> None:
    """Finished runs of varied pairs, tools, statuses, labels, tags and notes (no series)."""
    pairs, tools = ("zeta", "alpha", "Émile"), ("iperf3", "fio", "ping")
    statuses = (RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.CANCELLED)
    for i in range(count):
        spec = RunSpec(
            pair=pairs[i % 3],
            tool=tools[(i // 3) % 3],
            label=f"batch {i % 4}" if i % 5 else "",
            tags={"zone": "EU-" + "ab"[i % 2]} if i % 3 else {"big": "yes"},
        )
        # Some runs start at the same instant: the id breaks the tie.
        run_id = create_run(lib, spec, started_at=start + (i // 2))
        finish_run(lib, run_id, statuses[i % 3], summary={"x": i / 3}, complete=bool(i % 2))
        if i % 7 == 0:
            lib.conn.execute("UPDATE runs SET notes = ? WHERE id = ?", (f"note 50% of {i}", run_id))


def test_filters_orders_and_pages_are_the_local_librarys(
    team_server: TeamServer, tmp_path: Path
) -> None:
    name = f"filters_{uuid.uuid4().hex[:8]}"
    team_server.create_database(name)
    lib = _open(tmp_path, "filters")
    _small_runs(lib, 30, start=1_700_000_000.0)
    local_of: dict[str, int] = {}
    with TeamStore.connect(
        team_server.url("alice", dbname=name), password=team_server.password("alice")
    ) as store:
        store.ensure_schema()
        # Published oldest first: the server's ids (which break ties of start time) then run
        # in the local ids' order.
        for run in local_list_runs(lib, RunFilter(sort="id", descending=False)):
            key = str(uuid.uuid4())
            local_of[key] = run.id
            assert store.publish(lib, run.id, key, ran_by="ann", origin="a")
        filters = [
            RunFilter(),
            RunFilter(pair="alpha"),
            RunFilter(tool="fio", status=RunStatus.FAILED),
            RunFilter(label="batch 2"),
            RunFilter(label=""),
            RunFilter(text="50%"),
            RunFilter(text="eu-B"),
            RunFilter(tags=("zone=eu-a",)),
            RunFilter(tags=("big",)),
            RunFilter(since=1_700_000_004.0, until=1_700_000_011.0),
            RunFilter(limit=7, offset=5),
        ]
        filters += [
            RunFilter(sort=key, descending=descending, limit=12)
            for key in ("started", "pair", "tool", "status", "label")
            for descending in (True, False)
        ]
        for flt in filters:
            team_runs = store.list_runs(flt=flt)
            assert [local_of[r.uuid] for r in team_runs] == [
                r.id for r in local_list_runs(lib, flt)
            ], flt
            assert store.count_runs(flt) == count_runs(lib, flt), flt
        assert len(store.list_runs(limit=3)) == 3
    # The list's order and its filters walk an index: no sort of the whole table.
    with team_server.admin(name) as conn:
        conn.execute("SET enable_seqscan = off")
        for where in ("", "WHERE pair = 'alpha'", "WHERE tool = 'fio'", "WHERE status = 'failed'"):
            plan = "\n".join(
                str(row[0])
                for row in conn.execute(
                    f"EXPLAIN SELECT * FROM runs {where} ORDER BY started_at DESC, id DESC LIMIT 50"
                )
            )
            assert "Index Scan Backward" in plan and "Sort" not in plan, plan
    lib.close()


def _table_counts(server: TeamServer) -> dict[str, int]:
    with server.admin() as conn:
        return {
            table: int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
            for table in ("runs", "series", "times", "chunks", "raw_chunks", "analyses")
        }


def test_a_server_killed_mid_copy_keeps_nothing_and_a_second_publish_stores_once(
    team_server: TeamServer, team: TeamStore, tmp_path: Path
) -> None:
    lib = _open(tmp_path, "big")
    records = 200_000
    run_id = _make_run(lib, started_at=time.time(), records=records, per_flush=500)
    samples = records * 2 * len(METRICS)
    key = str(uuid.uuid4())
    before = _table_counts(team_server)

    # The publish reads the local chunks while it COPYs them: once the server shows the COPY
    # into chunks under way, the publish is held at its next local read, the server killed,
    # and the publish let go on.
    copy_seen, paused, killed = threading.Event(), threading.Event(), threading.Event()
    failures: list[str] = []

    def hold() -> int:
        if copy_seen.is_set() and not paused.is_set():
            paused.set()
            killed.wait(30)
        return 0

    def killer() -> None:
        try:
            with team_server.admin() as conn:
                deadline = time.monotonic() + 30
                while not conn.execute(
                    "SELECT count(*) FROM pg_stat_progress_copy "
                    "WHERE datname = current_database() AND relid = 'chunks'::regclass"
                ).fetchone()[0]:
                    if time.monotonic() > deadline:
                        failures.append("the COPY into chunks was never seen")
                        return
                    time.sleep(0.001)
            copy_seen.set()
            if not paused.wait(30):
                failures.append("the publish was not held mid-COPY")
                return
            team_server.kill()
        finally:
            killed.set()

    lib.conn.set_progress_handler(hold, 200)
    thread = threading.Thread(target=killer)
    thread.start()
    try:
        with pytest.raises(TeamUnreachableError):
            team.publish(lib, run_id, key, ran_by="ann", origin="a")
    finally:
        thread.join()
        lib.conn.set_progress_handler(None, 0)
        killed.set()
    assert failures == []
    with pytest.raises(TeamUnreachableError):
        TeamStore.connect(team_server.url("alice"), password=team_server.password("alice"))

    team_server.start()
    assert _table_counts(team_server) == before
    with TeamStore.connect(
        team_server.url("alice"), password=team_server.password("alice")
    ) as again:
        assert again.existing([key]) == set()
        started = time.perf_counter()
        assert again.publish(lib, run_id, key, ran_by="ann", origin="a") is True
        took = time.perf_counter() - started
        assert again.publish(lib, run_id, key, ran_by="ann", origin="a") is False
        assert again.count_runs() == before["runs"] + 1
        _series_equal(lib, run_id, again, key)
        loaded = again.load_series(key)
        assert sum(int(np.size(s.v)) for s in loaded) == samples
    print(f"published {samples} samples in {took:.3f} s: {samples / took:,.0f} samples/s")
    lib.close()


def test_an_unreachable_server_is_reported_as_such(team_server: TeamServer) -> None:
    url = f"postgresql://alice@127.0.0.1:{_closed_port()}/pairbench"
    with pytest.raises(TeamUnreachableError) as info:
        TeamStore.connect(url, password="x", timeout_s=2)
    assert "outbox" in str(info.value)
    missing = team_server.url("alice", dbname="nope")
    with pytest.raises(TeamError) as other:
        TeamStore.connect(missing, password=team_server.password("alice"))
    assert type(other.value) is TeamError and "nope" in str(other.value)


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
