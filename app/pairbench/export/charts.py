"""What a comparison chart shows, without Qt: ``ChartSpec``, built from a ``Comparison``.

The spec holds the data already scaled to display units, colours, labels and the footer; a
renderer (``ui.compare.render.render_chart``, injected into the CLI by the composition root so
that ``cli`` never imports ``ui``) draws it and writes PNG, SVG or PDF by the file's suffix.

Two charts: the overlay of the metric's time series (one colour per group, or per run when
runs are not grouped; aligned at each run's start) and the summary (each group's mean with
its confidence-interval whiskers, every kept run as a small dot, discarded runs as crosses).
"""

from __future__ import annotations

import dataclasses
import enum
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from pairbench.analysis.compare import Comparison, Curve
from pairbench.analysis.compare_runs import GroupKind
from pairbench.analysis.stats import FloatArray
from pairbench.domain.units import Scale, axis_label
from pairbench.export.chart_overlap import dash_styles, overlapping_pairs
from pairbench.export.panels import Panel
from pairbench.export.tables import comparison_scale, comparison_title, footer_text

# Okabe–Ito (colour-blind safe) first, then more distinct hues for larger comparisons.
PALETTE = (
    "#0072b2",
    "#e69f00",
    "#009e73",
    "#d55e00",
    "#cc79a7",
    "#56b4e9",
    "#000000",
    "#8c564b",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#9467bd",
)
CHART_SUFFIXES = (".png", ".svg", ".pdf")
MAX_LEGEND = 60


class ChartKind(enum.StrEnum):
    """Which chart(s) a spec draws; ``both`` stacks the overlay above the summary."""

    OVERLAY = "overlay"
    SUMMARY = "summary"
    BOTH = "both"


class SummaryStyle(enum.StrEnum):
    """How the summary draws each group: its mean with the CI whiskers (``points``), a bar
    to the mean with the CI whiskers (``bars``), or a box plot of its kept runs (``box``:
    median, quartiles, whiskers to the furthest run within 1.5×IQR)."""

    POINTS = "points"
    BARS = "bars"
    BOX = "box"


class ChartUnavailable(RuntimeError):
    """Charts cannot be drawn here (e.g. Qt is missing); the message says why."""


@dataclass(frozen=True, slots=True)
class ChartCurve:
    """One time series in display units; ``legend`` None draws it without a legend entry."""

    legend: str | None
    color: str
    t: FloatArray
    v: FloatArray
    run_id: int
    dash: str = "solid"  # solid, dash, dot, dashdot, dashdotdot: curves that overlap differ


@dataclass(frozen=True, slots=True)
class SummaryPoint:
    """One group on the summary chart, in display units."""

    label: str
    color: str
    mean: float
    low: float | None  # CI bounds; None for a single run
    high: float | None
    values: tuple[float, ...]  # the kept runs
    discarded: tuple[float, ...]
    box: tuple[float, float, float, float, float] | None = None  # whisker, Q1, median, Q3, whisker


@dataclass(frozen=True, slots=True)
class ChartSpec:
    """Everything a renderer needs; sizes in logical pixels at 96 dpi, ``dpi`` scales PNGs."""

    kind: ChartKind
    title: str
    footer: str
    x_label: str
    y_label: str
    curves: tuple[ChartCurve, ...] = ()
    points: tuple[SummaryPoint, ...] = ()
    summary_title: str = ""
    summary_style: SummaryStyle = SummaryStyle.POINTS
    # A grid of panels (``export.panels``), ``columns`` wide, drawn instead of the kind's plots.
    panels: tuple[Panel, ...] = ()
    columns: int = 1
    note: str = ""  # a line under the title, e.g. which curves overlap (drawn dashed)
    width: int = 1200
    height: int = 700
    dpi: int = 96


class ChartRenderer(Protocol):
    """Draws a spec into a file (format by suffix: .png, .svg, .pdf)."""

    def __call__(self, spec: ChartSpec, path: Path) -> None: ...


def check_chart_path(path: Path) -> None:
    """Refuse a suffix no renderer writes."""
    if path.suffix.lower() not in CHART_SUFFIXES:
        raise ValueError(f"cannot tell the chart format of {path.name!r}: use .png, .svg or .pdf")


