"""A run's time axis stored once: shared time rows, the 3 -> 5 migrations of a release library."""

from __future__ import annotations

import base64
import io
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import Line, LineSource, Record, RunSpec, RunStatus
from pairbench.library import Library, LibraryError, Recorder, check_library_file
from pairbench.library.analyses import get_analyses
from pairbench.library.migrations import SCHEMA_VERSION, migrate
from pairbench.library.runs import create_run, delete_run, finish_run, get_run
from pairbench.library.series import compact_series, load_series

LIBRARIES = Path(__file__).resolve().parents[1] / "data" / "libraries"
RELEASE = LIBRARIES / "release-v3.pblib"
GOLDEN = LIBRARIES / "release-v3.golden.json"
TCP = ("throughput_bps", "retransmits", "cwnd_bytes")


def _count(conn: sqlite3.Connection, sql: str, *args: object) -> int:
    return int(conn.execute(sql, args).fetchone()[0])


def _times(lib: Library, run_id: int) -> int:
    return _count(lib.conn, "SELECT COUNT(*) FROM times WHERE run_id = ?", run_id)


def _orphan_times(conn: sqlite3.Connection) -> int:
    """Time rows no chunk refers to, or of a run that no longer exists."""
    return _count(
        conn,
        "SELECT COUNT(*) FROM times WHERE id NOT IN (SELECT time_id FROM chunks) "
        "OR run_id NOT IN (SELECT id FROM runs)",
    )


def _dangling(conn: sqlite3.Connection) -> int:
    """Chunks whose time row is missing, of another run or of another length."""
    return _count(
        conn,
        "SELECT COUNT(*) FROM chunks c JOIN series s ON s.id = c.series_id "
        "LEFT JOIN times tm ON tm.id = c.time_id "
        "WHERE tm.id IS NULL OR tm.run_id != s.run_id OR tm.n != c.n",
    )


def _time_ids(lib: Library, run_id: int) -> dict[tuple[str, str], tuple[int, ...]]:
    rows = lib.conn.execute(
        "SELECT s.stream, s.metric, c.time_id FROM series s JOIN chunks c ON c.series_id = s.id "
        "WHERE s.run_id = ? ORDER BY s.id, c.seq",
        (run_id,),
    ).fetchall()
    out: dict[tuple[str, str], tuple[int, ...]] = {}
    for stream, metric, time_id in rows:
        out[(stream, metric)] = (*out.get((stream, metric), ()), int(time_id))
    return out


def _arrays(lib: Library, run_id: int) -> dict[tuple[str, str], tuple[bytes, bytes]]:
    return {(s.stream, s.metric): (s.t.tobytes(), s.v.tobytes()) for s in load_series(lib, run_id)}


def _live_run(lib: Library, seconds: int, *, late_from: int = 4) -> int:
    """Streams "sum", "5" (TCP metrics, "retransmits" only from ``late_from``) and "7" whose
    time stamps are its own, one flush a second."""
    run_id = create_run(lib, RunSpec(pair="local", tool="iperf3"))
    rec = Recorder(lib, run_id)
    for second in range(1, seconds + 1):
        t = float(second)
        five = TCP if second >= late_from else ("throughput_bps", "cwnd_bytes")
        rec.add(
            [
                Record("sum", t, ("throughput_bps",), (t * 10,)),
                Record("5", t, five, tuple(t + k for k in range(len(five)))),
                Record("7", t + 0.25, ("throughput_bps",), (t * 7,)),
            ]
        )
        rec.flush()
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={}, complete=True)
    return run_id


# --- writing --------------------------------------------------------------------------------


def test_a_flush_stores_each_distinct_time_blob_once(library: Library) -> None:
    run_id = _live_run(library, 1)
    # sum and 5 share the instant 1.0; 7 reports at 1.25: two time rows for four series.
    assert _times(library, run_id) == 2
    ids = _time_ids(library, run_id)
    assert len(ids) == 4
    assert (
        ids[("sum", "throughput_bps")] == ids[("5", "throughput_bps")] == ids[("5", "cwnd_bytes")]
    )
    assert ids[("7", "throughput_bps")] != ids[("sum", "throughput_bps")]
    loaded = {(s.stream, s.metric): s for s in load_series(library, run_id)}
    assert loaded[("7", "throughput_bps")].t.tolist() == [1.25]
    assert loaded[("sum", "throughput_bps")].t.tolist() == [1.0]
    assert _dangling(library.conn) == _orphan_times(library.conn) == 0


