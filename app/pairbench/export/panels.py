"""Charts made of panels, without Qt: lines, bars, reference bands and heat-map cells in
display units, with their ticks and axes; a ``ChartSpec`` holding ``panels`` is drawn as a
grid of them by the injected renderer (``ui.compare.panels``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

FOREGROUND = "#222222"
Tick = tuple[float, str]

# viridis at ten stops: dark (low) to yellow (high); readable in grey and by the colour-blind.
_HEAT = (
    (0x44, 0x01, 0x54),
    (0x48, 0x28, 0x78),
    (0x3E, 0x49, 0x89),
    (0x31, 0x68, 0x8E),
    (0x26, 0x82, 0x8E),
    (0x1F, 0x9E, 0x89),
    (0x35, 0xB7, 0x79),
    (0x6E, 0xCE, 0x58),
    (0xB5, 0xDE, 0x2B),
    (0xFD, 0xE7, 0x25),
)


@dataclass(frozen=True, slots=True)
class Series:
    """One line (or set of bars) in display units; ``legend`` None: no legend entry; no
    points: a legend entry only (e.g. a symbol's meaning). ``bar_width`` > 0 draws bars
    centred on ``x`` instead of a line."""

    legend: str | None
    color: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    symbol: str | None = "o"  # pyqtgraph symbol letter, None for no markers
    line: bool = True
    dash: bool = False
    width: float = 1.5
    bar_width: float = 0.0


@dataclass(frozen=True, slots=True)
class Band:
    """A horizontal band from ``low`` to ``high`` (``vertical``: along x), ``color`` with
    its alpha (``#rrggbbaa``)."""

    low: float
    high: float
    color: str
    legend: str | None = None
    vertical: bool = False


@dataclass(frozen=True, slots=True)
class HeatCell:
    """One cell of a heat map, centred on integer (``x``, ``y``), with its value written."""

    x: int
    y: int
    color: str
    text: str
    text_color: str


@dataclass(frozen=True, slots=True)
class Panel:
    """One plot of a chart. Ticks, ranges and data are in display units; a log axis is drawn
    on log10 of them (ticks and ranges too), so they must be positive there."""

    title: str
    x_label: str
    y_label: str
    series: tuple[Series, ...] = ()
    bands: tuple[Band, ...] = ()
    cells: tuple[HeatCell, ...] = ()
    x_ticks: tuple[Tick, ...] = ()
    y_ticks: tuple[Tick, ...] = ()
    log_x: bool = False
    log_y: bool = False
    x_range: tuple[float, float] | None = None
    y_range: tuple[float, float] | None = None
    note: str = ""  # a line under the plot
    legend: bool = True  # draw the legend (beside the plot, never over the data)
    empty_text: str = ""  # said in the plot when it has nothing to draw


def heat_color(fraction: float) -> str:
    """The colour of ``fraction`` (0 low … 1 high, clipped) on the heat scale."""
    f = min(1.0, max(0.0, fraction if math.isfinite(fraction) else 0.0)) * (len(_HEAT) - 1)
    i = min(int(f), len(_HEAT) - 2)
    t = f - i
    rgb = [round(a + (b - a) * t) for a, b in zip(_HEAT[i], _HEAT[i + 1], strict=True)]
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def heat_text_color(fraction: float) -> str:
    """White on the dark end of the scale, near-black on the light end."""
    return "#ffffff" if fraction < 0.62 else FOREGROUND


def heat_fraction(value: float, low: float, high: float, *, log: bool) -> float:
    """Where ``value`` sits between ``low`` and ``high`` (log10 of them if ``log``)."""
    if log:
        if value <= 0 or low <= 0 or high <= 0:
            return 0.0
        value, low, high = math.log10(value), math.log10(low), math.log10(high)
    return 0.5 if high <= low else (value - low) / (high - low)


def tick_text(value: float) -> str:
    """A tick label: ``0.5``, ``20``, ``1000`` (no exponent notation below 10⁷)."""
    if value == 0:
        return "0"
    if abs(value) >= 1 and value == int(value) and abs(value) < 1e7:
        return str(int(value))
    return f"{value:.3g}"


def log_ticks(low: float, high: float) -> tuple[Tick, ...]:
    """Ticks of a log axis spanning ``low`` … ``high`` (> 0): 1, 2, 5 × 10ᵏ over up to three
    decades, powers of ten beyond, always including one tick at or below ``low`` and one at
    or above ``high``."""
    if not (low > 0 and high > 0 and math.isfinite(low) and math.isfinite(high)):
        return ()
    low, high = min(low, high), max(low, high)
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    steps = (1.0, 2.0, 5.0) if last - first <= 3 else (1.0,)
    values = [s * 10.0**k for k in range(first, last + 1) for s in steps]
    below = [v for v in values if v <= low * (1 + 1e-9)]
    above = [v for v in values if v >= high * (1 - 1e-9)]
    lo, hi = max(below, default=values[0]), min(above, default=values[-1])
    return tuple((v, tick_text(v)) for v in values if lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9))


def values_range(panels: Iterable[Panel], *, positive: bool = False) -> tuple[float, float] | None:
    """The smallest and largest y value of the panels' series and bands (> 0 only if
    ``positive``), None when there is none."""
    values: list[float] = []
    for panel in panels:
        for series in panel.series:
            values += series.y
            if series.bar_width > 0:
                values.append(0.0)
        for band in panel.bands:
            if not band.vertical:
                values += [band.low, band.high]
    finite = [v for v in values if math.isfinite(v) and (v > 0 or not positive)]
    return (min(finite), max(finite)) if finite else None


def padded(low: float, high: float, *, log: bool, pad: float = 0.06) -> tuple[float, float]:
    """A range around ``low`` … ``high`` with a margin (multiplicative on a log axis)."""
    if log:
        factor = max(high / low, 1.0) ** pad if low > 0 else 1.0
        factor = max(factor, 1.15)
        return low / factor, high * factor
    span = high - low or abs(high) * 0.1 or 1.0
    return low - span * pad if low < 0 else max(0.0, low - span * pad), high + span * pad


def share_y(panels: Sequence[Panel]) -> list[Panel]:
    """The panels with one y range for all (side by side comparisons read at a glance)."""
    from dataclasses import replace

    data = [p for p in panels if not p.cells]
    log = any(p.log_y for p in data)
    found = values_range(data, positive=log)
    if found is None:
        return list(panels)
    lo, hi = found
    if not log:
        lo = min(lo, 0.0)
    y_range = padded(lo, hi, log=log)
    ticks = log_ticks(*y_range) if log else ()
    return [
        p if p.cells else replace(p, y_range=y_range, y_ticks=ticks or p.y_ticks) for p in panels
    ]
