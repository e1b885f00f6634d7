"""Incremental parser for iperf3's JSON output: ``-J`` documents and ``--json-stream`` events."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from typing import Any, Final

from pairbench.domain import Record, Summary
from pairbench.tools.base import ParseError, preview
from pairbench.tools.feed import feed_text
from pairbench.tools.iperf3_metrics import (
    JITTER,
    LOST,
    LOST_PERCENT,
    PACKETS,
    REASON_OLD_UDP_JSON,
    RETRANSMITS,
    SENDER_THROUGHPUT,
    TCP_RECV,
    TCP_SEND,
    TCP_SUM_SEND,
    THROUGHPUT,
    THROUGHPUT_REVERSE,
    UDP_RECV,
    UDP_SEND,
    IntervalTotals,
)
from pairbench.tools.iperf3_text import Iperf3TextParser, server_streams

__all__ = ["MAX_DOCUMENT_CHARS", "Iperf3JsonParser", "parse_json_output"]

# The largest ``-J`` document (or ``--json-stream`` event line) accepted, in characters
# (newlines included). A 1 s interval of iperf3 3.12's -J is about 600 characters with one TCP
# stream and 950 with two, so this is some 30 (or 20) hours of it; longer runs belong to
# ``--json-stream`` (one line per interval) or text. Beyond it the document is dropped with a
# ParseError rather than held in memory.
MAX_DOCUMENT_CHARS: Final = 64 * 1024 * 1024

# A JSON string literal on one line (JSON strings cannot span lines), or an unterminated one up
# to the end of the line. Possessive, so it cannot backtrack; removing them leaves the braces
# that count for the document's nesting depth.
_STRING_RE: Final = re.compile(r'"(?:[^"\\]++|\\.?)*+(?:"|\Z)', re.DOTALL)
_strip_strings: Final = _STRING_RE.sub

# Aggregates of an interval: JSON key -> stream name. "sum" is the forward direction (client to
# server data) on both sides: iperf3 fills it first (TX-C on the client, RX-S on the server),
# and "sum_bidir_reverse" (--bidir only) holds the other direction, as the text parser's
# "sum" / "sum-reverse".
_AGGREGATES: Final = (("sum", "sum"), ("sum_bidir_reverse", "sum-reverse"))

# The summary figures read from ``end`` (every one optional).
_END_KEYS: Final = (
    "sum_received",
    "sum_sent",
    "sum",
    "sum_received_bidir_reverse",
    "sum_sent_bidir_reverse",
)
_END_FIELDS: Final = (
    "bits_per_second",
    "retransmits",
    "jitter_ms",
    "lost_packets",
    "packets",
    "lost_percent",
)

# The collected size of a document is checked every this many + 1 lines (and at its end).
_SIZE_CHECK_MASK: Final = 0x3FF

# The C scanner behind ``json.loads``, called directly for event lines: a quarter of the time
# of ``json.loads`` on a typical interval event (it skips two Python-level calls).
_decoder: Any = json.JSONDecoder()  # (typeshed does not declare scan_once)
_scan_once: Final[Callable[[str, int], tuple[object, int]]] = _decoder.scan_once


def _loads_line(text: str) -> object:
    """``json.loads(text)`` for a line that starts with its value (no leading whitespace)."""
    try:
        obj, end = _scan_once(text, 0)
    except StopIteration as exc:
        raise ValueError(f"Expecting value: char {exc.value}") from None
    if end != len(text) and not text[end:].isspace():
        raise ValueError(f"Extra data: char {end}")
    return obj


# ``tuple.__new__(Record, ...)`` builds a real Record about twice as fast as ``Record(...)``.
_new_record: Final[
    Callable[[type[Record], tuple[str, float, tuple[str, ...], tuple[float, ...]]], Record]
] = tuple.__new__

# Stream names for socket numbers ("5", "7", ...), made once.
_SOCKET_NAMES: Final[dict[int, str]] = {}


class _Skip(Exception):
    """An interval entry without a usable figure (JSON ``null``, iperf3's NaN): no record."""


# iperf3's counters are 64-bit; a figure beyond ±2^64 (or not finite) is not iperf3's, and
# keeping to this range keeps every sum and product of figures finite.
_MAX_NUMBER: Final = float(2**64)
_MAX_INT: Final = 2**64


def _num(value: object) -> float:
    """A JSON number as a float; ``null`` skips the entry; anything else is not iperf3's."""
    if type(value) is float:
        if -_MAX_NUMBER <= value <= _MAX_NUMBER:  # so finite (cJSON prints NaN as null)
            return value
        raise ParseError(f"iperf3 JSON: a finite number was expected, not {value!r}")
    if type(value) is int:
        if -_MAX_INT <= value <= _MAX_INT:
            return float(value)
        raise ParseError(f"iperf3 JSON: number out of range: {preview(value, 80)!r}")
    if value is None:
        raise _Skip
    raise ParseError(f"iperf3 JSON: a number was expected, not {preview(value, 80)!r}")


def _brace_delta(line: str) -> int:
    """How much ``line`` changes the brace depth, braces inside string literals not counted."""
    if '"' in line:
        line = _strip_strings("", line)
    return line.count("{") - line.count("}")


def _socket_name(entry: dict[str, object]) -> str:
    sock = entry.get("socket")
    if type(sock) is not int:
        raise ParseError(f"iperf3 JSON: stream without a socket number: {preview(entry)!r}")
    name = _SOCKET_NAMES.get(sock)
    if name is None:
        name = str(sock)
        if len(_SOCKET_NAMES) < 4096:
            _SOCKET_NAMES[sock] = name
    return name


def _entry(entry: object, key: str) -> tuple[Record, float] | None:
    """The record of one interval entry (a stream or a sum) and its interval length, or None.

    None for an ``omitted`` entry (``-O``), a zero-length one (see ``Iperf3JsonParser``) and
    one whose figures are ``null``. The metrics tuple is chosen by the keys present, as the
    text parser chooses by the columns printed.
    """
    if type(entry) is not dict:
        raise ParseError(f"iperf3 JSON: an interval entry is not an object: {preview(entry)!r}")
    try:
        if entry.get("omitted") is True:
            return None
        start = _num(entry["start"])
        t = _num(entry["end"])
        if t - start < 0.01 and f"{start:.2f}" == f"{t:.2f}":
            return None  # what the text shows as "5.00-5.00": no record there either
        rate = _num(entry["bits_per_second"])
        metrics: tuple[str, ...]
        values: tuple[float, ...]
        if "jitter_ms" in entry:
            metrics = UDP_RECV
            values = (
                rate,
                _num(entry["jitter_ms"]),
                _num(entry["lost_packets"]),
                _num(entry["packets"]),
                _num(entry["lost_percent"]),
            )
        elif "packets" in entry:
            metrics, values = UDP_SEND, (rate, _num(entry["packets"]))
        elif "retransmits" in entry:
            if "snd_cwnd" in entry:
                metrics = TCP_SEND
                values = (rate, _num(entry["retransmits"]), _num(entry["snd_cwnd"]))
            else:
                metrics, values = TCP_SUM_SEND, (rate, _num(entry["retransmits"]))
        else:
            metrics, values = TCP_RECV, (rate,)
    except _Skip:
        return None
    except KeyError as exc:
        raise ParseError(
            f"iperf3 JSON: interval entry without {exc.args[0]!r}: {preview(entry)!r}"
        ) from None
    return _new_record(Record, (key, t, metrics, values)), t - start


class Iperf3JsonParser:
    """Parser for iperf3's JSON output, fed line by line like any other.

    Two forms, told apart per line:

    * ``-J`` (every version): one pretty-printed document ``{start, intervals, end[, error]}``
      spread over many lines; it starts at a line that is a lone ``{`` (as iperf3 prints it)
      and ends where the brace depth, counted outside string literals, is back to 0. The
      whole document is decoded then, so its records all come at its last line (3.12 prints
      it only when the test ends anyway). Any other line that begins with ``{`` must be a
      whole document (compact JSON) or an event. Lines outside documents (stderr merged in,
      e.g. ``warning: UDP block size ...``) are ignored, except ``iperf3: ...`` messages, read
      as the text parser reads them. A document over ``max_document_chars`` is a ParseError;
      so is output that ends inside a document (at ``close``), and JSON that iperf3 does not
      print (a string for a number, NaN or infinities, which cJSON prints as ``null``).
    * ``--json-stream`` (iperf3 >= 3.17): one event per line, ``{"event": "start" |
      "interval" | "end" | "error", "data": ...}``; an interval event's records come at once.

    Records are those of the text parser (``Iperf3TextParser``), one per stream per interval
    plus the aggregates, with the same metrics tuples chosen by the keys present: a TCP sender
    stream gives ``throughput_bps``, ``retransmits``, ``cwnd_bytes`` (``snd_cwnd``); a TCP
    sender ``sum`` the first two; a receiving TCP stream ``throughput_bps``; a UDP sender
    ``throughput_bps``, ``packets``; a UDP receiver ``throughput_bps``, ``jitter_ms``,
    ``lost_packets``, ``packets``, ``lost_percent``. Streams are the socket numbers ("5",
    "7", ...) and "sum" (from ``sum``) and, with --bidir, "sum-reverse" (from
    ``sum_bidir_reverse``). With one stream in a direction the aggregate is a copy of that
    stream's record (cwnd included), as in the text parser, where iperf3 prints no [SUM] line.

    Values are iperf3's own numbers, exactly. So is ``t``: the entry's ``end``, in seconds
    since the test started, e.g. 1.003872, where the text shows the same time rounded to
    ``1.00``; the records of one interval can differ in ``t`` by microseconds (each stream
    keeps its own clock). Skipped, as in the text parser: ``omitted`` entries (``-O``, counted
    in ``omitted_intervals`` per interval), zero-length ones (those the text would print as
    ``5.00-5.00``: start and end equal to 2 decimals), entries that do not advance their
    stream's time, and entries with a ``null`` figure (iperf3 prints NaN as null).

    The summary follows the text parser's rules, from ``end``: ``throughput_bps`` is
    ``sum_received`` (the receiver's figure; complete); ``sender_throughput_bps`` and
    ``retransmits`` come from ``sum_sent``; UDP adds ``jitter_ms``, ``lost_packets``,
    ``packets``, ``lost_percent`` from ``sum_received`` (``end.sum`` when it lacks them, as
    before 3.8; ``end.sum`` has the same jitter and loss but the sender's datagram count, while
    the text's "Lost/Total" and ``sum_received`` give the receiver's); --bidir adds
    ``throughput_reverse_bps`` from ``sum_received_bidir_reverse``. A figure of 0 is taken for
    "not known" after an interrupt (``"error": "interrupt - ..."``: the peer's figures never
    came) and on the server, which then gives its own ``sum_sent`` figure; after "the client
    has terminated" (server) no figure is trusted. Without a usable receiver figure the
    summary is incomplete and derived from the intervals. ``error`` is iperf3's ``error`` (an
    error event, or an ``iperf3: error - ...`` line); iperf3 3.12 exits 0 with ``-J`` even
    when it could not connect. A new document or start event begins a new test (a server
    prints one document per test): the summary is about the last one.
    """

    __slots__ = (
        "_accs",
        "_depth",
        "_doc",
        "_doc_chars",
        "_doc_checked",
        "_doc_first_line",
        "_end",
        "_error",
        "_form",
        "_interrupted",
        "_last_t",
        "_line_no",
        "_max_doc",
        "_omitted",
        "_peer_terminated",
        "_server",
        "_server_output",
        "_tests",
    )

    def __init__(self, *, max_document_chars: int = MAX_DOCUMENT_CHARS) -> None:
        self._max_doc = max_document_chars
        self._doc: list[str] | None = None  # the lines of the -J document being collected
        self._doc_chars = 0  # characters of the document's lines counted so far (newlines too)
        self._doc_checked = 0  # how many of its lines are counted
        self._doc_first_line = 0
        self._depth = 0
        self._line_no = 0
        self._omitted = 0
        self._tests = 0  # documents and start events seen
        self._form = ""  # "json" (-J documents) or "json-stream" (events), once seen
        # True once --get-server-output's server output came (read as "server-" streams);
        # None in the parser that reads that output (it reads no server output of its own).
        self._server_output: bool | None = False
        self._reset()

    def _reset(self) -> None:
        self._server = False
        self._interrupted = False
        self._peer_terminated = False
        self._error: str | None = None
        self._last_t: dict[str, float] = {}
        self._accs: dict[str, IntervalTotals] = {}
        self._end: dict[str, dict[str, float]] = {}

    @property
    def omitted_intervals(self) -> int:
        """How many intervals with ``"omitted": true`` entries (iperf3 ``-O``) were skipped."""
        return self._omitted

    @property
    def is_server(self) -> bool:
        """True once the output is recognised as the server's (``start.accepted_connection``)."""
        return self._server

    def feed(self, line: str) -> list[Record]:
        """Parse one line; returns the records it completes (may be empty)."""
        doc = self._doc
        if doc is not None:  # inside a -J document: nearly every line of it
            doc.append(line)
            if "{" in line or "}" in line:
                return self._brace_line(doc, line)
            if not len(doc) & _SIZE_CHECK_MASK:
                self._check_size(doc)
            return []
        self._line_no += 1
        text = line.lstrip()
        if text[:1] == "{":
            if len(line) >= self._max_doc:
                raise ParseError(
                    f"iperf3 JSON: line {self._line_no} exceeds {self._max_doc} characters"
                )
            if text.startswith('{"event"'):
                return self._event(text)
            self._doc_first_line = self._line_no
            if text.rstrip() == "{":  # how iperf3 begins a -J document
                self._doc = [line]
                self._doc_chars = self._doc_checked = 0
                self._depth = 1
                return []
            return self._document(text)  # a whole document on one line (compact JSON)
        if text.startswith("iperf3: "):
            self._tool_message(text)
        return []

    def _brace_line(self, doc: list[str], line: str) -> list[Record]:
        """A document line with a brace: the depth changes, the document may end."""
        depth = self._depth + _brace_delta(line)
        if depth > 0:
            self._depth = depth
            if not len(doc) & _SIZE_CHECK_MASK:
                self._check_size(doc)
            return []
        self._doc = None
        self._line_no += len(doc) - 1
        text = "\n".join(doc)
        if len(text) >= self._max_doc:
            raise self._too_big()
        return self._document(text)

    def _check_size(self, doc: list[str]) -> None:
        """Count the characters collected since the last check; too many: drop the document."""
        n = len(doc)
        self._doc_chars += sum(map(len, doc[self._doc_checked :])) + n - self._doc_checked
        self._doc_checked = n
        if self._doc_chars >= self._max_doc:
            self._doc = None
            self._line_no += n - 1
            raise self._too_big()

    def _too_big(self) -> ParseError:
        return ParseError(
            f"iperf3 JSON: the document that began at line {self._doc_first_line} exceeds"
            f" {self._max_doc} characters"
        )

    def _tool_message(self, text: str) -> None:
        """An ``iperf3: ...`` line (stderr, or a 3.12 option error): as the text parser does."""
        msg = text[8:].rstrip()
        if msg.startswith("error - "):
            msg = msg[8:]
        self._note_error(msg)

    def _note_error(self, msg: str) -> None:
        if msg.startswith("interrupt - "):
            self._interrupted = True  # (client) see _figure
        elif msg in ("the client has terminated", "the server has terminated"):
            self._peer_terminated = True  # see _figure
        if self._error is None:
            self._error = msg

    def _load(self, text: str, what: str, *, event: bool = False) -> dict[str, object]:
        try:
            obj = _loads_line(text) if event else json.loads(text)
        except (ValueError, RecursionError) as exc:
            detail = str(exc)[:120]
            raise ParseError(f"iperf3 JSON: invalid {what}: {detail}: {text[:200]!r}") from None
        if type(obj) is not dict:
            raise ParseError(f"iperf3 JSON: {what} is not an object: {text[:200]!r}")
        return obj

    def _begin_test(self) -> None:
        if self._tests:
            self._reset()
        self._tests += 1

    @property
    def form(self) -> str:
        """The output form seen so far: "json" or "json-stream" ("" before either)."""
        if self._form and self._server_output:
            return f"{self._form} --get-server-output"
        return self._form

    def _document(self, text: str) -> list[Record]:
        """A whole ``-J`` document: every interval's records; keeps its summary figures."""
        what = f"JSON document (lines {self._doc_first_line}-{self._line_no})"
        obj = self._load(text, what)
        self._form = "json"
        return self._take_document(obj, what)

    def _take_document(self, obj: dict[str, object], what: str) -> list[Record]:
        """The records and summary figures of a decoded ``-J`` document."""
        self._begin_test()
        try:
            self._start(obj.get("start"))
            intervals = obj.get("intervals", [])
            if type(intervals) is not list:
                raise ParseError(f"iperf3 JSON: 'intervals' is not a list in the {what}")
            records: list[Record] = []
            for interval in intervals:
                records += self._interval(interval)
            end = obj.get("end")
            if end is not None:
                self._end = self._end_figures(end)
            error = obj.get("error")
            if error is not None:
                self._note_error(preview(error, 1000))
            if self._server_output is not None:
                for key in ("server_output_text", "server_output_json"):
                    if key in obj:
                        records += self._server_part(key, obj[key])
        except ParseError:
            self._reset()  # none of this document's records was given: forget all of it
            raise
        return records

    def _event(self, text: str) -> list[Record]:
        """One ``--json-stream`` event line."""
        obj = self._load(text, f"event (line {self._line_no})", event=True)
        self._form = "json-stream"
        event = obj.get("event")
        data = obj.get("data")
        if event == "interval":
            return self._interval(data)
        if (
            event in ("server_output_text", "server_output_json")
            and self._server_output is not None
        ):
            return self._server_part(str(event), data)
        if event == "start":
            self._begin_test()
            self._start(data)
        elif event == "end":
            if data is not None:
                self._end = self._end_figures(data)
        elif event == "error":
            if type(data) is not str:
                raise ParseError(f"iperf3 JSON: error event without a message: {text[:200]!r}")
            self._note_error(data)
        # Other events carry nothing we keep.
        return []

    def _server_part(self, key: str, part: object) -> list[Record]:
        """--get-server-output: the server's text or JSON output, as "server-" streams."""
        self._server_output = True
        if key == "server_output_text":
            if type(part) is not str:
                raise ParseError(f"iperf3 JSON: {key} is not a string: {preview(part)!r}")
            text_parser = Iperf3TextParser(server_section=True)
            records: list[Record] = []
            for line in part.split("\n"):
                records += text_parser.feed(line)
            return server_streams(records)
        if type(part) is not dict:
            raise ParseError(f"iperf3 JSON: {key} is not an object: {preview(part)!r}")
        json_parser = Iperf3JsonParser()
        json_parser._server_output = None  # one level: the server's has none of its own
        return server_streams(json_parser._take_document(part, key))

    def _start(self, start: object) -> None:
        if start is None:
            return
        if type(start) is not dict:
            raise ParseError(f"iperf3 JSON: 'start' is not an object: {preview(start)!r}")
        if "accepted_connection" in start:
            self._server = True

    def _interval(self, interval: object) -> list[Record]:
        """The records of one interval object, in the text's order; state changes only on success.

        Per direction: its streams, then its aggregate ("sum" first, then "sum-reverse").
        """
        if type(interval) is not dict:
            raise ParseError(f"iperf3 JSON: an interval is not an object: {preview(interval)!r}")
        streams = interval.get("streams", [])
        if type(streams) is not list:
            raise ParseError(f"iperf3 JSON: 'streams' is not a list: {preview(interval)!r}")
        omitted = False
        found: list[tuple[Record, float, bool]] = []  # record, its length, is an aggregate
        if len(streams) == 1 and "sum_bidir_reverse" not in interval:
            # The usual case: one stream, copied to "sum" (iperf3's own sum is the same data).
            entry = streams[0]
            got = _entry(entry, _socket_name(entry) if type(entry) is dict else "")
            if got is not None:
                record, dur = got
                found.append((record, dur, False))
                found.append((_new_record(Record, ("sum", *record[1:])), dur, True))
            else:
                omitted = type(entry) is dict and entry.get("omitted") is True
        else:
            omitted = self._directions(interval, streams, found)
        if not found:
            if omitted:
                self._omitted += 1
            return []
        if omitted:
            self._omitted += 1
        # Commit: drop entries that do not advance their stream's time, add up the aggregates.
        last_t = self._last_t
        out: list[Record] = []
        for record, dur, aggregate in found:
            key, t = record[0], record[1]
            last = last_t.get(key)
            if last is not None and t <= last:
                continue  # a repeated interval (server side, interrupted client)
            last_t[key] = t
            out.append(record)
            if aggregate:
                acc = self._accs.get(key)
                if acc is None:
                    acc = self._accs[key] = IntervalTotals()
                acc.add(record.metrics, record.values, dur)
        return out

    def _directions(
        self,
        interval: dict[str, object],
        streams: list[object],
        found: list[tuple[Record, float, bool]],
    ) -> bool:
        """Fill ``found`` for several streams or --bidir; True when an entry was omitted."""
        omitted = False
        entries: list[tuple[object, tuple[Record, float] | None]] = []
        for entry in streams:
            if type(entry) is not dict:
                raise ParseError(f"iperf3 JSON: a stream is not an object: {preview(entry)!r}")
            got = _entry(entry, _socket_name(entry))
            omitted = omitted or entry.get("omitted") is True
            entries.append((entry.get("sender"), got))
        bidir = "sum_bidir_reverse" in interval
        used = [False] * len(entries)
        for json_key, name in _AGGREGATES:
            total = interval.get(json_key)
            if total is None:
                continue
            if type(total) is not dict:
                raise ParseError(f"iperf3 JSON: {json_key!r} is not an object")
            sender = total.get("sender")
            members = [
                i
                for i, (flag, _) in enumerate(entries)
                if not used[i] and (not bidir or flag is sender)
            ]
            for i in members:
                used[i] = True
                got = entries[i][1]
                if got is not None:
                    found.append((got[0], got[1], False))
            if len(members) == 1:  # one stream in this direction: its copy (text: no [SUM])
                got = entries[members[0]][1]
                if got is not None:
                    found.append((_new_record(Record, (name, *got[0][1:])), got[1], True))
                continue
            omitted = omitted or total.get("omitted") is True
            got = _entry(total, name)
            if got is not None:
                found.append((got[0], got[1], True))
        for i, (_, got) in enumerate(entries):  # streams of no aggregate (not iperf3's output)
            if not used[i] and got is not None:
                found.append((got[0], got[1], False))
        return omitted

    @staticmethod
    def _end_figures(end: object) -> dict[str, dict[str, float]]:
        """The summary figures of ``end``: key -> {field: value} for the fields present."""
        if type(end) is not dict:
            raise ParseError(f"iperf3 JSON: 'end' is not an object: {preview(end)!r}")
        out: dict[str, dict[str, float]] = {}
        for key in _END_KEYS:
            part = end.get(key)
            if part is None:
                continue
            if type(part) is not dict:
                raise ParseError(f"iperf3 JSON: end.{key} is not an object: {preview(part)!r}")
            figures: dict[str, float] = {}
            for field in _END_FIELDS:
                if field in part:
                    with contextlib.suppress(_Skip):
                        figures[field] = _num(part[field])
            out[key] = figures
        return out

    def _figure(self, key: str) -> dict[str, float] | None:
        """A usable summary part of ``end`` (with a rate), or None (absent or known bogus)."""
        part = self._end.get(key)
        if part is None or "bits_per_second" not in part or self._peer_terminated:
            # "the client has terminated" (server) or "the server has terminated" (client: its
            # server was stopped first) follows figures computed over the wrong span, and the
            # client's sum_received is then 0: figures never sent to it.
            return None
        if part["bits_per_second"] == 0.0 and (
            self._interrupted or self._server or self._unreported(key, part)
        ):
            # After an interrupt the figures that never came back from the peer are 0; the
            # server cannot know the client's side either.
            return None
        return part

    def _unreported(self, key: str, part: dict[str, float]) -> bool:
        """A received figure of zero beside a sent figure that is not: the receiver's figures
        never came (however the run ended). UDP with datagrams counted (all lost) is a real
        zero."""
        if not key.startswith("sum_received"):
            return False
        udp = part if "lost_packets" in part else self._end.get("sum") or {}
        if part.get("packets", 0.0) > 0.0 or udp.get("lost_packets", 0.0) > 0.0:
            return False
        sent = self._end.get(key.replace("sum_received", "sum_sent"))
        return sent is not None and sent.get("bits_per_second", 0.0) > 0.0

    def close(self) -> Summary:
        """The run's summary: iperf3's own figures when it gave them, else the intervals'."""
        if self._doc is not None:
            raise ParseError(
                f"iperf3 JSON: the output ended inside the document that began at line"
                f" {self._doc_first_line} (brace depth {self._depth})"
            )
        values: dict[str, float] = {}
        recv = self._figure("sum_received")
        send = self._figure("sum_sent")
        complete = False
        reason: str | None = None
        if recv is not None:
            complete = True
            values[THROUGHPUT] = recv["bits_per_second"]
            udp = recv if "jitter_ms" in recv else self._end.get("sum")
            if udp is not None and "jitter_ms" in udp:
                values[JITTER] = udp["jitter_ms"]
                values[LOST] = udp.get("lost_packets", 0.0)
                values[PACKETS] = udp.get("packets", 0.0)
                values[LOST_PERCENT] = udp.get("lost_percent", 0.0)
        elif send is not None and self._server:
            complete = True  # a sending server (client used -R): its own figure
            values[THROUGHPUT] = send["bits_per_second"]
        elif self._old_udp_client(values):
            reason = REASON_OLD_UDP_JSON
        else:
            self._from_intervals(values)
        if send is not None:
            values[SENDER_THROUGHPUT] = send["bits_per_second"]
            if "retransmits" in send:
                values[RETRANSMITS] = send["retransmits"]
        rrecv = self._figure("sum_received_bidir_reverse")
        rsend = self._figure("sum_sent_bidir_reverse")
        if rrecv is not None:
            values[THROUGHPUT_REVERSE] = rrecv["bits_per_second"]
        elif rsend is not None and self._server:
            values[THROUGHPUT_REVERSE] = rsend["bits_per_second"]
        else:
            acc = self._accs.get("sum-reverse")
            if acc is not None and acc.dur > 0.0:
                values[THROUGHPUT_REVERSE] = acc.weighted / acc.dur
        return Summary(
            values=values, complete=complete, error=self._error, form=self.form, reason=reason
        )

    def _old_udp_client(self, values: dict[str, float]) -> bool:
        """A UDP client's ``end.sum`` before 3.8 (no ``sum_received``): the sender's rate and
        the receiver's jitter and loss into ``values``; False if the end is not that."""
        part = self._end.get("sum")
        if self._server or part is None or "jitter_ms" not in part or "bits_per_second" not in part:
            return False
        if "sum_received" in self._end or self._peer_terminated or self._interrupted:
            return False
        values[SENDER_THROUGHPUT] = part["bits_per_second"]
        values[JITTER] = part["jitter_ms"]
        values[LOST] = part.get("lost_packets", 0.0)
        values[PACKETS] = part.get("packets", 0.0)
        values[LOST_PERCENT] = part.get("lost_percent", 0.0)
        return True

    def _from_intervals(self, values: dict[str, float]) -> None:
        acc = self._accs.get("sum")
        if acc is not None:
            acc.fold_into(values)


def parse_json_output(text: str) -> tuple[list[Record], Summary]:
    """Parse a whole iperf3 JSON output (lines split on "\\n") and return records and summary."""
    return feed_text(Iperf3JsonParser(), text)
