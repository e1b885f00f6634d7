"""subsecond_live: event-loop lag of the window while a real run of 8 streams reports every 0.1 s.

A real ``iperf3 -P 8 -i 0.1`` on this computer (each stream paced at 20 Mbit/s, so the tool
itself leaves the two cores to the window), started through the engine bridge as the run
panel starts it, streams into its run tab: about 90 raw lines and 90 records a second, every
record drawn in the live plots (redrawn at ~10 Hz). A 10 ms precise QTimer measures how late
the event loop serves it (``ui_lag``'s probe); the baseline is the same window idle,
measured first in the same run.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

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


def run(quick: bool, out: Out = print) -> Verdict:
    """Measure and print; return the headline verdict (p99 lag during the live run)."""
    if shutil.which("iperf3") is None:
        raise NotRunnable("iperf3 is not installed")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("PAIRBENCH_LOCK_DIR", tempfile.mkdtemp(prefix="pb-bench-locks-"))
    from PySide6.QtWidgets import QApplication, QMainWindow, QTabWidget

    from pairbench.domain import LOCAL_PAIR, RunSpec
    from pairbench.ui.bridge import EngineBridge, RunSignals
    from pairbench.ui.run.controller import RunController
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
        probe = _Probe()
        waited = _waited_for_cpu()
        base_lags, base_wall, base_cpu = probe.measure(app, baseline_s)
        base_waited = _waited_for_cpu() - waited

        params = {
            "streams": str(STREAMS),
            "interval": str(INTERVAL_S),
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
        waited = _waited_for_cpu()
        lags, wall, cpu = probe.measure(app, run_s - 1.0)
        run_waited = _waited_for_cpu() - waited
        stamps = np.asarray(probe.stamps)
        steady = lags[stamps[1:] > stamps[0] + STEADY_AFTER_S] if stamps.size > 1 else lags
        deadline = time.perf_counter() + 30.0
        while controller.active and time.perf_counter() < deadline:
            app.processEvents()
            time.sleep(0.01)
        run = controller.run
        tab = run_tabs.tabs[-1] if run_tabs.tabs else None
        samples = tab.plots.sample_count() if tab else 0
        redraws = tab.plots.redraws if tab else 0
        window.close()
        bridge.shutdown()
    if run is None or run.status.value != "completed":
        raise NotRunnable(f"the live run did not complete: {controller.error or run}")

    p99 = float(np.percentile(lags, 99)) if lags.size else float("nan")
    base_p99 = float(np.percentile(base_lags, 99)) if base_lags.size else float("nan")
    share, base_share = cpu / wall, base_cpu / base_wall
    out(
        f"{NAME}: a real iperf3 -P {STREAMS} -i {INTERVAL_S} on this computer ({PACING} per "
        f"stream, {run_s} s) into its run tab, after {fmt(baseline_s)} s idle"
    )
    out(
        f"  idle (baseline): lag {_stats(base_lags)}; GUI thread CPU {fmt(base_share * 100)} %, "
        f"waited {fmt(base_waited)} s for a CPU"
    )
    out(
        f"  during the run:  lag {_stats(lags)}; GUI thread CPU {fmt(share * 100)} %, "
        f"waited {fmt(run_waited)} s for a CPU (the machine's other load: "
        f"{fmt(os.getloadavg()[0])} on {os.cpu_count()} cores)"
    )
    out(f"  from {fmt(STEADY_AFTER_S)} s into the run (its plots built): lag {_stats(steady)}")
    out(
        f"  {controller.records_received} records, {samples} samples in the plots, "
        f"{redraws} redraws; run {run.id} {run.status.value}"
    )
    period_ms = float(TICK_MS)
    return Verdict(
        NAME,
        ratio(period_ms + p99, period_ms + base_p99),
        TARGET_RATIO,
        "the idle window's (timer period + p99 lag)",
        info=f"p99 lag {fmt(p99)} ms (idle {fmt(base_p99)} ms)",
        note=f"GUI thread CPU {fmt(share * 100)} % (idle {fmt(base_share * 100)} %)",
    )