def test_series_with_different_times_in_one_buffer_history_load_exactly(
    library: Library,
) -> None:
    """A metric that appears later, and a stream of its own instants, keep their own times."""
    run_id = _live_run(library, 6, late_from=4)
    loaded = {(s.stream, s.metric): s for s in load_series(library, run_id)}
    assert loaded[("5", "retransmits")].t.tolist() == [4.0, 5.0, 6.0]
    assert loaded[("5", "retransmits")].v.tolist() == [5.0, 6.0, 7.0]
    assert loaded[("5", "cwnd_bytes")].t.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert loaded[("5", "cwnd_bytes")].v.tolist() == [2.0, 3.0, 4.0, 6.0, 7.0, 8.0]
    assert loaded[("7", "throughput_bps")].t.tolist() == [s + 0.25 for s in range(1, 7)]
    # Within each flush the late metric shares the time row of the others.
    ids = _time_ids(library, run_id)
    assert ids[("5", "retransmits")] == ids[("5", "throughput_bps")][3:]


def test_series_sharing_time_rows_share_one_read_only_time_array(library: Library) -> None:
    run_id = _live_run(library, 3, late_from=1)
    loaded = {(s.stream, s.metric): s for s in load_series(library, run_id)}
    shared = loaded[("sum", "throughput_bps")].t
    assert all(loaded[("5", m)].t is shared for m in TCP)
    assert loaded[("7", "throughput_bps")].t is not shared
    assert not shared.flags.writeable


def test_a_rolled_back_flush_leaves_no_time_rows(library: Library) -> None:
    run_id = create_run(library, RunSpec(pair="local", tool="ping"))
    rec = Recorder(library, run_id)
    rec.add([Record("sum", 1.0, ("rtt_ms",), (0.5,))])
    library.conn.execute(
        "CREATE TEMP TRIGGER fail BEFORE INSERT ON raw_chunks "
        "BEGIN SELECT RAISE(ABORT, 'disk says no'); END"
    )
    rec.add_line(Line(LineSource.CLIENT_OUT, "x", 0.0))
    with pytest.raises(sqlite3.IntegrityError):
        rec.flush()
    assert _times(library, run_id) == 0
    library.conn.execute("DROP TRIGGER temp.fail")
    assert rec.flush() == 1
    assert _times(library, run_id) == 1
    assert [s.t.tolist() for s in load_series(library, run_id)] == [[1.0]]


# --- deleting and compacting ----------------------------------------------------------------


def test_deleting_a_run_deletes_its_time_rows_only(library: Library) -> None:
    gone = _live_run(library, 5)
    kept = _live_run(library, 4)
    kept_times = _times(library, kept)
    before = _arrays(library, kept)
    assert _times(library, gone) > 0
    delete_run(library, gone)
    assert _times(library, gone) == 0
    assert _times(library, kept) == kept_times
    assert _orphan_times(library.conn) == _dangling(library.conn) == 0
    assert _arrays(library, kept) == before