def time_scale(span_s: float) -> tuple[float, str]:
    """Seconds, minutes or hours for a time axis spanning ``span_s`` seconds."""
    if span_s >= 2 * 3600:
        return 1 / 3600, "h"
    if span_s >= 5 * 60:
        return 1 / 60, "min"
    return 1.0, "s"


def _legend(text: str) -> str:
    return text if len(text) <= MAX_LEGEND else text[: MAX_LEGEND - 1] + "…"


def chart_spec(
    cmp: Comparison,
    kind: ChartKind = ChartKind.BOTH,
    *,
    width: int = 1200,
    height: int = 700,
    dpi: int = 96,
    title: str | None = None,
    style: SummaryStyle = SummaryStyle.POINTS,
) -> ChartSpec:
    """The chart(s) of a comparison (see the module docstring); ``style`` is how the summary
    draws each group."""
    if width < 200 or height < 150 or not 24 <= dpi <= 1200:
        raise ValueError("a chart needs at least 200×150 pixels and 24–1200 dpi")
    groups = [g.name for g in cmp.groups]
    colors = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(groups)}
    scale = comparison_scale(cmp)  # the title, the value axis and the points share it
    if kind is ChartKind.BOTH and not cmp.curves:
        kind = ChartKind.SUMMARY  # nothing to overlay: no run stored a series of the metric
    span = max((float(c.t[-1]) for c in cmp.curves if c.t.size), default=0.0)
    t_factor, t_unit = time_scale(span)
    curves, note = told_apart(_curves(cmp, colors, scale, t_factor))
    return ChartSpec(
        kind=kind,
        title=title or comparison_title(cmp),
        footer=footer_text(cmp),
        x_label=f"Time since run start ({t_unit})",
        y_label=axis_label(cmp.metric.label, scale),
        curves=curves,
        points=tuple(_points(cmp, colors, scale)),
        summary_title=_summary_title(cmp, style),
        summary_style=style,
        width=width,
        height=height,
        dpi=dpi,
        note=note,
    )


def told_apart(curves: list[ChartCurve]) -> tuple[tuple[ChartCurve, ...], str]:
    """The curves, those of colours that lie on another colour's drawn dashed
    (``export.chart_overlap``), and the line that says which overlap ("" when none)."""
    ranges = [r for r in (finite_range(c.v) for c in curves) if r is not None]
    span = max(r[1] for r in ranges) - min(r[0] for r in ranges) if ranges else 0.0
    pairs = overlapping_pairs([(c.t, c.v) for c in curves], span)
    styles, clusters = dash_styles([c.color for c in curves], pairs)
    if not clusters:
        return tuple(curves), ""
    names = {c.color: c.legend for c in reversed(curves) if c.legend}
    parts = []
    for cluster in clusters:
        shown = [names.get(color) or color for color in cluster]
        parts.append(f"{len(cluster)} curves overlap ({'; '.join(shown)})")
    note = "; ".join(parts) + ": told apart by dashes"
    return tuple(dataclasses.replace(c, dash=styles[c.color]) for c in curves), note


def _curves(
    cmp: Comparison, colors: dict[str, str], scale: Scale, t_factor: float
) -> list[ChartCurve]:
    per_run = cmp.group_by.kind is GroupKind.RUN
    seen: set[str] = set()
    out: list[ChartCurve] = []
    for curve in cmp.curves:
        legend: str | None
        if per_run:
            legend = _legend(f"{curve.label} (#{curve.run_id})")
        elif curve.group in seen:
            legend = None
        else:
            legend = _legend(_group_legend(cmp, curve.group))
        seen.add(curve.group)
        out.append(
            ChartCurve(
                legend,
                colors[curve.group],
                _scaled(curve.t, t_factor),
                _scaled(curve.v, scale.factor),
                curve.run_id,
            )
        )
    return out


def _scaled(values: FloatArray, factor: float) -> FloatArray:
    return values if factor == 1.0 else values * factor


