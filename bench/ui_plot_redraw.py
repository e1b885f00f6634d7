"""plot_redraw: one redraw of a live plot holding 24 h of 1 s samples for 8 streams (ms/frame).

A frame is what the 10 Hz redraw timer does when a second of data arrived: one new sample per
stream, ``RunPlots.refresh`` (buffers handed to pyqtgraph, range follow, y fit) and a
synchronous repaint of the plot's viewport, on a widget shown offscreen. Measured in follow
mode (the latest 5 minutes in view) and with the whole day in view (the worst case, the
headline), against an empty plot's frame in the same run.
"""

from __future__ import annotations

import os
import time

import numpy as np

from bench.common import Out, Verdict, fmt, median, spread

NAME = "plot_redraw"
# A redraw of a day of samples may take this many times as long as one of an empty plot (the
# baseline, measured in the same run): about 16 ms where an empty plot takes 6 ms.
TARGET_RATIO = 2.5
STREAMS = 8
DAY_S = 24 * 3600


def _frames(app: object, plots: object, count: int, t0: float) -> list[float]:
    """Seconds per frame: a second of records arrives, the redraw tick, the repaint."""
    from pairbench.domain import Record
    from pairbench.ui.plotting.run_plots import RunPlots

    assert isinstance(plots, RunPlots)
    plots.refresh(force=True)  # builds the plot widget the first time
    plot = plots.plots["throughput"]
    metrics = ("throughput_bps",)
    times: list[float] = []
    for i in range(count):
        t = t0 + i + 1
        plots.add_records(
            [Record(str(s), t, metrics, (1e9 + 1e8 * np.sin(t / 600 + s),)) for s in range(STREAMS)]
        )
        start = time.perf_counter()
        plots.refresh()  # what the 10 Hz timer calls
        plot.widget.viewport().repaint()
        times.append(time.perf_counter() - start)
        app.processEvents()  # type: ignore[attr-defined]
    return times


def _day_of_samples(plots: object) -> None:
    from pairbench.ui.plotting.run_plots import RunPlots

    assert isinstance(plots, RunPlots)
    t = np.arange(1.0, DAY_S + 1.0)
    rng = np.random.default_rng(7)
    for stream in range(STREAMS):
        # A burst-credit shape: high for the first hour, then a noisy baseline.
        v = np.where(t < 3600, 1.2e9, 0.1e9) + rng.normal(0, 2e7, t.size)
        plots.add_series(str(stream), "throughput_bps", t, v)


def run(quick: bool, out: Out = print) -> Verdict:
    """Measure and print; return the headline verdict (whole day in view)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from pairbench.ui.plotting.run_plots import RunPlots

    app = QApplication.instance() or QApplication([])
    count = 10 if quick else 40
    ms = 1e3

    def shown(plots: RunPlots) -> RunPlots:
        plots.resize(1400, 500)
        plots.show()
        for _ in range(5):
            app.processEvents()
        return plots

    empty = shown(RunPlots())
    for stream in range(STREAMS):
        empty.add_series(str(stream), "throughput_bps", np.array([0.0]), np.array([1e9]))
    _frames(app, empty, 3, 0.0)  # warm up
    baseline = _frames(app, empty, count, 3.0)
    empty.close()

    day = shown(RunPlots())
    start = time.perf_counter()
    _day_of_samples(day)
    fill_s = time.perf_counter() - start
    samples = day.sample_count()
    day.set_window(300.0)
    _frames(app, day, 3, DAY_S)
    follow = _frames(app, day, count, DAY_S + 3)
    day.show_all()
    _frames(app, day, 3, DAY_S + 3 + count)
    day.set_follow(False)
    day.show_all()
    whole = _frames(app, day, count, DAY_S + 6 + count)
    day.close()

    base_ms = median(baseline) * ms
    whole_ms = median(whole) * ms
    out(
        f"{NAME}: {samples} samples ({STREAMS} streams × 24 h at 1 s, filled in "
        f"{fmt(fill_s * ms)} ms), {count} frames each, widget 1400×500 offscreen"
    )
    out(f"  empty plot (baseline):  {spread(baseline, ms, 'ms')}")
    out(f"  follow, last 5 min:     {spread(follow, ms, 'ms')}")
    out(f"  whole day in view:      {spread(whole, ms, 'ms')}")
    out(f"  whole day ÷ empty: {fmt(whole_ms / base_ms)}×")
    return Verdict(
        NAME,
        whole_ms / base_ms,
        TARGET_RATIO,
        "a redraw of an empty plot",
        info=f"{fmt(whole_ms)} ms/frame, follow {fmt(median(follow) * ms)} ms, "
        f"empty {fmt(base_ms)} ms",
    )
