"""The unit vocabulary: each metric's unit and scale, printing at the boundaries, chart units."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pairbench.analysis.compare import compare
from pairbench.analysis.compare_runs import GroupBy, RunInput
from pairbench.domain import METRICS, Run, RunSpec, RunStatus, metric_unit
from pairbench.domain.units import (
    NO_VALUE,
    SI_BYTES,
    axis_label,
    format_bits,
    format_count,
    format_quantity,
    format_value,
    has_ladder,
    metric_scale,
    range_scale,
    scale_for,
    step_decimals,
)
from pairbench.export.charts import chart_spec
from pairbench.export.table_render import to_text
from pairbench.export.tables import comparison_report, comparison_title, headline_table, stats_table
from pairbench.services.parsing import parse_output

LADDER_UNITS = ("bit/s", "bit", "B/s", "B", SI_BYTES, "µs", "ms", "IO/s", "op/s", "count")
_NUMBER = re.compile(r"^(-?\d+(?:\.\d+)?)(?: ± \S+)?( .+|k|M)?$")


def _parse(text: str) -> tuple[float, str]:
    """("941", " Mbit/s") from "941 Mbit/s"."""
    match = _NUMBER.match(text)
    assert match is not None, text
    return float(match.group(1)), match.group(2) or ""


def _significant(text: str) -> int:
    digits = text.lstrip("-").replace(".", "").lstrip("0")
    return len(digits) if digits else 1


# -- each metric has a unit and a scale rule -------------------------------------------------


@pytest.mark.parametrize("name", sorted(METRICS))
def test_every_metric_has_a_unit_and_a_scale_rule(name: str) -> None:
    unit = METRICS[name].unit
    assert unit, name
    assert has_ladder(unit) or unit == "%", (name, unit)
    # The name carries its unit (DESIGN §4): the suffix rule agrees with the table.
    if name.endswith("_bps"):
        assert unit == "bit/s"
    elif name.endswith("_ms"):
        assert unit == "ms"
    elif name.endswith("_us"):
        assert unit == "µs"
    elif name.endswith("_percent"):
        assert unit == "%"
    # Printing a metric's value names the scale chosen for it.
    for value in (0.5, 7.0, 1234.0, 5.6e6, 7.8e9):
        scale = metric_scale(name, value)
        assert format_value(name, value).endswith(scale.suffix)


@pytest.mark.parametrize(
    ("name", "unit"),
    [
        ("foo_bps", "bit/s"),
        ("disk_bytes_per_s", "B/s"),
        ("buffer_bytes", "B"),
        ("queue_ms", "ms"),
        ("service_us", "µs"),
        ("cpu_percent", "%"),
        ("widgets", ""),
    ],
)
def test_unknown_metric_names_get_the_unit_of_their_suffix(name: str, unit: str) -> None:
    assert metric_unit(name) == unit


# -- scales and printing ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("unit", "value", "expected"),
    [
        ("bit/s", 999.4e6, "999 Mbit/s"),
        ("bit/s", 999.5e6, "1.00 Gbit/s"),  # the scale follows the rounded value
        ("bit/s", 999.96e3, "1.00 Mbit/s"),
        ("bit/s", 120e6, "120 Mbit/s"),
        ("bit/s", 9.996e9, "10.0 Gbit/s"),  # 3 digits after rounding, not "10.00"
        ("bit/s", 0.0, "0 bit/s"),
        ("bit/s", -21.6e6, "-21.6 Mbit/s"),
        ("bit/s", -0.0004, "-0.000400 bit/s"),
        ("bit/s", 1.5e15, "1500 Tbit/s"),  # past the last rung
        ("B/s", 1023.0, "1023 B/s"),
        ("B/s", 1023.9 * 1024, "1.00 MiB/s"),
        ("B", 4096.0, "4.00 KiB"),
        ("B", 512.0, "512 B"),
        (SI_BYTES, 2e9, "2.00 GB"),
        ("bit", 16e9, "16.0 Gbit"),
        ("µs", 999.4, "999 µs"),
        ("µs", 999.6, "1.00 ms"),
        ("µs", 2.5e6, "2.50 s"),
        ("ms", 0.048, "0.0480 ms"),  # never below the unit it is stored in
        ("ms", 1500.0, "1.50 s"),
        ("IO/s", 9870.0, "9870 IO/s"),
        ("IO/s", 9999.6, "10.0 kIO/s"),
        ("IO/s", 64_800.0, "64.8 kIO/s"),
        ("op/s", 2.5e6, "2.50 Mop/s"),
        ("count", 6315.0, "6315"),
        ("count", 12.0, "12"),
        ("count", 12.34, "12.3"),
        ("count", 64_800.0, "64.8k"),
        ("count", 1.2e6, "1.20M"),
        ("%", 11.0, "11.0 %"),
        ("%", 0.0, "0 %"),
        ("%", 250.0, "250 %"),
    ],
)
def test_values_print_with_three_significant_digits(unit: str, value: float, expected: str) -> None:
    assert format_quantity(unit, value) == expected


@pytest.mark.parametrize("value", [None, math.nan, math.inf, -math.inf])
def test_no_value_prints_as_a_dash(value: float | None) -> None:
    for unit in (*LADDER_UNITS, "%", "s", "widgets"):
        assert format_quantity(unit, value) == NO_VALUE
    assert format_value("throughput_bps", value, 1e6) == NO_VALUE


def test_non_finite_magnitudes_choose_the_base_unit() -> None:
    assert scale_for("bit/s", math.nan).unit == "bit/s"
    assert range_scale("bit/s", [math.nan, 2.5e9, -math.inf, -3e9]).unit == "Gbit/s"
    assert range_scale("µs", []).unit == "µs"


def test_a_fixed_scale_prints_the_half_width_at_the_values_precision() -> None:
    scale = metric_scale("throughput_bps", 9.79e9)
    assert scale.format(9.79e9, 0.021e9) == "9.79 ± 0.02 Gbit/s"
    assert scale.format(9.79e9, 1e6) == "9.79 ± 0.001 Gbit/s"  # too narrow to round
    assert scale.format(21.6e6) == "0.0216 Gbit/s"
    assert scale.format(9.79e9, unit=False) == "9.79"
    assert format_bits(941e6) == "941 Mbit/s"
    assert format_count(27_800.0) == "27.8k"


@given(
    unit=st.sampled_from(LADDER_UNITS),
    value=st.floats(min_value=1e-3, max_value=1e14, allow_nan=False, allow_infinity=False),
    negative=st.booleans(),
)
def test_print_and_scale_round_trip(unit: str, value: float, negative: bool) -> None:
    value = -value if negative else value
    text = format_quantity(unit, value)
    shown, suffix = _parse(text)
    scale = scale_for(unit, value)
    assert suffix == scale.suffix
    back = shown / scale.factor
    # The printed number is the value rounded to 3 significant digits (or a whole count).
    assert back == pytest.approx(value, rel=5e-3, abs=0.5 * 10**-6 / scale.factor)
    number = text.split(" ")[0].rstrip("kM")
    if not (scale.whole and "." not in number) and abs(shown) >= 1e-3:
        assert _significant(number) == 3 or abs(shown) >= 1000, text
    # Reading the printed value back picks the same scale: no "1000 Mbit/s", no "0.99 Gbit/s".
    assert scale_for(unit, back) == scale, text
    if scale.factor != 1.0 and abs(shown) > 0:
        assert abs(shown) >= 1, text  # never "0.999 Gbit/s" when "999 Mbit/s" would do


# -- charts and reports name the unit of the numbers they show -------------------------------


def _run(run_id: int, value: float, pair: str) -> Run:
    spec = RunSpec(pair, "iperf3", {}, label="", tags={})
    return Run(
        run_id, spec, RunStatus.COMPLETED, 1e9 + run_id, 1e9 + run_id + 10, "3.12",
        {"throughput_bps": value}, True, {}, "", {},
    )  # fmt: skip


class _Series:
    def __init__(self, value: float) -> None:
        self.stream, self.metric, self.unit = "sum", "throughput_bps", "bit/s"
        self.t = np.arange(1.0, 6.0)
        self.v = np.full(5, value)


@pytest.mark.parametrize("level", [0.0, 850.0, 42e3, 120e6, 999.6e6, 9.4e9, 2.2e12])
def test_the_compare_chart_title_names_the_unit_of_its_axis(level: float) -> None:
    inputs = [
        RunInput(_run(i, level * k, pair), series=[_Series(level * k)])
        for i, (k, pair) in enumerate([(1.0, "a"), (1.02, "a"), (0.7, "b"), (0.72, "b")], 1)
    ]
    cmp = compare(inputs, group_by=GroupBy.parse("pair"))
    spec = chart_spec(cmp)
    unit = re.fullmatch(r"Throughput \((.+)\)", spec.y_label)
    assert unit is not None, spec.y_label
    assert spec.title.startswith(f"Throughput ({unit.group(1)}), ")
    assert comparison_title(cmp) == spec.title
    # The numbers drawn are in that unit, the one of the largest value drawn (the live plots'
    # axis rule): the points' means are the runs' values scaled by it.
    scale = scale_for("bit/s", level * 1.02)
    assert axis_label("Throughput", scale) == spec.y_label
    means = sorted(p.mean for p in spec.points)
    assert means == pytest.approx(
        sorted([level * 0.71 * scale.factor, level * 1.01 * scale.factor])
    )
    # The report's tables print each value in the unit of its own size.
    text = to_text(comparison_report(cmp))
    for mean in (level * 1.01, level * 0.71):
        assert format_quantity("bit/s", mean) in text


def test_compare_prints_each_value_in_its_own_unit_as_the_live_view_does() -> None:
    """Two runs at ~198 Mbit/s and one at 25 Gbit/s: no "25000 Mbit/s" anywhere (the
    median-based column unit printed it so), the chart's axis in Gbit/s (its largest value)."""
    values = [(198.2e6, "a"), (197.9e6, "a"), (25.04e9, "b")]
    inputs = [
        RunInput(_run(i, v, pair), series=[_Series(v)]) for i, (v, pair) in enumerate(values, 1)
    ]
    cmp = compare(inputs)
    report = comparison_report(cmp)
    text = to_text(report)
    assert "25000" not in text and "25.0 Gbit/s" in text
    assert "198 Mbit/s" in text and "0.198" not in text

    headline = headline_table(cmp)
    assert [row[3] for row in headline.rows] == ["198 Mbit/s", "198 Mbit/s", "25.0 Gbit/s"]
    stats = stats_table(cmp)
    assert [row[2] for row in stats.rows] == ["198 Mbit/s", "198 Mbit/s", "25.0 Gbit/s"]
    spec = chart_spec(cmp)
    assert spec.y_label == "Throughput (Gbit/s)" and spec.title.startswith("Throughput (Gbit/s)")
    assert max(p.mean for p in spec.points) == pytest.approx(25.04)


