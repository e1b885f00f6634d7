"""Incremental parser for the uperf 1.0.8 master's output: raw (-R), progress and tables."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Final

from pairbench.domain import Record, Summary
from pairbench.tools.base import ParseError
from pairbench.tools.feed import feed_text

__all__ = ["MAX_LINE", "UperfTextParser", "parse_text_output"]

# A piece of output (a line, or a part of one between "\r"s) longer than this is never run
# through a regex: uperf prints at most ~130 characters per piece.
MAX_LINE: Final = 4096

_THR: Final = "throughput_bps"
_OPS: Final = "ops_per_s"
_LAT: Final = "latency_avg_us"

# One constant metrics tuple per kind of record (the recorder keys its buffers on it).
_TXN_METRICS: Final[tuple[str, ...]] = (_THR, _OPS)
_MAIN_METRICS: Final[tuple[str, ...]] = (_THR, _OPS, _LAT)

# "timestamp_ms:1795299861662.0615 name:Txn2 nr_bytes:4340610 nr_ops:48229" (-R). The byte
# and op counts are cumulative since the start of the transaction.
# Numbers are at most 32 characters (20 digits for counts), so every value stays finite.
_RAW_RE: Final = re.compile(
    r"timestamp_ms:([0-9.]{1,32}+) name:(\S++) nr_bytes:([0-9]{1,20}+) nr_ops:([0-9]{1,20}+)"
    r"\s*+\Z"
)
_RAW_MATCH: Final = _RAW_RE.match

# "Txn2      20.33MB /   2.00(s) =    85.27Mb/s      118437op/s " (progress pieces, and the
# human Total / Group / Thr lines). Bytes: 1024-based, "0" for zero, and uperf cuts the last
# character of a byte string of 8+ characters ("107.21M", even "1000.00"). Bits: 1000-based.
# uperf leaves "op/s" out when the count is zero.
_PROGRESS_RE: Final = re.compile(
    r"(\S++)\s++([0-9.]{1,32}+)([KMGTPEZ]?B?)\s*+/\s*+([0-9.]{1,32}+)\(s\)\s*+=\s*+"
    r"([0-9.]{1,32}+)((?:[KMGTPEZ])?b/s)?(?:\s++([0-9]{1,20}+)op/s)?\s*+\Z"
)
# "Txn1              565860     17.65us      0.00ns     19.70ms     13.24us " (Txn and Flowop
# tables: count, avg, cpu, max, min; adaptive time units; Solaris CPU counters may follow).
_AVG_ROW_RE: Final = re.compile(
    r"(\S++)\s++([0-9]{1,20}+)"
    r"\s++([0-9.]{1,32}+)(ns|us|ms|s)\s++([0-9.]{1,32}+)(?:ns|us|ms|s)"
    r"\s++([0-9.]{1,32}+)(ns|us|ms|s)\s++([0-9.]{1,32}+)(ns|us|ms|s)(?:\s|\Z)"
)
_AVG_HEADER_RE: Final = re.compile(r"(Txn|Flowop)\s++Count\s++avg\b")
# "master            12.32s    97.14MB    66.17Mb/s      1131722        0.00" (Run Statistics)
_RUNSTAT_RE: Final = re.compile(
    r"(\S++)\s++([0-9.]{1,32}+)(ns|us|ms|s)\s++([0-9.]{1,32}+)([KMGTPEZ]?B?)\s++"
    r"([0-9.]{1,32}+)((?:[KMGTPEZ])?b/s)?\s++([0-9]{1,20}+)\s++(\S++)\s*+\Z"
)
# "Difference(%)     -0.00%      8.79%        8.79%        8.79%       0.00%"
_DIFF_RE: Final = re.compile(r"Difference\(%\)((?:\s++[-+]?[0-9.a-z]{1,32}+%){5})\s*+\Z")
# Thread counts are C ints: at most 10 digits (a longer one is not uperf's: the line is chatter),
# so that the count converts to a float in the latency arithmetic.
_STARTING_RE: Final = re.compile(
    r"Starting ([0-9]{1,10}+) (threads|processes)(?:, ([0-9]{1,10}+) processes)?"
    r" running profile:"
)
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
_HARMLESS_LOG_RE: Final = re.compile(r"\*\* (?:Warning\b|[0-9]+ Warnings\b|\[)")

_RUN, _GROUP, _STRAND, _TXN_TABLE, _FLOWOP_TABLE, _NETSTAT, _RUNSTATS = range(7)
_SECTION_HEADERS: Final[dict[str, int]] = {
    "Group Details": _GROUP,
    "Strand Details": _STRAND,
    "Netstat statistics for this run": _NETSTAT,
    "Run Statistics": _RUNSTATS,
}

_BYTE_POW: Final[dict[str, int]] = {c: i for i, c in enumerate(" KMGTPEZ")}
_BIT_EXP: Final[dict[str | None, str]] = {
    None: "",
    "b/s": "",
    "Kb/s": "e3",
    "Mb/s": "e6",
    "Gb/s": "e9",
    "Tb/s": "e12",
    "Pb/s": "e15",
    "Eb/s": "e18",
    "Zb/s": "e21",
}
# A table time in microseconds: its digits with this exponent appended.
_US_EXP: Final[dict[str, str]] = {"ns": "e-3", "us": "", "ms": "e3", "s": "e6"}
_S_EXP: Final[dict[str, str]] = {"ns": "e-9", "us": "e-6", "ms": "e-3", "s": ""}

_MAX_ERRORS: Final = 8
_MAX_ERROR_CHARS: Final = 300

_new_record: Final[
    Callable[[type[Record], tuple[str, float, tuple[str, ...], tuple[float, ...]]], Record]
] = tuple.__new__


class _Txn:
    """One transaction's cumulative counters: the first and the latest point seen."""

    __slots__ = ("b", "b0", "main", "name", "o", "o0", "ops_rate", "rate", "stream", "t", "t0")

    def __init__(self, name: str, main: bool, t: float, b: float, o: float) -> None:
        self.name = name
        self.stream = name.lower()
        self.main = main
        self.t0, self.b0, self.o0 = t, b, o
        self.t, self.b, self.o = t, b, o
        self.rate: float | None = None  # progress form: the rate uperf printed (bit/s)
        self.ops_rate: float | None = None  # progress form: the op/s uperf printed


