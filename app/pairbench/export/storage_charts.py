"""The storage report's steady-state charts, without Qt: convergence (the tracking figure per
round, one line per block size) and the measurement window (its values, mean, ±10 % and
±20 % bands and fitted line); one panel per suite, side by side when several are compared,
on one scale and y range."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from pairbench.analysis.steady_state import WindowCheck
from pairbench.domain.metrics import metric_unit
from pairbench.domain.storage import StorageTest, block_size_word
from pairbench.domain.timestamps import time_text
from pairbench.domain.units import Scale, axis_label, metric_scale, range_scale
from pairbench.export.charts import ChartKind, ChartSpec
from pairbench.export.panels import Band, Panel, Series, log_ticks, share_y
from pairbench.export.storage_data import (
    SuiteData,
    bs_color,
    tracking_metric,
    tracking_series,
)

MEAN_COLOR = "#222222"
FIT_COLOR = "#d55e00"
VALUE_COLOR = "#0072b2"
BAND_10 = "#00000026"  # ±10 %: darker
BAND_20 = "#0000000f"  # ±20 %


@dataclass(frozen=True, slots=True)
class NamedChart:
    """A chart of the report and the file stem it is written under."""

    name: str
    spec: ChartSpec


def footer(suites: Sequence[SuiteData]) -> str:
    """What the chart shows, for the record: the suites, their targets and job shapes."""
    p = suites[0].params
    shape = f"{p.job_threads()} thread(s) × iodepth {p.job_iodepth()}, {p.round_seconds} s rounds"
    if len(suites) == 1:
        when = time_text(suites[0].created_at, "%Y-%m-%d %H:%M")
        return f"{suites[0].name}: {p.test.value} on {p.target}, {shape}, {when} · Pairbench"
    return f"{p.test.value}: " + " · ".join(f"{s.name} on {s.params.target}" for s in suites)


def chart(
    title: str,
    suites: Sequence[SuiteData],
    panels: Sequence[Panel],
    columns: int,
    *,
    width: int | None = None,
    height: int | None = None,
) -> ChartSpec:
    """A chart of ``panels``, ``columns`` to a row, sized for them."""
    rows = -(-len(panels) // max(1, columns))
    return ChartSpec(
        kind=ChartKind.SUMMARY,
        title=title,
        footer=footer(suites),
        x_label="",
        y_label="",
        panels=tuple(panels),
        columns=columns,
        width=width or min(2400, max(1000, 640 * columns)),
        height=height or min(2400, 140 + 460 * rows),
    )


def tracking_scale(suites: Sequence[SuiteData]) -> tuple[str, Scale]:
    """The tracking metric's name and its scale for every suite's values."""
    metric = tracking_metric(suites[0].params)
    values = [v for s in suites for _bs, _r, vs in tracking_series(s) for v in vs]
    return metric, range_scale(metric_unit(metric), values)


def _label(metric: str) -> str:
    return {
        "write_iops": "Write IOPS",
        "write_lat_mean_us": "Mean write latency",
        "write_bytes_per_s": "Write throughput",
    }.get(metric, metric)


def _verdict_text(data: SuiteData) -> str:
    texts = []
    for stage in data.progress.stages:
        at = stage.verdict.reached_at
        state = f"steady at round {at}" if at else f"{stage.verdict.state.value}"
        texts.append(f"{stage.stage.name}: {state} ({len(stage.values)} rounds)")
    return "; ".join(texts)


def convergence_panel(data: SuiteData, scale: Scale, metric: str, title: str) -> Panel:
    """One suite's tracking figure per round, one line per block size (write-only jobs),
    with each stage's measurement window shaded."""
    log = data.params.test is StorageTest.IOPS  # 512 B to 1 MiB spans orders of magnitude
    series = []
    for bs, rounds, values in tracking_series(data):
        scaled = tuple(v * scale.factor for v in values)
        series.append(Series(block_size_word(bs), bs_color(bs), tuple(map(float, rounds)), scaled))
    bands = []
    stages = data.progress.stages
    for stage in stages:
        window = stage.window_rounds if stage.verdict.window is not None else ()
        if window:
            word = block_size_word(stage.stage.tracked.bs)
            legend = "window" if len(stages) == 1 else f"window {word}"
            color = "#0000000f" if len(stages) == 1 else bs_color(stage.stage.tracked.bs) + "22"
            bands.append(Band(window[0] - 0.5, window[-1] + 0.5, color, legend, vertical=True))
    last = int(max((x for s in series for x in s.x), default=1.0))
    ticks = tuple((float(r), str(r)) for r in range(1, last + 1))
    positive = [y for s in series for y in s.y if y > 0]
    return Panel(
        title=title,
        x_label="Round",
        y_label=axis_label(_label(metric), scale),
        series=tuple(series),
        bands=tuple(bands),
        x_ticks=ticks if series and len(ticks) <= 30 else (),
        y_ticks=log_ticks(min(positive), max(positive)) if log and positive else (),
        log_y=log and bool(positive),
        x_range=(0.5, last + 0.5) if series else None,
        note=_verdict_text(data),
        empty_text="no complete round yet",
    )


