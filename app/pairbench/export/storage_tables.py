"""The storage report's tables as text: IOPS and latency by block size × mix, throughput per
block size (read and write), each stage's steady-state determination, the suite's
parameters and facts, and a comparison's ratios per cell (each suite ÷ the first)."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pairbench.analysis.storage_suite import StageProgress
from pairbench.analysis.storage_tables import LATENCY_IOPS, PEAK, WEIGHTED_MEAN, SuiteTable
from pairbench.domain.storage import StorageTest, block_size_bytes, block_size_word, mix_word
from pairbench.domain.units import NO_VALUE, axis_label, format_quantity, metric_scale, range_scale
from pairbench.export.storage_data import SuiteData, block_sizes, mixes
from pairbench.export.tables import TextTable

# The unit (``domain.units``) of each table's values.
TABLE_UNITS = {"IOPS": "IO/s", "µs": "µs", "B/s": "B/s"}


@dataclass(frozen=True, slots=True)
class TitledTable:
    """A table and its heading (the heading names the unit of its numbers)."""

    title: str
    table: TextTable


def _sizes_largest_first(data: SuiteData) -> list[str]:
    return sorted(block_sizes(data.params), key=block_size_bytes, reverse=True)


def grid_table(data: SuiteData, name: str) -> TitledTable | None:
    """The table ``name`` as rows of block sizes (largest first) and columns of mixes
    (100/0 first), in one scale named in the title; "—" where a cell has no value."""
    table = data.table(name)
    if table is None:
        return None
    unit = TABLE_UNITS.get(table.unit, table.unit)
    scale = range_scale(unit, [c.value for c in table.cells])
    columns = mixes(data.params)
    rows = []
    for bs in _sizes_largest_first(data):
        cells = [scale.format(table.value(bs, mix), unit=False) for mix in columns]
        rows.append((block_size_word(bs), *cells))
    headers = ("Block size", *(mix_word(m) for m in columns))
    title = axis_label(f"{name[0].upper()}{name[1:]} by block size and read/write mix", scale)
    return TitledTable(title, TextTable(headers, tuple(rows), ("l",) + ("r",) * len(columns)))


def throughput_table(data: SuiteData) -> TitledTable | None:
    """Sequential read (100/0) and write (0/100) throughput per block size, one scale."""
    if data.params.test is not StorageTest.THROUGHPUT:
        return None
    found: list[tuple[str, float | None, float | None]] = []
    for bs in _sizes_largest_first(data):
        table = data.table(f"throughput {block_size_word(bs)}")
        read = table.value(bs, 100) if table is not None else None
        write = table.value(bs, 0) if table is not None else None
        found.append((bs, read, write))
    values = [v for _bs, r, w in found for v in (r, w) if v is not None]
    scale = range_scale("B/s", values)
    rows = tuple(
        (block_size_word(bs), scale.format(r, unit=False), scale.format(w, unit=False))
        for bs, r, w in found
    )
    title = axis_label("Throughput by block size (sequential)", scale)
    headers = ("Block size", "Read 100/0", "Write 0/100")
    return TitledTable(title, TextTable(headers, rows, ("l", "r", "r")))


# The latency test's tables, in the report's order (grid_table skips one a suite lacks).
LATENCY_TABLES = (WEIGHTED_MEAN, PEAK, LATENCY_IOPS)


def result_tables(data: SuiteData) -> list[TitledTable]:
    """Every result table of the suite's test."""
    found: list[TitledTable | None] = []
    if data.params.test is StorageTest.IOPS:
        found.append(grid_table(data, "IOPS"))
    elif data.params.test is StorageTest.LATENCY:
        found += [grid_table(data, name) for name in LATENCY_TABLES]
    else:
        found.append(throughput_table(data))
    return [t for t in found if t is not None]


# Which rule decided a window, in words.
RULE_TEXT = {
    "pts": "PTS-E 1.1 (the specification's, unrounded)",
    "cloudharmony": "CloudHarmony block-storage's (its units and roundings; shown converted)",
}


def determination_table(stage: StageProgress) -> TextTable:
    """A stage's steady-state determination: window, mean, both excursions against their
    limits, the least-squares line and the verdict (values in the tracking metric's unit)."""
    metric = stage.stage.metric
    window = stage.verdict.window
    headers = ("Check", "Value", "Limit", "Result")
    align = ("l", "r", "r", "l")
    if window is None:
        pending = (("Window", f"{len(stage.values)} complete round(s)", "5 rounds", "pending"),)
        return TextTable(headers, pending, align)
    scale = metric_scale(metric, window.mean)

    def fmt(value: float) -> str:
        return scale.format(value)

    first = window.round - len(window.values) + 1
    values = ", ".join(scale.format(v, unit=False) for v in window.values)
    verdict = stage.verdict.state.value
    n = len(window.values)
    rows = (
        ("Rule", RULE_TEXT.get(window.rule, window.rule), "", ""),
        ("Tracking variable", stage.stage.metric_label, "", ""),
        ("Window", f"rounds {first}–{window.round}: {values}", "", ""),
        ("Mean", fmt(window.mean), "", ""),
        (
            "Data excursion (max − min)",
            fmt(window.data_excursion),
            fmt(window.data_limit),
            "pass" if window.data_ok else "fail",
        ),
        (
            f"Slope excursion (|slope| × {n - 1})",
            fmt(window.slope_excursion),
            fmt(window.slope_limit),
            "pass" if window.slope_ok else "fail",
        ),
        ("Least-squares slope per round", fmt(window.slope), "", ""),
        (f"Fitted value at round {first}", fmt(window.intercept), "", ""),
        ("Verdict", f"steady state {verdict}", "", f"{len(stage.values)} round(s) run"),
    )
    return TextTable(headers, rows, align)


