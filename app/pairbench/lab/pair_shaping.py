"""Per-pair shaping of the multi-pair lab: option values split one per pair, and shaping tags.

Each shaping option of ``lab up --pairs N`` (and ``lab shape --pairs N``) takes one value for
every pair or a comma list with one value per pair: ``--rate 100mbit,200mbit,300mbit``. A list
of another length is refused before anything is made.
"""

from __future__ import annotations

from dataclasses import fields

from pairbench.lab.errors import LabError
from pairbench.lab.shaping import Shaping
from pairbench.lab.topology import MAX_PAIRS

# The shaping fields and their command-line options, in the order people read them.
OPTIONS = {
    "rate": "--rate",
    "delay": "--delay",
    "jitter": "--jitter",
    "loss": "--loss",
    "burst_rate": "--burst-rate",
    "bucket": "--bucket",
}


def check_pair_count(count: int) -> int:
    """``count`` when it is a valid number of lab pairs (1 … ``MAX_PAIRS``), else ``LabError``."""
    if not 1 <= count <= MAX_PAIRS:
        raise LabError(f"--pairs: {count} is not a number of pairs from 1 to {MAX_PAIRS}")
    return count


def split_per_pair(option: str, text: str | None, count: int) -> list[str | None]:
    """One value per pair from ``text``: a single value repeats, a comma list gives each its own.

    ``None`` (option not given) is None for every pair. ``LabError`` when the list has another
    length than 1 or ``count``, or an empty item.
    """
    if text is None:
        return [None] * count
    items = [item.strip() for item in text.split(",")]
    if any(not item for item in items):
        raise LabError(f"{option}: {text!r} has an empty item (write e.g. 100mbit,200mbit)")
    if len(items) == 1:
        return [items[0]] * count
    if len(items) != count:
        pairs = "1 pair" if count == 1 else f"{count} pairs"
        hint = " (use --pairs N for several pairs)" if count == 1 else ""
        raise LabError(
            f"{option}: {len(items)} values for {pairs}: give one value for all pairs "
            f"or exactly one per pair{hint}"
        )
    return list(items)


def parse_pair_shapings(
    count: int,
    rate: str | None = None,
    delay: str | None = None,
    jitter: str | None = None,
    loss: str | None = None,
    burst_rate: str | None = None,
    bucket: str | None = None,
) -> tuple[Shaping, ...]:
    """One ``Shaping`` per pair from option texts; ``LabError`` (naming the pair when there are
    several) on a list of the wrong length or a bad value."""
    check_pair_count(count)
    given = {
        "rate": rate,
        "delay": delay,
        "jitter": jitter,
        "loss": loss,
        "burst_rate": burst_rate,
        "bucket": bucket,
    }
    columns = {name: split_per_pair(OPTIONS[name], given[name], count) for name in OPTIONS}
    shapings = []
    for index in range(count):
        values = {name: columns[name][index] for name in OPTIONS}
        try:
            shapings.append(Shaping(**values))
        except LabError as exc:
            if count == 1:
                raise
            raise LabError(f"pair {index + 1}: {exc}") from exc
    return tuple(shapings)


def shaping_tags(shaping: Shaping) -> dict[str, str]:
    """The shaping as pair tags, one per aspect set: ``{"rate": "100mbit", "delay": "1ms"}``."""
    return {
        f.name: value for f in fields(shaping) if (value := getattr(shaping, f.name)) is not None
    }
