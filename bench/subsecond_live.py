"""subsecond_live: event-loop lag of the window while a real run of 8 streams reports every 0.1 s.

A real ``iperf3 -P 8 -i 0.1`` on this computer (each stream paced at 20 Mbit/s, so the tool
itself leaves the two cores to the window), started through the engine bridge as the run
panel starts it, streams into its run tab: about 90 raw lines and 90 records a second, every
record drawn in the live plots (redrawn at ~10 Hz). A 10 ms precise QTimer measures how late
the event loop serves it (``ui_lag``'s probe); the baseline is the same window idle,
measured first in the same run. The same run at 1 s follows, for comparison.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import NotRunnable, Out, Verdict, fmt, ratio
from bench.ui_lag import TICK_MS, _Probe, _stats, _warm_up

NAME = "subsecond_live"
# (period + p99 lag) under the live run ÷ the idle window's: within 2× idle.
TARGET_RATIO = 2.0
STREAMS = 8
INTERVAL_S = 0.1
PACING = "20M"
# The run's plots and curves are built in its first second or so (as for any run, ``ui_lag``
# measures that); the lag from then on is reported too.
STEADY_AFTER_S = 2.0


def _waited_for_cpu() -> float:
    """Seconds this thread has been runnable but waiting for a CPU (its schedstat), or NaN."""
    try:
        stat = Path(f"/proc/self/task/{threading.get_native_id()}/schedstat").read_text()
        return int(stat.split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")


@dataclass
class _Measured:
    """One live run's lags (all, and from ``STEADY_AFTER_S`` in), CPU and what it drew."""

    lags: np.ndarray
    steady: np.ndarray
    share: float
    waited: float
    records: int
    samples: int
    redraws: int


def _live_run(app: Any, bridge: Any, run_tabs: Any, interval: str, run_s: int) -> _Measured:
    """A real iperf3 run at ``interval`` through the bridge into its own tab, measured."""
    from pairbench.domain import LOCAL_PAIR, RunSpec
    from pairbench.ui.bridge import RunSignals
    from pairbench.ui.run.controller import RunController

    params = {
        "streams": str(STREAMS),
        "interval": interval,
        "duration": str(run_s),
        "bitrate": PACING,
    }
    spec = RunSpec(LOCAL_PAIR.name, "iperf3", params)
    signals = RunSignals()
    controller = RunController(signals, LOCAL_PAIR, spec)
    run_tabs.track(controller)
    controller.handle = bridge.start_run(LOCAL_PAIR, spec, signals=signals)
    start_by = time.perf_counter() + 20.0
    while controller.started_at is None and controller.active:
        app.processEvents()
        time.sleep(0.005)
        if time.perf_counter() > start_by:
            raise NotRunnable("the run did not start within 20 s")
    probe = _Probe()
    waited = _waited_for_cpu()
    lags, wall, cpu = probe.measure(app, run_s - 1.0)
    waited = _waited_for_cpu() - waited
    stamps = np.asarray(probe.stamps)
    steady = lags[stamps[1:] > stamps[0] + STEADY_AFTER_S] if stamps.size > 1 else lags
    deadline = time.perf_counter() + 30.0
    while controller.active and time.perf_counter() < deadline:
        app.processEvents()
        time.sleep(0.01)
    run = controller.run
    if run is None or run.status.value != "completed":
        raise NotRunnable(f"the live run did not complete: {controller.error or run}")
    tab = run_tabs.tabs[-1]
    return _Measured(
        lags,
        steady,
        cpu / wall,
        waited,
        controller.records_received,
        tab.plots.sample_count(),
        tab.plots.redraws,
    )


def _line(label: str, m: _Measured) -> str:
    return (
        f"  {label}: lag {_stats(m.lags)}; from {fmt(STEADY_AFTER_S)} s in (plots built) "
        f"{_stats(m.steady)}; GUI thread CPU {fmt(m.share * 100)} %, waited {fmt(m.waited)} s "
        f"for a CPU; {m.records} records, {m.samples} samples drawn, {m.redraws} redraws"
    )


def run(quick: bool, out: Out = print) -> Verdict:
    """Measure and print; return the headline verdict (p99 lag during the 0.1 s run)."""
    if shutil.which("iperf3") is None:
        raise NotRunnable("iperf3 is not installed")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PAIRBENCH_LOCK_DIR", tempfile.mkdtemp(prefix="pb-bench-locks-"))
    from PySide6.QtWidgets import QApplication, QMainWindow, QTabWidget

    from pairbench.ui.bridge import EngineBridge
    from pairbench.ui.run.run_tabs import RunTabs

    app = QApplication.instance() or QApplication([])
    baseline_s, run_s = (3.0, 6) if quick else (6.0, 20)
    _warm_up(app)
    with tempfile.TemporaryDirectory(prefix="pb-bench-subsecond-") as folder:
        bridge = EngineBridge(Path(folder) / "library.sqlite")
        window = QMainWindow()
        tabs = QTabWidget()
        window.setCentralWidget(tabs)
        run_tabs = RunTabs(tabs)
        window.resize(1400, 900)
        window.show()
        waited = _waited_for_cpu()
        base_lags, base_wall, base_cpu = _Probe().measure(app, baseline_s)
        base_waited = _waited_for_cpu() - waited
        try:
            fine = _live_run(app, bridge, run_tabs, str(INTERVAL_S), run_s)
            whole = _live_run(app, bridge, run_tabs, "1", run_s)  # the same run at 1 s
        finally:
            window.close()
            bridge.shutdown()

    p99 = float(np.percentile(fine.lags, 99)) if fine.lags.size else float("nan")
    base_p99 = float(np.percentile(base_lags, 99)) if base_lags.size else float("nan")
    base_share = base_cpu / base_wall
    out(
        f"{NAME}: a real iperf3 -P {STREAMS} -i {INTERVAL_S} on this computer ({PACING} per "
        f"stream, {run_s} s) into its run tab, after {fmt(baseline_s)} s idle; then the same "
        f"run at -i 1 (load average {fmt(os.getloadavg()[0])} on {os.cpu_count()} cores)"
    )
    out(
        f"  idle (baseline): lag {_stats(base_lags)}; GUI thread CPU {fmt(base_share * 100)} %, "
        f"waited {fmt(base_waited)} s for a CPU"
    )
    out(_line(f"at {INTERVAL_S} s", fine))
    out(_line("at 1 s  ", whole))
    whole_p99 = float(np.percentile(whole.lags, 99)) if whole.lags.size else float("nan")
    period_ms = float(TICK_MS)
    return Verdict(
        NAME,
        ratio(period_ms + p99, period_ms + base_p99),
        TARGET_RATIO,
        "the idle window's (timer period + p99 lag)",
        info=f"p99 lag {fmt(p99)} ms (idle {fmt(base_p99)} ms, at 1 s {fmt(whole_p99)} ms)",
        note=f"GUI thread CPU {fmt(fine.share * 100)} % (at 1 s {fmt(whole.share * 100)} %)",
    )
