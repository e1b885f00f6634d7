"""The storage report's charts of its tables, without Qt: IOPS against block size (log–log,
one line per mix), a heat map of a block size × mix table with its values written in the
cells, latency against block size (one line per mix) and throughput against mix (read 100/0,
write 0/100) per block size; and the list of charts a report of a test draws."""

from __future__ import annotations

import math
from collections.abc import Sequence

from pairbench.analysis.storage_tables import LATENCY_IOPS, WEIGHTED_MEAN, SuiteTable
from pairbench.domain.storage import StorageTest, block_size_bytes, block_size_word
from pairbench.domain.units import Scale, axis_label, format_quantity, range_scale
from pairbench.export.charts import ChartSpec
from pairbench.export.panels import (
    HeatCell,
    Panel,
    Series,
    heat_color,
    heat_fraction,
    heat_text_color,
    log_ticks,
    padded,
    share_y,
)
from pairbench.export.storage_charts import NamedChart, chart, convergence_chart, window_chart
from pairbench.export.storage_data import (
    SuiteData,
    block_sizes,
    bs_color,
    bs_ticks,
    mix_color,
    mix_label,
    mixes,
    suite_color,
)
from pairbench.export.storage_tables import TABLE_UNITS

SYMBOLS = ("o", "s", "t", "d", "+", "x", "star", "p")
IOPS_TABLES = ("IOPS", LATENCY_IOPS)


def iops_table_name(test: StorageTest) -> str | None:
    """The IOPS table of a test (the throughput test has none)."""
    return {StorageTest.IOPS: "IOPS", StorageTest.LATENCY: LATENCY_IOPS}.get(test)


def _tables(suites: Sequence[SuiteData], name: str) -> list[SuiteTable | None]:
    return [s.table(name) for s in suites]


def table_scale(suites: Sequence[SuiteData], name: str, unit: str) -> Scale:
    """One scale for the table ``name`` of every suite."""
    values = [c.value for t in _tables(suites, name) if t is not None for c in t.cells]
    return range_scale(unit, values)


def _bs_axis(suites: Sequence[SuiteData]) -> tuple[tuple[float, str], ...]:
    return bs_ticks(block_sizes(suites[0].params))


def _bs_range(suites: Sequence[SuiteData]) -> tuple[float, float]:
    sizes = [block_size_bytes(bs) for bs in block_sizes(suites[0].params)]
    return padded(min(sizes), max(sizes), log=True, pad=0.04)


def _mix_lines(
    table: SuiteTable | None, scale: Scale, color_of_suite: str | None, mark: int
) -> list[Series]:
    """One line per mix of ``table`` against block size (bytes)."""
    if table is None:
        return []
    out = []
    for i, mix in enumerate(m for m in _mix_order(table)):
        cells = sorted(
            (c for c in table.cells if c.read_pct == mix), key=lambda c: block_size_bytes(c.bs)
        )
        x = tuple(float(block_size_bytes(c.bs)) for c in cells)
        y = tuple(c.value * scale.factor for c in cells)
        if color_of_suite is None:
            out.append(Series(mix_label(mix), mix_color(mix), x, y))
        else:  # a comparison: the suite's colour, the mix's symbol (legend entries apart)
            out.append(
                Series(None, color_of_suite, x, y, symbol=SYMBOLS[i % len(SYMBOLS)], dash=mark > 0)
            )
    return out


def _mix_order(table: SuiteTable) -> list[int]:
    seen: list[int] = []
    for cell in table.cells:
        if cell.read_pct not in seen:
            seen.append(cell.read_pct)
    return sorted(seen, reverse=True)


def iops_chart(suites: Sequence[SuiteData]) -> ChartSpec | None:
    """IOPS against block size, log–log, one line per mix; suites compared overlay on one
    panel, a colour per suite and a symbol per mix."""
    name = iops_table_name(suites[0].params.test)
    if name is None:
        return None
    scale = table_scale(suites, name, "IO/s")
    series: list[Series] = []
    if len(suites) == 1:
        series = _mix_lines(suites[0].table(name), scale, None, 0)
    else:
        for k, s in enumerate(suites):
            series += _mix_lines(s.table(name), scale, suite_color(k), k)
        series += [
            Series(s.name, suite_color(k), (), (), symbol=None) for k, s in enumerate(suites)
        ]
        series += [
            Series(mix_label(m), "#444444", (), (), symbol=SYMBOLS[i % len(SYMBOLS)], line=False)
            for i, m in enumerate(sorted(mixes(suites[0].params), reverse=True))
        ]
    positive = [y for s in series for y in s.y if y > 0]
    y_range = padded(min(positive), max(positive), log=True) if positive else None
    panel = Panel(
        title="",
        x_label="Block size",
        y_label=axis_label("IOPS", scale),
        series=tuple(series),
        x_ticks=_bs_axis(suites),
        y_ticks=log_ticks(*y_range) if y_range else (),
        log_x=True,
        log_y=True,
        x_range=_bs_range(suites),
        y_range=y_range,
        empty_text="no IOPS measured yet",
    )
    title = f"IOPS against block size per read/write mix ({name}, window means, log–log)"
    return chart(title, suites, [panel], 1, width=1100 if len(suites) == 1 else 1300, height=680)


