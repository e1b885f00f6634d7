"""Run queries: create, finish, fetch, list with filters, edit notes, delete, facts, summary."""

from __future__ import annotations

import math
import os
import sqlite3
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pairbench.domain import Line, LineSource, Record, RunSpec, RunStatus
from pairbench.library import Library, LibraryError, Recorder
from pairbench.library.runs import (
    RunFilter,
    create_run,
    delete_run,
    finish_run,
    get_run,
    list_runs,
    set_run_facts,
    update_run_notes,
)
from pairbench.library.series import load_raw_output, load_series

FINAL = [s for s in RunStatus if s.is_final]


def _count(lib: Library, table: str) -> int:
    return int(lib.conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def _spec(
    pair: str = "local",
    tool: str = "iperf3",
    label: str = "",
    tags: Mapping[str, str] | None = None,
) -> RunSpec:
    return RunSpec(pair=pair, tool=tool, label=label, tags=dict(tags or {}))


def test_create_run_stores_spec_running_and_owned_by_this_process(library: Library) -> None:
    spec = RunSpec(
        pair="local",
        tool="iperf3",
        params={"duration": "10", "parallel": "4", "udp": "true"},
        label="baseline",
        tags={"env": "lab", "kernel": "6.1"},
    )
    before = time.time()
    run_id = create_run(library, spec)
    after = time.time()
    assert run_id > 0
    run = get_run(library, run_id)
    assert run.id == run_id
    assert run.spec == spec
    assert run.status is RunStatus.RUNNING
    assert before <= run.started_at <= after
    assert run.ended_at is None
    assert run.duration is None
    assert run.label == "baseline"
    assert dict(run.tags) == {"env": "lab", "kernel": "6.1"}
    assert (run.tool_version, run.notes, run.error) == ("", "", None)
    assert dict(run.summary) == {}
    assert not run.summary_complete
    assert dict(run.host_facts) == {}
    pid, token = library.conn.execute(
        "SELECT owner_pid, owner_token FROM runs WHERE id = ?", (run_id,)
    ).fetchone()
    assert pid == os.getpid()
    assert token != ""


def test_create_run_with_explicit_start_time(library: Library) -> None:
    run_id = create_run(library, _spec(), started_at=1234.5)
    run = get_run(library, run_id)
    assert run.started_at == 1234.5
    updated = library.conn.execute("SELECT updated_at FROM runs WHERE id = ?", (run_id,))
    assert updated.fetchone()[0] == 1234.5


def test_run_ids_are_distinct(library: Library) -> None:
    ids = [create_run(library, _spec()) for _ in range(20)]
    assert len(set(ids)) == 20


@pytest.mark.parametrize("status", FINAL)
def test_finish_run_stores_outcome(library: Library, status: RunStatus) -> None:
    run_id = create_run(library, _spec(), started_at=100.0)
    finish_run(
        library,
        run_id,
        status,
        summary={"throughput_bps": 9.41e8, "retransmits": 2.0},
        complete=status is RunStatus.COMPLETED,
        error=None if status is RunStatus.COMPLETED else f"it {status.value}",
        ended_at=112.25,
    )
    run = get_run(library, run_id)
    assert run.status is status
    assert run.ended_at == 112.25
    assert run.duration == pytest.approx(12.25)
    assert dict(run.summary) == {"throughput_bps": 9.41e8, "retransmits": 2.0}
    assert run.summary_complete is (status is RunStatus.COMPLETED)
    assert run.error == (None if status is RunStatus.COMPLETED else f"it {status.value}")
    updated = library.conn.execute("SELECT updated_at FROM runs WHERE id = ?", (run_id,))
    assert updated.fetchone()[0] == 112.25


def test_finish_run_defaults_end_to_now(library: Library) -> None:
    run_id = create_run(library, _spec())
    before = time.time()
    finish_run(library, run_id, RunStatus.COMPLETED, summary={}, complete=True)
    run = get_run(library, run_id)
    assert run.ended_at is not None
    assert before <= run.ended_at <= time.time()


def test_finish_run_refuses_running_status(library: Library) -> None:
    run_id = create_run(library, _spec())
    with pytest.raises(ValueError, match="final"):
        finish_run(library, run_id, RunStatus.RUNNING, summary={}, complete=False)
    assert get_run(library, run_id).status is RunStatus.RUNNING


def test_get_run_unknown_id(library: Library) -> None:
    with pytest.raises(LibraryError, match="no run with id 999"):
        get_run(library, 999)


def test_summary_floats_round_trip_exactly(library_path: Path) -> None:
    summary = {
        "throughput_bps": 941_234_567.891_234_5,
        "tiny": 5e-324,
        "huge": 1.7976931348623157e308,
        "third": 1 / 3,
        "negative": -0.1,
        "zero": 0.0,
        "big_int": float(2**53),
        "jitter_ms": 0.000_123_456_789,
    }
    with Library.open(library_path) as lib:
        run_id = create_run(lib, _spec())
        finish_run(lib, run_id, RunStatus.COMPLETED, summary=summary, complete=True)
    with Library.open(library_path) as lib:
        stored = get_run(lib, run_id).summary
    assert dict(stored) == summary
    for key, value in summary.items():
        assert type(stored[key]) is float
        assert stored[key].hex() == value.hex(), key


def test_summary_integers_come_back_as_floats(library: Library) -> None:
    run_id = create_run(library, _spec())
    finish_run(library, run_id, RunStatus.COMPLETED, summary={"packets": 10}, complete=True)
    stored = get_run(library, run_id).summary
    assert stored == {"packets": 10.0}
    assert type(stored["packets"]) is float


def test_summary_non_finite_values_round_trip(library: Library) -> None:
    run_id = create_run(library, _spec())
    summary = {"nan": math.nan, "inf": math.inf, "ninf": -math.inf}
    finish_run(library, run_id, RunStatus.FAILED, summary=summary, complete=False)
    stored = get_run(library, run_id).summary
    assert math.isnan(stored["nan"])
    assert stored["inf"] == math.inf
    assert stored["ninf"] == -math.inf


def test_set_run_facts_round_trip(library_path: Path) -> None:
    facts = {
        "client": {"kernel": "6.1.0-18-amd64", "cpu": "AMD EPYC 7B13", "mtu": "9001"},
        "server": {"kernel": "5.15", "qdisc": "fq", "note": "ünïcødé ✓"},
    }
    with Library.open(library_path) as lib:
        run_id = create_run(lib, _spec())
        other = create_run(lib, _spec())
        set_run_facts(lib, run_id, tool_version="iperf 3.12 (cJSON 1.7.15)", host_facts=facts)
    with Library.open(library_path) as lib:
        run = get_run(lib, run_id)
        assert run.tool_version == "iperf 3.12 (cJSON 1.7.15)"
        assert {k: dict(v) for k, v in run.host_facts.items()} == facts
        untouched = get_run(lib, other)
        assert (untouched.tool_version, dict(untouched.host_facts)) == ("", {})
        # Each field is optional and leaves the other one alone.
        set_run_facts(lib, run_id, tool_version="3.17")
        assert {k: dict(v) for k, v in get_run(lib, run_id).host_facts.items()} == facts
        set_run_facts(lib, run_id, host_facts={"client": {"kernel": "6.6"}})
        run = get_run(lib, run_id)
        assert run.tool_version == "3.17"
        assert {k: dict(v) for k, v in run.host_facts.items()} == {"client": {"kernel": "6.6"}}
        set_run_facts(lib, run_id)
        assert get_run(lib, run_id) == run


# --- listing --------------------------------------------------------------------------------


@pytest.fixture
def populated(library: Library) -> dict[str, int]:
    """Runs on two pairs and three tools with known start times, labels, tags and notes."""
    lib = library
    ids = {
        "a": create_run(lib, _spec(tool="iperf3", label="morning tcp"), started_at=100.0),
        "b": create_run(lib, _spec(tool="ping", tags={"site": "berlin"}), started_at=300.0),
        "c": create_run(lib, _spec(pair="wan", tool="iperf3"), started_at=200.0),
        "d": create_run(lib, _spec(pair="wan", tool="fio", label="disk"), started_at=400.0),
        "e": create_run(lib, _spec(tool="iperf3"), started_at=300.0),  # same time as b
    }
    finish_run(lib, ids["a"], RunStatus.COMPLETED, summary={}, complete=True, ended_at=110.0)
    finish_run(lib, ids["b"], RunStatus.FAILED, summary={}, complete=False, ended_at=310.0)
    finish_run(lib, ids["c"], RunStatus.COMPLETED, summary={}, complete=True, ended_at=210.0)
    update_run_notes(lib, ids["c"], notes="Saw retransmits during the Berlin outage")
    return ids


def _ids(lib: Library, **kw: Any) -> list[int]:
    return [run.id for run in list_runs(lib, RunFilter(**kw))]


def test_list_runs_newest_first(library: Library, populated: dict[str, int]) -> None:
    p = populated
    # Equal start times: the later-created run (higher id) first.
    expected = [p["d"], p["e"], p["b"], p["c"], p["a"]]
    assert [r.id for r in list_runs(library)] == expected
    assert _ids(library) == expected
    assert [r.id for r in list_runs(library, None)] == expected


def test_list_runs_filters(library: Library, populated: dict[str, int]) -> None:
    p = populated
    assert _ids(library, pair="wan") == [p["d"], p["c"]]
    assert _ids(library, pair="local") == [p["e"], p["b"], p["a"]]
    assert _ids(library, tool="iperf3") == [p["e"], p["c"], p["a"]]
    assert _ids(library, tool="iperf3", pair="wan") == [p["c"]]
    assert _ids(library, status=RunStatus.COMPLETED) == [p["c"], p["a"]]
    assert _ids(library, status=RunStatus.RUNNING) == [p["d"], p["e"]]
    assert _ids(library, status=RunStatus.FAILED, tool="ping") == [p["b"]]
    assert _ids(library, status=RunStatus.CANCELLED) == []
    assert _ids(library, pair="nowhere") == []
    assert _ids(library, tool="iperf3", limit=2) == [p["e"], p["c"]]
    assert _ids(library, limit=1) == [p["d"]]


def test_list_runs_text_search(library: Library, populated: dict[str, int]) -> None:
    p = populated
    assert _ids(library, text="morning") == [p["a"]]  # label
    assert _ids(library, text="OUTAGE") == [p["c"]]  # notes, case-insensitive
    assert _ids(library, text="berlin") == [p["b"], p["c"]]  # tag value and notes
    assert _ids(library, text="wan") == [p["d"], p["c"]]  # pair name
    assert _ids(library, text="disk", pair="wan") == [p["d"]]
    assert _ids(library, text="disk", pair="local") == []
    assert _ids(library, text="no such words") == []


def test_list_runs_returns_full_runs(library: Library, populated: dict[str, int]) -> None:
    for run in list_runs(library):
        assert run == get_run(library, run.id)


# --- editing notes --------------------------------------------------------------------------


def test_update_run_notes(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        run_id = create_run(lib, _spec(label="old", tags={"a": "1"}))
        update_run_notes(lib, run_id, notes="first\nsecond line")
        run = get_run(lib, run_id)
        assert (run.label, dict(run.tags), run.notes) == ("old", {"a": "1"}, "first\nsecond line")
        update_run_notes(lib, run_id, label="new", tags={"b": "2", "c": "3"})
    with Library.open(library_path) as lib:
        run = get_run(lib, run_id)
        assert (run.label, dict(run.tags), run.notes) == (
            "new",
            {"b": "2", "c": "3"},
            "first\nsecond line",
        )
        assert run.spec.label == "new"
        assert dict(run.spec.tags) == {"b": "2", "c": "3"}
        update_run_notes(lib, run_id, label="", tags={}, notes="")
        run = get_run(lib, run_id)
        assert (run.label, dict(run.tags), run.notes) == ("", {}, "")


def test_update_run_notes_only_touches_that_run(library: Library) -> None:
    a = create_run(library, _spec(label="a"))
    b = create_run(library, _spec(label="b"))
    update_run_notes(library, a, label="A", notes="n")
    assert (get_run(library, b).label, get_run(library, b).notes) == ("b", "")


def test_update_run_notes_unknown_run(library: Library) -> None:
    with pytest.raises(LibraryError, match="no run with id 4242"):
        update_run_notes(library, 4242, notes="x")


# --- deleting -------------------------------------------------------------------------------


def _record(lib: Library, run_id: int, n: int = 50) -> None:
    rec = Recorder(lib, run_id)
    for flush in range(3):
        rec.add(
            [Record("sum", float(i), ("throughput_bps",), (float(i * flush),)) for i in range(n)]
        )
        rec.add([Record("1", float(i), ("rtt_ms",), (1.5,)) for i in range(n)])
        rec.add_line(Line(LineSource.CLIENT_OUT, f"flush {flush}", 0.0))
        rec.add_line(Line(LineSource.SERVER_ERR, f"warn {flush}", 0.0))
        rec.flush()


def test_delete_run_cascades_to_series_chunks_and_raw_output(library: Library) -> None:
    doomed = create_run(library, _spec())
    kept = create_run(library, _spec(tool="ping"))
    _record(library, doomed)
    _record(library, kept)
    finish_run(library, doomed, RunStatus.COMPLETED, summary={"x": 1.0}, complete=True)
    counts = {t: _count(library, t) for t in ("series", "chunks", "raw_chunks")}
    assert counts == {"series": 4, "chunks": 12, "raw_chunks": 12}
    kept_series = load_series(library, kept)

    delete_run(library, doomed)

    with pytest.raises(LibraryError):
        get_run(library, doomed)
    assert load_series(library, doomed) == []
    assert load_raw_output(library, doomed) == []
    assert {t: _count(library, t) for t in ("series", "chunks", "raw_chunks")} == {
        "series": 2,
        "chunks": 6,
        "raw_chunks": 6,
    }
    orphans = library.conn.execute(
        "SELECT COUNT(*) FROM chunks WHERE series_id NOT IN (SELECT id FROM series)"
    ).fetchone()[0]
    assert orphans == 0
    assert [r.id for r in list_runs(library)] == [kept]
    after = load_series(library, kept)
    assert [(s.stream, s.metric) for s in after] == [(s.stream, s.metric) for s in kept_series]
    for old, new in zip(kept_series, after, strict=True):
        assert old.t.tolist() == new.t.tolist()
        assert old.v.tolist() == new.v.tolist()
    assert len(load_raw_output(library, kept)) == 6


def test_delete_run_persists_across_reopen(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        run_id = create_run(lib, _spec())
        _record(lib, run_id)
        finish_run(lib, run_id, RunStatus.CANCELLED, summary={}, complete=False)
        delete_run(lib, run_id)
    with Library.open(library_path) as lib:
        assert list_runs(lib) == []
        assert _count(lib, "series") == _count(lib, "chunks") == _count(lib, "raw_chunks") == 0


def test_delete_run_refuses_a_running_run(library: Library) -> None:
    run_id = create_run(library, _spec())
    _record(library, run_id)
    with pytest.raises(LibraryError, match="still running"):
        delete_run(library, run_id)
    assert get_run(library, run_id).status is RunStatus.RUNNING
    assert _count(library, "series") == 2
    assert _count(library, "chunks") == 6
    assert _count(library, "raw_chunks") == 6


@pytest.mark.parametrize("status", FINAL)
def test_delete_run_accepts_every_final_status(library: Library, status: RunStatus) -> None:
    run_id = create_run(library, _spec())
    finish_run(library, run_id, status, summary={}, complete=False)
    delete_run(library, run_id)
    assert list_runs(library) == []


def test_delete_unknown_run(library: Library) -> None:
    with pytest.raises(LibraryError, match="no run with id 77"):
        delete_run(library, 77)


def test_runs_table_rejects_orphan_series_rows(library: Library) -> None:
    """The cascade relies on foreign keys being enforced on this connection."""
    with pytest.raises(sqlite3.IntegrityError):
        library.conn.execute(
            "INSERT INTO raw_chunks (run_id, seq, source, text) VALUES (31337, 0, 'x', 'y')"
        )
