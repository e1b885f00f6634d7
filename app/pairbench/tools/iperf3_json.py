"""Incremental parser for iperf3's JSON output: ``-J`` documents and ``--json-stream`` events."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

from pairbench.domain import Record, Summary
from pairbench.domain.samples import new_record
from pairbench.tools.base import ParseError, preview
from pairbench.tools.feed import feed_text
from pairbench.tools.iperf3_json_entries import directions, interval_entry, socket_name
from pairbench.tools.iperf3_json_summary import EndSeen, end_figures, json_summary
from pairbench.tools.iperf3_metrics import (
    IntervalTotals,
    RunEnd,
    server_streams,
)
from pairbench.tools.iperf3_text import Iperf3TextParser

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


def _brace_delta(line: str) -> int:
    """How much ``line`` changes the brace depth, braces inside string literals not counted."""
    if '"' in line:
        line = _strip_strings("", line)
    return line.count("{") - line.count("}")


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

    The summary follows the text parser's rules: ``tools.iperf3_json_summary.json_summary``.
    """

    __slots__ = (
        "_accs",
        "_depth",
        "_doc",
        "_doc_chars",
        "_doc_checked",
        "_doc_first_line",
        "_end",
        "_form",
        "_last_t",
        "_line_no",
        "_max_doc",
        "_omitted",
        "_said",
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
        self._said = RunEnd()  # its messages: an error, an interrupt, a peer that ended
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
            self._said.note_line(text)
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
                self._end = end_figures(end)
            error = obj.get("error")
            if error is not None:
                self._said.note(preview(error, 1000))
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
                self._end = end_figures(data)
        elif event == "error":
            if type(data) is not str:
                raise ParseError(f"iperf3 JSON: error event without a message: {text[:200]!r}")
            self._said.note(data)
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
            got = interval_entry(entry, socket_name(entry) if type(entry) is dict else "")
            if got is not None:
                record, dur = got
                found.append((record, dur, False))
                found.append((new_record(Record, ("sum", *record[1:])), dur, True))
            else:
                omitted = type(entry) is dict and entry.get("omitted") is True
        else:
            omitted = directions(interval, streams, found)
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

    def close(self) -> Summary:
        """The run's summary: iperf3's own figures when it gave them, else the intervals'."""
        if self._doc is not None:
            raise ParseError(
                f"iperf3 JSON: the output ended inside the document that began at line"
                f" {self._doc_first_line} (brace depth {self._depth})"
            )
        seen = EndSeen(
            end=self._end,
            accs=self._accs,
            server=self._server,
            interrupted=self._said.interrupted,
            peer_terminated=self._said.peer_terminated,
        )
        return json_summary(seen, error=self._said.error, form=self.form)


def parse_json_output(text: str) -> tuple[list[Record], Summary]:
    """Parse a whole iperf3 JSON output (lines split on "\\n") and return records and summary."""
    return feed_text(Iperf3JsonParser(), text)
