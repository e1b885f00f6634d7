"""The bounds every campaign plan is held to before its values are read: how deep its tables
and arrays nest, how large its numbers, texts and lists are, and the range of each number a
run depends on, so that a plan ``campaign check`` accepts also runs (a seed SQLite can keep,
a pause ``asyncio.sleep`` can wait, a schedule a calendar can hold)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pairbench.analysis.campaign_cells import PlanError
from pairbench.analysis.campaign_schedule import MAX_PASSES
from pairbench.domain.campaign import MAX_CELLS

MAX_DEPTH = 8  # a plan's own shape nests 5 deep: tests → a test → params → an axis → a value
MAX_TEXT = 4096  # characters in any one text (names, labels, parameter values, the filter)
MAX_ITEMS = MAX_CELLS  # items in any one array or table
MAX_INT = 2**63 - 1  # what SQLite keeps (a seed is stored with the campaign)
DAY_S = 86_400.0
# Each number's range: (low, high), for the keys a plan names (guide: campaigns.md).
INT_RANGES: Mapping[str, tuple[int, int]] = {
    "seed": (0, MAX_INT),
    "parallel": (1, 256),
    "repeats": (1, 10_000),
    "min": (1, 10_000),  # repeats.min / repeats.max
    "max": (1, 10_000),
    "days": (1, 366),  # schedule.days
    "retries": (0, 100),  # retry.retries
    "skip_pair_after": (0, 10_000),
}
DURATION_MAX_S: Mapping[str, float] = {
    "pause": DAY_S,
    "retry.delay": DAY_S,
    "schedule.every": 366 * DAY_S,
    "schedule.for": 366 * DAY_S,
}


def check_shape(data: Mapping[str, Any]) -> None:
    """``PlanError`` for a plan nested deeper than ``MAX_DEPTH``, holding a number beyond
    ``MAX_INT`` (or a float that is not finite), a text longer than ``MAX_TEXT`` or an array
    or table of more than ``MAX_ITEMS``: walked without recursion, whatever the plan holds."""
    stack: list[tuple[Any, str, int]] = [(data, "the plan", 1)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, Mapping | list):
            if depth > MAX_DEPTH:
                raise PlanError(f"{where} nests tables or arrays deeper than {MAX_DEPTH} levels")
            if len(value) > MAX_ITEMS:
                raise PlanError(f"{where} holds {len(value):,} items; at most {MAX_ITEMS:,}")
            items = value.items() if isinstance(value, Mapping) else enumerate(value)
            for key, item in items:
                if isinstance(key, str) and len(key) > MAX_TEXT:
                    raise PlanError(f"{where} has a key of {len(key):,} characters")
                name = f"{where}.{key}" if isinstance(key, str) else f"{where}[{key}]"
                stack.append((item, name.removeprefix("the plan."), depth + 1))
        elif isinstance(value, bool):
            continue
        elif isinstance(value, int) and not -MAX_INT <= value <= MAX_INT:
            raise PlanError(_huge(where, value))
        elif isinstance(value, float) and value != value:
            raise PlanError(f"{where!r} is nan: give a number")
        elif isinstance(value, str) and len(value) > MAX_TEXT:
            raise PlanError(
                f"{where!r} is a text of {len(value):,} characters; at most {MAX_TEXT:,}"
            )


def _huge(where: str, value: int) -> str:
    """The message for an integer beyond ``MAX_INT``, with the key's own range if it has one."""
    digits = len(str(abs(value))) if abs(value).bit_length() < 13_000 else "thousands of"
    key = where.rsplit(".", 1)[-1]
    if key in INT_RANGES:
        low, high = INT_RANGES[key]
        return f"{where!r} must be from {low:,} to {high:,}, got a number of {digits} digits"
    if where in DURATION_MAX_S:
        most = DURATION_MAX_S[where] / DAY_S
        return f"{where!r} must be at most {most:g} day(s), got a number of {digits} digits"
    return f"{where!r} is a number of {digits} digits; at most {MAX_INT:,}"


def check_int_range(key: str, value: int) -> int:
    """``value`` within ``INT_RANGES[key]``; ``PlanError`` naming the range otherwise."""
    low, high = INT_RANGES[key]
    if not low <= value <= high:
        raise PlanError(f"{key!r} must be from {low:,} to {high:,}, got {value:,}")
    return value


def check_duration(key: str, seconds: float) -> float:
    """A duration of at most ``DURATION_MAX_S[key]``; ``PlanError`` otherwise."""
    most = DURATION_MAX_S[key]
    if seconds > most:
        raise PlanError(
            f"{key!r} must be at most {most / DAY_S:g} day(s), got {seconds / DAY_S:,.4g} days"
        )
    return seconds


def check_passes(count: float, what: str) -> None:
    """``PlanError`` when a schedule makes more than ``MAX_PASSES`` passes."""
    if count > MAX_PASSES:
        raise PlanError(f"'schedule' makes {count:,.0f} passes ({what}); at most {MAX_PASSES:,}")
