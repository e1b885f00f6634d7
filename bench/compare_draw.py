"""compare_draw: open a comparison of 10 runs × 86,400 points and draw its first frame (ms).

"Open" is what the compare view does: load the runs' arrays from the library, compute the
comparison (statistics, table, metadata diff), build the chart (overlay + summary) and paint
it once. The baseline, measured in the same run, is loading the same arrays without drawing.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from bench.common import Out, Verdict, fmt, median, ratio, spread, timed
from bench.compare_data import POINTS, RUNS, make_library
from pairbench.analysis.compare import compare
from pairbench.analysis.compare_runs import GroupBy
from pairbench.export.charts import ChartKind, chart_spec
from pairbench.export.selection import load_inputs
from pairbench.library import Library

NAME = "compare_draw"
# Opening the comparison and painting its first frame may take this many times as long as
# loading its arrays (the baseline, measured in the same run): about 300 ms where loading takes
# 25 ms.
TARGET_RATIO = 12.0


def open_and_draw(lib: Library, ids: list[int]) -> tuple[float, float]:
    """Seconds to open the comparison and paint its first frame; seconds of the drawing part.

    The chart widget is shown (off screen) and events are processed until it has painted
    once, as a window would on its first frame.
    """
    import time

    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from pairbench.ui.compare.render import ChartWidget

    start = time.perf_counter()
    inputs = load_inputs(lib, ids)
    cmp = compare(inputs, group_by=GroupBy.parse("run"))
    spec = chart_spec(cmp, ChartKind.BOTH)
    drawing = time.perf_counter()
    widget = ChartWidget(spec)
    widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    widget.show()
    while widget.frames_painted == 0:
        QApplication.processEvents()
        if time.perf_counter() - drawing > 30:
            raise RuntimeError("the chart never painted")
    end = time.perf_counter()
    widget.release()
    return end - start, end - drawing


def run(quick: bool, out: Out = print) -> Verdict:
    """Measure and print; the verdict is the median time to the first frame."""
    from pairbench.ui.compare.render import ensure_app

    ensure_app()
    reps = 5 if quick else 7
    ms = 1e3
    with tempfile.TemporaryDirectory(prefix="pairbench-bench-") as tmp:
        path, ids, made_s = make_library(Path(tmp))
        out(
            f"{NAME}: {RUNS} runs × {POINTS} points (24 h at 1 s) stored in {fmt(made_s)} s; "
            f"{reps} reps, warm connection"
        )
        with Library.open(path) as lib:
            open_and_draw(lib, ids)  # warm-up: imports, fonts, page cache
            base = [timed(lambda: load_inputs(lib, ids))[0] for _ in range(reps)]
            results = [open_and_draw(lib, ids) for _ in range(reps)]
    total = [r[0] for r in results]
    drawing = [r[1] for r in results]
    out(f"  baseline: load the arrays       {spread(base, ms, 'ms')}")
    out(f"  info: build + first paint only  {spread(drawing, ms, 'ms')}")
    out(f"  open + first frame              {spread(total, ms, 'ms')}")
    out(f"  ratio open / load: {fmt(median(total) / median(base))}x")
    return Verdict(
        NAME,
        ratio(total, base),
        TARGET_RATIO,
        "loading the arrays",
        info=f"open + first frame {fmt(median(total) * ms)} ms",
    )
