"""A run at 0.1 s in its run tab, fed line by line from iperf3's own output (3.12, ``-n 8M -b
50M -i 0.1``): every report is drawn at its own time, only the short last one is marked
partial, the time axis labels tenths of a second, and the burst panel's model takes the
interval's knobs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from plot_kit import LiveRun, last_drawn_x
from pytestqt.qtbot import QtBot

from pairbench.domain import RunSpec
from pairbench.ui.plotting.time_axis import clock_text, pick_step

CAPTURE = Path(__file__).resolve().parents[1] / "data" / "subsecond"
LINES = (CAPTURE / "iperf3-3.12_bytes8M_interval0.1.txt").read_text().splitlines()


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
