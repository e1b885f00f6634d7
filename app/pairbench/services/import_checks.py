"""What an import refuses before anything is stored, each with the reason in one line: a file
that holds no result of its tool (empty, binary, no measurement), an implausible start or end
time, a negative or non-finite figure; and the parameters it reads, checked as ``--set``
checks them (those that fail are not kept, with a note)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import chain
from operator import itemgetter

from pairbench.domain import Record, Summary
from pairbench.domain.failures import InputRefusedError
from pairbench.domain.timestamps import implausible_time
from pairbench.domain.validation import shown
from pairbench.tools.base import Tool

# Metrics a tool may report below zero: iperf3 counts datagrams that arrive out of order as
# lost, then takes them back, so an interval's lost count (and loss %) can be negative.
MAY_BE_NEGATIVE = frozenset({"lost_packets", "lost_percent"})
_T, _VALUES = itemgetter(1), itemgetter(3)


def check_text(text: str, tool: str = "") -> None:
    """``InputRefusedError`` for a text no tool prints: empty (or blank), or binary (NUL
    bytes: an executable, random bytes; UTF-16 text is decoded before it gets here)."""
    if not text.strip():
        raise InputRefusedError("the file is empty: it holds no output of any tool")
    if "\x00" in text:
        whose = f"{tool}'s" if tool else "a tool's"
        raise InputRefusedError(
            f"the file holds NUL bytes: it is binary, not {whose} text or JSON output"
        )


def check_has_result(records: Sequence[Record], summary: Summary, tool: str) -> None:
    """``InputRefusedError`` unless the parser found something ``tool`` prints: measurements,
    a summary, the tool's own error message (a run that failed is a result too), or the end of
    a run whose output form carries no figures (``Summary.reason``: uperf ``-n``)."""
    if not (records or summary.values or summary.error or summary.reason):
        raise InputRefusedError(
            f"the file holds nothing {tool} prints (no measurement, no summary, no error message)"
        )


def check_has_series(records: Sequence[Record], what: str, kinds: str) -> None:
    """``InputRefusedError`` for a data file (Flent's) that holds no series with values:
    ``what`` names the file, ``kinds`` the series read."""
    if not records:
        raise InputRefusedError(f"{what} holds no data Pairbench reads (no {kinds} with values)")


def check_figures(records: Sequence[Record], summary: Summary) -> None:
    """``InputRefusedError`` naming the first figure that no tool measures: not a finite
    number, or below zero (``MAY_BE_NEGATIVE`` aside), in an interval or in the summary."""
    values = list(chain.from_iterable(map(_VALUES, records)))
    times = list(map(_T, records))
    if not math.isfinite(sum(times)):
        for record in records:
            if not math.isfinite(record.t):
                raise InputRefusedError(
                    f"an interval of stream {shown(record.stream)} ends at {record.t} s: not a time"
                )
    if values and (not math.isfinite(sum(values)) or min(values) < 0):
        for record in records:
            for metric, value in zip(record.metrics, record.values, strict=True):
                _check_figure(metric, value, f"at {record.t:g} s (stream {shown(record.stream)})")
    for metric, value in summary.values.items():
        _check_figure(metric, value, "in the summary")


def _check_figure(metric: str, value: float, where: str) -> None:
    if not math.isfinite(value):
        raise InputRefusedError(f"{metric} {where} is {value}: not a measured figure")
    if value < 0 and metric not in MAY_BE_NEGATIVE:
        raise InputRefusedError(f"{metric} {where} is {value:g}: a {metric} is never negative")


def check_times(started: float | None, records: Sequence[Record]) -> None:
    """``InputRefusedError`` when the output's own start time, or that start plus its last
    interval (the run's end), is no date between 1990 and 2100 (say, milliseconds read as
    seconds)."""
    if started is None:
        return
    problem = implausible_time(started, "the output's start time")
    if problem is None and records:
        last = max(map(_T, records))
        problem = implausible_time(started + last, "the run's end time")
        if problem is not None:
            problem += f" (its last interval ends {last:.4g} s after the start)"
    if problem is not None:
        raise InputRefusedError(problem)


def checked_params(tool: Tool, params: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """The parameters an output records, as ``--set`` checks them (``Param.check``, then the
    tool's own rules over them all): those that pass, in their canonical form, and a note for
    each one left out, so that "run again" runs what is kept."""
    kept: dict[str, str] = {}
    notes: list[str] = []
    for name, value in params.items():
        param = tool.params.get(name)
        if param is None:
            notes.append(f"parameter {shown(name)} not kept: {tool.name} has no such parameter")
            continue
        try:
            kept[name] = param.check(value)
        except ValueError as exc:
            notes.append(f"parameter {name}={shown(value)} not kept: {_cut(str(exc))}")
    try:
        tool.resolve(kept)
    except ValueError as exc:
        dropped = " ".join(f"{k}={v}" for k, v in kept.items())
        notes.append(f"parameters {dropped} not kept: together {_cut(str(exc))}")
        kept = {}
    return kept, notes


def _cut(text: str, limit: int = 160) -> str:
    """A message about a value read from a file: one line, at most ``limit`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
