"""Drawing a ``ChartSpec`` with pyqtgraph and writing it as PNG, SVG or PDF (offscreen-capable).

``build_chart`` makes the widget (the compare view shows the same one); ``render_chart`` is
the headless entry point the composition root injects into the CLI: it makes a
QApplication if there is none, builds the chart, writes the file and deletes the widget
(a pyqtgraph widget left alive at interpreter exit can crash the process).

Formats (DESIGN §3):
- PNG: the scene rendered onto a QImage of width×height×dpi/96 pixels (text and lines scale
  with it), with the dpi recorded in the file.
- SVG: QSvgGenerator directly, not pyqtgraph's SVGExporter (it fails with Qt ≥ 6.11,
  pyqtgraph#3495). Curves are drawn unsegmented so each series is one ``<path>``.
- PDF: one page of exactly the chart's size, QPdfWriter at 96 dpi (higher resolutions gave
  a zoomed fragment or a blank page).
"""

from __future__ import annotations

import os
from html import escape  # pyqtgraph labels read their text as HTML
from pathlib import Path
from typing import cast

import pyqtgraph as pg
from PySide6.QtCore import QMarginsF, QRect, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import QColor, QImage, QPageSize, QPainter, QPaintEvent, QPdfWriter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication, QSizePolicy, QWidget

from pairbench import __version__
from pairbench.analysis.stats import FloatArray
from pairbench.export.charts import (
    ChartKind,
    ChartSpec,
    check_chart_path,
    finite_range,
    peak_envelope,
)
from pairbench.ui.compare.panels import draw_panels
from pairbench.ui.compare.summary_draw import FOOTER, FOREGROUND, draw_summary, style_plot

BACKGROUND = "#ffffff"
# 1-pixel cosmetic lines: a 1.6-px antialiased pen drew 10 × 86,400 points ten times slower
# (bench/compare_draw.py); exports at a higher dpi widen the pens by the same factor.
LINE_WIDTH = 1.0
# Peak downsampling keeps each pixel column's min and max: 2 points per pixel at factor 1.
DOWNSAMPLE_FACTOR = 1.0
# A curve's dash (``ChartCurve.dash``): overlapping curves are told apart by these.
PEN_STYLES = {
    "solid": Qt.PenStyle.SolidLine,
    "dash": Qt.PenStyle.DashLine,
    "dot": Qt.PenStyle.DotLine,
    "dashdot": Qt.PenStyle.DashDotLine,
    "dashdotdot": Qt.PenStyle.DashDotDotLine,
}
MIN_PLOT_HEIGHT = 120  # px: a plot of two charts stacked is never lower than this
NOTE_CHARS = 160  # a longer note is cut: the chart never widens for it