class UperfTextParser:
    """Parser for what a uperf 1.0.8 master prints (``uperf -m PROFILE ...``).

    **Intervals.** uperf prints, about every ``-i`` interval, one point per running
    transaction: with ``-R`` a raw line ``timestamp_ms:T name:TxnN nr_bytes:B nr_ops:O``,
    otherwise a progress piece ``TxnN  BYTES / SECS(s) = RATE  OPSop/s`` that rewrites the
    previous one with ``\\r`` (a whole transaction then sits on one physical line). Both are
    **cumulative since the start of the transaction**; consecutive points of the same
    transaction are differenced into one record per interval, at the interval's end ``t``
    (seconds since the first point of the run: raw timestamps minus the first one; progress
    seconds plus the lengths of the transactions before). The first point of a transaction
    is its baseline and gives no record, nor does an interval of zero length.

    Records: stream ``txnN`` (uperf's 1-based progress name, lower-cased) with
    ``throughput_bps`` = 8·Δbytes/Δt and ``ops_per_s`` = Δops/Δt (uperf's "op/s": flowop
    operations, e.g. one write or one read, summed over every thread). The main timed
    transaction (``main_txn``, 2 in Pairbench's profiles) gives a second, equal record for
    stream ``sum``, and both add ``latency_avg_us`` = threads·Δt·ops_per_iteration/Δops: the
    mean time of one iteration of that transaction in that interval (with N threads each
    thread runs Δops/(N·ops_per_iteration) iterations in Δt; for a request/response profile
    one iteration is one round trip). It is left out when ``ops_per_iteration`` is unknown or
    no operation completed. It assumes the threads were busy all interval long, as in a
    ``duration`` transaction; an ``iterations`` one that ends early reads too high (it also
    counts the wait for the next refresh). It also counts the time between iterations, so it
    is a few percent above the Txn table's mean. The thread count comes from uperf's
    ``Starting N threads`` line (``threads`` until then). Progress values have uperf's
    printed precision (3-4 digits, seconds to 0.01 s), so their intervals are approximate;
    the raw form is exact.

    **Summary.** ``throughput_bps`` and ``ops_per_s``: the main transaction's own rate, over
    its whole duration: the rate uperf printed on its last progress piece, or with ``-R``
    8·Δbytes/Δt and Δops/Δt between its first and last raw lines. This is the figure users
    quote ("Txn2 ... = 9.79Gb/s"); uperf's Total line (``total_throughput_bps``, also from the
    Run Statistics master row) is lower because its time includes connecting, disconnecting
    and about 1 s of barrier waits. ``latency_avg_us``: the ``avg`` of the main transaction's
    row of the Txn table (0-based there: ``Txn1``), i.e. the mean time of one iteration as
    uperf measured it; without that table (no ``-t``/``-a``), the whole-transaction value of
    the interval formula above. ``write_avg_us``/``read_avg_us``: the Flowop table's
    ``write``/``read`` rows (the busiest row of that name). ``lost_percent`` (``udp=True``
    only): the Run Statistics ``Difference(%)`` bytes column, i.e. the share of the bytes the
    master counted that the slave did not (100 when the slave counted none, 0 when negative).
    The Group Details bytes are wrong in uperf (a known bug) and the Strand/Netstat lines are
    not needed: they are recognised and skipped. ``complete``: uperf's Total line was seen.

    **Errors.** uperf's exit status is unreliable (an unknown option exits 0), so the output
    decides: ``Error ...`` lines, ``** TCP: Cannot connect ...`` and other ``** `` error-log
    lines, ``WARNING: N Errors detected during run``, ``*** Slave aborted``, getopt's
    ``uperf: invalid option ...`` (or else the usage text), ``Env variable ... not set``:
    ``Summary.error`` joins them in uperf's words. Warnings (``** Warning: ...``,
    ``** N Warnings ...``, relayed ``** [host] ...`` lines and their continuation lines) are
    ignored. A piece that claims to be a raw, progress, Total or Txn-table line but does not
    parse raises ``ParseError``; every other line (history files from ``-X``, usage text,
    version text, garbage) is ignored.
    """

    __slots__ = (
        "_current",
        "_diff",
        "_errors",
        "_flowops",
        "_last_emitted",
        "_main_name",
        "_main_row",
        "_offset",
        "_ops_per_iteration",
        "_runstats",
        "_section",
        "_t0",
        "_threads",
        "_threads_default",
        "_total_rate",
        "_total_seen",
        "_txn_rows",
        "_txns",
        "_udp",
    )

    def __init__(
        self,
        *,
        threads: int = 1,
        ops_per_iteration: int | None = None,
        main_txn: int = 2,
        udp: bool = False,
    ) -> None:
        if threads < 1 or main_txn < 1:
            raise ValueError("threads and main_txn must be at least 1")
        if ops_per_iteration is not None and ops_per_iteration < 1:
            raise ValueError("ops_per_iteration must be at least 1")
        self._threads_default = threads
        self._ops_per_iteration = ops_per_iteration
        self._main_name = f"Txn{main_txn}"
        self._main_row = f"Txn{main_txn - 1}"
        self._udp = udp
        self._errors: list[str] = []
        self._reset()

    def _reset(self) -> None:
        self._threads = self._threads_default
        self._section = _RUN
        self._t0: float | None = None  # first raw timestamp (ms)
        self._offset = 0.0  # progress form: seconds of the transactions before the current one
        self._current: _Txn | None = None
        self._txns: dict[str, _Txn] = {}
        self._last_emitted: dict[str, float] = {}
        self._total_seen = False
        self._total_rate: float | None = None
        self._txn_rows: dict[str, tuple[float, float]] = {}  # name -> (count, avg µs)
        self._flowops: dict[str, tuple[float, float]] = {}  # name -> (count, avg µs), busiest
        self._runstats: dict[str, tuple[float, float, float]] = {}  # host -> (s, bytes, bit/s)
        self._diff: tuple[float, ...] | None = None

    # ------------------------------------------------------------------ feeding

    def feed(self, line: str) -> list[Record]:
        """Parse one line (which may hold many ``\\r``-separated pieces); return its records."""
        if "\r" not in line:
            if len(line) <= MAX_LINE and self._section == _RUN:
                m = _RAW_MATCH(line)
                if m is not None:
                    return self._raw(m, line)
            return self._piece(line)
        out: list[Record] = []
        for piece in line.split("\r"):
            if piece:
                out += self._piece(piece)
        return out

    def _piece(self, piece: str) -> list[Record]:
        s = piece.strip()
        if not s:
            return []
        if len(s) > MAX_LINE:
            if s.startswith(("timestamp_ms:", "Txn")):
                raise ParseError(f"uperf: piece of {len(s)} characters: {s[:120]!r}")
            return []
        first = s[0]
        if first == "t" and s.startswith("timestamp_ms:"):
            m = _RAW_MATCH(s)
            if m is None:
                raise ParseError(f"uperf: malformed raw line: {s[:200]!r}")
            return self._raw(m, s) if self._section == _RUN else []
        if first == "T":
            if s.startswith("Txn"):
                if s[3:4].isdigit():
                    if self._section == _RUN:
                        return self._progress(s)
                    if self._section == _TXN_TABLE:
                        self._avg_row(s, self._txn_rows, strict=True)
                    return []
                if _AVG_HEADER_RE.match(s):
                    self._section = _TXN_TABLE
                return []
            if s.startswith("Total") and self._section == _RUN:
                self._total_line(s)
                return []
        elif first == "F" and _AVG_HEADER_RE.match(s):
            self._section = _FLOWOP_TABLE
            return []
        elif first == "S" and s.startswith("Starting "):
            self._starting(s)
            return []
        elif first == "D" and s.startswith("Difference(%)"):
            self._difference(s)
            return []
        section = _SECTION_HEADERS.get(s)
        if section is not None:
            self._section = section
            return []
        if self._section == _FLOWOP_TABLE:
            self._avg_row(s, self._flowops, strict=False)
        elif self._section == _RUNSTATS:
            self._runstat_row(s)
        self._maybe_error(s)
        return []

    # ------------------------------------------------------------------ intervals

    def _raw(self, m: re.Match[str], text: str) -> list[Record]:
        ts_s, name, b_s, o_s = m.groups()
        try:
            ts = float(ts_s)  # ms since the epoch
        except ValueError as exc:
            raise ParseError(f"uperf: malformed raw line: {text[:200]!r}") from exc
        if name == "Total":
            self._total_seen = True
            return []
        if not name.startswith("Txn"):
            return []  # Group0 / Thr0 raw lines (not needed; Group's bytes are wrong anyway)
        t0 = self._t0
        if t0 is None:
            t0 = self._t0 = ts
        return self._point(name, (ts - t0) / 1000.0, float(b_s), float(o_s), exact=True)

    def _progress(self, s: str) -> list[Record]:
        m = _PROGRESS_RE.match(s)
        if m is None:
            raise ParseError(f"uperf: malformed progress line: {s[:200]!r}")
        name, b_num, b_unit, secs_s, r_num, r_unit, ops_s = m.groups()
        try:
            secs = float(secs_s)
            rate = _bits(r_num, r_unit)
            nbytes = _bytes(b_num, b_unit, rate * secs / 8.0)
        except (ValueError, KeyError) as exc:
            raise ParseError(f"uperf: malformed progress line: {s[:200]!r}") from exc
        ops_rate = 0.0 if ops_s is None else float(ops_s)
        current = self._current
        if current is not None and name != current.name:
            self._offset = current.t  # the previous transaction's end
        records = self._point(name, self._offset + secs, nbytes, ops_rate * secs, exact=False)
        txn = self._current
        if txn is not None and secs > 0.0:
            txn.rate, txn.ops_rate = rate, ops_rate
        return records

    def _point(
        self, name: str, t: float, nbytes: float, ops: float, *, exact: bool
    ) -> list[Record]:
        """One cumulative point of transaction ``name``; the interval it closes, if any.

        ``exact``: raw counters, where a decrease means a new run of the transaction (start
        afresh); progress values are rounded, so a small step back there counts as zero.
        """
        txn = self._current
        if txn is None or txn.name != name:
            self._current = self._txns[name] = _Txn(name, name == self._main_name, t, nbytes, ops)
            return []
        dt = t - txn.t
        if not dt > 0.0:
            return []  # zero-length (or a clock step back): wait for the next point
        db = nbytes - txn.b
        dops = ops - txn.o
        if db < 0.0 or dops < 0.0:
            if exact:
                self._current = self._txns[name] = _Txn(name, txn.main, t, nbytes, ops)
                return []
            db, dops = max(db, 0.0), max(dops, 0.0)
        txn.t, txn.b, txn.o = t, nbytes, ops
        last = self._last_emitted
        stream = txn.stream
        previous = last.get(stream)
        if previous is not None and t <= previous:
            return []
        last[stream] = t
        thr = 8.0 * db / dt
        ops_per_s = dops / dt
        if not txn.main:
            return [_new_record(Record, (stream, t, _TXN_METRICS, (thr, ops_per_s)))]
        opi = self._ops_per_iteration
        if opi is not None and dops > 0.0:
            values: tuple[float, ...] = (thr, ops_per_s, self._threads * dt * opi / dops * 1e6)
            metrics = _MAIN_METRICS
        else:
            values, metrics = (thr, ops_per_s), _TXN_METRICS
        last["sum"] = t
        return [
            _new_record(Record, (stream, t, metrics, values)),
            _new_record(Record, ("sum", t, metrics, values)),
        ]

    # ------------------------------------------------------------------ other lines

    def _starting(self, s: str) -> None:
        m = _STARTING_RE.match(s)
        if m is None:
            return
        self._reset()
        n = int(m.group(1)) + (int(m.group(3)) if m.group(3) else 0)
        if n >= 1:
            self._threads = n

    def _total_line(self, s: str) -> None:
        m = _PROGRESS_RE.match(s)
        if m is None:
            raise ParseError(f"uperf: malformed Total line: {s[:200]!r}")
        try:
            self._total_rate = _bits(m.group(5), m.group(6))
        except (ValueError, KeyError) as exc:
            raise ParseError(f"uperf: malformed Total line: {s[:200]!r}") from exc
        self._total_seen = True

    def _avg_row(self, s: str, into: dict[str, tuple[float, float]], *, strict: bool) -> None:
        m = _AVG_ROW_RE.match(s)
        if m is None:
            if strict:
                raise ParseError(f"uperf: malformed Txn table row: {s[:200]!r}")
            return
        name, count_s, avg_s, avg_u = m.group(1, 2, 3, 4)
        try:
            count = float(count_s)
            avg_us = float(avg_s + _US_EXP[avg_u])
        except ValueError as exc:
            if strict:
                raise ParseError(f"uperf: malformed Txn table row: {s[:200]!r}") from exc
            return
        known = into.get(name)
        if known is None or count > known[0]:
            into[name] = (count, avg_us)

    def _runstat_row(self, s: str) -> None:
        m = _RUNSTAT_RE.match(s)
        if m is None:
            return  # header, rules
        host, t_s, t_u, b_num, b_unit, r_num, r_unit = m.group(1, 2, 3, 4, 5, 6, 7)
        try:
            secs = float(t_s + _S_EXP[t_u])
            rate = _bits(r_num, r_unit)
            nbytes = _bytes(b_num, b_unit, rate * secs / 8.0)
        except (ValueError, KeyError):
            return
        self._runstats[host] = (secs, nbytes, rate)

    def _difference(self, s: str) -> None:
        m = _DIFF_RE.match(s)
        if m is None:
            raise ParseError(f"uperf: malformed Difference(%) line: {s[:200]!r}")
        try:
            self._diff = tuple(float(v[:-1]) for v in m.group(1).split())
        except ValueError as exc:
            raise ParseError(f"uperf: malformed Difference(%) line: {s[:200]!r}") from exc

    def _maybe_error(self, s: str) -> None:
        first = s[0]
        if first == "*":
            if s.startswith("** ") and not _HARMLESS_LOG_RE.match(s):
                self._add_error(s[3:])
            elif s.startswith("*** Slave aborted"):
                self._add_error(s)
        elif first in "EWuCZNr$" and _ERROR_RE.match(s):
            self._add_error(s)
        elif first == "U" and _USAGE_RE.match(s) and not self._errors:
            self._add_error(" ".join(s.split()))

    def _add_error(self, text: str) -> None:
        text = " ".join(text.split())[:_MAX_ERROR_CHARS]
        if text and text not in self._errors and len(self._errors) < _MAX_ERRORS:
            self._errors.append(text)

    # ------------------------------------------------------------------ summary

    def close(self) -> Summary:
        """The run's summary (see the class docstring for where each value comes from)."""
        values: dict[str, float] = {}
        main = self._txns.get(self._main_name)
        if main is not None:
            dt = main.t - main.t0
            if main.rate is not None:
                values[_THR] = main.rate
                values[_OPS] = main.ops_rate if main.ops_rate is not None else 0.0
            elif dt > 0.0:
                values[_THR] = 8.0 * (main.b - main.b0) / dt
                values[_OPS] = (main.o - main.o0) / dt
        row = self._txn_rows.get(self._main_row)
        if row is not None:
            values[_LAT] = row[1]
        elif main is not None and self._ops_per_iteration is not None:
            dt, dops = main.t - main.t0, main.o - main.o0
            if dt > 0.0 and dops > 0.0:
                values[_LAT] = self._threads * dt * self._ops_per_iteration / dops * 1e6
        for flowop in ("write", "read"):
            known = self._flowops.get(flowop)
            if known is not None:
                values[f"{flowop}_avg_us"] = known[1]
        master = self._runstats.get("master")
        if self._total_rate is not None:
            values["total_throughput_bps"] = self._total_rate
        elif master is not None:
            values["total_throughput_bps"] = master[2]
        if self._udp and self._diff is not None:
            lost = self._diff[1]
            slaves = [v for k, v in self._runstats.items() if k not in ("master", "Total")]
            slave_bytes = (
                self._runstats["Total"][1]
                if "Total" in self._runstats
                else sum(v[1] for v in slaves)
            )
            if master is not None and master[1] > 0.0 and slaves and slave_bytes == 0.0:
                lost = 100.0  # uperf prints 0% when the slave counted nothing
            if math.isfinite(lost):
                values["lost_percent"] = lost if lost > 0.0 else 0.0
        error = "; ".join(self._errors) if self._errors else None
        return Summary(values=values, complete=self._total_seen, error=error)


