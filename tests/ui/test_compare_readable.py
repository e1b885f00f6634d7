"""The compare view cannot mislead (issue 28, point 6): curves that lie on each other are told
apart by dashes and the chart says so, each run's dot sits at its group's x, values print in
the unit of their own size, and "What differs" lists real differences first.

The runs are real iperf3 outputs imported from the repository's captures: the same capture
twice lies exactly on itself (the worst case of two ~equal runs), the shaped burst capture
is another curve altogether.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from pairbench.analysis.compare import compare
from pairbench.analysis.compare_runs import GroupBy
from pairbench.domain import RunSpec, RunStatus
from pairbench.export.charts import ChartKind, chart_spec
from pairbench.library import Library
from pairbench.library.runs import create_run, finish_run
from pairbench.services.compare import compare_inputs
from pairbench.services.importing import import_output
from pairbench.tools.params import resolve_params
from pairbench.tools.registry import TOOLS
from pairbench.ui.compare.render import build_chart
from pairbench.ui.compare.view import CompareView
from testkit import FIXTURES


def _import(lib: Library, name: str, label: str) -> int:
    text = (FIXTURES / "iperf3" / name).read_text()
    return import_output(lib, "iperf3", text, label=label).id


def test_overlapping_curves_are_dashed_and_named(qtbot: QtBot, library: Library) -> None:
    first = _import(library, "tcp_t5.out", "loopback a")
    second = _import(library, "tcp_t5.out", "loopback b")  # lies exactly on the first
    other = _import(library, "tcp_t12_shaped_burst.out", "shaped")
    cmp = compare(compare_inputs(library, [first, second, other]))
    spec = chart_spec(cmp)
    dashes = {c.run_id: c.dash for c in spec.curves}
    assert dashes == {first: "solid", second: "dash", other: "solid"}
    assert "2 curves overlap" in spec.note
    assert f"#{first}" in spec.note and f"#{second}" in spec.note and f"#{other}" not in spec.note
    widget = build_chart(spec)
    try:
        styles = [item.opts["pen"].style() for item in widget.curve_items]
        assert styles == [Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.SolidLine]
        assert widget.note_label is not None and "overlap" in widget.note_label.text
    finally:
        widget.release()


def test_distinct_curves_stay_solid(qtbot: QtBot, library: Library) -> None:
    ids = [_import(library, "tcp_t5.out", "a"), _import(library, "tcp_t12_shaped_burst.out", "b")]
    spec = chart_spec(compare(compare_inputs(library, ids)))
    assert [c.dash for c in spec.curves] == ["solid", "solid"] and spec.note == ""


def test_each_run_dot_sits_at_its_group_x(qtbot: QtBot, library: Library) -> None:
    ids = [_import(library, "tcp_t5.out", "A") for _ in range(3)]
    ids += [_import(library, "tcp_t12_shaped_burst.out", "B") for _ in range(2)]
    cmp = compare(compare_inputs(library, ids), group_by=GroupBy.parse("label"))
    widget = build_chart(chart_spec(cmp, ChartKind.SUMMARY))
    try:
        plot = widget.summary_plot
        assert plot is not None
        small = [
            item
            for item in plot.items
            if isinstance(item, pg.ScatterPlotItem) and item.opts["size"] == 6
        ]
        xs = sorted(np.concatenate([item.getData()[0] for item in small]).tolist())
        assert len(xs) == 5
        near = 0.1  # a tenth of the space between two groups
        for x in xs:  # every dot by the x of group 0 or group 1
            assert min(abs(x - 0), abs(x - 1)) <= near, xs
        assert sum(abs(x) <= near for x in xs) == 3
    finally:
        widget.release()


def test_the_view_says_what_overlaps_and_puts_real_differences_first(
    qtbot: QtBot, library: Library
) -> None:
    imported = _import(library, "tcp_t5.out", "imported")
    again = _import(library, "tcp_t5.out", "imported again")
    params = resolve_params(TOOLS["iperf3"].params, {"streams": "4"})
    ran = create_run(library, RunSpec("local", "iperf3", params, label="ran"))
    finish_run(library, ran, RunStatus.COMPLETED, summary={"throughput_bps": 25e9}, complete=True)
    view = CompareView(compare_inputs(library, [imported, again, ran]))
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    qtbot.waitExposed(view)
    assert "2 curves overlap" in view.status.text()
    rows = [view.diff_view.item(r, 0).text() for r in range(view.diff_view.rowCount())]
    assert rows[0] == "param streams"  # the one parameter that differs, first
    assert not any(r.startswith("param ") for r in rows[1:])  # no unset-vs-default rows
    headline = [view.table_view.item(r, 3).text() for r in range(view.table_view.rowCount())]
    assert "25.0 Gbit/s" in headline and not any("000 Mbit/s" in h for h in headline)