def _group_legend(cmp: Comparison, group: str) -> str:
    """``group — pairs (n runs)``; the pairs are left out when the group is the pair."""
    members: list[Curve] = [c for c in cmp.curves if c.group == group]
    runs = {r.id: r for r in cmp.runs}
    pairs = list(dict.fromkeys(runs[c.run_id].spec.pair for c in members))
    n = len(members)
    count = f"{n} run{'s' if n != 1 else ''}"
    if cmp.group_by.kind is GroupKind.PAIR or pairs == [group]:
        return f"{group} ({count})"
    return f"{group} — {', '.join(pairs)} ({count})"


def _points(cmp: Comparison, colors: dict[str, str], scale: Scale) -> list[SummaryPoint]:
    points: list[SummaryPoint] = []
    f = scale.factor
    for g in cmp.groups:
        st = g.stats
        if st is None:
            continue
        low = st.ci.low * f if st.ci is not None else None
        high = st.ci.high * f if st.ci is not None else None
        points.append(
            SummaryPoint(
                label=g.name,
                color=colors[g.name],
                mean=st.mean * f,
                low=low,
                high=high,
                values=tuple(v.value * f for v in g.kept),
                discarded=tuple(d.value * f for d in g.discarded),
                box=box_of([v.value * f for v in g.kept]),
            )
        )
    return points


def box_of(values: list[float]) -> tuple[float, float, float, float, float] | None:
    """Tukey's box of ``values``: (lower whisker, Q1, median, Q3, upper whisker), the
    whiskers at the furthest values within 1.5×IQR of the quartiles (numpy's linear
    quartiles); None for fewer than two values."""
    if len(values) < 2:
        return None
    x = np.asarray(values, dtype=float)
    q1, median, q3 = (float(q) for q in np.percentile(x, [25.0, 50.0, 75.0]))
    reach = 1.5 * (q3 - q1)
    low = float(x[x >= q1 - reach].min())
    high = float(x[x <= q3 + reach].max())
    return low, q1, median, q3, high


def _summary_title(cmp: Comparison, style: SummaryStyle = SummaryStyle.POINTS) -> str:
    level = f"{cmp.confidence * 100:g} %"
    if style is SummaryStyle.BOX:
        text = "Per group: median, quartiles and whiskers to 1.5×IQR of the runs; dots: runs"
    elif style is SummaryStyle.BARS:
        text = f"Mean per group (bar) with {level} CI (Student t); dots: runs"
    else:
        text = f"Mean per group with {level} CI (Student t); dots: runs"
    if cmp.discarded:
        text += f"; ×: discarded ({cmp.policy})"
    return text


def finite_range(values: FloatArray) -> tuple[float, float] | None:
    """min and max of the finite values, None when there are none."""
    finite = values[np.isfinite(values)]
    if not finite.size:
        return None
    return float(finite.min()), float(finite.max())


def nice_ceiling(value: float) -> float:
    """A round number ≥ value (1, 2, 2.5, 5 × 10^k), for axis limits."""
    if value <= 0 or not math.isfinite(value):
        return 1.0
    exponent = math.floor(math.log10(value))
    for step in (1.0, 2.0, 2.5, 5.0, 10.0):
        candidate = step * 10.0**exponent
        if candidate >= value:
            return candidate
    return 10.0 ** (exponent + 1)


def peak_envelope(t: FloatArray, v: FloatArray, buckets: int) -> tuple[FloatArray, FloatArray]:
    """At most 2 × ``buckets`` points that draw like all of them at one bucket per pixel.

    Each bucket of consecutive samples keeps its minimum and its maximum, in time order
    (pyqtgraph's "peak" downsampling, done once). Short series, and series with NaN (which
    have no min or max), come back as they are.
    """
    n = t.size
    if buckets < 1 or n <= 4 * buckets or not np.isfinite(v).all():
        return t, v
    k = -(-n // buckets)  # samples per bucket, rounded up
    full = (n // k) * k
    blocks = v[:full].reshape(-1, k)
    starts = np.arange(0, full, k)
    lo = starts + blocks.argmin(axis=1)
    hi = starts + blocks.argmax(axis=1)
    index = np.empty(2 * lo.size, dtype=np.intp)
    index[0::2] = np.minimum(lo, hi)
    index[1::2] = np.maximum(lo, hi)
    if full < n:  # the last, partial bucket
        tail = v[full:]
        extra = np.array(sorted({full + int(tail.argmin()), full + int(tail.argmax())}))
        index = np.concatenate([index, extra])
    return t[index], v[index]
