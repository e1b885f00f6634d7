"""An iperf3 parser that reads text or JSON output, whichever the first telling line shows."""

from __future__ import annotations

from typing import Final, Literal

from pairbench.domain import Record, Summary
from pairbench.tools.iperf3_json import Iperf3JsonParser
from pairbench.tools.iperf3_text import Iperf3TextParser
from pairbench.tools.iperf3_text_forms import body_offset

__all__ = ["Iperf3AutoParser", "output_kind"]

# Lines that only iperf3's text output has (besides "[ ID] ..." and "[  5] ..." lines).
_TEXT_PREFIXES: Final = (
    "Connecting to host ",
    "Server listening on ",
    "Accepted connection from ",
    "Reverse mode, remote host ",
    "iperf Done.",
    "Usage: iperf3",
    "- - - - ",
    "-----------",
)
# Lines held back before the decision, at most (then the output is taken for text).
MAX_PENDING_LINES: Final = 1000
MAX_PENDING_CHARS: Final = 1 << 20

Kind = Literal["text", "json"]


def output_kind(line: str) -> Kind | None:
    """ "json" or "text" when ``line`` tells which output it belongs to, else None.

    A line that begins with ``{`` is JSON (``-J`` begins with a lone ``{``, ``--json-stream``
    with ``{"event"``); a bracketed stream line or a line of the text's preamble, banner or
    footer is text, also after a time stamp (``--timestamps``). Blank lines, ``warning: ...``
    and ``iperf3: ...`` messages (printed in both modes) and anything else tell nothing.
    """
    text = line.lstrip()
    first = text[:1]
    if first == "{":
        return "json"
    if first == "[" or text.startswith(_TEXT_PREFIXES):
        return "text"
    if not text.startswith("iperf3: ") and len(line) <= 4096:
        offset = body_offset(line)
        if offset > 0 and not line[offset:].startswith("iperf3: "):
            return "text"
    return None


class Iperf3AutoParser:
    """Parser for an iperf3 output file that may be text (any version) or JSON (``-J``, or
    ``--json-stream``), as ``pairbench parse/import iperf3 FILE`` may be given either.

    Lines that tell nothing (see ``output_kind``) are held back until one does; then the
    matching parser (``Iperf3TextParser`` or ``Iperf3JsonParser``) gets the held lines and
    every later one, and its records and summary are this parser's. Output that never tells
    (an error message alone) goes to the text parser at ``close``: both read ``iperf3: ...``
    messages alike. After ``MAX_PENDING_LINES`` undecided lines the output is taken for text.
    """

    __slots__ = ("_parser", "_pending", "_pending_chars")

    def __init__(self) -> None:
        self._parser: Iperf3TextParser | Iperf3JsonParser | None = None
        self._pending: list[str] = []
        self._pending_chars = 0

    @property
    def kind(self) -> Kind | None:
        """Which output this is ("text" or "json"), once decided."""
        if self._parser is None:
            return None
        return "json" if isinstance(self._parser, Iperf3JsonParser) else "text"

    @property
    def parser(self) -> Iperf3TextParser | Iperf3JsonParser | None:
        """The parser the lines go to, once decided."""
        return self._parser

    def feed(self, line: str) -> list[Record]:
        """Parse one line; returns the records it completes (may be empty)."""
        parser = self._parser
        if parser is not None:
            return parser.feed(line)
        kind = output_kind(line)
        if kind is None:
            self._pending.append(line)
            self._pending_chars += len(line)
            if len(self._pending) <= MAX_PENDING_LINES and self._pending_chars <= MAX_PENDING_CHARS:
                return []
            return self._decide("text")[1]
        parser, out = self._decide(kind)
        return out + parser.feed(line)

    def _decide(self, kind: Kind) -> tuple[Iperf3TextParser | Iperf3JsonParser, list[Record]]:
        """Choose the parser and give it the held-back lines (their records are returned)."""
        parser = self._parser = Iperf3JsonParser() if kind == "json" else Iperf3TextParser()
        pending, self._pending, self._pending_chars = self._pending, [], 0
        out: list[Record] = []
        for held in pending:
            out += parser.feed(held)
        return parser, out

    def close(self) -> Summary:
        """The chosen parser's summary (the text parser's when nothing told)."""
        parser = self._parser
        if parser is None:
            parser = self._decide("text")[0]
        return parser.close()
