"""The compare view's choices: the baseline defaults to the oldest group, the chart kind is
chosen in the window (overlay, means with CI, bars with CI, box plot) and an export says
where it wrote."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from pytestqt.qtbot import QtBot

from compare_runs import DAY, store_run
from pairbench.export.charts import ChartKind, SummaryStyle, box_of
from pairbench.library import Library
from pairbench.services.compare import compare_inputs
from pairbench.ui.compare.view import CHART_CHOICES, CompareView


def _runs(library: Library) -> list[int]:
    """Label "new" listed first but started a day after label "old"."""
    ids = []
    for k, (label, start, rate) in enumerate(
        (("new", DAY + 86_400, 900e6), ("old", DAY, 800e6), ("new", DAY + 86_500, 910e6),
         ("old", DAY + 100, 820e6), ("old", DAY + 200, 790e6), ("new", DAY + 86_600, 905e6))
    ):  # fmt: skip
        t = np.arange(1.0, 6.0)
        series = {"throughput_bps": (t, np.full(t.size, rate))}
        summary = {"throughput_bps": rate}
        ids.append(
            store_run(library, label=label, started_at=start + k, summary=summary, series=series)
        )
    return ids


def test_baseline_chart_kinds_and_where_exports_went(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    view = CompareView(compare_inputs(library, _runs(library)))
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.compared):
        view.group_box.setCurrentIndex(view.group_box.findData("label"))
    assert view.comparison is not None
    assert view.comparison.groups[0].name == "new"  # listed first...
    assert view.comparison.baseline == "old"  # ...but "old" started first: the baseline
    seen = []
    for index, (_, (kind, style)) in enumerate(CHART_CHOICES):
        view.chart_box.setCurrentIndex(index)
        assert view.chart is not None
        spec = view.spec()
        assert (spec.kind, spec.summary_style) == (ChartKind(kind), SummaryStyle(style))
        seen.append((view.chart.overlay_plot is not None, view.chart.summary_plot is not None))
    # both / overlay only / summary only (points, bars, box)
    assert seen == [(True, True), (True, False), (False, True), (False, True), (False, True)]
    box_index = [c[1][1] for c in CHART_CHOICES].index("box")
    view.chart_box.setCurrentIndex(box_index)
    old = next(p for p in view.spec().points if p.label == "old")
    assert old.box == box_of(list(old.values))
    path = view.export_chart(tmp_path / "box.svg")
    assert path.stat().st_size > 1000
    assert str(path.resolve()) in view.exports.wrote.text()
    table = view.export_table(tmp_path / "t.csv")
    assert str(table.resolve()) in view.exports.wrote.text()


def test_the_box_of_runs_is_tukeys() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 100.0]
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    reach = 1.5 * (q3 - q1)
    inside = [v for v in values if q1 - reach <= v <= q3 + reach]
    assert box_of(values) == (min(inside), q1, median, q3, max(inside))
    assert box_of(values)[4] == 4.0  # 100 is beyond the whisker
    assert box_of([5.0]) is None
