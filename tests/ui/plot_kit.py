"""Helpers for the plot tests: iperf3 text output written in iperf3's own format, and a run
tab fed line by line through the real parser and the run's real signals (no network)."""

from __future__ import annotations

import numpy as np
from pytestqt.qtbot import QtBot

from pairbench.domain import LOCAL_PAIR, Line, LineSource, Record, Run, RunSpec, RunStatus
from pairbench.tools.iperf3_text import Iperf3TextParser
from pairbench.ui.bridge import RunSignals
from pairbench.ui.plotting.live_plot import Curve, LivePlot
from pairbench.ui.run.controller import RunController
from pairbench.ui.run.run_tab import RunTab

FULL, LAST = 10, 0.04  # ten 1 s intervals, then iperf3's short last one (10.00-10.04)
SEP = "- - - - - - - - - - - - - - - - - - - - - - - - -"


def _interval(k: int) -> tuple[float, float]:
    return (float(k), float(k + 1)) if k < FULL else (float(FULL), FULL + LAST)


def tcp_output(streams: int = 4, seed: int = 3) -> list[str]:
    """iperf3 -P N client text: per-stream lines, then [SUM], every interval; a short last."""
    rng = np.random.default_rng(seed)
    ids = [5 + 2 * i for i in range(streams)]
    lines = ["Connecting to host 127.0.0.1, port 5201"]
    lines += [
        f"[{i:3d}] local 127.0.0.1 port {50000 + i} connected to 127.0.0.1 port 5201" for i in ids
    ]
    lines.append("[ ID] Interval           Transfer     Bitrate         Retr  Cwnd")
    for k in range(FULL + 1):
        lo, hi = _interval(k)
        rates = [2.0 + 0.8 * i + 0.3 * rng.standard_normal() for i in range(streams)]
        retr = [int(rng.integers(0, 30)) for _ in ids]
        for i, rate, r in zip(ids, rates, retr, strict=True):
            mbytes = rate * 1e9 * (hi - lo) / 8 / 2**20
            lines.append(
                f"[{i:3d}] {lo:6.2f}-{hi:<6.2f} sec  {mbytes:4.0f} MBytes  {rate:4.2f} Gbits/sec"
                f"  {r:3d}   {1.5 + 0.1 * i:.2f} MBytes       "
            )
        total = sum(rates)
        mbytes = total * 1e9 * (hi - lo) / 8 / 2**20
        lines.append(
            f"[SUM] {lo:6.2f}-{hi:<6.2f} sec  {mbytes:4.0f} MBytes  {total:4.1f} Gbits/sec"
            f"  {sum(retr):3d}             "
        )
        lines.append(SEP)
    return lines


def udp_output(streams: int = 2, seed: int = 5) -> list[str]:
    """iperf3 -u -R -P N client text (the receiver: jitter and lost/total per interval)."""
    rng = np.random.default_rng(seed)
    ids = [5 + 2 * i for i in range(streams)]
    lines = ["Connecting to host 127.0.0.1, port 5201", "Reverse mode, remote host is sending"]
    lines += [
        f"[{i:3d}] local 127.0.0.1 port {50000 + i} connected to 127.0.0.1 port 5201" for i in ids
    ]
    lines.append(
        "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams"
    )
    for k in range(FULL + 1):
        lo, hi = _interval(k)
        totals = lost_all = 0
        jitters = []
        for i in ids:
            total = max(1, round(1700 * (hi - lo)))
            lost = int(rng.integers(0, 40)) if k < FULL else 0
            jitter = 0.02 + 0.01 * rng.random()
            jitters.append(jitter)
            totals, lost_all = totals + total, lost_all + lost
            lines.append(
                f"[{i:3d}] {lo:6.2f}-{hi:<6.2f} sec  {total * 1.448 / 1024:.2f} MBytes"
                f"  {total * 1448 * 8 / (hi - lo) / 1e6:.1f} Mbits/sec  {jitter:.3f} ms"
                f"  {lost}/{total} ({100 * lost / total:.2g}%)  "
            )
        lines.append(
            f"[SUM] {lo:6.2f}-{hi:<6.2f} sec  {totals * 1.448 / 1024:.2f} MBytes"
            f"  {totals * 1448 * 8 / (hi - lo) / 1e6:.1f} Mbits/sec  {max(jitters):.3f} ms"
            f"  {lost_all}/{totals} ({100 * lost_all / totals:.2g}%)  "
        )
        lines.append(SEP)
    return lines


class LiveRun:
    """A run tab fed as the engine feeds it: one records signal per parsed line."""

    def __init__(self, qtbot: QtBot, spec: RunSpec) -> None:
        self.spec = spec
        self.signals = RunSignals()
        self.tab = RunTab(RunController(self.signals, LOCAL_PAIR, spec))
        qtbot.addWidget(self.tab)
        self.tab.resize(1280, 860)
        self.tab.show()
        qtbot.waitExposed(self.tab)
        self.signals.started.emit(1, spec, 10.0)
        self.parser = Iperf3TextParser()

    def line(self, text: str) -> list[Record]:
        self.signals.line.emit(Line(LineSource.CLIENT_OUT, text, 0.0))
        records = self.parser.feed(text)
        if records:
            self.signals.records.emit(records)
        return records

    def finish(self) -> None:
        run = Run(1, self.spec, RunStatus.COMPLETED, 0.0, FULL + LAST)
        self.signals.finished.emit(run)
        self.tab.plots.refresh(force=True)

    def plot(self, plot_id: str) -> LivePlot:
        return self.tab.plots.plots[plot_id]


def last_drawn_x(curve: Curve) -> float:
    """The time of the latest point drawn: the line's end, or the partial marker after it."""
    if curve.marker.isVisible():
        return float(curve.marker.data["x"][-1])
    x = curve.item.xData
    return float(x[-1]) if x is not None and len(x) else float("-inf")
