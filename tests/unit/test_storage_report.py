"""The storage report without Qt: chart specs (convergence, measurement window, IOPS lines,
heat map, throughput bars), tables, ratios, HTML escaping, the CSV and the output directory's
rules, on suites stored through the library (expectations worked out from the figures)."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain.storage import StorageTest, block_size_bytes, block_size_word
from pairbench.domain.units import format_quantity, range_scale
from pairbench.export.charts import ChartSpec
from pairbench.export.panels import heat_color
from pairbench.export.storage_charts import convergence_chart, window_chart
from pairbench.export.storage_data import StorageReportError
from pairbench.export.storage_html import report_html
from pairbench.export.storage_table_charts import heatmap_chart, iops_chart, throughput_chart
from pairbench.export.storage_tables import grid_table, ratio_tables, throughput_table
from pairbench.library import Library
from pairbench.services.storage_report import (
    comparison_ratios,
    suite_data,
    write_comparison,
    write_report,
)
from storage_suites import default_figures, iops_figure, params_of, store_suite


def _fake_renderer(calls: list[tuple[ChartSpec, Path]]):  # type: ignore[no-untyped-def]
    def render(spec: ChartSpec, path: Path) -> None:
        calls.append((spec, path))
        path.write_bytes(b"chart " + spec.title.encode())

    return render


def _window_mean(values: list[float]) -> tuple[float, float, float]:
    """mean, least-squares slope per round and the fitted value at the first round."""
    n = len(values)
    mean = sum(values) / n
    x_mean = (n - 1) / 2
    slope = sum((x - x_mean) * (v - mean) for x, v in enumerate(values)) / sum(
        (x - x_mean) ** 2 for x in range(n)
    )
    return mean, slope, mean - slope * x_mean


def test_convergence_has_a_line_per_block_size_of_the_write_jobs(library: Library) -> None:
    suite = store_suite(library, params_of(StorageTest.LATENCY), 6)
    data = suite_data(library, suite)
    spec = convergence_chart([data])
    (panel,) = spec.panels
    assert [s.legend for s in panel.series] == ["512b", "4k", "8k", "16k"]
    for series in panel.series:
        bs = {block_size_word(b): b for b in ("512", "4k", "8k", "16k")}[series.legend or ""]
        expected = [iops_figure(bs, 0, r)["write_lat_mean_us"] for r in range(1, 7)]
        assert series.x == tuple(float(r) for r in range(1, 7))
        assert series.y == pytest.approx(expected)  # µs: below 1000, shown as they are
    assert panel.y_label == "Mean write latency (µs)"
    (band,) = panel.bands  # the measurement window, rounds 1..5
    assert band.vertical and (band.low, band.high) == (0.5, 5.5)


def test_measurement_window_mean_bands_fit_and_determination(library: Library) -> None:
    suite = store_suite(library, params_of(StorageTest.LATENCY), 6)
    (panel,) = window_chart([suite_data(library, suite)]).panels
    tracked = [iops_figure("4k", 0, r)["write_lat_mean_us"] for r in range(1, 6)]
    mean, slope, intercept = _window_mean(tracked)
    values, mean_line, fit = panel.series
    assert values.y == pytest.approx(tracked)
    assert mean_line.y == pytest.approx((mean, mean))
    assert fit.x == (1.0, 5.0)
    assert fit.y == pytest.approx((intercept, intercept + 4 * slope))
    bands = {b.legend: (b.low, b.high) for b in panel.bands}
    assert bands["±10 % of the mean"] == pytest.approx((mean * 0.9, mean * 1.1))
    assert bands["±20 % of the mean"] == pytest.approx((mean * 0.8, mean * 1.2))
    excursion = max(tracked) - min(tracked)
    assert f"data excursion {excursion:.2f} ≤ {0.2 * mean:.1f} (ok)" in panel.note
    assert panel.note.endswith(": steady")


def test_iops_lines_and_heat_map_of_an_iops_suite(library: Library) -> None:
    suite = store_suite(library, params_of(StorageTest.IOPS, max_rounds=5), 5)
    data = suite_data(library, suite)
    # Window rounds 1..5: each cell the mean of its total IOPS over them.
    sizes = ["512", "4k", "8k", "16k", "32k", "64k", "128k", "1m"]
    mixes = [100, 95, 65, 50, 35, 5, 0]

    def expected(bs: str, mix: int) -> float:
        totals = [
            sum(iops_figure(bs, mix, r).get(k, 0.0) for k in ("read_iops", "write_iops"))
            for r in range(1, 6)
        ]
        return sum(totals) / 5

    every = [expected(bs, m) for bs in sizes for m in mixes]
    scale = range_scale("IO/s", every)
    spec = iops_chart([data])
    assert spec is not None
    (panel,) = spec.panels
    assert panel.log_x and panel.log_y
    assert next(s.legend for s in panel.series) == "100/0 (read)"
    line = panel.series[mixes.index(65)]
    assert line.x == tuple(float(block_size_bytes(bs)) for bs in sizes)
    assert line.y == pytest.approx([expected(bs, 65) * scale.factor for bs in sizes])
    heat = heatmap_chart([data], "IOPS", "IOPS")
    assert heat is not None
    cells = {(c.x, c.y): c for c in heat.panels[0].cells}
    assert len(cells) == len(sizes) * len(mixes)
    top_left = cells[(0, len(mixes) - 1)]  # 512 B, 100/0 on the top row
    assert top_left.text == format_quantity("count", expected("512", 100))
    assert top_left.color == heat_color(1.0)  # the largest value of the table
    assert cells[(len(sizes) - 1, 0)].color == heat_color(0.0)  # 1m 0/100, the smallest
    titled = grid_table(data, "IOPS")
    assert titled is not None
    assert titled.table.headers[1:] == tuple(f"{m}/{100 - m}" for m in mixes)
    row_4k = next(r for r in titled.table.rows if r[0] == "4k")
    assert row_4k[1 + mixes.index(35)] == scale.format(expected("4k", 35), unit=False)


def test_throughput_bars_and_table(library: Library) -> None:
    suite = store_suite(library, params_of(StorageTest.THROUGHPUT), 5)
    data = suite_data(library, suite)
    spec = throughput_chart([data])
    assert spec is not None
    (panel,) = spec.panels

    def mean_bps(bs: str, mix: int) -> float:
        key = "read_bytes_per_s" if mix == 100 else "write_bytes_per_s"
        return sum(iops_figure(bs, mix, r)[key] for r in range(1, 6)) / 5

    values = [mean_bps(bs, m) for bs in ("1m", "128k") for m in (100, 0)]
    scale = range_scale("B/s", values)
    one_m, k128 = panel.series
    assert one_m.legend == "1m" and one_m.bar_width > 0
    assert one_m.y == pytest.approx(
        [mean_bps("1m", 100) * scale.factor, mean_bps("1m", 0) * scale.factor]
    )
    assert k128.x[0] > one_m.x[0]  # side by side within the read group
    titled = throughput_table(data)
    assert titled is not None and titled.title.endswith(f"({scale.unit})")
    assert titled.table.rows[1] == (
        "128k",
        scale.format(mean_bps("128k", 100), unit=False),
        scale.format(mean_bps("128k", 0), unit=False),
    )


def test_ratio_tables_divide_each_cell_by_the_first_suite(library: Library) -> None:
    params = params_of(StorageTest.LATENCY)
    base = store_suite(library, params, 5, host="oci")
    other = store_suite(library, params, 5, host="aws", figures=default_figures(1.5))
    suites = [suite_data(library, base), suite_data(library, other)]
    titled = {t.title: t.table for t in ratio_tables(suites)}
    iops = titled[f"Latency IOPS: #{other} aws ÷ #{base} oci"]
    latency = titled[f"Weighted mean latency: #{other} aws ÷ #{base} oci"]
    assert {c for row in iops.rows for c in row[1:]} == {"1.50×"}  # IOPS × 1.5
    assert {c for row in latency.rows for c in row[1:]} == {"1.00×"}  # latency unchanged
    ratios = comparison_ratios(library, [base, other])
    assert len(ratios) == 2 * 12 and all(r["base"] == base for r in ratios)
    assert {round(float(r["ratio"]), 9) for r in ratios if r["table"] == "latency IOPS"} == {1.5}  # type: ignore[arg-type]
    # Side by side, on one y range.
    latency_panels = convergence_chart(suites).panels
    assert latency_panels[0].y_range == latency_panels[1].y_range is not None


def test_suites_of_different_tests_do_not_compare(library: Library, tmp_path: Path) -> None:
    a = store_suite(library, params_of(StorageTest.LATENCY), 5)
    b = store_suite(library, params_of(StorageTest.THROUGHPUT), 5)
    with pytest.raises(StorageReportError, match="only suites of the same test compare"):
        write_comparison(library, [a, b], tmp_path / "out", _fake_renderer([]))
    assert not (tmp_path / "out").exists()
    with pytest.raises(StorageReportError, match="two suites or more"):
        write_comparison(library, [a], tmp_path / "out", _fake_renderer([]))


def test_html_escapes_what_comes_from_the_library(library: Library, tmp_path: Path) -> None:
    hostile = "<script>alert(1)</script>"
    suite = store_suite(
        library,
        params_of(StorageTest.LATENCY),
        5,
        host="h<1>",
        label=hostile,
        facts={"model": '<img src=x onerror="y">', "direct": True},
    )
    calls: list[tuple[ChartSpec, Path]] = []
    files = write_report(library, suite, tmp_path / "r", _fake_renderer(calls))
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "<script" not in page and "<img src=x" not in page and "h<1>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=&quot;y&quot;&gt;" in page
    ET.fromstring(page.split("\n", 1)[1])  # well-formed past the doctype
    # Every chart written as PNG and SVG, the PNG shown, the SVG linked.
    names = {p.name for p in files}
    for _spec, path in calls:
        assert path.parent == tmp_path / "r"
    stems = {p.stem for _s, p in calls}
    assert stems == {"convergence", "window", "latency", "latency-heatmap", "iops", "iops-heatmap"}
    for stem in stems:
        assert {f"{stem}.png", f"{stem}.svg"} <= names
        assert f'src="{stem}.png"' in page and f'href="{stem}.svg"' in page


def test_csv_has_cloudharmony_columns_and_one_row(library: Library, tmp_path: Path) -> None:
    suite = store_suite(library, params_of(StorageTest.LATENCY), 5)
    write_report(library, suite, tmp_path, _fake_renderer([]))
    rows = list(csv.reader(io.StringIO((tmp_path / "storage.csv").read_text())))
    header, values = rows[0], rows[1:]
    assert len(values) == 1
    cells = [(m, bs) for m in (100, 65, 0) for bs in ("16k", "8k", "4k", "512")]
    theirs = [
        f"latency_{block_size_word(bs)}_{m}_{100 - m}_{kind}"
        for m, bs in cells
        for kind in ("mean", "max")
    ]
    ss = ["ss_average", "ss_max_data_excursion", "ss_max_slope_excursion"]
    ss += ["ss_largest_data_excursion", "ss_largest_slope_excursion", "ss_slope"]
    ss += ["ss_y_intercept", "ss_linear_fit_formula", "ss_start", "ss_stop", "ss_rounds"]
    ss += ["ss_max_rounds", "ss_verification"]
    # Pairbench's own after them (these stored jobs have no latency maxima: no peak).
    ours = [
        f"latency_{block_size_word(bs)}_{m}_{100 - m}_{kind}"
        for kind in ("weighted_mean_us", "iops")
        for m, bs in cells
    ]
    assert header == theirs + ss + ours
    mean_4k_write = sum(iops_figure("4k", 0, r)["write_lat_mean_us"] for r in range(1, 6)) / 5
    cell = float(values[0][header.index("latency_4k_0_100_mean")])
    assert cell == pytest.approx(mean_4k_write / 1000)  # ms, as CloudHarmony's


def test_out_dir_rules(library: Library, tmp_path: Path) -> None:
    suite = store_suite(library, params_of(StorageTest.THROUGHPUT), 5)
    a_file = tmp_path / "file"
    a_file.write_text("x")
    with pytest.raises(StorageReportError, match="is a file"):
        write_report(library, suite, a_file, _fake_renderer([]))
    foreign = tmp_path / "site"
    foreign.mkdir()
    (foreign / "index.html").write_text("<html>my page</html>")
    with pytest.raises(StorageReportError, match="not a Pairbench storage report"):
        write_report(library, suite, foreign, _fake_renderer([]))
    assert (foreign / "index.html").read_text() == "<html>my page</html>"
    ours = tmp_path / "new" / "deeper"
    write_report(library, suite, ours, _fake_renderer([]))
    write_report(library, suite, ours, _fake_renderer([]))  # its own report: rewritten


def _cli(library_path: Path, *argv: str, renderer: object = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(
        stdout=out,
        stderr=err,
        environ={"PAIRBENCH_LIBRARY": str(library_path)},
        chart_renderer=renderer,  # type: ignore[arg-type]
    )
    return run_cli(list(argv), env), out.getvalue(), err.getvalue()


def test_cli_report_and_compare(library: Library, library_path: Path, tmp_path: Path) -> None:
    a = store_suite(library, params_of(StorageTest.THROUGHPUT), 5)
    b = store_suite(library, params_of(StorageTest.THROUGHPUT), 5, figures=default_figures(2.0))
    c = store_suite(library, params_of(StorageTest.LATENCY), 5)
    library.close()
    calls: list[tuple[ChartSpec, Path]] = []
    out_dir = tmp_path / "rep"
    status, out, err = _cli(
        library_path,
        "storage",
        "report",
        str(a),
        "--out",
        str(out_dir),
        "--format",
        "pdf",
        renderer=_fake_renderer(calls),
    )
    assert status == 0, err
    lines = out.splitlines()
    assert f"wrote {out_dir / 'convergence.pdf'}" in lines
    assert lines[-1] == f"wrote {out_dir / 'index.html'}"
    status, out, err = _cli(
        library_path,
        "storage",
        "compare",
        str(a),
        str(b),
        "--out",
        str(tmp_path / "cmp"),
        "--json",
        renderer=_fake_renderer(calls),
    )
    assert status == 0, err
    payload = json.loads(out)
    assert payload["suites"] == [a, b]
    assert len(payload["ratios"]) == 4  # 2 block sizes × read, write
    assert all(r["ratio"] == pytest.approx(2.0) for r in payload["ratios"])
    assert str(tmp_path / "cmp" / "index.html") in payload["files"]
    status, _out, err = _cli(
        library_path,
        "storage",
        "compare",
        str(a),
        str(c),
        "--out",
        str(tmp_path / "x"),
        renderer=_fake_renderer(calls),
    )
    assert status != 0 and "only suites of the same test compare" in err
    status, _out, err = _cli(
        library_path, "storage", "report", str(a), "--out", str(tmp_path / "y")
    )
    assert status != 0 and "no chart renderer" in err


def test_report_html_lists_verdicts_and_parameters(library: Library) -> None:
    suite = store_suite(library, params_of(StorageTest.LATENCY), 6)
    page = report_html([suite_data(library, suite)], [])
    assert "latency: steady state reached at round 5 (6 rounds, pts rule)" in page
    assert "<h4>Determination: latency</h4>" in page
    assert "<td>round_seconds</td><td>1</td>" in page
