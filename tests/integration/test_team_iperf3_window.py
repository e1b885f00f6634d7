"""Issue 18's live case end to end: alice's real iperf3 run (the ``pairbench run`` command, on
this computer's loopback) publishes itself live to a real PostgreSQL server while it records;
bob's window, on a library of its own, lists it as running in the Team source, follows it and
draws its throughput as it grows, then shows the final run: the same samples and summary as
alice's own library stored."""

from __future__ import annotations

import os
import re
import subprocess
import uuid
from pathlib import Path

import numpy as np
import pytest
from pytestqt.qtbot import QtBot

from local_run_helpers import start_cli
from pairbench.domain import RunStatus
from pairbench.library import Library
from pairbench.library.runs import get_run
from pairbench.library.series import load_series
from pairbench.services import team
from pairbench.services.team_follow import LiveCopy
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.library_view import LibraryView
from teamkit import TeamServer
from testkit import require_program

DURATION_S = 8  # iperf3's run: a sample a second
WAIT_MS = 60_000
METRIC = "throughput_bps"
SHOTS_ENV = "PAIRBENCH_SHOTS"  # a folder to keep the screenshots in (else the test's own)

# libpq finds each role's password in a ~/.pgpass of the test's own (teamkit); alice's CLI
# inherits it through PGPASSFILE.
pytestmark = [pytest.mark.lab, pytest.mark.usefixtures("team_passwords")]


@pytest.fixture(autouse=True)
def _iperf3() -> None:
    require_program("iperf3")


def _throughput_curves(view: LibraryView) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], float]:
    """The detail's throughput curves by stream (times, values as drawn; a partial last
    interval is a marker, not a point) and the plot's scale factor."""
    plots = [p for p in view.detail.plots if p.metric == METRIC]
    assert len(plots) == 1, [p.metric for p in view.detail.plots]
    curves = {}
    for stream, curve in plots[0].curves.items():
        t, v = curve.getOriginalDataset()
        curves[stream] = (
            np.asarray(t if t is not None else []),
            np.asarray(v if v is not None else []),
        )
    return curves, plots[0].factor


def test_bob_watches_alices_running_iperf3_run_live_in_the_window(
    qtbot: QtBot, team_server: TeamServer, tmp_path: Path
) -> None:
    db = f"t_{uuid.uuid4().hex[:10]}"
    team_server.create_database(db)
    alice_path, bob_path = tmp_path / "alice.sqlite", tmp_path / "bob.sqlite"
    with Library.open(alice_path) as alice:
        team.connect(alice, team_server.url("alice", dbname=db), name="alice")
    with Library.open(bob_path) as bob:
        team.connect(bob, team_server.url("bob", dbname=db), name="bob", auto=False)

    bridge = EngineBridge(bob_path)
    view = LibraryView(bridge)
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    copies: list[LiveCopy] = []
    shots = Path(os.environ.get(SHOTS_ENV) or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    proc: subprocess.Popen[str] | None = None
    try:
        qtbot.waitUntil(lambda: not view.filters.source_combo.isHidden(), timeout=WAIT_MS)
        with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
            view.filters.source_combo.setCurrentIndex(1)
        assert view.model.rowCount() == 0  # nothing published yet

        proc = start_cli(
            alice_path, "run", "--pair", "local", "--tool", "iperf3", "--label", "live iperf3",
            "--set", f"duration={DURATION_S}",
        )  # fmt: skip

        # Refreshed one refresh at a time (each reads the server) until alice's first live
        # copy is listed: bounded by the run's own length.
        for _ in range(4 * (DURATION_S + 20)):
            assert proc.poll() is None, "alice's run ended before it was listed"
            with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
                view.refresh()
            if view.model.rowCount():
                break
            qtbot.wait(250)
        assert view.model.rowCount() == 1
        listed_run = view.model.run_at(0)
        origin = view.model.origin_of(listed_run.id)
        assert origin is not None and origin.ran_by == "alice"
        assert listed_run.status is RunStatus.RUNNING and listed_run.spec.tool == "iperf3"

        view.team.live.updated.connect(copies.append)
        view.select_run(listed_run.id)
        view.open_selected()
        # Copy after copy while iperf3 runs, each redrawing the detail's throughput.
        running = lambda: [c.samples for c in copies if c.running]  # noqa: E731
        qtbot.waitUntil(lambda: len(set(running())) >= 3, timeout=WAIT_MS)
        assert proc.poll() is None, "alice's run ended before three live copies were drawn"
        counts = running()  # the first copy may come before iperf3's first interval
        assert counts == sorted(counts) and 0 <= counts[0] < counts[-1]
        shown = view.detail.detail
        assert shown is not None and shown.run.status is RunStatus.RUNNING
        curves, _factor = _throughput_curves(view)
        assert curves and all(len(t) <= counts[-1] for t, _v in curves.values())
        assert max(len(t) for t, _v in curves.values()) > 0
        qtbot.wait(200)  # the plot lays out and paints
        assert view.grab().save(str(shots / "team-iperf3-live.png"))

        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err[-2000:]
        run_id = int(re.search(r"run (\d+): completed", out).group(1))  # type: ignore[union-attr]

        # The final copy: what alice's library stored, sample for sample.
        qtbot.waitUntil(lambda: bool(copies) and not copies[-1].running, timeout=WAIT_MS)
        final = copies[-1].detail.run
        with Library.open(alice_path) as alice:
            stored = get_run(alice, run_id)
            series = {s.stream: s for s in load_series(alice, run_id) if s.metric == METRIC}
        assert final.status is RunStatus.COMPLETED and stored.status is RunStatus.COMPLETED
        assert final.summary[METRIC] == stored.summary[METRIC]
        curves, factor = _throughput_curves(view)
        # Every stream drawn is alice's (a "sum" repeating a single stream is not drawn).
        assert curves and curves.keys() <= series.keys()
        for stream, (t, v) in curves.items():
            want_t, want_v = np.asarray(series[stream].t), np.asarray(series[stream].v)
            assert len(want_t) - 1 <= len(t) <= len(want_t) and len(t) >= DURATION_S - 1
            np.testing.assert_array_equal(t, want_t[: len(t)])
            np.testing.assert_allclose(v, want_v[: len(t)] * factor, rtol=1e-12)
        assert not view.team.live.following
        assert view.grab().save(str(shots / "team-iperf3-final.png"))
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
        view.team.live.stop()
        bridge.shutdown()
