"""library_refresh: how long the Library tab blocks the GUI thread per refresh at 10,000 runs.

A real ``LibraryView`` on a real engine bridge over a 10,000-run library (bench/runs_library),
shown offscreen. Each cycle, another connection changes the library as recording does (a run
finishes: its status and summary change; every fifth cycle a new run starts at the top),
then the view refreshes, as the window does after each run. A 1 ms precise timer measures the
GUI thread: a cycle's block is its longest gap between two ticks, minus the tick. Headline:
the p99 block over the cycles ÷ one 60 Hz frame (16 ms), target ≤ 1. For contrast, the same
run times the old way (every run read into the model at once, then a sort proxy over it).
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import time
from pathlib import Path

import numpy as np

from bench.common import Out, Verdict, fmt, median
from bench.runs_library import RUNS, build

NAME = "library_refresh"
FRAME_MS = 16.0
TARGET_RATIO = 1.0
TICK_MS = 1


def _change(path: Path, cycle: int) -> None:
    """What a recording run does to the library between two refreshes."""
    conn = sqlite3.connect(path, isolation_level=None, timeout=10)
    try:
        newest = conn.execute("SELECT max(id), max(started_at) FROM runs").fetchone()
        conn.execute(
            "UPDATE runs SET status = 'completed', summary = ?, updated_at = ? WHERE id = ?",
            (f'{{"throughput_bps":{9.1e8 + cycle}}}', time.time(), int(newest[0]) - 3),
        )
        if cycle % 5 == 0:
            conn.execute(
                "INSERT INTO runs (pair, tool, params, status, started_at, updated_at) "
                "VALUES ('lab', 'iperf3', '{}', 'running', ?, ?)",
                (float(newest[1]) + 60, time.time()),
            )
    finally:
        conn.close()


def run(quick: bool, out: Out) -> Verdict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSortFilterProxyModel, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from pairbench.library import Library
    from pairbench.services.runs import RunFilter, find_runs
    from pairbench.ui.bridge import EngineBridge
    from pairbench.ui.library.library_view import LibraryView
    from pairbench.ui.library.runs_model import RunsTableModel

    app = QApplication.instance() or QApplication([])
    cycles = 15 if quick else 40
    runs = 2_000 if quick else RUNS
    with tempfile.TemporaryDirectory(prefix="pb-bench-refresh-") as tmp:
        path = Path(tmp) / "library.sqlite"
        build(path, runs)
        bridge = EngineBridge(path)
        view = LibraryView(bridge)
        view.resize(1400, 900)
        view.show()
        stamps: list[float] = []
        timer = QTimer()
        timer.setTimerType(Qt.TimerType.PreciseTimer)
        timer.setInterval(TICK_MS)
        timer.timeout.connect(lambda: stamps.append(time.perf_counter()))

        def wait_refreshed(deadline_s: float = 30.0) -> None:
            done: list[bool] = []
            view.refreshed.connect(lambda: done.append(True))
            end = time.perf_counter() + deadline_s
            while not done and time.perf_counter() < end:
                app.processEvents()
                time.sleep(0.0002)
            view.refreshed.disconnect()
            for _ in range(5):  # the repaint after the change
                app.processEvents()
            if not done:
                raise RuntimeError("the library view did not refresh within 30 s")

        wait_refreshed()
        blocks: list[float] = []
        timer.start()
        for cycle in range(cycles):
            _change(path, cycle)
            stamps.clear()
            stamps.append(time.perf_counter())
            view.refresh()
            wait_refreshed()
            stamps.append(time.perf_counter())
            gaps = np.diff(np.asarray(stamps)) * 1e3
            blocks.append(max(0.0, float(gaps.max()) - TICK_MS))
        timer.stop()
        shown = view.model.rowCount()
        total = view.model.total
        view.close()
        bridge.shutdown()
        # The old way, for contrast: every run into the model, a sort proxy over it.
        with Library.open(path) as lib:
            every = find_runs(lib, RunFilter())
        old: list[float] = []
        for _ in range(3):
            model = RunsTableModel()
            proxy = QSortFilterProxyModel()
            proxy.setSourceModel(model)
            begin = time.perf_counter()
            model.set_runs(every)
            proxy.sort(1, Qt.SortOrder.DescendingOrder)
            old.append((time.perf_counter() - begin) * 1e3)
    p99 = float(np.percentile(blocks, 99))
    if os.environ.get("PB_BENCH_DEBUG"):
        out(f"  blocks: {[round(b, 1) for b in blocks]}")
    out(f"  {total} runs, {shown} rows loaded; {cycles} refreshes while runs change")
    out(f"  GUI-thread block per refresh: median {fmt(median(blocks))} ms, p99 {fmt(p99)} ms")
    out(f"  the old way (all runs reset into the model + sort proxy): {fmt(median(old))} ms")
    return Verdict(
        NAME,
        p99 / FRAME_MS,
        TARGET_RATIO,
        "a 60 Hz frame (16 ms)",
        info=f"p99 {fmt(p99)} ms per refresh; old way {fmt(median(old))} ms",
    )
