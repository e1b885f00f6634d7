"""The end of a uperf 1.0.8 master's output: its tables (averages, Run Statistics) and its log."""

from __future__ import annotations

import math
import re
from typing import Final, NamedTuple

from pairbench.tools.uperf_units import S_EXP, US_EXP, bits, byte_count

__all__ = [
    "AVG_HEADER_RE",
    "AvgRow",
    "RunstatRow",
    "avg_row",
    "difference",
    "log_line",
    "runstat_row",
]

# "Txn1              565860     17.65us      0.00ns     19.70ms     13.24us " (Txn and Flowop
# tables: count, avg, cpu, max, min; adaptive time units; Solaris CPU counters may follow).
_AVG_ROW_RE: Final = re.compile(
    r"(\S++)\s++([0-9]{1,20}+)"
    r"\s++([0-9.]{1,32}+)(ns|us|ms|s)\s++([0-9.]{1,32}+)(?:ns|us|ms|s)"
    r"\s++([0-9.]{1,32}+)(ns|us|ms|s)\s++([0-9.]{1,32}+)(ns|us|ms|s)(?:\s|\Z)"
)
AVG_HEADER_RE: Final = re.compile(r"(Txn|Flowop)\s++Count\s++avg\b")
# "master            12.32s    97.14MB    66.17Mb/s      1131722        0.00" (Run Statistics)
_RUNSTAT_RE: Final = re.compile(
    r"(\S++)\s++([0-9.]{1,32}+)(ns|us|ms|s)\s++([0-9.]{1,32}+)([KMGTPEZ]?B?)\s++"
    r"([0-9.]{1,32}+)((?:[KMGTPEZ])?b/s)?\s++([0-9]{1,20}+)\s++(\S++)\s*+\Z"
)
# "Difference(%)     -0.00%      8.79%        8.79%        8.79%       0.00%"
_DIFF_RE: Final = re.compile(r"Difference\(%\)((?:\s++[-+]?[0-9.a-z]{1,32}+%){5})\s*+\Z")

# The lines that mean the run failed, in uperf's own words (never trust its exit status).
_ERROR_RE: Final = re.compile(
    r"Error\b"  # "Error 1: ...", "Error parsing F", "Error connecting to H", "Error saying ..."
    r"|WARNING:.*\bErrors?\b.*\bdetected\b"  # "WARNING: N Errors detected during run"
    r"|\*\*\* Slave aborted"
    r"|uperf: "  # getopt: "uperf: invalid option -- 'x'", "... requires an argument ..."
    r"|Cannot (?:stat|open|read|malloc)\b|Zero byte file|No profile found"
    r"|Env variable .* not set|\$\S+ is not set|remotehost not specified"
)
_USAGE_RE: Final = re.compile(r"Usage:\s+uperf\b")
# "** Warning: ...", "** 4 Warnings ...", "** [10.200.0.1] ..." (relayed from the slave):
# harmless. Any other "** ..." line is uperf's error log ("** TCP: Cannot connect to ...",
# "** 3 Errors ...").
# A slave's goodbye relayed more than twice is counted as "Errors" whatever it says (master.c:
# say_goodbye logs it as an error, logging.c prints "** N Errors <text>"): harmless when the
# text relayed is the slave's warnings ("** 4 Errors [10.0.0.2] 4 Warnings  Send buffer: ...").
_HARMLESS_LOG_RE: Final = re.compile(
    r"\*\* (?:Warning\b|[0-9]+ Warnings\b|\[|[0-9]+ Errors \[[^\]]{1,256}\] "
    r"(?:Warning\b|[0-9]+ Warnings\b))"
)


class AvgRow(NamedTuple):
    """A Txn or Flowop table row: its name, its ``Count`` (``n``), and the mean, largest and
    smallest time (µs) of one (uperf's ``cpu`` column, always 0 on Linux, is left out)."""

    name: str
    n: float
    avg_us: float
    max_us: float
    min_us: float


class RunstatRow(NamedTuple):
    """A Run Statistics row: host (``master``, ``Total``, a slave's address), seconds, bytes,
    bit/s, operations and errors (%; None when uperf printed no number: ``-nan`` for 0 ops)."""

    host: str
    secs: float
    nbytes: float
    rate: float
    ops: float
    errors: float | None


def avg_row(s: str) -> AvgRow | None:
    """A Txn or Flowop table row; None if ``s`` is not one."""
    m = _AVG_ROW_RE.match(s)
    if m is None:
        return None
    name, count_s, avg_s, avg_u, max_s, max_u, min_s, min_u = m.group(1, 2, 3, 4, 6, 7, 8, 9)
    try:
        return AvgRow(
            name,
            float(count_s),
            float(avg_s + US_EXP[avg_u]),
            float(max_s + US_EXP[max_u]),
            float(min_s + US_EXP[min_u]),
        )
    except ValueError:
        return None


def runstat_row(s: str) -> RunstatRow | None:
    """A Run Statistics row; None for headers and rules."""
    m = _RUNSTAT_RE.match(s)
    if m is None:
        return None
    host, t_s, t_u, b_num, b_unit, r_num, r_unit, ops_s, err_s = m.groups()
    try:
        secs = float(t_s + S_EXP[t_u])
        rate = bits(r_num, r_unit)
        nbytes = byte_count(b_num, b_unit, rate * secs / 8.0)
    except (ValueError, KeyError):
        return None
    try:
        errors: float | None = float(err_s)
    except ValueError:
        errors = None
    if errors is not None and not math.isfinite(errors):
        errors = None
    return RunstatRow(host, secs, nbytes, rate, float(ops_s), errors)


def difference(s: str) -> tuple[float, ...] | None:
    """The five percentages of a ``Difference(%)`` line (time, bytes, rate, ops, errors)."""
    m = _DIFF_RE.match(s)
    if m is None:
        return None
    try:
        return tuple(float(v[:-1]) for v in m.group(1).split())
    except ValueError:
        return None


def log_line(s: str, *, usage: bool) -> str | None:
    """The error a stripped, non-empty line states in uperf's words, "" for a harmless log
    line (a warning: uperf's end-of-run log), None for any other line. ``usage``: whether the
    usage text counts as the error (when nothing else said what was wrong)."""
    first = s[0]
    if first == "*":
        if s.startswith("** "):
            return "" if _HARMLESS_LOG_RE.match(s) else s[3:]
        return s if s.startswith("*** Slave aborted") else None
    if first in "EWuCZNr$" and _ERROR_RE.match(s):
        return s
    if first == "U" and usage and _USAGE_RE.match(s):
        return " ".join(s.split())
    return None
