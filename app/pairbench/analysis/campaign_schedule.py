"""When a campaign's passes start: once, every N for D, or at times of day for some days."""

from __future__ import annotations

import datetime as dt

from pairbench.domain.campaign import Schedule

MAX_PASSES = 10_000


def slot_times(schedule: Schedule, start: float) -> list[float]:
    """The start time (epoch seconds) of every pass, from the campaign's creation ``start``.

    ``every``: ``start``, ``start + every``, ... while within ``for_s`` (10 passes for every
    minute for 10 minutes). ``times``: each given local time of day at or after ``start``,
    for ``days`` days.
    """
    if schedule.kind == "every":
        count = max(1, int(schedule.for_s // schedule.every_s))
        return [start + k * schedule.every_s for k in range(min(count, MAX_PASSES))]
    if schedule.kind == "times":
        first = dt.datetime.fromtimestamp(start).astimezone()
        slots: list[float] = []
        for day in range(schedule.days + 1):
            date = (first + dt.timedelta(days=day)).date()
            for text in sorted(schedule.times):
                hour, minute = (int(part) for part in text.split(":"))
                at = dt.datetime.combine(date, dt.time(hour, minute), first.tzinfo).timestamp()
                if at >= start - 1.0:
                    slots.append(at)
        return slots[: len(schedule.times) * schedule.days][:MAX_PASSES]
    return [start]


def parse_time_of_day(text: str) -> str:
    """``"7:05"`` → ``"07:05"``; ``ValueError`` unless it is HH:MM on a 24-hour clock."""
    hour_text, sep, minute_text = text.strip().partition(":")
    try:
        hour, minute = int(hour_text), int(minute_text)
    except ValueError:
        raise ValueError(f"a time of day is HH:MM, got {text!r}") from None
    if not sep or not (0 <= hour < 24 and 0 <= minute < 60):
        raise ValueError(f"a time of day is HH:MM (00:00 to 23:59), got {text!r}")
    return f"{hour:02d}:{minute:02d}"


def due_pass(slots: list[float], now: float, done: set[int]) -> tuple[int | None, list[int]]:
    """The pass to run now (or next) and the passes missed: a pass not done whose next
    pass is already due was missed (the campaign was stopped, or a pass overran)."""
    missed: list[int] = []
    for k, at in enumerate(slots):
        if k in done:
            continue
        following = slots[k + 1] if k + 1 < len(slots) else None
        if following is not None and following <= now and at < now:
            missed.append(k)
            continue
        return k, missed
    return None, missed
