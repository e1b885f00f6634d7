"""A bottom axis for seconds since a run's start: round clock ticks, labels as 1:30 or 2:00:00."""

from __future__ import annotations

import math

import pyqtgraph as pg

# Tick spacings in seconds that read well on a clock.
_STEPS = (
    0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30,
    60, 120, 300, 600, 900, 1800,
    3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800,
)  # fmt: skip
_PIXELS_PER_MAJOR = 64  # "10 s" and "1:30" need ~30 px: a narrow plot still gets 3 labels
# How far (px) a label may reach past the axis's ends, over the left axis or the legend:
# the first and last ticks ("0 s", "10 s") keep their labels on a narrow plot.
_LABEL_OVERHANG = 20


def clock_text(seconds: float, step: float) -> str:
    """``seconds`` as "45 s", "1:30" or "2:00:00", as precise as ``step`` needs."""
    if abs(seconds) < 60 and step < 60:
        return f"{seconds:.{1 if step < 1 else 0}f} s"
    sign = "-" if seconds < 0 else ""
    whole = round(abs(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{sign}{hours}:{minutes:02d}:{secs:02d}"
    return f"{sign}{minutes}:{secs:02d}"


def pick_step(span: float, pixels: float) -> float:
    """The smallest clock step that leaves at least ``_PIXELS_PER_MAJOR`` between ticks."""
    if span <= 0 or pixels <= 0 or not math.isfinite(span):
        return 1.0
    wanted = span * _PIXELS_PER_MAJOR / pixels
    for step in _STEPS:
        if step >= wanted:
            return step
    return _STEPS[-1] * math.ceil(wanted / _STEPS[-1])


class TimeAxis(pg.AxisItem):
    """Seconds since the start, on round clock steps."""

    def __init__(self, orientation: str = "bottom", **kwargs: object) -> None:
        super().__init__(orientation, **kwargs)
        self.enableAutoSIPrefix(False)
        self.setStyle(hideOverlappingLabels=_LABEL_OVERHANG)
        self._major = 1.0

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:
        major = self._major = pick_step(maxVal - minVal, size)
        index = _STEPS.index(major) if major in _STEPS else -1
        minor = _STEPS[index - 1] if index > 0 else major / 2
        return [(major, 0.0), (minor, 0.0)]

    def tickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:
        """Labels on the major ticks only: minor ones labelled where room was left read as
        an uneven scale ("2 s  4 s 5 s 6 s  8 s")."""
        if spacing < self._major * (1 - 1e-9):
            return ["" for _v in values]
        return [clock_text(v * scale, spacing) for v in values]
