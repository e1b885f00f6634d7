"""Run times (epoch seconds) as read and as shown: which an import may store (a date between
1990 and 2100), and a text for any stored value, however odd ("(invalid time)")."""

from __future__ import annotations

import math
from datetime import UTC, datetime

EARLIEST = 631_152_000.0  # 1990-01-01 00:00 UTC
LATEST = 4_102_444_800.0  # 2100-01-01 00:00 UTC
INVALID = "(invalid time)"
# Units a wrong time is often written in, largest first: what the figure is when read as one.
_UNITS = ((1e9, "nanoseconds"), (1e6, "microseconds"), (1e3, "milliseconds"))


def implausible_time(value: object, what: str = "start time") -> str | None:
    """Why ``value`` (epoch seconds) cannot be a run's time, in words naming what was read
    (``"start time 1.7e+12 s is not a date between 1990 and 2100 (milliseconds?)"``), or None
    when it can."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"{what} {value!r} is not a number of seconds"
    try:
        seconds = float(value)
    except OverflowError:  # an int beyond a float
        return f"{what} of {len(str(abs(value)))} digits is not a date between 1990 and 2100"
    if math.isnan(seconds):
        return f"{what} is not a number (NaN)"
    if EARLIEST <= seconds < LATEST:
        return None
    hint = next(
        (f" ({unit}?)" for scale, unit in _UNITS if EARLIEST <= seconds / scale < LATEST), ""
    )
    return f"{what} {seconds:.4g} s is not a date between 1990 and 2100{hint}"


def stored_time(value: object) -> float:
    """A time column as stored, as a float: NaN for what is no number (text or bytes a
    hostile or damaged library may hold), so every reader can show it as invalid."""
    if type(value) is float:
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            return math.nan
    if isinstance(value, (str, bytes)):
        try:
            return float(value)
        except ValueError:
            return math.nan
    return math.nan


def time_text(value: float | None, fmt: str = "%Y-%m-%d %H:%M:%S", *, utc: bool = False) -> str:
    """``value`` (epoch seconds) in local time (UTC with ``utc``) as ``fmt`` says; ``INVALID``
    for a value no calendar can show (NaN, infinite, beyond year 9999 or before year 1)."""
    if value is None:
        return ""
    try:
        moment = datetime.fromtimestamp(value, UTC) if utc else datetime.fromtimestamp(value)
    except (OverflowError, OSError, ValueError, TypeError):
        return INVALID
    return moment.strftime(fmt)
