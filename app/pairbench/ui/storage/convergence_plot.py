"""The steady-state convergence plot: the tracked mix's figure per block size at each
complete round (one line per block size, in its colour), growing a point per round."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from pairbench.domain.metrics import METRICS, metric_unit
from pairbench.domain.storage import SuiteParams, block_size_word, mix_word, stages_of
from pairbench.services.storage_watch import ConvergenceLine
from pairbench.ui.storage.colors import bs_color
from pairbench.ui.storage.round_plot import RoundPlot


def _axis_name(metric: str) -> str:
    known = METRICS.get(metric)
    return known.label if known else metric


class ConvergencePlot(RoundPlot):
    """Redrawn whole from the lines (a few dozen points: cheaper than bookkeeping)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Steady-state convergence", parent)
        self.setObjectName("storage_convergence")
        self.lines: dict[str, ConvergenceLine] = {}  # by block size, as drawn
        self.show_lines(None, [])

    def show_lines(self, params: SuiteParams | None, lines: list[ConvergenceLine]) -> None:
        """Draw ``lines`` (``services.storage_watch.convergence_lines``) of a suite."""
        self.clear()
        self.lines = {line.bs: line for line in lines}
        if params is None:
            self.title_label.setText("Steady-state convergence")
            self.set_legend([])
            self.note_label.setText("A point per block size at the end of each round.")
            self.set_rounds(1, 5)
            return
        stage = stages_of(params.test)[0]
        mix = mix_word(stage.tracked.read_pct)
        self.title_label.setText(f"Steady-state convergence — {params.test.value}, {mix} mix")
        metric = stage.metric
        values = [v for line in lines for v in line.values]
        self.set_y(_axis_name(metric), metric_unit(metric), values)
        last = max((r for line in lines for r in line.rounds), default=0)
        self.set_rounds(1, max(5, last))
        for line in lines:
            if line.rounds:
                self.add_line(
                    [float(r) for r in line.rounds],
                    list(line.values),
                    bs_color(line.bs),
                    symbol="o",
                )
        self.set_legend([(block_size_word(line.bs), bs_color(line.bs)) for line in lines])
        tracked = ", ".join(block_size_word(s.tracked.bs) for s in stages_of(params.test))
        self.note_label.setText(
            f"{_axis_name(metric)} of the {mix} jobs at each complete round; steady state "
            f"is judged on {tracked} over the last 5 rounds."
        )

    def point_counts(self) -> dict[str, int]:
        """Points drawn per block size (for tests and status text)."""
        return {bs: len(line.rounds) for bs, line in self.lines.items()}