def verdict_line(stage: StageProgress) -> str:
    """``iops: steady state reached at round 7 (7 rounds, pts rule)``."""
    at = stage.verdict.reached_at
    state = f"reached at round {at}" if at else stage.verdict.state.value
    rounds = f"{len(stage.values)} rounds, {stage.rule.value} rule"
    return f"{stage.stage.name}: steady state {state} ({rounds})"


def _value_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def params_table(data: SuiteData) -> TextTable:
    """The suite's parameters (as stored), a row each."""
    params = data.params.to_json()
    rows: list[tuple[str, str]] = [
        ("suite", str(data.id)),
        ("host", data.host),
        ("label", data.label or NO_VALUE),
        ("status", data.status),
    ]
    for key, value in params.items():
        if key == "size":
            text = format_quantity("B", float(value)) if value else "all"
        elif key in ("data_excursion", "slope_excursion"):
            text = f"{float(value) * 100:g} % of the mean"
        else:
            text = _value_text(value)
        rows.append((key, text))
    rows.append(
        ("threads × iodepth per job", f"{data.params.job_threads()} × {data.params.job_iodepth()}")
    )
    return TextTable(("Parameter", "Value"), tuple(rows), ("l", "l"))


def facts_table(facts: Mapping[str, Any]) -> TextTable:
    """The host and target facts the suite stored (device model, file system, fio ...)."""
    rows = tuple((str(key), _value_text(facts[key])) for key in sorted(facts))
    return TextTable(("Fact", "Value"), rows or (("—", "no facts stored"),), ("l", "l"))


def ratio_text(value: float | None, base: float | None) -> str:
    """``1.23×``: ``value`` ÷ ``base``; "—" when either is missing or the base is 0."""
    if value is None or base is None or not math.isfinite(value) or not base:
        return NO_VALUE
    return f"{value / base:.2f}×"


def _table_names(data: SuiteData) -> list[str]:
    if data.params.test is StorageTest.IOPS:
        return ["IOPS"]
    if data.params.test is StorageTest.LATENCY:
        return list(LATENCY_TABLES)
    return [f"throughput {block_size_word(bs)}" for bs in _sizes_largest_first(data)]


def _cell_value(table: SuiteTable | None, bs: str, mix: int) -> float | None:
    return table.value(bs, mix) if table is not None else None


def ratio_tables(suites: Sequence[SuiteData]) -> list[TitledTable]:
    """For each suite after the first, each of its tables ÷ the first suite's, per cell
    (block size × mix; throughput: block size × read/write)."""
    base = suites[0]
    out: list[TitledTable] = []
    throughput = base.params.test is StorageTest.THROUGHPUT
    columns = [100, 0] if throughput else mixes(base.params)
    headers = ("Block size", *(mix_word(m) for m in columns))
    for other in suites[1:]:
        if throughput:
            rows = []
            for bs in _sizes_largest_first(base):
                name = f"throughput {block_size_word(bs)}"
                a, b = base.table(name), other.table(name)
                cells = [ratio_text(_cell_value(b, bs, m), _cell_value(a, bs, m)) for m in columns]
                rows.append((block_size_word(bs), *cells))
            title = f"Throughput: {other.name} ÷ {base.name}"
            out.append(TitledTable(title, TextTable(headers, tuple(rows), ("l", "r", "r"))))
            continue
        for name in _table_names(base):
            a, b = base.table(name), other.table(name)
            rows = [
                (
                    block_size_word(bs),
                    *(ratio_text(_cell_value(b, bs, m), _cell_value(a, bs, m)) for m in columns),
                )
                for bs in _sizes_largest_first(base)
            ]
            title = f"{name[0].upper()}{name[1:]}: {other.name} ÷ {base.name}"
            align = ("l",) + ("r",) * len(columns)
            out.append(TitledTable(title, TextTable(headers, tuple(rows), align)))
    return out


def ratio_json(suites: Sequence[SuiteData]) -> list[dict[str, object]]:
    """The ratios as numbers: one entry per suite after the first, table and cell."""
    base = suites[0]
    out: list[dict[str, object]] = []
    for other in suites[1:]:
        for name in _table_names(base):
            a, b = base.table(name), other.table(name)
            for cell in a.cells if a is not None else ():
                value = _cell_value(b, cell.bs, cell.read_pct)
                ratio = value / cell.value if value is not None and cell.value else None
                out.append(
                    {
                        "suite": other.id,
                        "base": base.id,
                        "table": name,
                        "block_size": cell.bs,
                        "read_pct": cell.read_pct,
                        "ratio": ratio,
                    }
                )
    return out
