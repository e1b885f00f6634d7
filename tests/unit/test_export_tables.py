"""Comparison tables as Markdown, CSV, HTML and text; number formatting."""

from __future__ import annotations

import csv
import io
import math
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import pytest

from compare_runs import DAY, store_run, two_shapes
from pairbench.analysis.compare import Comparison, compare
from pairbench.analysis.compare_runs import GroupBy
from pairbench.analysis.outliers import OutlierPolicy
from pairbench.domain.units import format_value, metric_scale
from pairbench.export.formatting import format_p, format_percent_change
from pairbench.export.selection import load_inputs
from pairbench.export.table_render import (
    comparison_csv,
    markdown_table,
    to_html,
    to_markdown,
    to_text,
)
from pairbench.export.tables import comparison_report
from pairbench.library import Library


@pytest.fixture
def comparison(library: Library) -> Comparison:
    a, b = two_shapes(library, seconds=5)
    return compare(
        load_inputs(library, a + b),
        group_by=GroupBy.parse("pair"),
        policy=OutlierPolicy.parse("iqr"),
    )


@pytest.mark.parametrize(
    ("metric", "value", "half", "expected"),
    [
        ("throughput_bps", 9.79e9, 0.021e9, "9.79 ± 0.02 Gbit/s"),
        ("throughput_bps", 941e6, None, "941 Mbit/s"),
        ("latency_avg_us", 71.45, 1.2, "71.5 ± 1.2 µs"),
        ("latency_avg_us", 696.85, None, "697 µs"),
        ("latency_avg_us", 1500.0, None, "1.50 ms"),
        ("rtt_avg_ms", 0.724, 0.018, "0.724 ± 0.018 ms"),
        ("lost_percent", 0.5, None, "0.500 %"),
        ("read_iops", 123456.0, None, "123 kIO/s"),
        ("read_bytes_per_s", 3 * 1024**3, None, "3.00 GiB/s"),
        ("retransmits", 12.0, None, "12"),  # a whole count
        ("retransmits", 12.34, None, "12.3"),
        ("throughput_bps", 9.79e9, 1e6, "9.79 ± 0.001 Gbit/s"),  # a CI too narrow to round
        ("throughput_bps", None, None, "—"),
        ("throughput_bps", math.nan, None, "—"),
    ],
)
def test_measures_read_well(
    metric: str, value: float | None, half: float | None, expected: str
) -> None:
    assert format_value(metric, value, half) == expected


def test_scales_changes_and_p_values() -> None:
    assert metric_scale("throughput_bps", 4.99e9).unit == "Gbit/s"
    assert metric_scale("latency_avg_us", 650.0).unit == "µs"
    assert format_percent_change(-0.1297) == "-13.0 %"
    assert format_percent_change(1.5) == "+150.0 %"
    assert format_percent_change(-3e-4) == "-0.03 %"
    assert format_percent_change(-1e-6) == "0.00 %"
    assert format_percent_change(None) == "—"
    assert (format_p(0.0004), format_p(0.032), format_p(0.5), format_p(None)) == (
        "< 0.001",
        "0.032",
        "0.50",
        "—",
    )


