"""Comparing this computer's runs with the team library's against a real PostgreSQL server:
alice publishes two runs, bob has one of his own; bob's comparison of the three (services,
``pairbench compare 1 team:UUID ...`` and the window's Team source) gives the statistics a
comparison of the same three runs in one local library gives; a team run's series are
fetched once; a server out of reach is said."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from pairbench.analysis.compare import Comparison, compare
from pairbench.analysis.compare_runs import GroupBy, RunInput
from pairbench.domain import Record, RunSpec, RunStatus
from pairbench.export.compare_json import comparison_payload
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run, finish_run
from pairbench.library.team import local
from pairbench.library.team.store import TeamUnreachableError
from pairbench.services import team
from pairbench.services.compare import compare_inputs
from pairbench.services.compare_refs import TeamRef, load_compare_inputs, parse_refs
from pairbench.services.team_browser import TeamSeriesCache
from pairbench.ui.bridge import EngineBridge
from teamkit import TeamServer

PAIRBENCH = [sys.executable, "-m", "pairbench"]
WAIT_MS = 20_000
SHOTS_ENV = "PAIRBENCH_SHOTS"
METRIC = "throughput_bps"
GROUPINGS = ("run", "label", "pair", "tag:zone")
# The three runs: (pair, label, zone, samples, base throughput); the first is bob's own, the
# others alice's. Their throughput comes from their series (the summaries lack it).
RUNS = (
    ("zone-a", "baseline", "a", 8, 1.00e9),
    ("zone-b", "candidate", "b", 11, 1.20e9),
    ("zone-b", "candidate", "b", 14, 1.26e9),
)


# libpq finds each role's password in a ~/.pgpass of the test's own (teamkit).
pytestmark = pytest.mark.usefixtures("team_passwords")


def _make_run(lib: Library, k: int, started_at: float) -> int:
    """Run ``k`` of ``RUNS``: a finished iperf3 run with a throughput series and a summary
    without throughput (so a comparison reads the series)."""
    pair, label, zone, samples, base = RUNS[k]
    run_id = create_run(
        lib,
        RunSpec(pair, "iperf3", {"time": "5"}, label=label, tags={"zone": zone}),
        started_at=started_at,
    )
    recorder = Recorder(lib, run_id)
    recorder.add(
        [
            Record("sum", (i + 1) * 0.5, (METRIC,), (base + ((i * 7919) % 13) * 3.1e6,))
            for i in range(samples)
        ]
    )
    recorder.flush()
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={"retransmits": 3.0 * k}, complete=True)
    return run_id


@pytest.fixture
def libraries(team_server: TeamServer, tmp_path: Path) -> Iterator[tuple[Path, list[str], Path]]:
    """bob's library path (his run 0, connected to a fresh team library where alice published
    runs 1 and 2), the UUIDs of alice's runs, and a reference library holding all three."""
    db = f"t_{uuid.uuid4().hex[:10]}"
    team_server.create_database(db)
    start = time.time() - 3600
    reference = tmp_path / "reference.sqlite"
    with Library.open(reference) as ref:
        for k in range(3):
            _make_run(ref, k, start + 60 * k)
    with Library.open(tmp_path / "alice.sqlite") as alice:
        team.connect(alice, team_server.url("alice", dbname=db), name="alice", auto=False)
        ids = [_make_run(alice, k, start + 60 * k) for k in (1, 2)]
        result = team.push(alice, ids)
        assert result.error == "" and result.pushed == ids
        uuids = [local.run_uuid(alice, i) for i in ids]
    bob = tmp_path / "bob.sqlite"
    with Library.open(bob) as lib:
        team.connect(lib, team_server.url("bob", dbname=db), name="bob", auto=False)
        _make_run(lib, 0, start)
    yield bob, uuids, reference


def _reference(path: Path) -> list[RunInput]:
    with Library.open(path) as lib:
        return compare_inputs(lib, [1, 2, 3])


