"""Soak a live plot: synthetic records at a high rate, from a timer and from a worker thread
through queued signals (as the engine bridge delivers them), redrawn at 10 Hz while the "user"
moves the crosshair, toggles legend entries, zooms, follows and opens/closes run views.

Run as a script (``python -X faulthandler plot_soak.py --seconds 40``) so a refcount abort
in PySide6 (DESIGN §3: 6.12.0 on CPython 3.11) ends this process, not the test session.
Prints one ``OK ...`` line and exits 0 when everything held up.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import threading
import time

from PySide6.QtCore import QObject, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QHBoxLayout, QWidget

from pairbench.domain import Record
from pairbench.ui.plotting.run_plots import RunPlots

TCP = ("throughput_bps", "retransmits", "cwnd_bytes")
SUM = ("throughput_bps", "retransmits")
UDP = ("throughput_bps", "jitter_ms", "lost_packets", "packets", "lost_percent")
FIO = ("read_iops", "read_bytes_per_s", "read_lat_mean_us", "read_lat_p99_us")


class Feed(QObject):
    """Records from another thread, delivered as queued signals (like RunSignals.records)."""

    records = Signal(object)


def tcp_batch(t: float, streams: int = 8) -> list[Record]:
    records = [
        Record(str(4 + i), t, TCP, (1e9 + 2e8 * math.sin(t / 7 + i), float(i % 3), 6e5 + i))
        for i in range(streams)
    ]
    records.append(Record("sum", t, SUM, (8e9 + 1e9 * math.sin(t / 7), 3.0)))
    return records


def other_batch(t: float) -> list[Record]:
    jitter = 0.05 + 0.01 * math.sin(t)
    value = float("nan") if random.random() < 0.001 else 64_000 + 1000 * math.cos(t)
    return [
        Record("sum", t, UDP, (1e9, jitter, 1.0, 89_000.0, 0.001)),
        Record("sum", t, FIO, (value, 250e6, 480.0, 1900.0)),
        Record("sum", t, ("rtt_ms",), (0.06 + 0.01 * random.random(),)),
        Record("sum", t, ("latency_avg_us", "ops_per_s"), (85.0, 11_000.0)),
    ]


def wheel(widget: QWidget) -> None:
    viewport = widget.viewport()  # type: ignore[attr-defined]
    center = viewport.rect().center()
    event = QWheelEvent(
        QPointF(center),
        QPointF(viewport.mapToGlobal(center)),
        QPointF(0, 0).toPoint(),
        QPointF(0, random.choice((120, -120))).toPoint(),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(viewport, event)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=40.0)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = QWidget()
    layout = QHBoxLayout(window)
    views: list[RunPlots] = [RunPlots(), RunPlots()]
    for view in views:
        layout.addWidget(view)
    window.resize(1600, 900)
    window.show()

    clock = {"t": 0.0}
    counts = {"records": 0, "actions": 0, "replaced": 0}
    feed = Feed()

    def deliver(records: list[Record]) -> None:
        views[1].add_records(records)
        counts["records"] += len(records)

    feed.records.connect(deliver, Qt.ConnectionType.QueuedConnection)
    stop = threading.Event()

    def worker() -> None:  # the engine thread's role: emit from another thread
        t = 0.0
        while not stop.is_set():
            batch: list[Record] = []
            for _ in range(10):
                t += 0.05
                batch += tcp_batch(t, streams=4) + other_batch(t)
            feed.records.emit(batch)
            time.sleep(0.01)

    thread = threading.Thread(target=worker, daemon=True)
    thread.start()

    def tick() -> None:  # the GUI thread's own fast feed
        clock["t"] += 0.02
        t = clock["t"]
        batch = tcp_batch(t) + other_batch(t)
        views[0].add_records(batch)
        counts["records"] += len(batch)

    def act() -> None:  # what a restless user does
        counts["actions"] += 1
        view = random.choice(views)
        if not view.plots:
            return
        plot = random.choice(list(view.plots.values()))
        choice = random.randrange(8)
        if choice == 0:
            plot.show_cursor(random.uniform(0, max(view.t_max(), 1)), random.random())
        elif choice == 1:
            plot.hide_cursor()
        elif choice == 2 and plot.legend.items:
            sample, _label = random.choice(plot.legend.items)
            curve = next((c for c in plot.curves.values() if c.item is sample.item), None)
            if curve is not None:
                curve.item.setVisible(not curve.item.isVisible())
                plot._legend_clicked(curve.item)
        elif choice == 3:
            wheel(plot.widget)
        elif choice == 4:
            view.set_follow(True)
        elif choice == 5:
            view.show_all()
        elif choice == 6:
            view.set_window(random.choice((60.0, 300.0, 3600.0)))
        else:
            plot.view_box.setXRange(0, max(view.t_max() / 2, 1), padding=0)

    def replace_view() -> None:  # a run tab closed, another opened
        old = views[0]
        new = RunPlots()
        layout.replaceWidget(old, new)
        views[0] = new
        old.hide()
        old.deleteLater()
        counts["replaced"] += 1

    timers = []
    for interval, slot in ((5, tick), (37, act), (5000, replace_view)):
        timer = QTimer()
        timer.setInterval(interval)
        timer.timeout.connect(slot)
        timer.start()
        timers.append(timer)
    QTimer.singleShot(int(args.seconds * 1000), app.quit)
    app.exec()
    stop.set()
    thread.join(5)
    redraws = sum(view.redraws for view in views)
    samples = sum(view.sample_count() for view in views)
    print(
        f"OK records={counts['records']} actions={counts['actions']} "
        f"replaced={counts['replaced']} redraws={redraws} samples={samples}",
        flush=True,
    )
    for timer in timers:
        timer.stop()
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