def _markdown_tables(text: str) -> list[list[list[str]]]:
    """Every GFM table of a document: a header, a delimiter row, then body rows."""
    tables: list[list[list[str]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if (
            lines[i].startswith("|")
            and i + 1 < len(lines)
            and re.fullmatch(r"\|(:?-+:?\|)+", lines[i + 1])
        ):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = re.split(r"(?<!\\)\|", lines[i])[1:-1]
                rows.append([c.strip() for c in cells])
                i += 1
            tables.append([r for j, r in enumerate(rows) if j != 1])
        else:
            i += 1
    return tables


def test_markdown_parses_as_tables(comparison: Comparison) -> None:
    text = to_markdown(comparison_report(comparison))
    tables = _markdown_tables(text)
    assert len(tables) >= 4  # comparison, statistics, Welch, what differs
    for table in tables:
        assert len({len(row) for row in table}) == 1, table  # every row as wide as the header
    headline = tables[0]
    assert headline[0][:4] == ["Environment", "Test", "n", "Mean latency"]
    assert headline[1][0] == "same-zone" and headline[1][4] == "baseline"
    assert headline[2][0] == "cross-zone"
    assert headline[2][headline[0].index("Throughput")].endswith("Mbit/s")
    assert re.fullmatch(r"[+-]\d+\.\d %", headline[2][headline[0].index("Throughput") + 1])
    assert "# Throughput (Mbit/s), grouped by pair" in text  # the unit of the numbers
    assert "Outlier policy: beyond 1.5×IQR" in text


def test_markdown_escapes_pipes() -> None:
    from pairbench.export.tables import TextTable

    table = TextTable(("a|b", "c"), (("x | y", "z"),), ("l", "r"))
    assert _markdown_tables(markdown_table(table)) == [[["a\\|b", "c"], ["x \\| y", "z"]]]


def test_csv_round_trips_the_numbers(comparison: Comparison) -> None:
    rows = list(csv.DictReader(io.StringIO(comparison_csv(comparison))))
    assert [r["environment"] for r in rows] == ["same-zone", "cross-zone"]
    assert rows[0]["baseline"] == "yes" and rows[1]["baseline"] == "no"
    for row, table_row in zip(rows, comparison.table.rows, strict=True):
        assert row["test"] == table_row.description
        for column, cell in zip(comparison.table.columns, table_row.cells, strict=True):
            m = column.metric
            assert float(row[f"{m}_mean"]) == cell.mean  # exact: repr round-trips
            assert float(row[f"{m}_ci_half_width"]) == cell.half_width
            assert int(row[f"{m}_n"]) == cell.n
            expected = None if cell.vs_baseline is None else cell.vs_baseline * 100
            assert float(row[f"{m}_vs_baseline_percent"]) == expected


def test_html_is_well_formed_and_complete(comparison: Comparison) -> None:
    text = to_html(comparison_report(comparison, title="Zones <compared> & more"))
    root = ET.fromstring(text.split("\n", 1)[1])  # XML after the doctype line
    assert root.tag == "html"
    tables = root.findall(".//table")
    assert len(tables) >= 4
    headers = [th.text for th in tables[0].findall("./thead/tr/th")]
    assert headers[:3] == ["Environment", "Test", "n"]
    assert all(len(tr.findall("td")) == len(headers) for tr in tables[0].findall("./tbody/tr"))
    assert root.find(".//h1").text == "Zones <compared> & more"  # escaped in the file

    class Checker(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.stack: list[str] = []

        def handle_starttag(self, tag: str, attrs: object) -> None:
            self.stack.append(tag)

        def handle_startendtag(self, tag: str, attrs: object) -> None:
            pass  # <meta .../>

        def handle_endtag(self, tag: str) -> None:
            assert self.stack.pop() == tag

    checker = Checker()
    checker.feed(text)
    assert checker.stack == []


def test_text_report_lists_discards_and_the_welch_test(library: Library) -> None:
    a, b = two_shapes(library, seconds=5)
    # Five repeats of one label where one launch was slow: the policy must name it.
    ids = [
        store_run(
            library, label="m1.medium", summary={"throughput_bps": v * 1e6}, started_at=DAY + i
        )
        for i, v in enumerate([941.0, 938.0, 610.0, 944.0, 940.0])
    ]
    cmp = compare(
        load_inputs(library, ids),
        group_by=GroupBy.parse("label"),
        policy=OutlierPolicy.parse("mad"),
    )
    text = to_text(comparison_report(cmp))
    assert f"run {ids[2]} (m1.medium): 610 Mbit/s — below median − 3×MAD" in text
    assert f"#{ids[2]}" in text  # in the statistics table's "Discarded" column
    pairs = compare(load_inputs(library, a + b), group_by=GroupBy.parse("pair"))
    text = to_text(comparison_report(pairs))
    assert "cross-zone − same-zone" in text and "significant at 5 %" in text
    assert "No run discarded (outlier policy: none)." in text
