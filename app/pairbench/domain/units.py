"""The one unit vocabulary: a metric's unit, the scale for a range of values, how a value prints.

Every table, chart, live plot, export and CLI line asks here, so a number reads the same
everywhere and a chart's title, axis and readout name the unit of the numbers drawn.

- A metric's base unit comes from ``domain.metrics`` (the unit it is stored in).
- Bit rates and bit counts scale in powers of 1000 (Kbit/s, Mbit/s, Gbit/s), as iperf3 and
  nuttcp print them; byte rates and sizes in powers of 1024 (KiB/s, MiB/s), as fio and iperf3
  do; ``SI_BYTES`` sizes in powers of 1000 (kB, MB, GB), as cloud providers quote buckets.
- Times: µs become ms from 1000 µs and s from 10⁶ µs; ms become s from 1000 ms. A value never
  scales below the unit its metric is stored in (a 0.048 ms RTT stays in ms, as ping prints it).
- Counts (retransmits, datagrams) and count rates (IO/s, op/s, pkt/s) take k from 10,000 and M from
  1,000,000 ("9870 IO/s", "64.8 kIO/s", "64.8k"). Percentages never scale.
- A value prints with 3 significant digits, trailing zeros kept ("1.00 Gbit/s", "0.500 %"),
  but never finer than the tool prints it (a metric's ``resolution``: jitter and ping times
  to the µs, "0.003 ms", not "0.00300 ms"); a whole count prints as an integer ("6315").
  The scale is chosen *after* rounding, so 999.6e6 bit/s prints "1.00 Gbit/s", never
  "1000 Mbit/s". Negative values scale by their
  magnitude. No value (None, NaN, ±inf) prints as "—".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pairbench.domain.metrics import metric_resolution, metric_unit

NO_VALUE = "—"
SIGNIFICANT = 3
SI_BYTES = "B (SI)"  # byte sizes in powers of 1000 (GB), e.g. a burst-credit bucket


@dataclass(frozen=True, slots=True)
class Scale:
    """Multiply a base-unit value by ``factor`` to show it in ``unit``.

    ``unit`` names the scaled unit in axis labels and table headers ("Mbit/s", "thousand");
    ``suffix`` is what follows a printed number (" Mbit/s", "k"); ``whole`` says that a value
    with no fraction prints without decimals (counts and bytes in their base unit).
    """

    factor: float
    unit: str
    suffix: str = ""
    whole: bool = False

    def format(
        self,
        value: float | None,
        half_width: float | None = None,
        *,
        unit: bool = True,
        finest: float | None = None,
    ) -> str:
        """``value`` (in the base unit) in this scale, with ``± half_width`` if given; never
        more decimals than a step of ``finest`` (base unit) needs."""
        if value is None or not math.isfinite(value):
            return NO_VALUE
        scaled = value * self.factor
        if self.whole and half_width is None and scaled == int(scaled):
            text = str(int(scaled))
        else:
            decimals = rounded_decimals(scaled)
            if finest is not None and finest > 0:
                decimals = min(decimals, step_decimals(finest * self.factor))
            text = number(scaled, decimals)
            if half_width is not None and math.isfinite(half_width):
                half = half_width * self.factor
                half_text = number(half, decimals)
                if half > 0 and float(half_text) == 0:
                    half_text = f"{half:.1g}"  # a CI too narrow to show at the value's precision
                text += f" ± {half_text}"
        return f"{text}{self.suffix}" if unit else text


@dataclass(frozen=True, slots=True)
class _Rung:
    """One step of a unit's ladder: used for magnitudes from ``start`` (in the base unit)."""

    start: float
    scale: Scale


def _ladder(
    base: float, names: Sequence[str], *, first: float | None = None, whole: bool = False
) -> tuple[_Rung, ...]:
    """Rungs ``names[i]`` at base**i; ``first`` overrides where the second rung starts."""
    rungs = []
    for i, name in enumerate(names):
        size = base**i
        start = 0.0 if i == 0 else first if i == 1 and first is not None else size
        rungs.append(_Rung(start, Scale(size**-1, name, f" {name}", whole and i == 0)))
    return tuple(rungs)


def _count_ladder(unit: str) -> tuple[_Rung, ...]:
    """Counts (unit "") print "64.8k" under a "thousand" axis; rates "64.8 kIO/s"."""
    if unit:
        return _ladder(1000.0, (unit, f"k{unit}", f"M{unit}"), first=1e4)
    return (
        _Rung(0.0, Scale(1.0, "", "", whole=True)),
        _Rung(1e4, Scale(1e-3, "thousand", "k")),
        _Rung(1e6, Scale(1e-6, "million", "M")),
    )


