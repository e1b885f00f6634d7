"""compare_export: write the 10 × 86,400-point comparison chart as PNG (ms).

The chart (overlay + summary, 1200×700 at 96 dpi) is built once, as the compare view holds
it; each repetition renders and encodes the PNG. The baseline, in the same run, encodes a
blank image of the same size (the part of the cost that is PNG compression alone). SVG,
PDF and a 192-dpi PNG are reported for information.
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

NAME = "compare_export"
# Writing the chart as PNG may take this many times as long as encoding a blank PNG of the same
# size (the baseline, measured in the same run): about 1 s where the blank one takes 40 ms.
TARGET_RATIO = 25.0


def run(quick: bool, out: Out = print) -> Verdict:
    """Measure and print; the verdict is the median PNG export time."""
    from PySide6.QtGui import QColor, QImage

    from pairbench.ui.compare.render import build_chart, chart_image, ensure_app, save_widget

    ensure_app()
    reps = 5 if quick else 7
    ms = 1e3
    with tempfile.TemporaryDirectory(prefix="pairbench-bench-") as tmp:
        directory = Path(tmp)
        path, ids, _ = make_library(directory)
        with Library.open(path) as lib:
            cmp = compare(load_inputs(lib, ids), group_by=GroupBy.parse("run"))
        spec = chart_spec(cmp, ChartKind.BOTH)
        widget = build_chart(spec)
        try:
            size = f"{spec.width}×{spec.height}"
            out(f"{NAME}: {RUNS} runs × {POINTS} points, chart {size}; {reps} reps")
            save_widget(widget, directory / "warm.png")  # warm-up
            png = [timed(lambda: save_widget(widget, directory / "c.png"))[0] for _ in range(reps)]
            size_kb = (directory / "c.png").stat().st_size / 1024
            blank = QImage(spec.width, spec.height, QImage.Format.Format_ARGB32)
            blank.fill(QColor("white"))
            base = [timed(lambda: blank.save(str(directory / "b.png")))[0] for _ in range(reps)]
            hi = [
                timed(lambda: chart_image(widget, 192).save(str(directory / "h.png")))[0]
                for _ in range(reps)
            ]
            svg = [timed(lambda: save_widget(widget, directory / "c.svg"))[0] for _ in range(reps)]
            pdf = [timed(lambda: save_widget(widget, directory / "c.pdf"))[0] for _ in range(reps)]
            svg_kb = (directory / "c.svg").stat().st_size / 1024
            pdf_kb = (directory / "c.pdf").stat().st_size / 1024
        finally:
            widget.release()
    out(f"  baseline: encode a blank PNG    {spread(base, ms, 'ms')}")
    out(f"  info: PNG at 192 dpi            {spread(hi, ms, 'ms')}")
    out(f"  info: SVG ({fmt(svg_kb)} KiB)          {spread(svg, ms, 'ms')}")
    out(f"  info: PDF ({fmt(pdf_kb)} KiB)          {spread(pdf, ms, 'ms')}")
    out(f"  PNG export ({fmt(size_kb)} KiB)       {spread(png, ms, 'ms')}")
    out(f"  ratio PNG export / blank encode: {fmt(median(png) / median(base))}x")
    return Verdict(
        NAME,
        ratio(png, base),
        TARGET_RATIO,
        "encoding a blank PNG of the same size",
        info=f"PNG export {fmt(median(png) * ms)} ms",
    )
