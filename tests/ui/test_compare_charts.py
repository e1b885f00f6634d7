"""Chart export: PNG pixels, SVG paths, PDF pages; the CLI draws them headless via main.py."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QColor, QImage
from pytestqt.qtbot import QtBot

from compare_runs import store_run, two_shapes
from pairbench.analysis.compare import Comparison, compare
from pairbench.analysis.compare_runs import GroupBy
from pairbench.export.charts import ChartKind, ChartSpec, chart_spec
from pairbench.export.selection import load_inputs
from pairbench.library import Library
from pairbench.ui.compare.render import build_chart, render_chart
from testkit import REPO

SVG = "{http://www.w3.org/2000/svg}"


def _comparison(lib: Library, group_by: str = "run", scale: float = 1.0) -> Comparison:
    a, b = two_shapes(lib, seconds=20)
    if scale != 1.0:
        t = np.arange(1.0, 21.0)
        extra = store_run(
            lib,
            pair="same-zone",
            label="odd one",
            summary={"throughput_bps": 5e8 * scale},
            series={"throughput_bps": (t, 5e8 * scale + 1e8 * np.sin(t))},
        )
        a = [*a, extra]
    return compare(load_inputs(lib, a + b), group_by=GroupBy.parse(group_by))


def _image(path: Path) -> QImage:
    image = QImage(str(path))
    assert not image.isNull(), f"{path} does not decode"
    return image


def _pixels(image: QImage) -> np.ndarray:
    """The image as an RGB array (a copy: the QImage's buffer dies with it)."""
    rgb = image.convertToFormat(QImage.Format.Format_RGB888)
    rows = np.frombuffer(rgb.constBits(), np.uint8).reshape(rgb.height(), rgb.bytesPerLine())
    return rows[:, : rgb.width() * 3].reshape(rgb.height(), rgb.width(), 3).copy()


def _plot_area(spec: ChartSpec, qtbot: QtBot) -> tuple[int, int, int, int]:
    """The overlay's view box in image pixels (x0, y0, x1, y1)."""
    widget = build_chart(spec)
    try:
        rect = widget.overlay_plot.vb.sceneBoundingRect()
    finally:
        widget.release()
    f = spec.dpi / 96
    return (
        int(rect.left() * f) + 2,
        int(rect.top() * f) + 2,
        int(rect.right() * f) - 2,
        int(rect.bottom() * f) - 2,
    )


def _near(pixels: np.ndarray, color: str, tolerance: int = 40) -> int:
    c = QColor(color)
    target = np.array([c.red(), c.green(), c.blue()])
    return int((np.abs(pixels.astype(int) - target).sum(axis=2) < tolerance).sum())


def test_png_decodes_and_shows_every_curve(qtbot: QtBot, library: Library, tmp_path: Path) -> None:
    cmp = _comparison(library, "pair")
    spec = chart_spec(cmp, ChartKind.OVERLAY, width=900, height=500)
    path = tmp_path / "overlay.png"
    render_chart(spec, path)
    image = _image(path)
    assert (image.width(), image.height()) == (900, 500)
    x0, y0, x1, y1 = _plot_area(spec, qtbot)
    area = _pixels(image)[y0:y1, x0:x1]
    assert area.size > 0
    non_background = int((area.sum(axis=2) < 3 * 250).sum())
    assert non_background > 500
    for color in {c.color for c in spec.curves}:
        assert _near(area, color) > 100, color  # each group's colour is drawn in the plot
    out = REPO / "test-output"
    out.mkdir(exist_ok=True)
    image.save(str(out / "compare-overlay.png"))


def test_png_differs_for_different_data(qtbot: QtBot, tmp_path: Path) -> None:
    images = []
    for i, scale in enumerate((1.0, 1.7)):
        with Library.open(tmp_path / f"lib{i}.sqlite") as lib:
            spec = chart_spec(
                _comparison(lib, "run", scale), ChartKind.OVERLAY, width=600, height=400
            )
        render_chart(spec, tmp_path / f"{i}.png")
        images.append(_pixels(_image(tmp_path / f"{i}.png")))
    assert images[0].shape == images[1].shape
    changed = int((np.abs(images[0].astype(int) - images[1].astype(int)).sum(axis=2) > 30).sum())
    assert changed > 1000


def test_png_dpi_scales_pixels_and_is_recorded(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    spec = chart_spec(_comparison(library), ChartKind.BOTH, width=800, height=600, dpi=192)
    render_chart(spec, tmp_path / "hi.png")
    image = _image(tmp_path / "hi.png")
    assert (image.width(), image.height()) == (1600, 1200)
    assert round(image.dotsPerMeterX() * 0.0254) == 192


def test_svg_has_one_path_per_series(qtbot: QtBot, library: Library, tmp_path: Path) -> None:
    cmp = _comparison(library, "run")  # one colour per run
    spec = chart_spec(cmp, ChartKind.OVERLAY)
    render_chart(spec, tmp_path / "c.svg")
    root = ET.parse(tmp_path / "c.svg").getroot()
    assert root.tag == f"{SVG}svg"
    paths_by_color: dict[str, int] = {}
    for group in root.iter(f"{SVG}g"):
        for child in group:
            if child.tag == f"{SVG}path" and group.get("stroke"):
                stroke = group.get("stroke", "")
                paths_by_color[stroke] = paths_by_color.get(stroke, 0) + 1
    colors = [c.color for c in spec.curves]
    assert len(set(colors)) == len(colors) == 6
    for color in colors:
        assert paths_by_color.get(color) == 1, (color, paths_by_color)
    texts = "".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "Throughput" in texts and "Time since run start" in texts
    assert "same-zone · repeat 1" in texts  # legend: pair + label


def _pdf_pages(data: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", data))


def _pdf_streams(data: bytes) -> bytes:
    out = b""
    for match in re.finditer(rb"stream\r?\n(.*?)endstream", data, re.S):
        try:
            out += zlib.decompress(match.group(1))
        except zlib.error:
            out += match.group(1)
    return out


def test_pdf_is_one_page_of_the_chart(qtbot: QtBot, library: Library, tmp_path: Path) -> None:
    spec = chart_spec(_comparison(library, "pair"), ChartKind.BOTH, width=1200, height=700)
    render_chart(spec, tmp_path / "c.pdf")
    data = (tmp_path / "c.pdf").read_bytes()
    assert data.startswith(b"%PDF-")
    assert _pdf_pages(data) == 1
    box = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", data)
    assert box is not None
    assert (float(box.group(1)), float(box.group(2))) == (900.0, 525.0)  # 96 dpi → points
    strokes = {
        tuple(round(float(x), 4) for x in m.groups())
        for m in re.finditer(rb"([\d.]+) ([\d.]+) ([\d.]+) SCN", _pdf_streams(data))
    }
    for color in {c.color for c in spec.curves}:
        q = QColor(color)
        rgb = (round(q.redF(), 4), round(q.greenF(), 4), round(q.blueF(), 4))
        assert rgb in strokes, color  # each series is stroked in its colour on the page


def test_render_refuses_unknown_formats(qtbot: QtBot, library: Library, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="chart format"):
        render_chart(chart_spec(_comparison(library)), tmp_path / "c.gif")


def test_cli_draws_through_the_composition_root(library_path: Path, tmp_path: Path) -> None:
    from pairbench.cli.main import run_cli
    from pairbench.main import cli_environment

    with Library.open(library_path) as lib:
        a, b = two_shapes(lib, seconds=10)
    env = cli_environment()
    env.stdout, env.stderr = io.StringIO(), io.StringIO()
    env.environ = {"PAIRBENCH_LIBRARY": str(library_path)}
    for suffix in (".png", ".svg", ".pdf"):
        out = tmp_path / f"chart{suffix}"
        argv = ["compare", *map(str, a + b), "--group-by", "pair", "--chart", str(out)]
        assert run_cli(argv, env) == 0, env.stderr.getvalue()
        assert out.is_file() and out.stat().st_size > 1000


def test_cli_chart_headless_in_a_fresh_process(library_path: Path, tmp_path: Path) -> None:
    """No display, no QT_QPA_PLATFORM: the CLI picks offscreen and exits cleanly."""
    with Library.open(library_path) as lib:
        a, _ = two_shapes(lib, seconds=5)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    env["PAIRBENCH_LIBRARY"] = str(library_path)
    out = tmp_path / "c.png"
    result = subprocess.run(
        [sys.executable, "-m", "pairbench", "compare", *map(str, a), "--chart", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert f"wrote {out}" in result.stdout
    assert not _image(out).isNull()


def test_zooming_switches_to_every_point(qtbot: QtBot) -> None:
    from pairbench.export.charts import ChartCurve

    t = np.arange(1.0, 86_401.0)
    v = np.sin(t / 500.0)
    spec = ChartSpec(
        ChartKind.OVERLAY,
        "day",
        "footer",
        "Time (h)",
        "y",
        curves=(ChartCurve("run", "#0072b2", t, v, 1),),
    )
    widget = build_chart(spec)
    try:
        item = widget.curve_items[0]
        assert item.getOriginalDataset()[0].size <= 2 * spec.width + 2  # the envelope
        widget.overlay_plot.vb.scaleBy((0.01, 1.0))  # as a user's zoom would
        widget.overlay_plot.vb.sigRangeChangedManually.emit((True, False))
        assert widget.showing_full_data
        assert item.getOriginalDataset()[0].size == t.size
    finally:
        widget.release()
