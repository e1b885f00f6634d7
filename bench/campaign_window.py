"""campaign_window: event-loop lag of the window while a 500-run campaign's grid refreshes.

A synthetic library holds a campaign of 100 cells (10 pairs × 10 columns) with 450 runs
recorded; a writer thread (its own library connection, as the engine's) records 50 more
while the Campaigns tab's live view follows it: a read of the grid (``show_campaign``
through the engine bridge) is asked for every 100 ms, far more often than any real
campaign's runs end, and the follower does them at most once a second (``MIN_READ_S``);
a ping-like run streams a sample every 50 ms into the live plot. A 10 ms precise QTimer
measures how late the event loop serves it; the baseline is the same window idle, measured
first in the same run. The engine thread's own time per read is reported too.
"""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from bench.common import Out, Verdict, fmt, ratio
from bench.ui_lag import TICK_MS, _Probe, _stats, _warm_up

NAME = "campaign_window"
TARGET_RATIO = 3.0  # (period + p99 lag) under load ÷ the idle window's, as ui_lag
PAIRS = 10
COLUMNS = 10
RUNS_BEFORE = 450
RUNS_DURING = 50
REFRESH_MS = 100
SAMPLE_S = 0.05


def _campaign(path: Path) -> int:
    """A stored campaign of PAIRS × COLUMNS cells with RUNS_BEFORE runs recorded; its id."""
    from pairbench.analysis.campaign_cells import expand_cells
    from pairbench.domain import LOCAL_HOST, HostPair
    from pairbench.domain.campaign import (
        PairSelector,
        Plan,
        RepeatPolicy,
        TestPlan,
        plan_to_json,
    )
    from pairbench.library import Library
    from pairbench.library.campaigns import create_campaign, record_campaign_run

    names = tuple(f"pair{i:02d}" for i in range(PAIRS))
    test = TestPlan("ping", "ping", {"count": tuple(str(c) for c in range(2, 2 + COLUMNS))})
    plan = Plan("bench", PairSelector(names=names), (test,), RepeatPolicy(5, 5, None))
    cells = expand_cells(plan, [HostPair(n, LOCAL_HOST, LOCAL_HOST) for n in names])
    lib = Library.open(path)
    try:
        campaign_id = create_campaign(
            lib, "bench", plan_to_json(plan), [c.to_json() for c in cells], 1
        )
        rng = np.random.default_rng(1)
        now = time.time() - RUNS_BEFORE
        for i in range(RUNS_BEFORE):
            cell = i % len(cells)
            where = (cell, 0, i // len(cells) + 1, 1)
            value = float(0.04 + rng.normal(0, 0.002))
            record_campaign_run(lib, campaign_id, where, None, "completed", value, now + i)
    finally:
        lib.close()
    return campaign_id


def run(quick: bool, out: Out = print) -> Verdict:
    """Measure and print; return the headline verdict (p99 lag while the grid refreshes)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMainWindow

    from pairbench.domain import Record
    from pairbench.library import Library
    from pairbench.library.campaigns import record_campaign_run
    from pairbench.ui.bridge import EngineBridge
    from pairbench.ui.campaign.campaign_follower import CampaignFollower
    from pairbench.ui.campaign.live_view import CampaignLiveView

    app = QApplication.instance() or QApplication([])
    baseline_s, load_s = (2.0, 6.0) if quick else (5.0, 20.0)
    _warm_up(app)
    folder = Path(tempfile.mkdtemp(prefix="pairbench-bench-"))
    path = folder / "library.sqlite"
    campaign_id = _campaign(path)
    bridge = EngineBridge(path)
    window = QMainWindow()
    live = CampaignLiveView()
    window.setCentralWidget(live)
    window.resize(1280, 720)
    window.show()
    follower = CampaignFollower(bridge)
    live.bind(follower)
    follower.load(campaign_id)
    end = time.perf_counter() + 10
    while follower.shown is None and time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.001)
    cells = len(live.model.views)

    probe = _Probe()
    base_lags, base_wall, base_cpu = probe.measure(app, baseline_s)

    stop = threading.Event()
    written = {"runs": 0, "samples": 0}

    def writer() -> None:  # the engine's role: a run recorded every load_s / RUNS_DURING
        lib = Library.open(path)
        try:
            step = load_s / RUNS_DURING
            for i in range(RUNS_DURING):
                if stop.wait(step):
                    break
                index = RUNS_BEFORE + i
                where = (index % cells, 0, index // cells + 1, 1)
                record_campaign_run(lib, campaign_id, where, None, "completed", 0.04, time.time())
                written["runs"] += 1
        finally:
            lib.close()

    def samples() -> None:  # the run in flight: a ping reply every SAMPLE_S
        t = 0.0
        while not stop.wait(SAMPLE_S):
            t += SAMPLE_S
            follower.records.emit([Record("sum", t, ("rtt_ms",), (0.04,))])
            written["samples"] += 1

    reads = QTimer()
    reads.setInterval(REFRESH_MS)
    reads.timeout.connect(follower.refresh)
    before = follower.refreshes
    workers = [threading.Thread(target=f, daemon=True) for f in (writer, samples)]
    for worker in workers:
        worker.start()
    reads.start()
    lags, wall, cpu = probe.measure(app, load_s)
    reads.stop()
    stop.set()
    for worker in workers:
        worker.join(5)
    refreshes = follower.refreshes - before
    runs_shown = follower.shown.runs_done if follower.shown is not None else 0
    # The GUI thread's own share of a refresh: the model's texts and colours for every cell.
    shown = follower.shown
    per_set: list[float] = []
    for _ in range(20):
        t0 = time.perf_counter()
        live.model.set_shown(shown)
        live.update_view()
        per_set.append((time.perf_counter() - t0) * 1e3)
    window.close()
    bridge.shutdown()
    # The engine thread's share: one read of the campaign (it holds the GIL meanwhile).
    from pairbench.services.campaigns import show_campaign

    lib = Library.open(path)
    try:
        per_read = []
        for _ in range(5):
            t0 = time.perf_counter()
            show_campaign(lib, campaign_id)
            per_read.append((time.perf_counter() - t0) * 1e3)
    finally:
        lib.close()

    p99 = float(np.percentile(lags, 99)) if lags.size else float("nan")
    base_p99 = float(np.percentile(base_lags, 99)) if base_lags.size else float("nan")
    worst = float(lags.max()) if lags.size else float("nan")
    share, base_share = cpu / wall, base_cpu / base_wall
    out(
        f"{NAME}: a campaign of {cells} cells and {RUNS_BEFORE}+{written['runs']} runs, a read of "
        f"its grid asked for every {REFRESH_MS} ms ({refreshes} reads done through the bridge, "
        f"{runs_shown} runs in the last), {written['samples']} live samples; "
        f"{fmt(load_s)} s under load after {fmt(baseline_s)} s idle"
    )
    out(f"  idle (baseline): lag {_stats(base_lags)}; GUI thread CPU {fmt(base_share * 100)} %")
    out(f"  under load:      lag {_stats(lags)}; GUI thread CPU {fmt(share * 100)} %")
    out(
        f"  one grid update on the GUI thread: median {fmt(float(np.median(per_set)))} ms; "
        f"one read (show_campaign) on the engine thread: median "
        f"{fmt(float(np.median(per_read)))} ms"
    )
    return Verdict(
        NAME,
        ratio(TICK_MS + p99, TICK_MS + base_p99),
        TARGET_RATIO,
        "the idle window's (timer period + p99 lag)",
        info=f"p99 lag {fmt(p99)} ms, max {fmt(worst)} ms (idle p99 {fmt(base_p99)} ms)",
        note=f"GUI thread CPU {fmt(share * 100)} % (idle {fmt(base_share * 100)} %)",
    )