def heatmap_chart(suites: Sequence[SuiteData], name: str, title: str) -> ChartSpec | None:
    """The table ``name`` as block size (columns) × mix (rows) cells coloured by value (on a
    log scale for IOPS) with the value written; one panel per suite, one colour scale."""
    tables = _tables(suites, name)
    if all(t is None for t in tables):
        return None
    unit = TABLE_UNITS.get(next(t for t in tables if t is not None).unit, "")
    values = [c.value for t in tables if t is not None for c in t.cells if c.value > 0]
    low, high = (min(values), max(values)) if values else (1.0, 1.0)
    log = name in IOPS_TABLES
    sizes = block_sizes(suites[0].params)
    rows = mixes(suites[0].params)
    panels = []
    for s, table in zip(suites, tables, strict=True):
        cells = []
        for cell in table.cells if table is not None else ():
            if not math.isfinite(cell.value):
                continue
            fraction = heat_fraction(cell.value, low, high, log=log)
            text = format_quantity("count" if unit == "IO/s" else unit, cell.value)
            cells.append(
                HeatCell(
                    sizes.index(cell.bs),
                    len(rows) - 1 - rows.index(cell.read_pct),
                    heat_color(fraction),
                    text,
                    heat_text_color(fraction),
                )
            )
        panels.append(
            Panel(
                title=s.name if len(suites) > 1 else "",
                x_label="Block size",
                y_label="Read/write mix (%)",
                cells=tuple(cells),
                x_ticks=tuple((float(i), block_size_word(bs)) for i, bs in enumerate(sizes)),
                y_ticks=tuple((float(len(rows) - 1 - i), mix_label(m)) for i, m in enumerate(rows)),
                empty_text="no values yet",
                note=f"colour: {'log ' if log else ''}scale from {format_quantity(unit, low)} "
                f"(dark) to {format_quantity(unit, high)} (light)",
            )
        )
    width = min(2400, max(1000, 80 * len(sizes) * len(suites) + 260 * len(suites)))
    return chart(title, suites, panels, len(suites), width=width, height=140 + 62 * len(rows) + 120)


def latency_chart(suites: Sequence[SuiteData]) -> ChartSpec | None:
    """Mean latency (IOPS-weighted) against block size, one line per mix; one panel per
    suite, one y range."""
    if suites[0].params.test is not StorageTest.LATENCY:
        return None
    scale = table_scale(suites, WEIGHTED_MEAN, "µs")
    panels = [
        Panel(
            title=s.name if len(suites) > 1 else "",
            x_label="Block size",
            y_label=axis_label("Mean latency (IOPS-weighted)", scale),
            series=tuple(_mix_lines(s.table(WEIGHTED_MEAN), scale, None, 0)),
            x_ticks=_bs_axis(suites),
            log_x=True,
            x_range=_bs_range(suites),
            legend=k == len(suites) - 1,
            empty_text="no latency measured yet",
        )
        for k, s in enumerate(suites)
    ]
    title = "Mean latency against block size per read/write mix (window means, queue depth 1)"
    return chart(title, suites, share_y(panels), len(suites), height=640)


def throughput_chart(suites: Sequence[SuiteData]) -> ChartSpec | None:
    """Throughput against mix (sequential read 100/0, write 0/100), a bar per block size;
    one panel per suite, one y range."""
    if suites[0].params.test is not StorageTest.THROUGHPUT:
        return None
    sizes = sorted(block_sizes(suites[0].params), key=block_size_bytes, reverse=True)
    names = [f"throughput {block_size_word(bs)}" for bs in sizes]
    values = [c.value for n in names for t in _tables(suites, n) if t is not None for c in t.cells]
    scale = range_scale("B/s", values)
    width = 0.8 / len(sizes)
    panels = []
    for k, s in enumerate(suites):
        series = []
        for i, (bs, name) in enumerate(zip(sizes, names, strict=True)):
            table = s.table(name)
            offset = (i - (len(sizes) - 1) / 2) * width
            x, y = [], []
            for position, mix in enumerate((100, 0)):
                value = table.value(bs, mix) if table is not None else None
                if value is not None and math.isfinite(value):
                    x.append(position + offset)
                    y.append(value * scale.factor)
            series.append(
                Series(
                    block_size_word(bs), bs_color(bs), tuple(x), tuple(y), bar_width=width * 0.92
                )
            )
        panels.append(
            Panel(
                title=s.name if len(suites) > 1 else "",
                x_label="Read/write mix (sequential)",
                y_label=axis_label("Throughput", scale),
                series=tuple(series),
                x_ticks=((0.0, mix_label(100)), (1.0, mix_label(0))),
                x_range=(-0.6, 1.6),
                legend=k == len(suites) - 1,
            )
        )
    title = "Throughput against read/write mix per block size (window means)"
    return chart(title, suites, share_y(panels), len(suites), height=600)


def report_charts(suites: Sequence[SuiteData]) -> list[NamedChart]:
    """Every chart of a report (one suite) or a comparison (several, same test), in order."""
    test = suites[0].params.test
    found: list[tuple[str, ChartSpec | None]] = [
        ("convergence", convergence_chart(suites)),
        ("window", window_chart(suites)),
    ]
    iops_name = iops_table_name(test)
    if test is StorageTest.IOPS:
        found += [("iops", iops_chart(suites))]
        found += [("iops-heatmap", heatmap_chart(suites, "IOPS", "IOPS by block size and mix"))]
    elif test is StorageTest.LATENCY:
        found += [("latency", latency_chart(suites))]
        title = "Mean latency (IOPS-weighted) by block size and mix (queue depth 1)"
        found += [("latency-heatmap", heatmap_chart(suites, WEIGHTED_MEAN, title))]
        found += [("iops", iops_chart(suites))]
        if iops_name is not None:
            found += [
                (
                    "iops-heatmap",
                    heatmap_chart(suites, iops_name, "IOPS by block size and mix (queue depth 1)"),
                )
            ]
    else:
        found += [("throughput", throughput_chart(suites))]
    return [NamedChart(name, spec) for name, spec in found if spec is not None]