_STARTS = {
    "bit/s": (1e3, 1e6, 1e9, 1e12),
    "bit": (1e3, 1e6, 1e9, 1e12),
    "B/s": (2.0**10, 2.0**20, 2.0**30, 2.0**40),
    "B": (2.0**10, 2.0**20, 2.0**30, 2.0**40),
    SI_BYTES: (1e3, 1e6, 1e9, 1e12, 1e15),
    "µs": (1e3, 1e6),
    "ms": (1e3,),
    "IO/s": (1e4, 1e6),
    "op/s": (1e4, 1e6),
    "count": (1e4, 1e6),
}


@pytest.mark.parametrize("unit", LADDER_UNITS)
def test_values_just_below_a_prefix_step_print_in_the_larger_unit_once_rounded(unit: str) -> None:
    for start in _STARTS[unit]:
        assert scale_for(unit, start) != scale_for(unit, start / 2), (unit, start)
        for below in (1e-5, 2e-4, 4e-4, 6e-4, 3e-3, 0.3):
            for value in (start * (1 - below), -start * (1 - below)):
                shown, _ = _parse(format_quantity(unit, value))
                scale = scale_for(unit, value)
                # Reading the printed number back gives the same scale (no "1000 Mbit/s").
                assert scale_for(unit, shown / scale.factor) == scale, (unit, value)
                assert shown / scale.factor == pytest.approx(value, rel=5e-3)


