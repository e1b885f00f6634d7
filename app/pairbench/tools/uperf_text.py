"""Incremental parser for the uperf 1.0.8 master's output: raw (-R), progress and tables."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from pairbench.domain import Record, Summary
from pairbench.tools.base import ParseError
from pairbench.tools.feed import feed_text
from pairbench.tools.uperf_details import FinalPoint
from pairbench.tools.uperf_forms import (
    SEEN_FLOWOP,
    SEEN_GROUP,
    SEEN_LOG,
    SEEN_PROGRESS,
    SEEN_RAW,
    SEEN_RUN,
    SEEN_STRAND,
    SEEN_TXN,
)
from pairbench.tools.uperf_intervals import TxnPoints
from pairbench.tools.uperf_summary import EndTables, summarise
from pairbench.tools.uperf_tables import (
    AVG_HEADER_RE,
    AvgRow,
    avg_row,
    difference,
    log_line,
    runstat_row,
)
from pairbench.tools.uperf_units import bits, byte_count

__all__ = ["MAX_LINE", "UperfTextParser", "parse_text_output"]

# A piece of output (a line, or a part of one between "\r"s) longer than this is never run
# through a regex: uperf prints at most ~130 characters per piece.
MAX_LINE: Final = 4096

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
# Thread counts are C ints: at most 10 digits (a longer one is not uperf's: the line is chatter),
# so that the count converts to a float in the latency arithmetic.
_STARTING_RE: Final = re.compile(
    r"Starting ([0-9]{1,10}+) (threads|processes)(?:, ([0-9]{1,10}+) processes)?"
    r" running profile:(\S{0,64}+)"
)
_PROFILE_RE: Final = re.compile(r" running profile:(\S{0,64}+)")
# uperf prints "Nic NAME came online" (no newline) when an interface appears during the run:
# it sticks to the front of the next line, the Total line ("...came onlineTotal  18.60MB /").
_NIC_ONLINE_RE: Final = re.compile(r"(?:Nic \S{1,64}? came online\s*+)+")
_RUN, _GROUP, _STRAND, _TXN_TABLE, _FLOWOP_TABLE, _NETSTAT, _RUNSTATS = range(7)
# The option each table header shows (uperf_forms.form_name names the form from them).
_SECTION_SEEN: Final[dict[int, int]] = {_GROUP: SEEN_GROUP, _STRAND: SEEN_STRAND}
_SECTION_HEADERS: Final[dict[str, int]] = {
    "Group Details": _GROUP,
    "Strand Details": _STRAND,
    "Netstat statistics for this run": _NETSTAT,
    "Run Statistics": _RUNSTATS,
}

_MAX_ERRORS: Final = 8
_MAX_ERROR_CHARS: Final = 300


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

    **Summary** (``uperf_summary.summarise``). ``throughput_bps`` and ``ops_per_s``: the main
    transaction's own rate over its whole duration: the rate uperf printed on its last progress
    piece, or with ``-R`` 8·Δbytes/Δt and Δops/Δt between its first and last raw lines (the
    figure users quote, "Txn2 ... = 9.79Gb/s"; uperf's Total line, ``total_throughput_bps``,
    also from the Run Statistics master row, is lower: its time includes connecting,
    disconnecting and about 1 s of barrier waits). ``latency_avg_us``: the ``avg`` of the main
    transaction's Txn table row (0-based there: ``Txn1``), else the whole-transaction value of
    the interval formula above; none for a profile of several groups. ``lost_percent``
    (``udp=True`` only): the Run Statistics ``Difference(%)`` bytes column. Then every final
    figure uperf printed, named with its unit (``uperf_details``): each transaction's last
    progress or raw line, the Total line, every Txn and Flowop table row (``write_avg_us`` is
    the first ``write`` row's), the master's and the slave's Run Statistics rows. The Group
    Details bytes are wrong in uperf (a known bug) and the Strand/Netstat lines are not
    needed: they are recognised and skipped. ``complete``: uperf's Total line was seen.
    ``main_txn`` None (a profile of the user's without one timed transaction): no
    ``throughput_bps``, ``ops_per_s``, ``latency_avg_us`` nor ``sum`` stream.

    **Forms.** Every form of the master's output is read, and ``Summary.form`` names it
    (``uperf_forms.form_name``): "text" (progress pieces) or "text -R" (raw lines), then the
    tables shown: "-a" for all of Group/Strand/Txn/Flowop, else "-g", "-T", "-t", "-f" (the
    Flowop table also comes with -p, and with -e on Solaris builds; on Linux -e adds nothing);
    "text -n" when the run ended without any statistics (then ``complete`` is False with
    ``reason``). ``-i`` changes only the spacing of the points (uperf samples every second
    without it) and ``-k`` only the default Netstat table, so they do not show in the name.
    When ``ops_per_iteration`` is None (a saved file: the profile is unknown) it comes from
    ``known_profiles`` by the profile name of the ``Starting`` line, if there; a run without a
    Txn table and without it has no ``latency_avg_us``: ``complete`` False with ``reason``.

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
        "_end",
        "_errors",
        "_main",
        "_main_name",
        "_ops_default",
        "_points",
        "_profiles",
        "_section",
        "_seen",
        "_threads_default",
        "_udp",
    )

    def __init__(
        self,
        *,
        threads: int = 1,
        ops_per_iteration: int | None = None,
        main_txn: int | None = 2,
        udp: bool = False,
        known_profiles: Mapping[str, int] | None = None,
    ) -> None:
        if threads < 1 or (main_txn is not None and main_txn < 1):
            raise ValueError("threads and main_txn must be at least 1")
        if ops_per_iteration is not None and ops_per_iteration < 1:
            raise ValueError("ops_per_iteration must be at least 1")
        if known_profiles and min(known_profiles.values()) < 1:
            raise ValueError("known_profiles' ops per iteration must be at least 1")
        self._threads_default = threads
        self._ops_default = ops_per_iteration
        self._profiles: dict[str, int] = dict(known_profiles or {})
        self._main = main_txn
        self._main_name = f"Txn{main_txn}" if main_txn is not None else None
        self._udp = udp
        self._errors: list[str] = []
        self._reset()

    def _reset(self) -> None:
        self._points = TxnPoints(self._main_name, self._threads_default, self._ops_default)
        self._seen = 0  # uperf_forms.SEEN_* bits: what the output showed
        self._section = _RUN
        self._end = EndTables()

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
                        self._avg_row(s, self._end.txn_rows, strict=True)
                    return []
                if AVG_HEADER_RE.match(s):
                    self._section = _TXN_TABLE
                    self._seen |= SEEN_TXN
                return []
            if s.startswith("Total") and self._section == _RUN:
                self._total_line(s)
                return []
        elif first == "F" and AVG_HEADER_RE.match(s):
            self._section = _FLOWOP_TABLE
            self._seen |= SEEN_FLOWOP
            return []
        elif first == "N" and s.startswith("Nic "):
            m = _NIC_ONLINE_RE.match(s)
            if m is not None:
                return self._piece(s[m.end() :])
        elif first == "S" and s.startswith("Starting "):
            self._starting(s)
            return []
        elif first == "D" and s.startswith("Difference(%)"):
            self._difference(s)
            return []
        section = _SECTION_HEADERS.get(s)
        if section is not None:
            self._section = section
            self._seen |= _SECTION_SEEN.get(section, 0)
            return []
        if self._section == _FLOWOP_TABLE:
            self._avg_row(s, self._end.flowop_rows, strict=False)
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
        self._seen |= SEEN_RAW
        if name == "Total":
            self._end.total_seen = True
            self._end.total = FinalPoint(float(b_s), float(o_s))
            return []
        if not name.startswith("Txn"):
            return []  # Group0 / Thr0 raw lines (not needed; Group's bytes are wrong anyway)
        return self._points.raw(name, ts, float(b_s), float(o_s))

    def _progress(self, s: str) -> list[Record]:
        m = _PROGRESS_RE.match(s)
        if m is None:
            raise ParseError(f"uperf: malformed progress line: {s[:200]!r}")
        name, b_num, b_unit, secs_s, r_num, r_unit, ops_s = m.groups()
        try:
            secs = float(secs_s)
            rate = bits(r_num, r_unit)
            nbytes = byte_count(b_num, b_unit, rate * secs / 8.0)
        except (ValueError, KeyError) as exc:
            raise ParseError(f"uperf: malformed progress line: {s[:200]!r}") from exc
        ops_rate = 0.0 if ops_s is None else float(ops_s)
        self._seen |= SEEN_PROGRESS
        return self._points.progress(name, secs, nbytes, rate, ops_rate)

    # ------------------------------------------------------------------ other lines

    def _starting(self, s: str) -> None:
        m = _STARTING_RE.match(s)
        if m is None:
            # A thread count that is no C int: chatter, but its profile name still tells.
            p = _PROFILE_RE.search(s) if self._profiles else None
            if p is not None and self._points.ops_per_iteration is None:
                self._points.ops_per_iteration = self._profiles.get(p.group(1))
            return
        self._reset()
        self._seen = SEEN_RUN
        n = int(m.group(1)) + (int(m.group(3)) if m.group(3) else 0)
        if n >= 1:
            self._points.threads = n
        if self._points.ops_per_iteration is None:
            self._points.ops_per_iteration = self._profiles.get(m.group(4))

    def _total_line(self, s: str) -> None:
        m = _PROGRESS_RE.match(s)
        if m is None:
            raise ParseError(f"uperf: malformed Total line: {s[:200]!r}")
        _, b_num, b_unit, secs_s, r_num, r_unit, ops_s = m.groups()
        try:
            secs = float(secs_s)
            rate = bits(r_num, r_unit)
            nbytes = byte_count(b_num, b_unit, rate * secs / 8.0)
        except (ValueError, KeyError) as exc:
            raise ParseError(f"uperf: malformed Total line: {s[:200]!r}") from exc
        ops_rate = 0.0 if ops_s is None else float(ops_s)
        self._end.total = FinalPoint(nbytes, secs=secs, rate=rate, ops_rate=ops_rate)
        self._end.total_seen = True

    def _avg_row(self, s: str, into: list[AvgRow], *, strict: bool) -> None:
        row = avg_row(s)
        if row is None:
            if strict:
                raise ParseError(f"uperf: malformed Txn table row: {s[:200]!r}")
            return
        into.append(row)

    def _runstat_row(self, s: str) -> None:
        row = runstat_row(s)
        if row is not None:
            self._end.runstats[row.host] = row

    def _difference(self, s: str) -> None:
        diff = difference(s)
        if diff is None:
            raise ParseError(f"uperf: malformed Difference(%) line: {s[:200]!r}")
        self._end.diff = diff

    def _maybe_error(self, s: str) -> None:
        error = log_line(s, usage=not self._errors)
        if error:
            self._add_error(error)
        elif error is not None:
            self._seen |= SEEN_LOG

    def _add_error(self, text: str) -> None:
        text = " ".join(text.split())[:_MAX_ERROR_CHARS]
        if text and text not in self._errors and len(self._errors) < _MAX_ERRORS:
            self._errors.append(text)

    # ------------------------------------------------------------------ summary

    def close(self) -> Summary:
        """The run's summary (see the class docstring for where each value comes from)."""
        points = self._points
        timed = points.timed(self._main) if self._main is not None else None
        finals = {name: txn.last for name, txn in points.txns.items()}
        return summarise(
            self._end, finals, timed, udp=self._udp, errors=self._errors, seen=self._seen
        )


def parse_text_output(
    text: str,
    *,
    threads: int = 1,
    ops_per_iteration: int | None = None,
    main_txn: int | None = 2,
    udp: bool = False,
    known_profiles: Mapping[str, int] | None = None,
) -> tuple[list[Record], Summary]:
    """Parse a whole uperf output (lines split on "\\n") with a ``UperfTextParser(...)``."""
    parser = UperfTextParser(
        threads=threads,
        ops_per_iteration=ops_per_iteration,
        main_txn=main_txn,
        udp=udp,
        known_profiles=known_profiles,
    )
    return feed_text(parser, text)
