"""The compare view's exports: the chart at a chosen size and dpi (PNG, SVG, PDF) and the
table (Markdown, CSV, HTML), to a file or the clipboard; each export says where it wrote."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QWidget,
)

from pairbench.analysis.compare import Comparison
from pairbench.export.charts import ChartSpec
from pairbench.export.table_render import comparison_csv, to_html, to_markdown
from pairbench.export.tables import Report
from pairbench.ui.compare.render import chart_image, render_chart
from pairbench.ui.file_places import EXPORTS, documents, remember, start_path


def _spin(low: int, high: int, value: int, suffix: str) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    box.setSuffix(suffix)
    return box


class ExportRow(QWidget):
    """Size and dpi boxes, export and copy buttons, and the line saying what was written.
    ``spec(width, height, dpi)`` gives the chart; ``state()`` the comparison and its report."""

    def __init__(
        self,
        spec: Callable[[int, int, int], ChartSpec],
        state: Callable[[], tuple[Comparison | None, Report | None]],
        parent: QWidget | None = None,
        *,
        settings: QSettings | None = None,
    ) -> None:
        super().__init__(parent)
        self._spec = spec
        self._state = state
        # Where the export dialogs open: the last export folder (kept in ``settings``, else
        # in memory), else the user's documents; never the working directory.
        self.settings = settings
        self._last_folder: Path | None = None
        self.width_box = _spin(200, 10000, 1200, " px wide")
        self.height_box = _spin(150, 10000, 700, " px high")
        self.dpi_box = _spin(24, 1200, 96, " dpi")
        self.export_chart_button = QPushButton("Export chart…")
        self.copy_chart_button = QPushButton("Copy chart")
        self.export_table_button = QPushButton("Export table…")
        self.copy_table_button = QPushButton("Copy table (Markdown)")
        self.wrote = QLabel()
        self.wrote.setObjectName("compareWrote")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (
            self.width_box,
            self.height_box,
            self.dpi_box,
            self.export_chart_button,
            self.copy_chart_button,
            self.export_table_button,
            self.copy_table_button,
        ):
            layout.addWidget(widget)
        layout.addWidget(self.wrote, 1)
        self.export_chart_button.clicked.connect(self._ask_export_chart)
        self.copy_chart_button.clicked.connect(self.copy_chart)
        self.export_table_button.clicked.connect(self._ask_export_table)
        self.copy_table_button.clicked.connect(self.copy_table)

    def spec(self) -> ChartSpec:
        """The chart at the chosen size and dpi."""
        return self._spec(self.width_box.value(), self.height_box.value(), self.dpi_box.value())

    def export_chart(self, path: Path) -> Path:
        """Write the chart (PNG, SVG or PDF by suffix); the file written."""
        spec = self.spec()
        path = Path(path)
        render_chart(spec, path)
        self._say(
            f"Chart written to {path.resolve()} ({spec.width}×{spec.height} px, {spec.dpi} dpi)"
        )
        return path

    def export_table(self, path: Path) -> Path:
        """Write the comparison as Markdown, CSV or HTML (by suffix); the file written."""
        comparison, report = self._state()
        assert comparison is not None and report is not None
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".csv":
            text = comparison_csv(comparison)
        elif suffix in (".html", ".htm"):
            text = to_html(report)
        elif suffix == ".md":
            text = to_markdown(report)
        else:
            raise ValueError(f"cannot tell the table format of {path.name!r}: .md, .csv or .html")
        path.write_text(text, encoding="utf-8")
        self._say(f"Table written to {path.resolve()}")
        return path

    def copy_chart(self) -> None:
        """Put the chart, at the chosen size and dpi, on the clipboard as an image."""
        from pairbench.ui.compare.render import build_chart

        spec = self.spec()
        widget = build_chart(spec)
        try:
            QApplication.clipboard().setImage(chart_image(widget))
        finally:
            widget.release()
        self._say(f"Chart copied to the clipboard ({spec.width}×{spec.height} px)")

    def copy_table(self) -> None:
        """Put the report as Markdown on the clipboard (paste into a post or an issue)."""
        _, report = self._state()
        assert report is not None
        QApplication.clipboard().setText(to_markdown(report))
        self._say("Table copied to the clipboard (Markdown)")

    def _say(self, text: str) -> None:
        self.wrote.setText(text)
        self.wrote.setToolTip(text)

    def start_path(self, name: str) -> str:
        """Where a save dialog opens, suggesting ``name``."""
        if self.settings is not None:
            return start_path(self.settings, EXPORTS, name)
        return str((self._last_folder or documents()) / name)

    def _remember(self, path: Path) -> None:
        if self.settings is not None:
            remember(self.settings, EXPORTS, path)
        self._last_folder = path.resolve().parent

    def _ask_export_chart(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Export chart",
            self.start_path("comparison.png"),
            "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)",
        )
        if path:
            self._remember(Path(path))
            self._try(lambda: self.export_chart(Path(path)))

    def _ask_export_table(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Export table",
            self.start_path("comparison.md"),
            "Markdown (*.md);;CSV (*.csv);;HTML (*.html)",
        )
        if path:
            self._remember(Path(path))
            self._try(lambda: self.export_table(Path(path)))

    def _try(self, action: Callable[[], object]) -> None:
        try:
            action()
        except (OSError, ValueError) as exc:
            self._say(f"Export failed: {exc}")
            QMessageBox.warning(self, "Pairbench", f"Export failed: {exc}")
