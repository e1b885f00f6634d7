"""fio's reporting groups (``stonewall``, ``new_group``): each group's figures under its own
names and stream; a run-wide figure only when the run has one group (fio prints none else)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Final, TypeVar

from pairbench.domain import Record

__all__ = [
    "GROUP_PREFIX",
    "by_group",
    "group_records",
    "group_stream",
    "group_values",
    "stream_owners",
]

# A group's summary metrics and its stream are named after fio's own group number, as fio's
# "Run status group 0 (all jobs)" and the JSON ``groupid`` count them (from 0).
GROUP_PREFIX: Final = "group"

T = TypeVar("T")
IV = TypeVar("IV")  # one direction's interval, in a parser's own type


def group_stream(groupid: int, groups: int) -> str:
    """The stream of a group's aggregate: ``"sum"`` when the run has one group (as for any
    run), ``"group{N}"`` when it has several: their sum is no figure of fio's."""
    return "sum" if groups <= 1 else f"{GROUP_PREFIX}{groupid}"


def by_group(items: Iterable[tuple[int, T]]) -> dict[int, list[T]]:
    """``(groupid, item)`` pairs gathered per group, groups and items in order of appearance."""
    out: dict[int, list[T]] = {}
    for groupid, item in items:
        out.setdefault(groupid, []).append(item)
    return out


def stream_owners(groups: Mapping[int, list[T]]) -> list[T]:
    """The items (jobs) that get a stream of their own besides their group's: those of a group
    of more than one (a group of one is its own aggregate)."""
    return [item for items in groups.values() if len(items) > 1 for item in items]


def group_records(
    slots: Iterable[tuple[int, str, Sequence[IV | None]]],
    make: Callable[[str, list[list[IV | None]]], Record | None],
    known: Iterable[int] = (),
) -> list[Record]:
    """The records of one report from its slots (a job, or a group's entry): ``(groupid,
    stream, intervals by direction)``. One per group, its slots' intervals together
    (``make(stream, [read intervals, write intervals])``; stream by ``group_stream``, counting
    the ``known`` groups too), then one per slot of a group of more than one."""
    groups = by_group((groupid, (stream, intervals)) for groupid, stream, intervals in slots)
    count = len(set(groups) | set(known))
    records: list[Record] = []
    for groupid, members in groups.items():
        by_dir = [[intervals[d] for _, intervals in members] for d in range(2)]
        if (total := make(group_stream(groupid, count), by_dir)) is not None:
            records.append(total)
    for stream, intervals in stream_owners(groups):
        if (record := make(stream, [[iv] for iv in intervals])) is not None:
            records.append(record)
    return records


def group_values(
    per_group: Mapping[int, Mapping[str, float]], known: Iterable[int] = ()
) -> dict[str, float]:
    """A run's summary from each group's figures: a single group's as they are (the run's
    headline, as fio reports it); with several (those of ``per_group`` and ``known``: groups
    the output listed without figures yet), each group's under ``group{N}_`` and nothing
    run-wide (adding rates of groups that ran one after another gives a figure fio never
    prints, and one no disk ever did)."""
    if len(set(per_group) | set(known)) <= 1:
        return {k: v for values in per_group.values() for k, v in values.items()}
    return {
        f"{GROUP_PREFIX}{groupid}_{name}": value
        for groupid, values in sorted(per_group.items())
        for name, value in values.items()
    }
