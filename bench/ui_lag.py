"""ui_lag: event-loop lag of the workbench's GUI thread while runs stream (p99 timer drift, ms).

Four simulated iperf3 -P 4 runs stream at 1 Hz each (records and raw lines emitted from a
worker thread through ``RunSignals``, as the engine bridge does) into real run tabs, while a
fifth "run" replays 100,000 samples (an hour of iperf3 -P 8) as fast as it can, then ends.
The user's view cycles through the tabs every 2 s. A 10 ms precise QTimer measures how late
the event loop serves it; the GUI thread's CPU share is its ``time.thread_time`` ÷ wall time.
The baseline is the same window idle, measured first in the same run.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np

from bench.common import Out, Verdict, fmt, ratio

NAME = "ui_lag"
# The 10 ms timer's period at the 99th percentile of lag (period + p99 lag) under load may be
# this many times its period with the window idle (the baseline, measured first in the same
# run): about 20 ms of p99 lag where the idle one is small.
TARGET_RATIO = 3.0
TICK_MS = 10
LIVE_RUNS = 4
LIVE_STREAMS = 4
REPLAY_SAMPLES = 100_000
REPLAY_STREAMS = 8
REPLAY_SECONDS_PER_BATCH = 60
TCP = ("throughput_bps", "retransmits", "cwnd_bytes")
SUM = ("throughput_bps", "retransmits")


def _records(t: float, streams: int, seed: int) -> list[object]:
    from pairbench.domain import Record

    records: list[object] = [
        Record(str(5 + 2 * i), t, TCP, (9e8 + 1e8 * np.sin(t / 9 + i + seed), 0.0, 6e5))
        for i in range(streams)
    ]
    records.append(Record("sum", t, SUM, (9e8 * streams, 0.0)))
    return records


def _lines(t: float, streams: int) -> list[object]:
    from pairbench.domain import Line, LineSource

    now = time.monotonic()
    text = [
        f"[{5 + 2 * i:3d}] {t - 1:6.2f}-{t:6.2f} sec  1.05 GBytes  9.02 Gbits/sec  0  1.37 MBytes"
        for i in range(streams)
    ]
    text.append(f"[SUM] {t - 1:6.2f}-{t:6.2f} sec  4.20 GBytes  36.1 Gbits/sec    0")
    return [Line(LineSource.CLIENT_OUT, line, now) for line in text]


class _Probe:
    """A 10 ms timer's observed intervals (the GUI thread's responsiveness)."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.stamps: list[float] = []
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(lambda: self.stamps.append(time.perf_counter()))

    def measure(self, app: object, seconds: float) -> tuple[np.ndarray, float, float]:
        """Lags in ms, wall seconds and the GUI thread's CPU seconds over ``seconds``."""
        self.stamps = []
        cpu0, wall0 = time.thread_time(), time.perf_counter()
        self.timer.start()
        end = wall0 + seconds
        while time.perf_counter() < end:
            app.processEvents()  # type: ignore[attr-defined]
            time.sleep(0.0005)  # an event loop's idle wait, without blocking timers
        self.timer.stop()
        wall, cpu = time.perf_counter() - wall0, time.thread_time() - cpu0
        intervals = np.diff(np.asarray(self.stamps)) * 1e3
        return np.maximum(intervals - TICK_MS, 0.0), wall, cpu


def _warm_up(app: object) -> None:
    """Paint a plot with text once: the first text drawn in a process loads the fonts (~0.7 s
    here), which the real window does at start-up, long before any run."""
    from pairbench.domain import Record
    from pairbench.ui.plotting.run_plots import RunPlots

    plots = RunPlots()
    plots.resize(800, 400)
    plots.show()
    plots.add_records([Record("sum", 1.0, ("throughput_bps",), (1e9,))])
    end = time.perf_counter() + 0.5
    while time.perf_counter() < end:
        app.processEvents()  # type: ignore[attr-defined]
    plots.close()
    plots.deleteLater()


def _stats(lags: np.ndarray) -> str:
    if lags.size == 0:
        return "no ticks"
    p50, p99 = np.percentile(lags, [50, 99])
    return f"p50 {fmt(p50)} ms, p99 {fmt(p99)} ms, max {fmt(float(lags.max()))} ms, n={lags.size}"