def _bits(num: str, unit: str | None) -> float:
    """A printed bit rate ("83.70Mb/s", bare "0") in bit/s (1000-based)."""
    if unit is None and float(num) != 0.0:
        raise ValueError(f"bit rate without a unit: {num!r}")
    return float(num + _BIT_EXP[unit])


def _bytes(num: str, unit: str, estimate: float) -> float:
    """A printed byte count in bytes (1024-based), coping with uperf's truncation bug.

    ``107.21M`` lost its "B"; ``1000.00`` (from ``1000.00KB``) lost its whole unit: that unit
    is then the power of 1024 that brings the number closest to ``estimate`` (bytes from the
    printed rate and time), or bytes when there is no estimate.
    """
    value = float(num)
    if unit:
        letter = unit[0]
        return value if letter == "B" else value * float(1024 ** _BYTE_POW[letter])
    if value == 0.0:
        return 0.0
    if not estimate > 0.0 or not math.isfinite(estimate):
        return value
    best, best_err = value, math.inf
    for power in range(len(_BYTE_POW)):
        candidate = value * float(1024**power)
        err = abs(math.log(candidate / estimate))
        if err < best_err:
            best, best_err = candidate, err
    return best


def parse_text_output(
    text: str,
    *,
    threads: int = 1,
    ops_per_iteration: int | None = None,
    main_txn: int = 2,
    udp: bool = False,
) -> tuple[list[Record], Summary]:
    """Parse a whole uperf output (lines split on "\\n") with a ``UperfTextParser(...)``."""
    parser = UperfTextParser(
        threads=threads, ops_per_iteration=ops_per_iteration, main_txn=main_txn, udp=udp
    )
    return feed_text(parser, text)