def _same_statistics(got: Comparison, want: Comparison, *, names: bool) -> None:
    """The two comparisons agree group by group (names too unless grouped by run: ids
    differ), and their curves are the same series."""
    a, b = comparison_payload(got), comparison_payload(want)
    assert len(a["groups"]) == len(b["groups"])
    for mine, theirs in zip(a["groups"], b["groups"], strict=True):
        assert mine["stats"] == theirs["stats"]
        assert mine["vs_baseline"] == theirs["vs_baseline"]
        assert [v["value"] for v in mine["values"]] == [v["value"] for v in theirs["values"]]
        assert {v["source"] for v in mine["values"]} == {"series mean"}
        if names:
            assert mine["name"] == theirs["name"]
    for mine, theirs in zip(a["table"]["rows"], b["table"]["rows"], strict=True):
        assert mine["cells"] == theirs["cells"]
    assert len(got.curves) == len(want.curves) == len(RUNS)
    for c, d in zip(got.curves, want.curves, strict=True):
        assert c.t.tobytes() == d.t.tobytes() and c.v.tobytes() == d.v.tobytes()
    mixed = [r.field for r in got.diff.rows]
    assert "ran by" in mixed  # bob's run and alice's differ in who ran them
    assert [f for f in mixed if f != "ran by"] == [r.field for r in want.diff.rows]


def test_a_comparison_of_local_and_team_runs_matches_the_same_runs_in_one_library(
    libraries: tuple[Path, list[str], Path],
) -> None:
    bob, uuids, reference = libraries
    want_inputs = _reference(reference)
    cache = TeamSeriesCache()
    with Library.open(bob) as lib:
        refs = parse_refs(lib, ["1", *(f"team:{u.upper()}" for u in uuids), f"team:{uuids[0]}"])
        assert refs == [1, *(TeamRef(u) for u in uuids)]  # named twice: compared once
        loaded = load_compare_inputs(lib, refs, cache)
        assert cache.fetches == len(uuids)
        again = load_compare_inputs(lib, refs, cache)
    assert cache.fetches == len(uuids)  # the second load fetched nothing
    assert [i.run.id < 0 for i in loaded.inputs] == [False, True, True]
    assert {p.uuid for p in loaded.team.values()} == set(uuids)
    assert {p.ran_by for p in loaded.team.values()} == {"alice"}
    for item, same in zip(loaded.inputs, again.inputs, strict=True):
        assert item.run == same.run
        assert [s.v.tobytes() for s in item.series] == [s.v.tobytes() for s in same.series]
    for grouping in GROUPINGS:
        by = GroupBy.parse(grouping)
        got = compare(loaded.inputs, metric=METRIC, group_by=by)
        want = compare(want_inputs, metric=METRIC, group_by=by)
        _same_statistics(got, want, names=grouping != "run")
    # Who ran them: bob's run, alice's two (the reference's label groups, the same runs).
    by_who = compare(loaded.inputs, metric=METRIC, group_by=GroupBy.parse("ran_by"))
    by_label = compare(want_inputs, metric=METRIC, group_by=GroupBy.parse("label"))
    assert [g.name for g in by_who.groups] == ["bob", "alice"]
    assert [g.stats for g in by_who.groups] == [g.stats for g in by_label.groups]