# -- printed no finer than the tool measured -------------------------------------------------

_CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures"
_PING_RTT = re.compile(r"rtt min/avg/max/mdev = ([\d.]+)/([\d.]+)/([\d.]+)/([\d.]+) ms")
_IPERF3_JITTER = re.compile(r"\s([\d.]+) ms\s+\d+/\d+ \(.*\)\s+receiver")


def _ping_summaries() -> list[tuple[str, list[str]]]:
    found = []
    for path in sorted((_CAPTURES / "ping").glob("*.out")):
        match = _PING_RTT.search(path.read_text(errors="replace"))
        if match:
            found.append((path.name, list(match.groups())))
    return found


@pytest.mark.parametrize(("capture", "printed"), _ping_summaries())
def test_rtts_read_as_ping_printed_them(capture: str, printed: list[str]) -> None:
    """ping prints its times to the µs ("0.050 ms"): below 1 ms, the summary shows ping's own
    digits (not "0.0500 ms"); above, 3 significant digits of the same value."""
    summary = parse_output("ping", (_CAPTURES / "ping" / capture).read_text()).summary.values
    names = ("rtt_min_ms", "rtt_avg_ms", "rtt_max_ms", "rtt_mdev_ms")
    for name, text in zip(names, printed, strict=True):
        shown = format_value(name, summary[name])
        if float(text) < 1:
            assert shown == f"{text} ms", (name, shown, text)
        else:
            assert shown == format_quantity("ms", float(text)), (name, shown, text)


def test_jitter_reads_as_iperf3_printed_it() -> None:
    """iperf3's receiver jitter as it printed it below 1 ms ("0.018 ms", not "0.0180 ms"),
    3 significant digits of it above."""
    checked = 0
    for path in sorted((_CAPTURES / "iperf3").glob("v3*_udp*.out")):
        text = path.read_text(errors="replace")
        match = _IPERF3_JITTER.search(text)
        if not match or "json" in path.name:
            continue
        summary = parse_output("iperf3", text).summary.values
        if "jitter_ms" in summary:
            printed = match.group(1)
            wanted = (
                f"{printed} ms" if float(printed) < 1 else format_quantity("ms", float(printed))
            )
            assert format_value("jitter_ms", summary["jitter_ms"]) == wanted, path
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize(
    ("step", "decimals"), [(0.001, 3), (0.01, 2), (0.5, 1), (1.0, 0), (10.0, 0), (1e-6, 6)]
)
def test_step_decimals(step: float, decimals: int) -> None:
    assert step_decimals(step) == decimals