_DECIMAL = ("", "K", "M", "G", "T")
_BINARY = ("", "Ki", "Mi", "Gi", "Ti")
_LADDERS: dict[str, tuple[_Rung, ...]] = {
    "bit/s": _ladder(1000.0, [f"{p}bit/s" for p in _DECIMAL]),
    "bit": _ladder(1000.0, [f"{p}bit" for p in _DECIMAL], whole=True),
    "B/s": _ladder(1024.0, [f"{p}B/s" for p in _BINARY]),
    "B": _ladder(1024.0, [f"{p}B" for p in _BINARY], whole=True),
    SI_BYTES: _ladder(1000.0, ("B", "kB", "MB", "GB", "TB", "PB"), whole=True),
    "µs": _ladder(1000.0, ("µs", "ms", "s")),
    "ms": _ladder(1000.0, ("ms", "s")),
    "IO/s": _count_ladder("IO/s"),
    "op/s": _count_ladder("op/s"),
    "pkt/s": _count_ladder("pkt/s"),
    "count": _count_ladder(""),
    "": _count_ladder(""),
}


def has_ladder(unit: str) -> bool:
    """True if values of ``unit`` change prefix with their size (False for %, s, unknown)."""
    return unit in _LADDERS


def scale_for(unit: str, magnitude: float) -> Scale:
    """The scale of ``unit`` for values around ``magnitude`` (its sign and NaN ignored).

    The rung is chosen on the magnitude as it prints: 999.6e6 bit/s rounds to 1.00e9, so
    Gbit/s. Units without a ladder (%, s, unknown symbols) come back as they are.
    """
    ladder = _LADDERS.get(unit)
    if ladder is None:
        return Scale(1.0, unit, f" {unit}" if unit else "")
    size = abs(magnitude) if math.isfinite(magnitude) else 0.0
    index = max(i for i, rung in enumerate(ladder) if size >= rung.start)
    if index + 1 < len(ladder):
        factor = ladder[index].scale.factor
        shown = abs(float(number(size * factor, rounded_decimals(size * factor))))
        if shown / factor >= ladder[index + 1].start * (1 - 1e-9):
            index += 1  # rounding carried it into the next rung ("1000 Mbit/s")
    return ladder[index].scale


def range_scale(unit: str, values: Iterable[float]) -> Scale:
    """The scale of an axis showing ``values``: the one of their largest finite magnitude."""
    finite = [abs(v) for v in values if math.isfinite(v)]
    return scale_for(unit, max(finite, default=0.0))


def metric_scale(metric: str, magnitude: float) -> Scale:
    """``scale_for`` the unit of ``metric`` (a name of ``domain.metrics``)."""
    return scale_for(metric_unit(metric), magnitude)


def axis_label(label: str, scale: Scale) -> str:
    """``Throughput (Mbit/s)``: a chart axis or column title naming the scaled unit."""
    return f"{label} ({scale.unit})" if scale.unit else label


def format_quantity(
    unit: str,
    value: float | None,
    half_width: float | None = None,
    *,
    scale: Scale | None = None,
    with_unit: bool = True,
    finest: float | None = None,
) -> str:
    """A value of ``unit`` for people, in ``scale`` or the scale of its own size."""
    if value is None or not math.isfinite(value):
        return NO_VALUE
    chosen = scale or scale_for(unit, value)
    return chosen.format(value, half_width, unit=with_unit, finest=finest)


def format_value(
    metric: str,
    value: float | None,
    half_width: float | None = None,
    *,
    scale: Scale | None = None,
    unit: bool = True,
) -> str:
    """A metric's value: ``9.79 Gbit/s``, ``9.79 ± 0.02 Gbit/s``, ``0.048 ms``, ``6315``."""
    return format_quantity(
        metric_unit(metric),
        value,
        half_width,
        scale=scale,
        with_unit=unit,
        finest=metric_resolution(metric),
    )


def format_bits(value: float | None) -> str:
    """A bit rate: ``941 Mbit/s``, ``1.25 Gbit/s``."""
    return format_quantity("bit/s", value)


def format_count(value: float | None) -> str:
    """A count or a count rate without its unit: ``6315``, ``64.8k``, ``1.20M``."""
    return format_quantity("count", value)


def rounded_decimals(scaled: float, significant: int = SIGNIFICANT) -> int:
    """``decimals_for`` after rounding, so 9.996 shows as "10.0", not "10.00"."""
    decimals = decimals_for(scaled, significant)
    rounded = float(number(scaled, decimals))
    return min(decimals, decimals_for(rounded, significant)) if rounded else decimals


def decimals_for(scaled: float, significant: int = SIGNIFICANT) -> int:
    """Decimal places that show ``significant`` digits of ``scaled`` (never negative, ≤ 6)."""
    if scaled == 0 or not math.isfinite(scaled):
        return 0
    magnitude = math.floor(math.log10(abs(scaled)))
    return max(0, min(6, significant - 1 - magnitude))


def step_decimals(step: float) -> int:
    """Decimal places a step of ``step`` needs (0.001 → 3, 0.5 → 1, 10 → 0)."""
    if step <= 0 or not math.isfinite(step):
        return 6
    return max(0, min(6, math.ceil(-math.log10(step) - 1e-9)))


def number(value: float, decimals: int) -> str:
    """A number with a fixed count of decimals ("-0.0" shown as "0.0")."""
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text