def _cli(library: Path, password: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PGPASSWORD": password}
    env.pop("PGPASSFILE", None)
    return subprocess.run(
        [*PAIRBENCH, "--library", str(library), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_the_cli_compares_local_and_team_runs_and_names_the_team_runs(
    libraries: tuple[Path, list[str], Path], team_server: TeamServer
) -> None:
    bob, uuids, reference = libraries
    args = ["--metric", METRIC, "--group-by", "tag:zone", "--json"]
    result = _cli(
        bob, team_server.password("bob"), "compare", "1", *map("team:{}".format, uuids), *args
    )
    assert result.returncode == 0, result.stderr[-2000:]
    payload: dict[str, Any] = json.loads(result.stdout)
    want = comparison_payload(
        compare(_reference(reference), metric=METRIC, group_by=GroupBy.parse("tag:zone"))
    )
    assert [g["stats"] for g in payload["groups"]] == [g["stats"] for g in want["groups"]]
    assert [g["name"] for g in payload["groups"]] == [g["name"] for g in want["groups"]]
    runs = payload["runs"]
    assert [r["source"] for r in runs] == ["local", "team", "team"]
    assert [r.get("uuid") for r in runs[1:]] == uuids
    assert {r["ran_by"] for r in runs[1:]} == {"alice"}
    assert [r["id"] for r in runs[1:]] == [-r["team_id"] for r in runs[1:]]
    assert runs[0]["ran_by"] == "bob"
    text = _cli(bob, team_server.password("bob"), "compare", "1", *map("team:{}".format, uuids))
    assert text.returncode == 0, text.stderr[-2000:]
    for entry in runs[1:]:
        assert f"#{entry['id']}: team run {entry['uuid']}, ran by alice" in text.stdout
    # A team run as the baseline, by its UUID.
    base = _cli(
        bob,
        team_server.password("bob"),
        "compare",
        "1",
        *map("team:{}".format, uuids),
        "--metric",
        METRIC,
        "--baseline",
        f"team:{uuids[1]}",
        "--json",
    )
    assert base.returncode == 0, base.stderr[-2000:]
    assert json.loads(base.stdout)["baseline"] == f"#{runs[2]['id']} candidate"
    # A UUID the team library lacks is said.
    missing = str(uuid.uuid4())
    absent = _cli(bob, team_server.password("bob"), "compare", "1", f"team:{missing}")
    assert absent.returncode != 0 and f"has no run {missing}" in absent.stderr


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_team_server_out_of_reach_is_said(tmp_path: Path) -> None:
    path = tmp_path / "offline.sqlite"
    with Library.open(path) as lib:
        _make_run(lib, 0, time.time())
        local.set_setting(lib, local.URL, f"postgresql://bob@127.0.0.1:{_closed_port()}/pb")
        with pytest.raises(TeamUnreachableError, match="cannot reach team library"):
            load_compare_inputs(lib, parse_refs(lib, ["1", f"team:{uuid.uuid4()}"]))
    result = _cli(path, "unused", "compare", "1", f"team:{uuid.uuid4()}")
    assert result.returncode != 0
    assert "cannot load the team runs to compare" in result.stderr
    assert "cannot reach team library" in result.stderr and "outbox" not in result.stderr
    unset = tmp_path / "alone.sqlite"
    with Library.open(unset) as lib:
        _make_run(lib, 0, time.time())
    alone = _cli(unset, "unused", "compare", "1", f"team:{uuid.uuid4()}")
    assert alone.returncode != 0 and "no team library" in alone.stderr


def test_the_window_compares_team_runs_with_their_series_fetched_once(
    qtbot: QtBot, libraries: tuple[Path, list[str], Path], tmp_path: Path
) -> None:
    from pairbench.ui.compare.view import CompareView
    from pairbench.ui.main_window import MainWindow

    bob, uuids, reference = libraries
    with Library.open(reference) as ref:
        want_inputs = compare_inputs(ref, [2, 3])  # alice's two runs
    bridge = EngineBridge(bob)
    library = Library.open(bob)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(bridge, library, settings)
    window.ask_before_closing = False
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    try:
        view = window.runs_view
        qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not view.filters.source_combo.isHidden(), timeout=WAIT_MS)
        with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
            view.filters.source_combo.setCurrentIndex(1)
        assert view.model.rowCount() == len(uuids)
        for opened in (1, 2):
            view.table.selectAll()
            assert view.compare_button.isEnabled()
            view.compare_button.click()
            qtbot.waitUntil(lambda n=opened: len(window.compare_windows) == n, timeout=WAIT_MS)
        assert view.team.cache.fetches == len(uuids)  # the second Compare fetched nothing
        shown = window.compare_windows[-1]
        assert isinstance(shown, CompareView)
        assert all(item.run.id < 0 for item in shown.inputs)
        assert "from the team library" in shown.windowTitle()
        by = GroupBy.parse("label")
        # The list shows the newest first: compare in the reference's (oldest first) order.
        ordered = sorted(shown.inputs, key=lambda i: i.run.started_at)
        _same_inputs = compare(ordered, metric=METRIC, group_by=by)
        want = compare(want_inputs, metric=METRIC, group_by=by)
        got_stats = [g.stats for g in _same_inputs.groups]
        assert got_stats == [g.stats for g in want.groups]
        assert shown.comparison is not None and len(shown.comparison.runs) == len(uuids)
        shot = Path(os.environ.get(SHOTS_ENV) or tmp_path) / "team-compare.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        assert shown.grab().save(str(shot))
        for w in window.compare_windows:
            w.close()
    finally:
        window.close()
        bridge.shutdown()
        library.close()