class ChartWidget(pg.GraphicsLayoutWidget):
    """A chart: title, overlay and/or summary plots, footer; white background."""

    def __init__(self, spec: ChartSpec, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        self.overlay_plot: pg.PlotItem | None = None
        self.summary_plot: pg.PlotItem | None = None
        self.curve_items: list[pg.PlotDataItem] = []
        self.frames_painted = 0
        self.full_data: list[tuple[FloatArray, FloatArray, bool]] = []
        self.showing_full_data = False
        self.setBackground(BACKGROUND)
        self.resize(spec.width, spec.height)
        self.addLabel(escape(spec.title), row=0, col=0, colspan=2, size="14pt", color=FOREGROUND)
        row = 1
        self.note_label: pg.LabelItem | None = None
        if spec.note:
            note = spec.note if len(spec.note) <= NOTE_CHARS else spec.note[: NOTE_CHARS - 1] + "…"
            self.note_label = self.addLabel(
                escape(note), row=row, col=0, colspan=2, size="8pt", color=FOOTER
            )
            row += 1
        kind = None if spec.panels else spec.kind  # a grid of panels replaces these plots
        if spec.panels:
            row = draw_panels(self, spec, row)
        if kind in (ChartKind.OVERLAY, ChartKind.BOTH):
            self.overlay_plot = self.addPlot(row=row, col=0)
            _draw_overlay(self, self.overlay_plot, spec, row)
            self.ci.layout.setRowStretchFactor(row, 3)
            row += 1
        if kind in (ChartKind.SUMMARY, ChartKind.BOTH):
            self.summary_plot = self.addPlot(row=row, col=0, colspan=2)
            draw_summary(self.summary_plot, spec)
            if kind is ChartKind.BOTH:  # neither plot squeezed below a readable height
                self.summary_plot.setMinimumHeight(MIN_PLOT_HEIGHT)
                if self.overlay_plot is not None:
                    self.overlay_plot.setMinimumHeight(MIN_PLOT_HEIGHT)
            self.ci.layout.setRowStretchFactor(row, 2)
            row += 1
        self.addLabel(escape(spec.footer), row=row, col=0, colspan=2, size="8pt", color=FOOTER)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        self.frames_painted += 1

    def use_full_data(self, *_args: object) -> None:
        """Give the curves all their points, downsampled and clipped to the view by pyqtgraph
        (after the user zooms or pans: the first frame's envelope is for the whole range)."""
        if self.showing_full_data:
            return
        self.showing_full_data = True
        for item, (t, v, reduced) in zip(self.curve_items, self.full_data, strict=True):
            if not reduced:
                continue
            item.setDownsampling(auto=True, method="peak")
            item.setClipToView(True)
            item.setData(t, v)

    def release(self) -> None:
        """Delete the widget now (call before the QApplication goes away)."""
        self.close()
        self.deleteLater()
        QApplication.processEvents()


def _draw_overlay(widget: ChartWidget, plot: pg.PlotItem, spec: ChartSpec, row: int) -> None:
    style_plot(plot, spec.x_label, spec.y_label)
    entries = sum(1 for c in spec.curves if c.legend)
    # The legend beside the plot, never over its data.
    legend = pg.LegendItem(
        colCount=2 if entries > 12 else 1,
        labelTextColor=FOREGROUND,
        labelTextSize="10pt",
        brush=pg.mkBrush(255, 255, 255, 0),
        verSpacing=-4,
    )
    for curve in spec.curves:
        item = pg.PlotDataItem(
            pen=pg.mkPen(curve.color, width=LINE_WIDTH, style=PEN_STYLES[curve.dash]),
            name=curve.legend,
            antialias=True,
            skipFiniteCheck=True,
            autoDownsampleFactor=DOWNSAMPLE_FACTOR,
        )
        # One path per series (and in SVG one <path> element), not thousands of segments.
        item.curve.setSegmentedLineMode("off")
        plot.addItem(item)
        if curve.legend:
            legend.addItem(item, escape(curve.legend))
        # The first frame draws each series' peak envelope at the chart's width, computed
        # once: pyqtgraph's own downsampling would redo all points at every layout step
        # (bench/compare_draw.py). Zooming or panning switches to all the points.
        t, v = peak_envelope(curve.t, curve.v, spec.width)
        item.setData(t, v)
        widget.full_data.append((curve.t, curve.v, t is not curve.t))
        widget.curve_items.append(item)
    if entries:
        legend.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        widget.addItem(legend, row=row, col=1)
        widget.ci.layout.setAlignment(
            legend, Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft
        )
    plot.vb.sigRangeChangedManually.connect(widget.use_full_data)
    if not spec.curves:
        text = pg.TextItem("no time series stored for this metric", color=FOOTER, anchor=(0.5, 0.5))
        plot.addItem(text)
        text.setPos(0.5, 0.5)
        plot.setRange(xRange=(0, 1), yRange=(0, 1))
        return
    # The range from the data, once: auto-ranging would recompute every curve's bounds at
    # each layout step, and with x auto-ranging pyqtgraph does not clip to the view.
    x_range, y_range = _data_ranges(spec)
    plot.disableAutoRange()
    plot.setRange(xRange=x_range, yRange=y_range, padding=0.02)


def _data_ranges(spec: ChartSpec) -> tuple[tuple[float, float], tuple[float, float]]:
    xs = [finite_range(c.t) for c in spec.curves]
    ys = [finite_range(c.v) for c in spec.curves]
    x = [r for r in xs if r is not None] or [(0.0, 1.0)]
    y = [r for r in ys if r is not None] or [(0.0, 1.0)]
    x_lo, x_hi = min(r[0] for r in x), max(r[1] for r in x)
    y_lo, y_hi = min(r[0] for r in y), max(r[1] for r in y)
    if x_lo == x_hi:
        x_lo, x_hi = x_lo - 0.5, x_hi + 0.5
    if y_lo == y_hi:
        pad = abs(y_lo) * 0.05 or 1.0
        y_lo, y_hi = y_lo - pad, y_hi + pad
    return (x_lo, x_hi), (y_lo, y_hi)


def build_chart(spec: ChartSpec) -> ChartWidget:
    """The chart widget for ``spec``, laid out at the spec's size but never on screen.

    Qt lays a widget out only when it is shown; ``WA_DontShowOnScreen`` lets it be "shown"
    without a window appearing, also when the CLI runs on a desktop with a display.
    """
    widget = ChartWidget(spec)
    widget.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
    widget.show()
    QApplication.processEvents()
    return widget


def ensure_app() -> QApplication:
    """The running QApplication, or a new one (offscreen when there is no display)."""
    app = QApplication.instance()
    if app is None:
        if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QApplication(["pairbench"])
    return app  # type: ignore[return-value]


def render_chart(spec: ChartSpec, path: Path) -> None:
    """Write ``spec`` to ``path`` as PNG, SVG or PDF (by suffix)."""
    path = Path(path)
    check_chart_path(path)
    ensure_app()
    widget = build_chart(spec)
    try:
        save_widget(widget, path)
    finally:
        widget.release()


def save_widget(widget: ChartWidget, path: Path) -> None:
    """Write an existing chart widget (e.g. the one on screen) to ``path``."""
    suffix = path.suffix.lower()
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".png":
        _save_png(widget, path)
    elif suffix == ".svg":
        _save_svg(widget, path)
    elif suffix == ".pdf":
        _save_pdf(widget, path)
    else:
        check_chart_path(path)


def _source_rect(widget: ChartWidget) -> QRectF:
    return QRectF(0, 0, widget.width(), widget.height())


def _render(widget: ChartWidget, painter: QPainter, target: QRectF) -> None:
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    widget.scene().render(painter, target, _source_rect(widget))


def chart_image(widget: ChartWidget, dpi: int | None = None) -> QImage:
    """The chart as an image at ``dpi`` (default: the spec's): size × dpi / 96 pixels."""
    dpi = dpi or widget.spec.dpi
    factor = dpi / 96.0
    w, h = round(widget.width() * factor), round(widget.height() * factor)
    image = QImage(w, h, QImage.Format.Format_ARGB32)
    image.fill(QColor(BACKGROUND))
    # Painted at 96 dpi (point sizes would otherwise grow once more on top of the scaling),
    # then labelled with the real dpi.
    image.setDotsPerMeterX(round(96 / 0.0254))
    image.setDotsPerMeterY(round(96 / 0.0254))
    painter = QPainter(image)
    widths = _widen_pens(widget, factor)
    try:
        _render(widget, painter, QRectF(0, 0, w, h))
    finally:
        painter.end()
        _restore_pens(widget, widths)
    image.setDotsPerMeterX(round(dpi / 0.0254))
    image.setDotsPerMeterY(round(dpi / 0.0254))
    return image


def _widen_pens(widget: ChartWidget, factor: float) -> list[float]:
    """Scale the curves' cosmetic pens for a high-dpi image; return the old widths."""
    widths = []
    for item in widget.curve_items:
        pen = pg.mkPen(item.opts["pen"])
        widths.append(pen.widthF())
        if factor != 1.0:
            pen.setWidthF(max(1.0, pen.widthF()) * factor)
            item.curve.setPen(pen)
    return widths


def _restore_pens(widget: ChartWidget, widths: list[float]) -> None:
    for item, width in zip(widget.curve_items, widths, strict=True):
        pen = pg.mkPen(item.opts["pen"])
        if pen.widthF() != width or item.curve.opts["pen"].widthF() != width:
            pen.setWidthF(width)
            item.curve.setPen(pen)


def _save_png(widget: ChartWidget, path: Path) -> None:
    # PySide6's stub types the format as bytes, but at run time only a str is accepted.
    if not chart_image(widget).save(str(path), cast(bytes, "PNG")):
        raise OSError(f"cannot write {path}")


def _save_svg(widget: ChartWidget, path: Path) -> None:
    w, h = widget.width(), widget.height()
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(QSize(w, h))
    generator.setViewBox(QRect(0, 0, w, h))
    generator.setResolution(96)
    generator.setTitle(widget.spec.title)
    generator.setDescription(f"{widget.spec.footer} · Pairbench {__version__}")
    painter = QPainter()
    if not painter.begin(generator):
        raise OSError(f"cannot write {path}")
    try:
        _render(widget, painter, QRectF(0, 0, w, h))
    finally:
        painter.end()


def _save_pdf(widget: ChartWidget, path: Path) -> None:
    w, h = widget.width(), widget.height()
    writer = QPdfWriter(str(path))
    writer.setResolution(96)
    writer.setTitle(widget.spec.title)
    writer.setCreator(f"Pairbench {__version__}")
    size = QSizeF(w * 72 / 96, h * 72 / 96)  # points
    writer.setPageSize(
        QPageSize(size, QPageSize.Unit.Point, "chart", QPageSize.SizeMatchPolicy.ExactMatch)
    )
    writer.setPageMargins(QMarginsF(0, 0, 0, 0))
    painter = QPainter()
    if not painter.begin(writer):
        raise OSError(f"cannot write {path}")
    try:
        _render(widget, painter, QRectF(painter.viewport()))
    finally:
        painter.end()