def convergence_chart(suites: Sequence[SuiteData]) -> ChartSpec:
    """Steady-state convergence: per suite, the tracking figure of each block size's
    write-only job per round (the iops test's 0/100 write IOPS, the latency test's 0/100
    mean write latency, the throughput test's write B/s)."""
    metric, scale = tracking_scale(suites)
    panels = [
        convergence_panel(s, scale, metric, s.name if len(suites) > 1 else "") for s in suites
    ]
    title = f"Steady-state convergence: {_label(metric)} per round and block size"
    return chart(title, suites, share_y(panels), len(suites))


def window_panel(data: SuiteData, stage_index: int, scale: Scale, metric: str, title: str) -> Panel:
    """The measurement window of one stage: the tracking values, their mean, ±10 % and
    ±20 % of the mean, and the least-squares line (intercept + slope × i)."""
    stage = data.progress.stages[stage_index]
    window = stage.verdict.window
    label = axis_label(_label(metric), scale)
    if window is None:
        rounds = tuple(float(r) for r in range(1, len(stage.values) + 1))
        values = tuple(v * scale.factor for v in stage.values)
        early = (Series("tracking value", VALUE_COLOR, rounds, values),) if values else ()
        return Panel(
            title,
            "Round",
            label,
            early,
            x_ticks=tuple((r, str(int(r))) for r in rounds),
            note="no full window yet (5 rounds)",
            empty_text="no complete round yet",
        )
    f = scale.factor
    first = window.round - len(window.values) + 1
    rounds = tuple(float(first + i) for i in range(len(window.values)))
    ends = (rounds[0], rounds[-1])
    mean = window.mean * f
    series = (
        Series("tracking value", VALUE_COLOR, rounds, tuple(v * f for v in window.values)),
        Series("mean", MEAN_COLOR, ends, (mean, mean), symbol=None, dash=True),
        Series(
            "least-squares fit",
            FIT_COLOR,
            ends,
            fitted_ends(window, f),
            symbol=None,
        ),
    )
    bands = (
        Band(mean * 0.8, mean * 1.2, BAND_20, "±20 % of the mean"),
        Band(mean * 0.9, mean * 1.1, BAND_10, "±10 % of the mean"),
    )
    return Panel(
        title=title,
        x_label="Round",
        y_label=label,
        series=series,
        bands=bands,
        x_ticks=tuple((r, str(int(r))) for r in rounds),
        x_range=(rounds[0] - 0.3, rounds[-1] + 0.3),
        note=determination_line(window, metric),
    )


def fitted_ends(window: WindowCheck, factor: float = 1.0) -> tuple[float, float]:
    """The fitted line at the window's first and last round (intercept, intercept + slope ×
    (n − 1)), times ``factor``."""
    last = window.intercept + window.slope * (len(window.values) - 1)
    return window.intercept * factor, last * factor


def determination_line(window: WindowCheck, metric: str) -> str:
    """The checks in one line: mean, both excursions against their limits, verdict."""
    scale = metric_scale(metric, window.mean)

    def fmt(value: float) -> str:
        return scale.format(value, unit=False)

    data = "ok" if window.data_ok else "too wide"
    slope = "ok" if window.slope_ok else "trending"
    verdict = "steady" if window.steady else "not steady"
    if window.rule != "pts":  # said when another rule than the default decided
        verdict += f" ({window.rule} rule)"
    first = window.round - len(window.values) + 1
    return (
        f"rounds {first}–{window.round}: mean {scale.format(window.mean)}; data excursion "
        f"{fmt(window.data_excursion)} ≤ {fmt(window.data_limit)} ({data}); slope excursion "
        f"{fmt(window.slope_excursion)} ≤ {fmt(window.slope_limit)} ({slope}): {verdict}"
    )


def window_chart(suites: Sequence[SuiteData]) -> ChartSpec:
    """Measurement windows: a row per stage, a column per suite; a row shares its y range."""
    metric = tracking_metric(suites[0].params)
    panels: list[Panel] = []
    for index in range(len(suites[0].progress.stages)):
        values: list[float] = []
        for s in suites:
            stage = s.progress.stages[index]
            window = stage.verdict.window
            values += window.values if window is not None else stage.values
        scale = range_scale(metric_unit(metric), values)
        row = []
        for s in suites:
            stage = s.progress.stages[index]
            title = stage.stage.name if len(suites) == 1 else f"{s.name}: {stage.stage.name}"
            row.append(window_panel(s, index, scale, metric, title))
        panels += [replace(p, legend=i == len(row) - 1) for i, p in enumerate(row)]
    title = "Measurement window: tracking values, mean, ±10 % / ±20 % bands, least-squares fit"
    return chart(title, suites, panels, len(suites))