@pytest.mark.parametrize("max_samples", [1 << 20, 4, 1])
def test_compaction_keeps_series_of_the_same_times_sharing(
    library: Library, max_samples: int
) -> None:
    run_id = _live_run(library, 12, late_from=5)
    other = _live_run(library, 3)
    other_before = _arrays(library, other)
    before = _arrays(library, run_id)
    compact_series(library.conn, run_id, max_samples=max_samples)
    assert not library.conn.in_transaction
    assert _arrays(library, run_id) == before
    assert _arrays(library, other) == other_before
    ids = _time_ids(library, run_id)
    # One merged time sequence per distinct set of instants: sum and 5 (12 samples), the
    # late retransmits (8), and 7 (12 of its own): no old per-flush row is left.
    common = ids[("sum", "throughput_bps")]
    assert ids[("5", "throughput_bps")] == ids[("5", "cwnd_bytes")] == common
    assert len(common) == -(-12 // max_samples)
    assert len(ids[("5", "retransmits")]) == -(-8 // max_samples)
    assert ids[("7", "throughput_bps")] != common
    distinct = {i for seq in ids.values() for i in seq}
    assert _times(library, run_id) == len(distinct)
    assert _orphan_times(library.conn) == _dangling(library.conn) == 0
    # Again: small pieces (max_samples < 1024) are merged anew, big ones are left alone.
    compact_series(library.conn, run_id, max_samples=max_samples)
    assert _arrays(library, run_id) == before
    assert _orphan_times(library.conn) == _dangling(library.conn) == 0
    if max_samples > 12:
        assert _time_ids(library, run_id) == ids


def test_compaction_shares_identical_merged_times_of_different_flush_histories(
    library: Library,
) -> None:
    """Two series with the same instants, flushed differently, end up on one time row."""
    run_id = create_run(library, RunSpec(pair="local", tool="ping"))
    rec = Recorder(library, run_id)
    for i in range(6):
        rec.add([Record("a", float(i), ("rtt_ms",), (float(i),))])
        rec.flush()
    rec.add([Record("b", float(i), ("rtt_ms",), (float(-i),)) for i in range(3)])
    rec.flush()
    rec.add([Record("b", float(i), ("rtt_ms",), (float(-i),)) for i in range(3, 6)])
    rec.flush()
    finish_run(library, run_id, RunStatus.COMPLETED, summary={}, complete=True)
    before = _arrays(library, run_id)
    compact_series(library.conn, run_id)
    assert _arrays(library, run_id) == before
    ids = _time_ids(library, run_id)
    assert ids[("a", "rtt_ms")] == ids[("b", "rtt_ms")]
    assert _times(library, run_id) == 1


# --- integrity ------------------------------------------------------------------------------


def test_a_chunk_without_its_time_row_is_reported(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        run_id = _live_run(lib, 3)
        assert check_library_file(library_path).ok
        lib.conn.execute("DELETE FROM times WHERE id = (SELECT MAX(id) FROM times)")
        with pytest.raises(LibraryError, match="missing time row"):
            load_series(lib, run_id)
        assert not lib.conn.in_transaction
    report = check_library_file(library_path)
    assert not report.ok
    assert f"run {run_id}" in report.problems[0]


# --- the release library (schema 3) ---------------------------------------------------------


def _golden() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(GOLDEN.read_text(encoding="utf-8"))
    return data


@pytest.fixture
def release_copy(tmp_path: Path) -> Path:
    path = tmp_path / "release.pblib"
    shutil.copyfile(RELEASE, path)
    return path


def test_the_release_library_is_the_schema_before_the_shared_time_axis() -> None:
    conn = sqlite3.connect(f"{RELEASE.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        assert _count(conn, "PRAGMA user_version") == 3 == _golden()["schema_version"]
        columns = [row[1] for row in conn.execute("PRAGMA table_info(chunks)")]
        assert columns == ["series_id", "seq", "n", "t", "v"]
    finally:
        conn.close()
    assert RELEASE.stat().st_size < 300_000


def test_the_release_library_migrates_and_loads_what_the_release_loaded(
    release_copy: Path,
) -> None:
    raw = sqlite3.connect(release_copy)
    distinct_blobs = _count(
        raw,
        "SELECT COUNT(*) FROM (SELECT DISTINCT s.run_id, c.t FROM chunks c "
        "JOIN series s ON s.id = c.series_id)",
    )
    old_chunks = _count(raw, "SELECT COUNT(*) FROM chunks")
    raw.close()
    golden = _golden()
    with Library.open(release_copy) as lib:
        assert _count(lib.conn, "PRAGMA user_version") == SCHEMA_VERSION
        assert lib.warnings == []
        for run in golden["runs"]:
            loaded = load_series(lib, run["id"])
            assert [(s.stream, s.metric, s.unit) for s in loaded] == [
                (g["stream"], g["metric"], g["unit"]) for g in run["series"]
            ]
            for s, g in zip(loaded, run["series"], strict=True):
                assert s.t.tobytes() == base64.b64decode(g["t"]), (run["id"], s.stream, s.metric)
                assert s.v.tobytes() == base64.b64decode(g["v"]), (run["id"], s.stream, s.metric)
        # One time row per distinct blob of a run; every chunk kept and pointing right.
        assert _count(lib.conn, "SELECT COUNT(*) FROM times") == distinct_blobs < old_chunks
        assert _count(lib.conn, "SELECT COUNT(*) FROM chunks") == old_chunks
        assert _dangling(lib.conn) == _orphan_times(lib.conn) == 0
        assert _count(lib.conn, "SELECT COUNT(*) FROM sqlite_temp_master") == 0
        # The rest of the release's data is still there.
        eight = get_run(lib, 4)
        assert (eight.spec.label, dict(eight.spec.tags)) == (
            "eight streams",
            {"cloud": "none", "site": "lab"},
        )
        assert get_analyses(lib, 4)["burst"]["step_s"] == 12.5
        assert dict(get_run(lib, 1).spec.tags)["imported"] == "v321_tcp_P2_json.out"
        assert get_run(lib, 6).status is RunStatus.INTERRUPTED
    conn = sqlite3.connect(release_copy)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        conn.close()
    out, err = io.StringIO(), io.StringIO()
    code = run_cli(
        ["--library", str(release_copy), "library", "check"], Environment(stdout=out, stderr=err)
    )
    assert code == 0, err.getvalue()
    assert "ok" in out.getvalue()


def test_the_migrated_release_library_keeps_working(release_copy: Path) -> None:
    """Compacting the uncompacted interrupted run, recording, deleting: all on migrated data."""
    golden = {run["id"]: run for run in _golden()["runs"]}
    with Library.open(release_copy) as lib:
        ping = 6
        assert _count(lib.conn, "SELECT COUNT(*) FROM times WHERE run_id = ?", ping) == 60
        compact_series(lib.conn, ping)
        assert _times(lib, ping) == 1
        [series] = load_series(lib, ping)
        assert series.t.tobytes() == base64.b64decode(golden[ping]["series"][0]["t"])
        assert series.v.tobytes() == base64.b64decode(golden[ping]["series"][0]["v"])
        new = _live_run(lib, 3, late_from=1)
        assert len(load_series(lib, new)) == 5
        delete_run(lib, 4)
        assert _times(lib, 4) == 0
        assert _orphan_times(lib.conn) == _dangling(lib.conn) == 0
    assert check_library_file(release_copy).ok


def test_the_migration_is_one_transaction(release_copy: Path) -> None:
    """A failure inside the 4 -> 5 step leaves the file whole at version 4 (3 -> 4 is done)."""
    conn = sqlite3.connect(release_copy, isolation_level=None)
    try:
        conn.execute("CREATE TABLE chunks_v5 (x)")  # the step's new table name is taken
        with pytest.raises(sqlite3.OperationalError):
            migrate(conn)
        assert _count(conn, "PRAGMA user_version") == 4
        assert [row[1] for row in conn.execute("PRAGMA table_info(chunks)")][3] == "t"
        assert conn.execute("SELECT name FROM sqlite_master WHERE name = 'times'").fetchall() == []
        conn.execute("DROP TABLE chunks_v5")
        migrate(conn)
        assert _count(conn, "PRAGMA user_version") == SCHEMA_VERSION
    finally:
        conn.close()


def test_golden_series_are_not_trivially_equal() -> None:
    """The golden holds real, distinct arrays (a wrong join would mix them up)."""
    runs = _golden()["runs"]
    blobs = [g["v"] for run in runs for g in run["series"]]
    assert len(runs) == 6 and len(blobs) > 60
    assert len(set(blobs)) > 0.9 * len(blobs)
    ts = {g["t"] for run in runs for g in run["series"]}
    assert len(ts) > 5
    sample = np.frombuffer(base64.b64decode(runs[3]["series"][0]["t"]), dtype="<f8")
    assert sample.size == 60