def run(quick: bool, out: Out = print) -> Verdict:
    """Measure and print; return the headline verdict (p99 lag under load)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication, QMainWindow, QTabWidget

    from pairbench.domain import LOCAL_PAIR, Run, RunSpec, RunStatus
    from pairbench.ui.bridge import RunSignals
    from pairbench.ui.run.controller import RunController
    from pairbench.ui.run.run_tabs import RunTabs

    app = QApplication.instance() or QApplication([])
    baseline_s, load_s = (2.0, 8.0) if quick else (5.0, 30.0)

    _warm_up(app)
    window = QMainWindow()
    tabs = QTabWidget()
    window.setCentralWidget(tabs)
    run_tabs = RunTabs(tabs)
    window.resize(1400, 900)
    window.show()
    signals: list[RunSignals] = []
    for _ in range(LIVE_RUNS + 1):
        sig = RunSignals()
        spec = RunSpec(LOCAL_PAIR.name, "iperf3", {"streams": str(LIVE_STREAMS)})
        run_tabs.track(RunController(sig, LOCAL_PAIR, spec))
        signals.append(sig)
    probe = _Probe()
    base_lags, base_wall, base_cpu = probe.measure(app, baseline_s)

    stop = threading.Event()
    delivered = {"samples": 0, "lines": 0}

    def live() -> None:  # the engine's role: four runs at 1 Hz each, from another thread
        for i, sig in enumerate(signals[:LIVE_RUNS]):
            sig.started.emit(i + 1, RunSpec(LOCAL_PAIR.name, "iperf3", {}), 3600.0)
            time.sleep(0.25)  # runs started a little apart, like a user's clicks
        second = 0
        start = time.monotonic()
        while not stop.is_set():
            second += 1
            for i, sig in enumerate(signals[:LIVE_RUNS]):
                lines = _lines(float(second), LIVE_STREAMS)
                for line in lines:
                    sig.line.emit(line)
                sig.records.emit(_records(float(second), LIVE_STREAMS, i))
                delivered["lines"] += len(lines)
                delivered["samples"] += LIVE_STREAMS * len(TCP) + len(SUM)
            stop.wait(max(0.0, start + second - time.monotonic()))

    # The replay's records are made beforehand: the engine's own work per line is small, and a
    # thread busy making records in Python would hold the GIL against the GUI thread.
    per_second = REPLAY_STREAMS * len(TCP) + len(SUM)
    seconds = -(-REPLAY_SAMPLES // per_second)
    batches: list[list[object]] = []
    for first in range(1, seconds + 1, REPLAY_SECONDS_PER_BATCH):
        batch: list[object] = []
        for t in range(first, min(first + REPLAY_SECONDS_PER_BATCH, seconds + 1)):
            batch += _records(float(t), REPLAY_STREAMS, 9)
        batches.append(batch)

    def replay() -> None:  # an hour of iperf3 -P 8 as fast as the signals carry it
        sig = signals[LIVE_RUNS]
        time.sleep(1.0)
        sig.started.emit(LIVE_RUNS + 1, RunSpec(LOCAL_PAIR.name, "iperf3", {}), 0.0)
        for batch in batches:
            sig.records.emit(batch)
            delivered["samples"] += per_second * (len(batch) // (REPLAY_STREAMS + 1))
        now = time.time()
        sig.finished.emit(
            Run(
                LIVE_RUNS + 1,
                RunSpec(LOCAL_PAIR.name, "iperf3", {}),
                RunStatus.COMPLETED,
                now - seconds,
                now,
                summary={"throughput_bps": 7.2e9},
                summary_complete=True,
            )
        )

    def browse() -> None:  # the user looks at each tab in turn
        if tabs.count():
            tabs.setCurrentIndex((tabs.currentIndex() + 1) % tabs.count())

    from PySide6.QtCore import QTimer

    browser = QTimer()
    browser.setInterval(2000)
    browser.timeout.connect(browse)
    browser.start()
    workers = [threading.Thread(target=f, daemon=True) for f in (live, replay)]
    for worker in workers:
        worker.start()
    lags, wall, cpu = probe.measure(app, load_s)
    stop.set()
    browser.stop()
    for worker in workers:
        worker.join(5)
    app.processEvents()
    replay_tab = run_tabs.tabs[-1] if run_tabs.tabs else None
    replayed = replay_tab.plots.sample_count() if replay_tab else 0
    redraws = sum(tab.plots.redraws for tab in run_tabs.tabs)
    window.close()

    p99 = float(np.percentile(lags, 99)) if lags.size else float("nan")
    share, base_share = cpu / wall, base_cpu / base_wall
    out(
        f"{NAME}: {LIVE_RUNS} runs at 1 Hz (iperf3 -P {LIVE_STREAMS} records + raw lines) and "
        f"a replay of {REPLAY_SAMPLES} samples, tabs cycling every 2 s; "
        f"{fmt(load_s)} s under load after {fmt(baseline_s)} s idle"
    )
    out(f"  idle (baseline): lag {_stats(base_lags)}; GUI thread CPU {fmt(base_share * 100)} %")
    out(f"  under load:      lag {_stats(lags)}; GUI thread CPU {fmt(share * 100)} %")
    out(
        f"  delivered {delivered['samples']} samples and {delivered['lines']} lines; "
        f"{replayed} samples in the replay's plots; {redraws} redraws"
    )
    base_p99 = float(np.percentile(base_lags, 99)) if base_lags.size else float("nan")
    period_ms = float(TICK_MS)
    return Verdict(
        NAME,
        ratio(period_ms + p99, period_ms + base_p99),
        TARGET_RATIO,
        "the idle window's (timer period + p99 lag)",
        info=f"p99 lag {fmt(p99)} ms (idle {fmt(base_p99)} ms)",
        note=f"GUI thread CPU {fmt(share * 100)} % (idle {fmt(base_share * 100)} %)",
    )
