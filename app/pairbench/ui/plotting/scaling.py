"""Axis unit scaling (Qt-free): pick Mbit/s or Gbit/s, µs or ms, from the data's magnitude."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Scale:
    """Multiply raw values by ``factor`` to express them in ``unit``."""

    factor: float
    unit: str

    def format(self, value: float) -> str:
        """A raw value in this scale, about 3 significant digits, with the unit."""
        if not math.isfinite(value):
            return str(value)
        scaled = value * self.factor
        magnitude = abs(scaled)
        if magnitude >= 100 or scaled == int(scaled):
            text = f"{scaled:.0f}"
        elif magnitude >= 10:
            text = f"{scaled:.1f}"
        else:
            text = f"{scaled:.3g}" if magnitude < 1 else f"{scaled:.2f}"
        return f"{text} {self.unit}".rstrip()


# Per base unit: the scales from smallest to largest unit, as (factor, unit).
_LADDERS: dict[str, tuple[tuple[float, str], ...]] = {
    "bit/s": (
        (1.0, "bit/s"),
        (1e-3, "Kbit/s"),
        (1e-6, "Mbit/s"),
        (1e-9, "Gbit/s"),
        (1e-12, "Tbit/s"),
    ),
    "B/s": ((1.0, "B/s"), (2**-10, "KiB/s"), (2**-20, "MiB/s"), (2**-30, "GiB/s")),
    "B": ((1.0, "B"), (2**-10, "KiB"), (2**-20, "MiB"), (2**-30, "GiB")),
    "µs": ((1.0, "µs"), (1e-3, "ms"), (1e-6, "s")),
    "ms": ((1e3, "µs"), (1.0, "ms"), (1e-3, "s")),
    "IO/s": ((1.0, "IO/s"), (1e-3, "kIO/s"), (1e-6, "MIO/s")),
    "op/s": ((1.0, "op/s"), (1e-3, "kop/s"), (1e-6, "Mop/s")),
    "count": ((1.0, ""), (1e-3, "thousand"), (1e-6, "million")),
}

# The unit shown when there is no data yet (or only zeros).
_DEFAULT: dict[str, float] = {"ms": 1.0}


def choose_scale(unit: str, max_abs: float) -> Scale:
    """The largest unit in which ``max_abs`` is still at least 1 (e.g. 1.2e9 bit/s → Gbit/s).

    Units without a ladder (%, unknown) are shown as they are.
    """
    ladder = _LADDERS.get(unit)
    if ladder is None:
        return Scale(1.0, unit)
    if not math.isfinite(max_abs) or max_abs <= 0:
        factor = _DEFAULT.get(unit, ladder[0][0])
        return Scale(factor, next(u for f, u in ladder if f == factor))
    chosen = ladder[0]
    for factor, name in ladder:
        if max_abs * factor >= 1 - 1e-12:
            chosen = (factor, name)
    return Scale(*chosen)
