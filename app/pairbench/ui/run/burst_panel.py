"""Burst credits in a live run's tab: the model fed from the records, the panel, the overlay.

``BurstMonitor`` follows a run's ``RunController``: every "sum" throughput interval goes to a
``BurstModel`` (on the GUI thread: an update costs ~0.3 ms), the panel shows the estimates and
the throughput plot gets the step and the levels (``BurstOverlay``). Only runs where a burst
analysis makes sense have it (``burst_applies``: TCP throughput runs and the burst probe; not
UDP, ping, fio or uperf's request/response runs), and the panel stays hidden until
``MIN_INTERVALS`` intervals arrived.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QVBoxLayout, QWidget

from pairbench.analysis.burst import BurstEstimate, BurstState
from pairbench.analysis.burst_allowance import AllowanceWatch, confirming
from pairbench.analysis.burst_model import BurstModel
from pairbench.domain import Record, RunSpec
from pairbench.domain.units import SI_BYTES, format_bits, format_quantity, scale_for
from pairbench.tools.registry import TOOLS
from pairbench.ui.plotting.run_plots import RunPlots
from pairbench.ui.run.burst_overlay import BASELINE_COLOR, BURST_COLOR, BurstOverlay
from pairbench.ui.run.controller import RunController

STREAM, METRIC = "sum", "throughput_bps"
MIN_INTERVALS = 3  # the panel appears after this many aggregate intervals
THROUGHPUT_PLOT = "throughput"
ATTACH_RETRY_MS = 250  # the throughput plot is built lazily: look again this often


def burst_applies(spec: RunSpec) -> bool:
    """True where a burst analysis makes sense: the burst probe, or a run its tool's record
    calls a TCP bulk transfer (``Tool.bulk_transfer``: iperf3, iperf2, nuttcp without UDP;
    uperf's throughput profile over TCP)."""
    if spec.tags.get("probe") == "burst":
        return True
    tool = TOOLS.get(spec.tool)
    if tool is None or tool.bulk_transfer is None:
        return False
    return tool.bulk_transfer(spec.params)


def gigabytes(bits: float) -> str:
    """Bits as decimal gigabytes (how clouds quote a bucket), 3 significant digits: ``2.10 GB``."""
    return scale_for(SI_BYTES, 1e9).format(bits / 8)


def size(bits: float) -> str:
    """Bits as bytes with a decimal prefix, 3 significant digits: ``6.68 MB``."""
    return format_quantity(SI_BYTES, bits / 8)


def _pm(value: str, err: str | None) -> str:
    return f"{value} ± {err}" if err is not None else value


def _rate(value: float | None, err: float | None) -> str:
    if value is None:
        return "—"
    return _pm(format_bits(value), None if err is None else format_bits(err))


def _secs(value: float | None, err: float | None) -> str:
    if value is None:
        return "—"
    return _pm(f"{value:.1f} s", None if err is None else f"{err:.1f} s")


def _bucket(value: float | None, err: float | None) -> str:
    if value is None:
        return "—"
    return _pm(gigabytes(value), None if err is None else size(err))


def _minutes(seconds: float) -> str:
    minutes = seconds / 60
    return f"{minutes:.1f}" if minutes < 10 else f"{minutes:.0f}"


def headline(e: BurstEstimate, *, ended: bool = False) -> str:
    """One line: what the model knows so far (``ended``: all it will know, the run over)."""
    span = f"{e.t - e.start_t:.0f} s"
    if e.state is BurstState.NO_STEP or e.step_t is None:
        rate = _rate(e.burst_bps, e.burst_bps_err)
        if ended:
            return f"No step in {span}: {rate} throughout (no drop to a baseline)"
        return f"Burst so far: {rate} over {span}, no step yet"
    step = _secs(e.step_t, e.step_t_err)
    if e.state is BurstState.SUSPECTED:
        if ended:
            return f"Step suspected at {step}, not confirmed before the run ended: provisional"
        return f"Step suspected at {step}: not confirmed yet, the estimates are provisional"
    confirmed = "" if e.confirmed_at is None else f" (confirmed at {e.confirmed_at:.1f} s)"
    return f"Step at {step} ✓{confirmed}"


def estimate_rows(e: BurstEstimate) -> list[tuple[str, str]]:
    """(label, value ± error) once there is a step; none before."""
    if e.state is BurstState.NO_STEP:
        return []
    return [
        ("Burst rate", _rate(e.burst_bps, e.burst_bps_err)),
        ("Baseline", _rate(e.baseline_bps, e.baseline_bps_err)),
        ("Burst time", _secs(e.burst_seconds, e.burst_seconds_err)),
        ("Bucket", _bucket(e.bucket_bits, e.bucket_bits_err)),
    ]


def refill_text(e: BurstEstimate) -> str:
    """After a confirmed step: the bucket and how long an idle link takes to refill it."""
    refill = e.refill_seconds()
    if e.state is not BurstState.CONFIRMED or e.bucket_bits is None or refill is None:
        return ""
    if not math.isfinite(refill):
        return f"bucket ≈ {gigabytes(e.bucket_bits)}"
    return (
        f"bucket ≈ {gigabytes(e.bucket_bits)}, refills at the baseline rate → "
        f"full again after ~{_minutes(refill)} min idle"
    )


def burst_analysis_rows(kind: str, data: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A stored analysis (``burst`` or ``burst_refill``) as (label, value) rows for the
    library's run detail; unreadable data gives one row saying so."""
    try:
        if kind == "burst":
            e = BurstEstimate.from_json(dict(data))
            rows = [("result", headline(e, ended=True)), *estimate_rows(e)]
            refill = refill_text(e)
            allowance = data.get("allowance")
            if isinstance(allowance, Mapping) and allowance.get("confirmed"):
                rows.append(("allowance", str(allowance.get("sentence", ""))))
            return rows + ([("refill", refill)] if refill else [])
        rows = [("idle", _secs(data.get("idle_s"), None))]
        if data.get("refilled_bits") is not None:
            rows.append(("credit back", gigabytes(float(data["refilled_bits"]))))
        if data.get("refill_bps") is not None:
            bound = " (at least: the bucket came back full)" if data.get("full") else ""
            rows.append(("refill rate", format_bits(float(data["refill_bps"])) + bound))
        if data.get("refill_ratio") is not None:
            rows.append(("÷ baseline", f"{float(data['refill_ratio']):.2f}"))
        return rows
    except (KeyError, TypeError, ValueError) as exc:
        return [("unreadable", f"{type(exc).__name__}: {exc}")]


class BurstPanel(QFrame):
    """The estimates under the plots: a headline, four values, the refill line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("burst_panel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = QLabel("Burst credits")
        self.title.setStyleSheet("font-weight: bold;")
        self.headline = QLabel()
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.refill = QLabel()
        self.refill.setStyleSheet("font-weight: bold;")
        self.refill.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # What the NIC's bandwidth allowance counters say of the step (AWS ENA).
        self.allowance = QLabel()
        self.allowance.setObjectName("burst_allowance")
        self.allowance.setWordWrap(True)
        self.allowance.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.grid = QGridLayout()
        self.grid.setHorizontalSpacing(14)
        self.values: dict[str, QLabel] = {}
        colors = {"Burst rate": BURST_COLOR, "Baseline": BASELINE_COLOR}
        for i, name in enumerate(("Burst rate", "Baseline", "Burst time", "Bucket")):
            label = QLabel(name)
            label.setStyleSheet(f"color: {colors.get(name, '#555')};")
            value = QLabel("—")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setStyleSheet("font-weight: bold;")
            self.grid.addWidget(label, 0, i * 2)
            self.grid.addWidget(value, 0, i * 2 + 1)
            self.grid.setColumnStretch(i * 2 + 1, 1)
            self.values[name] = value
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.setSpacing(2)
        layout.addWidget(self.title)
        layout.addWidget(self.headline)
        layout.addLayout(self.grid)
        layout.addWidget(self.refill)
        layout.addWidget(self.allowance)
        layout.addStretch(1)  # the room held (``_hold_height``) stays blank under the text
        self.show_allowance("")
        self.show_estimate(None)
        self.setVisible(False)

    def show_estimate(self, e: BurstEstimate | None, *, ended: bool = False) -> None:
        """Update the texts (visibility is the monitor's call); ``ended``: the run is over."""
        self.headline.setText("" if e is None else headline(e, ended=ended))
        rows = dict(estimate_rows(e)) if e is not None else {}
        for name, label in self.values.items():
            label.setText(rows.get(name, "—"))
        for i in range(self.grid.count()):
            item = self.grid.itemAt(i)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.setVisible(bool(rows))
        text = "" if e is None else refill_text(e)
        self.refill.setText(text)
        self.refill.setVisible(bool(text))
        self._hold_height()

    def _hold_height(self) -> None:
        """Keep the most room the panel has needed: an estimate that flips between "step
        suspected" (a row of values) and "no step yet" (none), as a run at 0.1 s does several
        times a second, must not move the plots above it up and down (each move re-lays out
        and repaints every plot: ~25 ms of the GUI thread)."""
        need = self.sizeHint().height()
        if need > self.minimumHeight():
            self.setMinimumHeight(need)

    def show_allowance(self, text: str) -> None:
        """The allowance counters' word on the step ("" hides the line)."""
        self.allowance.setText(text)
        self.allowance.setVisible(bool(text))
        self._hold_height()

    def texts(self) -> dict[str, str]:
        """What is shown, by name (for tests and copying)."""
        shown = {name: label.text() for name, label in self.values.items()}
        return {
            "headline": self.headline.text(),
            "refill": self.refill.text(),
            "allowance": self.allowance.text(),
            **shown,
        }


class BurstMonitor(QObject):
    """Feeds a run's "sum" throughput to a ``BurstModel``; drives the panel and the overlay."""

    def __init__(
        self, controller: RunController, plots: RunPlots, parent: QObject | None = None
    ) -> None:
        super().__init__(parent or plots)
        self.plots = plots
        self.model = BurstModel()
        self.panel = BurstPanel()
        self.overlay: BurstOverlay | None = None
        self.estimate: BurstEstimate | None = None
        self.enabled = burst_applies(controller.spec)
        self._attach_timer = QTimer(self)
        self._attach_timer.setInterval(ATTACH_RETRY_MS)
        self._attach_timer.timeout.connect(self._draw)
        self.allowances = AllowanceWatch()  # the NIC's allowance counters, where it has them
        controller.records.connect(self.add_records)
        controller.finished.connect(self.finish)
        controller.telemetry.connect(self.add_telemetry)

    def add_records(self, records: list[Record]) -> None:
        """Take one line's records (the "sum" throughput among them, if any)."""
        if not self.enabled:
            return
        estimate = self.model.update_records(records, stream=STREAM, metric=METRIC)
        if estimate is None:
            return
        self.estimate = estimate
        self.panel.show_estimate(estimate)
        self.panel.setVisible(estimate.samples >= MIN_INTERVALS)
        self._show_allowance()
        self._draw()

    def finish(self, _run: object = None) -> None:
        """The run ended: the panel says what the whole run showed, no longer "so far"."""
        if self.enabled and self.estimate is not None:
            self.panel.show_estimate(self.estimate, ended=True)

    def add_telemetry(self, records: list[Record]) -> None:
        """Take host telemetry: the allowance counters' onsets confirm a step."""
        if self.enabled:
            self.allowances.feed(records)
            self._show_allowance()

    def _show_allowance(self) -> None:
        e = self.estimate
        if e is None or not self.allowances.present:
            return
        if not e.detected or e.step_t is None:
            self.panel.show_allowance("")
            return
        found = confirming(e.step_t, self.allowances.onsets)
        self.panel.show_allowance(
            found.sentence(e.step_t)
            if found is not None
            else "No bandwidth allowance counter rose near the step (yet)"
        )

    def _draw(self) -> None:
        plot = self.plots.plots.get(THROUGHPUT_PLOT)
        if plot is None:
            if not self._attach_timer.isActive():
                self._attach_timer.start()
            return
        self._attach_timer.stop()
        if self.overlay is None:
            self.overlay = BurstOverlay(plot)
        e = self.estimate
        self.overlay.show(e if e is not None and e.samples >= MIN_INTERVALS else None)
