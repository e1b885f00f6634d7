"""The storage report drawn by Qt: PNG of the chart's size, SVG that parses, PDF pages; a
comparison of two stored suites; and one real tiny suite on this computer (fio) reported
through the CLI."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from PySide6.QtGui import QImage
from pytestqt.qtbot import QtBot

from pairbench.domain.storage import StorageTest
from pairbench.export.charts import ChartSpec
from pairbench.export.storage_table_charts import report_charts
from pairbench.library import Library
from pairbench.services.storage_report import suite_data, write_comparison, write_report
from pairbench.ui.compare.render import render_chart
from storage_suites import default_figures, params_of, store_suite


def _png_size(path: Path) -> tuple[int, int]:
    image = QImage(str(path))
    assert not image.isNull(), path
    return image.width(), image.height()


def _check_files(out: Path, specs: dict[str, ChartSpec], pdf: bool) -> None:
    for name, spec in specs.items():
        png = out / f"{name}.png"
        assert png.stat().st_size > 2000
        assert _png_size(png) == (spec.width, spec.height)
        root = ET.parse(out / f"{name}.svg").getroot()
        assert root.tag.endswith("svg")
        if pdf:
            assert (out / f"{name}.pdf").read_bytes()[:5] == b"%PDF-"


def test_report_renders_every_chart(qtbot: QtBot, library: Library, tmp_path: Path) -> None:
    suite = store_suite(library, params_of(StorageTest.LATENCY), 6, label="<b>nvme</b>")
    specs = {c.name: c.spec for c in report_charts([suite_data(library, suite)])}
    out = tmp_path / "report"
    files = write_report(library, suite, out, render_chart, "pdf")
    assert {f.name for f in files} >= {f"{n}.{s}" for n in specs for s in ("png", "svg", "pdf")}
    _check_files(out, specs, pdf=True)
    page = (out / "index.html").read_text(encoding="utf-8")
    for name in specs:
        assert f'src="{name}.png"' in page


def test_compare_two_suites_side_by_side(qtbot: QtBot, library: Library, tmp_path: Path) -> None:
    params = params_of(StorageTest.IOPS, max_rounds=5)
    a = store_suite(library, params, 5, host="oci")
    b = store_suite(library, params, 5, host="aws", figures=default_figures(0.6))
    suites = [suite_data(library, a), suite_data(library, b)]
    specs = {c.name: c.spec for c in report_charts(suites)}
    assert specs["convergence"].columns == 2 and len(specs["convergence"].panels) == 2
    assert len(specs["iops"].panels) == 1  # overlaid, a colour per suite
    out = tmp_path / "cmp"
    write_comparison(library, [a, b], out, render_chart, "svg")
    _check_files(out, specs, pdf=False)
    page = (out / "index.html").read_text(encoding="utf-8")
    assert 'src="iops-heatmap.svg"' in page  # --format svg shows the SVGs
    assert f"IOPS: #{b} aws ÷ #{a} oci" in page


def test_a_real_tiny_suite_then_its_report(tmp_path: Path) -> None:
    """fio on this computer: a throughput suite of 1 s rounds, then ``storage report``."""
    from pairbench.cli.main import run_cli
    from pairbench.main import cli_environment

    library_path = tmp_path / "library.sqlite"
    target = tmp_path / "target"
    target.mkdir()
    env = dict(os.environ, PAIRBENCH_LIBRARY=str(library_path))
    argv = [
        sys.executable, "-m", "pairbench", "storage", "run", "--host", "local",
        "--test", "throughput", "--target", str(target), "--size", "16MiB",
        "--round-seconds", "1", "--max-rounds", "5", "--threads", "1", "--iodepth", "4",
        "--precondition-passes", "1", "--json",
    ]  # fmt: skip
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    suite_id = outcome["id"]
    assert result.returncode == 0, result.stderr + result.stdout
    assert outcome["status"] == "completed" and outcome["rounds"] == 10  # 2 stages × 5
    cli = cli_environment()
    cli.stdout, cli.stderr = io.StringIO(), io.StringIO()
    cli.environ = {"PAIRBENCH_LIBRARY": str(library_path)}
    out = tmp_path / "report"
    status = run_cli(["storage", "report", str(suite_id), "--out", str(out)], cli)
    assert status == 0, cli.stderr.getvalue()
    page = (out / "index.html").read_text(encoding="utf-8")
    shown = re.findall(r'<img src="([^"]+)"', page)
    linked = re.findall(r'<a href="([^"]+\.svg)"', page)
    assert [Path(s).stem for s in shown] == ["convergence", "window", "throughput"]
    assert [Path(s).stem for s in linked] == [Path(s).stem for s in shown]
    for name in shown + linked + ["storage.csv"]:
        assert (out / name).stat().st_size > 0
        assert f"wrote {out / name}" in cli.stdout.getvalue()
    header = (out / "storage.csv").read_text().splitlines()[0].split(",")
    theirs = ["1024k_100_0", "1024k_0_100", "128k_100_0", "128k_0_100"]
    assert header[:4] == [f"throughput_{name}" for name in theirs]  # CloudHarmony's
    assert header[-4:] == [f"throughput_{name}_bytes_per_s" for name in theirs]  # ours
    assert {"ss_max_rounds", "ss_verification"} <= set(header[4:-4])
