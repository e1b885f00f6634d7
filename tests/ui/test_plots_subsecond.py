"""A run at 0.1 s in its run tab, fed line by line from iperf3's own output (3.12, ``-n 8M -b
50M -i 0.1``): every report is drawn at its own time, only the short last one is marked
partial, the time axis labels tenths of a second, and the burst panel's model takes the
interval's knobs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from plot_kit import LiveRun, last_drawn_x
from pytestqt.qtbot import QtBot

from pairbench.domain import Record, RunSpec
from pairbench.ui.plotting import run_plots
from pairbench.ui.plotting.run_plots import RunPlots
from pairbench.ui.plotting.time_axis import clock_text, pick_step

CAPTURE = Path(__file__).resolve().parents[1] / "data" / "subsecond"
LINES = (CAPTURE / "iperf3-3.12_bytes8M_interval0.1.txt").read_text().splitlines()
TCP = ("throughput_bps", "retransmits", "cwnd_bytes")


def _report(t: float) -> list[Record]:
    """One 0.1 s report of iperf3 -P 8: eight streams and their sum."""
    streams = [Record(str(5 + 2 * i), t, TCP, (1e8, 0.0, 6e5)) for i in range(8)]
    return [*streams, Record("sum", t, TCP[:2], (8e8, 0.0))]


def test_a_tenth_of_a_second_run_is_drawn_report_by_report(qtbot: QtBot) -> None:
    live = LiveRun(qtbot, RunSpec("local", "iperf3", {"bytes": "8M", "interval": "0.1"}))
    times: list[float] = []
    for line in LINES:
        times += [r.t for r in live.line(line) if r.stream == "sum"]
    live.tab.plots.refresh(force=True)
    plot = live.plot("throughput")
    curve = plot.curves[("sum", "throughput_bps")]
    drawn = np.asarray(curve.item.xData)
    # Every full 0.1 s report is a point of the line; the last, shorter one is the marker.
    assert np.allclose(np.diff(drawn), 0.1, atol=1e-6), drawn
    assert curve.marker.isVisible() and last_drawn_x(curve) == times[-1]
    assert len(drawn) == len(times) - 1
    assert live.tab.burst.model.params.confirm_intervals == 60  # 6 s at 0.1 s, as at 1 s
    assert clock_text(1.3, pick_step(2.0, 900)) == "1.3 s"


def test_ticks_take_records_in_but_redraw_a_plot_at_most_every_quarter_second(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ten ticks in a second, a report of 8 streams before each: every record is in the
    buffers at once, but only four plots are redrawn (one every 0.25 s)."""
    plots = RunPlots()
    qtbot.addWidget(plots)
    plots.resize(900, 600)
    plots.show()
    qtbot.waitExposed(plots)
    now = [1000.0]
    monkeypatch.setattr(run_plots.time, "monotonic", lambda: now[0])
    plots.timer.stop()
    plots.add_records(_report(0.1))
    plots.refresh(force=True)  # the plots built and drawn once
    before = plots.redraws
    for k in range(2, 12):
        plots.add_records(_report(0.1 * k))
        now[0] += 0.1
        plots._tick()
        buffer = plots.buffer("5", "throughput_bps")
        assert buffer is not None and len(buffer) == k  # taken in at every tick
    assert plots.redraws - before == 4  # at 1000.1 (first), 1000.4, 1000.7, 1001.0
