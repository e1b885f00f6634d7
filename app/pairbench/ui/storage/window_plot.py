"""The measurement window plot: a stage's last 5 rounds of its tracking figure, their mean,
the ±10 % and ±20 % bands, the least-squares line, and each check's verdict in numbers."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QWidget

from pairbench.analysis.steady_state import SteadyState, WindowCheck
from pairbench.analysis.storage_suite import StageProgress
from pairbench.domain.metrics import METRICS, metric_unit
from pairbench.domain.units import Scale
from pairbench.ui.storage.colors import bs_color
from pairbench.ui.storage.round_plot import RoundPlot

MEAN_COLOR = "#202020"
FIT_COLOR = "#d62728"
BAND_10 = "#2ca02c40"
BAND_20 = "#2ca02c1a"
OK, NOT_OK = "✓ passes", "✗ fails"


def _check_text(name: str, value: float, limit: float, mean: float, ok: bool, scale: Scale) -> str:
    verdict = OK if ok else NOT_OK
    share = f" ({limit / mean * 100:.0f} % of mean)" if mean > 0 else ""
    return f"{name} {scale.format(value)}, limit {scale.format(limit)}{share}: {verdict}"


class WindowPlot(RoundPlot):
    """One stage at a time (a combo chooses the stage when the test has several)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Measurement window", parent)
        self.setObjectName("storage_window")
        self.stages: dict[int, StageProgress] = {}
        self.shown: StageProgress | None = None
        self.check: WindowCheck | None = None
        self.fit: list[float] = []  # the fitted line's values at the window's rounds
        self.stage_combo = QComboBox()
        self.stage_combo.setVisible(False)
        self.stage_combo.currentIndexChanged.connect(self._stage_chosen)
        self.verdict_label = QLabel("")
        self.verdict_label.setObjectName("storage_verdict")
        self.verdict_label.setTextFormat(Qt.TextFormat.PlainText)
        self.verdict_label.setWordWrap(True)
        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.addWidget(self.title_label, 1)
        header.addWidget(self.stage_combo)
        layout = self.layout()
        assert layout is not None
        layout.removeWidget(self.title_label)
        layout.insertLayout(0, header)  # type: ignore[attr-defined]
        layout.addWidget(self.verdict_label)
        self.set_stages({})

    def set_stages(self, stages: dict[int, StageProgress], show: int | None = None) -> None:
        """The stages with a verdict so far; show stage ``show`` (default: the one shown,
        else the latest)."""
        self.stages = dict(stages)
        current = self.shown.index if self.shown is not None else None
        wanted = show if show is not None else current
        if wanted not in self.stages:
            wanted = max(self.stages, default=None)
        self.stage_combo.blockSignals(True)
        self.stage_combo.clear()
        for index in sorted(self.stages):
            self.stage_combo.addItem(self.stages[index].stage.name, index)
        if wanted is not None:
            self.stage_combo.setCurrentIndex(self.stage_combo.findData(wanted))
        self.stage_combo.blockSignals(False)
        self.stage_combo.setVisible(len(self.stages) > 1)
        self.show_stage(self.stages.get(wanted) if wanted is not None else None)

    def _stage_chosen(self) -> None:
        index = self.stage_combo.currentData()
        if index in self.stages:
            self.show_stage(self.stages[index])

    def show_stage(self, stage: StageProgress | None) -> None:
        self.clear()
        self.shown = stage
        self.check = stage.verdict.window if stage is not None else None
        self.fit = []
        if stage is None:
            self.title_label.setText("Measurement window")
            self.set_legend([])
            self.verdict_label.setText("")
            self.note_label.setText("Shown from round 5: the last 5 rounds of the tracked job.")
            self.set_rounds(1, 5)
            return
        metric = stage.stage.metric
        known = METRICS.get(metric)
        name = known.label if known else metric
        self.title_label.setText(f"Measurement window — {stage.stage.name}")
        window = self.check
        color = bs_color(stage.stage.tracked.bs)
        if window is None:
            rounds = list(range(1, len(stage.values) + 1))
            self.set_y(name, metric_unit(metric), stage.values)
            self.set_rounds(1, 5)
            self.add_line([float(r) for r in rounds], list(stage.values), color, symbol="o")
            self.set_legend([(stage.stage.tracked.name, color)])
            self.verdict_label.setText("")
            self.note_label.setText(
                f"The window needs 5 complete rounds: {len(stage.values)} so far."
            )
            return
        n = len(window.values)
        first = window.round - n + 1
        xs = [float(first + i) for i in range(n)]
        mean = window.mean
        bands = [mean * f for f in (0.8, 0.9, 1.1, 1.2)]
        self.fit = [window.intercept + window.slope * i for i in range(n)]
        values = [*window.values, *bands, *self.fit]
        scale = self.set_y(name, metric_unit(metric), values, from_zero=False)
        self.set_rounds(first, window.round)
        span = [first - 0.5, window.round + 0.5]
        self.add_band(span, bands[0], bands[3], BAND_20)
        self.add_band(span, bands[1], bands[2], BAND_10)
        self.add_line(span, [mean, mean], MEAN_COLOR, width=1.5)
        self.add_line(xs, self.fit, FIT_COLOR, width=1.5, style=Qt.PenStyle.DashLine)
        self.add_line(xs, list(window.values), color, symbol="o")
        self.set_legend(
            [
                (stage.stage.tracked.name, color),
                (f"mean {scale.format(mean)}", MEAN_COLOR),
                ("±10 % of the mean", "#2ca02c"),
                ("±20 %", "#9fd49f"),
                ("fitted line", FIT_COLOR),
            ]
        )
        self.verdict_label.setText(self._verdict_text(stage, window, scale))
        self.note_label.setText(
            f"Rounds {first}–{window.round} of {stage.stage.metric_label}; the fitted line "
            "is their least-squares line."
        )

    @staticmethod
    def _verdict_text(stage: StageProgress, window: WindowCheck, scale: Scale) -> str:
        verdict = stage.verdict
        if verdict.state is SteadyState.REACHED:
            head = f"Steady state reached at round {window.round}."
        elif verdict.state is SteadyState.NOT_REACHED:
            head = f"Steady state not reached in {verdict.rounds} rounds (last window shown)."
        else:
            head = f"Not steady yet after round {window.round}."
        if window.rule == "cloudharmony":
            head += " By CloudHarmony's arithmetic (its units and roundings)."
        data = _check_text(
            "Data excursion (max − min)",
            window.data_excursion,
            window.data_limit,
            window.mean,
            window.data_ok,
            scale,
        )
        slope = _check_text(
            f"Slope excursion (|slope| × {len(window.values) - 1})",
            window.slope_excursion,
            window.slope_limit,
            window.mean,
            window.slope_ok,
            scale,
        )
        return f"{head}\n{data}\n{slope}"
