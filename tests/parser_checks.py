"""Checks every tool parser's tests share: fixtures, splitting saved output, records, robustness.

Parsers take lines; how bytes from a pipe or an SSH channel become lines is our transports'
job and is tested there, with real processes (``tests/unit/test_line_reassembly.py``).
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from pairbench.domain import Record, Sample, Summary, expand
from pairbench.tools.base import ParseError, Parser
from pairbench.tools.feed import feed_text
from testkit import FIXTURES


def fixture_text(tool: str, name: str) -> str:
    """A fixture file's text exactly as stored (``\r`` kept: uperf rewrites lines with it)."""
    return (FIXTURES / tool / name).read_bytes().decode("utf-8", errors="replace")


def json_documents(text: str) -> list[dict[str, Any]]:
    """The JSON documents of a fio output (each begins with a line "{"), found independently
    of the parser."""
    decoder = json.JSONDecoder()
    out: list[dict[str, Any]] = []
    i = text.find("{")
    while i >= 0:
        doc, i = decoder.raw_decode(text, i)
        out.append(doc)
        i = text.find("\n{", i)
        i = i + 1 if i >= 0 else -1
    return out


def fixture_names(tool: str, pattern: str = "*.out") -> list[str]:
    """Names of a tool's fixture files matching ``pattern``."""
    return sorted(p.name for p in (FIXTURES / tool).glob(pattern))


def fixture_path(tool: str, name: str) -> Path:
    """The path of a fixture file."""
    return FIXTURES / tool / name


def split_lines(data: bytes) -> tuple[list[str], str | None]:
    """``data`` (e.g. output cut short) split at "\\n", each line decoded with
    ``errors="replace"``: the complete lines and the unterminated rest (None when the data
    ended in "\\n")."""
    *lines, rest = data.split(b"\n")
    return (
        [line.decode("utf-8", "replace") for line in lines],
        rest.decode("utf-8", "replace") if rest else None,
    )


def feed_all(parser: Parser, lines: Iterable[str]) -> tuple[list[Record], Summary]:
    """Feed every line, then close."""
    records: list[Record] = []
    for line in lines:
        records.extend(parser.feed(line))
    return records, parser.close()


def assert_records_well_formed(records: Iterable[Record]) -> None:
    """Typed fields, one value per metric, distinct metric names."""
    for r in records:
        assert isinstance(r, Record)
        assert isinstance(r.stream, str) and isinstance(r.t, float)
        assert len(r.metrics) == len(r.values) == len(set(r.metrics)) > 0
        assert all(isinstance(v, float) for v in r.values)


def series_of(records: Iterable[Record]) -> dict[tuple[str, str], list[tuple[float, float]]]:
    """(stream, metric) -> [(t, value), ...] in feed order."""
    out: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for s in expand(records):
        out[(s.stream, s.metric)].append((s.t, s.value))
    return dict(out)


def feed_garbage(make_parser: Callable[[], Parser], lines: Iterable[str]) -> list[Sample]:
    """Feed lines that may be garbage: only records or ParseError are allowed, then close."""
    parser = make_parser()
    out: list[Record] = []
    for line in lines:
        try:
            out.extend(parser.feed(line))
        except ParseError as exc:
            assert str(exc)
    try:
        parser.close()
    except ParseError as exc:
        assert str(exc)
    return expand(out)


# --------------------------------------------------------------------------- robustness

# A number the text itself spells as not finite ("nan", "-nan%", "Infinity"): a parser may pass
# that on (iperf3 prints "(nan%)" loss for an interval without datagrams); nothing else may
# give a value that is not finite.
_SPELLED_NON_FINITE = re.compile(r"(?i)(?<![a-z])(?:nan|inf(?:inity)?)(?![a-z])")


def feed_lines_robustly(
    make_parser: Callable[[], Parser], lines: Iterable[str]
) -> tuple[list[Record], Summary | None]:
    """Feed every line, going on after each ``ParseError`` (which must say what), then close.

    Any other exception propagates: a parser bug. The summary is None when ``close`` raised
    ``ParseError``.
    """
    parser = make_parser()
    records: list[Record] = []
    for line in lines:
        try:
            records.extend(parser.feed(line))
        except ParseError as exc:
            assert str(exc)
    try:
        return records, parser.close()
    except ParseError as exc:
        assert str(exc)
        return records, None


def assert_values_sane(text: str, records: Iterable[Record], summary: Summary | None) -> None:
    """Well-formed records; times, values and summary values finite unless ``text`` spells
    a non-finite number."""
    records = list(records)
    assert_records_well_formed(records)
    if summary is not None:
        assert all(isinstance(v, float) for v in summary.values.values()), summary
        assert summary.error is None or isinstance(summary.error, str)
    if _SPELLED_NON_FINITE.search(text):
        return
    for r in records:
        assert math.isfinite(r.t) and all(map(math.isfinite, r.values)), r
    if summary is not None:
        assert all(map(math.isfinite, summary.values.values())), summary


def assert_only_parse_error(make_parser: Callable[[], Parser], text: str) -> None:
    """``text`` fed as the application feeds it gives records and a summary, or ParseError.

    Two ways: ``feed_text`` (import, ``pairbench parse``, guessing a dropped file's tool), and
    line by line going on after each ParseError (the live session stops at the first one; going
    on reaches more of the parser's states).
    """
    try:
        records, summary = feed_text(make_parser(), text)
    except ParseError as exc:
        assert str(exc)
    else:
        assert_values_sane(text, records, summary)
    records, maybe_summary = feed_lines_robustly(make_parser, text.split("\n"))
    assert_values_sane(text, records, maybe_summary)


# Mutations of real captures: numbers too big for a float (or an int's string conversion),
# units in other cases and spellings, cuts, injected characters, JSON values of other types.
HUGE_NUMBERS: tuple[str, ...] = (
    "9" * 400,
    "9" * 5000,  # more digits than int() converts
    "1e400",
    "1e308",
    "-1e308",
    "5e-324",
    "18446744073709551616",
    "99999999999999999999999",
    "9" * 40 + "." + "9" * 40,
    "0",
    "00",
    "-1",
    "1.",
    ".5",
    "1.2.3",
    "nan",
    "inf",
    "\u0661\u0662\u0663",  # Arabic-Indic digits: regex \d and int() take them
    "\u00b2",  # a superscript two: str.isdigit() says yes, int() says no
)
UNIT_SPELLINGS: tuple[str, ...] = (
    *("B", "kB", "KB", "MB", "GB", "TB", "PB", "EB", "ZB", "iB"),
    *("KiB", "kiB", "KIB", "kib", "MiB", "miB", "mib", "GiB", "gib", "TiB", "PiB", "EiB"),
    *("bit", "kbit", "Kibit", "Mibit", "Mbit", "b", "Kb", "kb", "Mb", "mb", "mB", "Zb"),
    *("K", "k", "M", "m", "G", "g", "T", "P", "E", "Z", "i"),
    *("bits", "Kbits", "kbits", "Tbits", "Pbits", "Bytes", "KBytes", "kBytes", "PBytes"),
    *("sec", "usec", "Usec", "nsec", "msec", "s", "ms", "us", "ns", "NS", "Ms"),
)
INJECTIONS: tuple[str, ...] = (
    *("\r", "\x00", "\ufffd", "{", "}", "[", "]", '"', "\\", " ", "\t", "\n", "%", "=", ":"),
    *("/", "-", "e", "\u00e9", "\u0663", "\u00b2", "\U0001d7d7", "\u2028", "\x85", "\x0c"),
    "[" * 990,  # deep JSON nesting
    '{"a": ' * 700,
    "\r" * 50,
)
JSON_VALUES: tuple[str, ...] = (
    *("null", '"text"', "[]", "{}", "true", "-1", "1e308", "-1e308", "5e-324", "1e999"),
    *("NaN", "Infinity", "18446744073709551617", "9" * 400, "[" * 900 + "]" * 900),
)
_NUMBER_RE = re.compile(r"\d+(?:\.\d+)?")
# A unit right after a number ("142MiB/s", "1.0 GBytes", "0.063 ms").
_UNIT_RE = re.compile(r"(?:(?<=\d)|(?<=\d ))[A-Za-z]{1,6}(?=[/ ,)\]]|$)", re.MULTILINE)
_JSON_MEMBER_RE = re.compile(r'"[\w ]+" ?: ?[^,\n{}\[\]]+')


# The mutations by number (see mutated_text), numbers and units more often than the rest.
_OPS: tuple[int, ...] = (0, 0, 1, 2, 2, 2, 3, 3, 4, 5, 6, 7, 8, 8, 9)


def _pick(draw: st.DrawFn, matches: list[re.Match[str]]) -> re.Match[str] | None:
    return matches[draw(st.integers(0, len(matches) - 1))] if matches else None


def _replace(text: str, m: re.Match[str] | None, new: str) -> str:
    return text if m is None else text[: m.start()] + new + text[m.end() :]


@st.composite
def mutated_text(draw: st.DrawFn, texts: Sequence[str]) -> str:
    """One of ``texts`` with 1 to 4 mutations (see ``HUGE_NUMBERS`` and the others above)."""
    text = draw(st.sampled_from(texts))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(_OPS))
        if op == 0:  # one number
            m = _pick(draw, list(_NUMBER_RE.finditer(text)))
            text = _replace(text, m, draw(st.sampled_from(HUGE_NUMBERS)))
        elif op == 1:  # every number of one line
            lines = text.split("\n")
            i = draw(st.integers(0, len(lines) - 1))
            huge = draw(st.sampled_from(HUGE_NUMBERS))
            lines[i] = _NUMBER_RE.sub(huge, lines[i])
            text = "\n".join(lines)
        elif op in (2, 3):  # one unit, or every one spelled alike (as one run would print it)
            m = _pick(draw, list(_UNIT_RE.finditer(text)))
            if m is not None:
                unit = m.group(0)
                variants = (unit.swapcase(), unit.lower(), unit.upper(), "k" + unit[1:], unit[1:])
                new = draw(st.sampled_from(variants if draw(st.booleans()) else UNIT_SPELLINGS))
                if op == 2:
                    text = _replace(text, m, new)
                else:
                    pattern = r"(?:(?<=\d)|(?<=\d ))" + re.escape(unit) + r"(?=[/ ,)\]]|$)"
                    text = re.sub(pattern, new, text, flags=re.MULTILINE)
        elif op == 4:  # cut the end or the beginning
            cut = draw(st.integers(0, len(text)))
            text = text[:cut] if draw(st.booleans()) else text[cut:]
        elif op == 5:  # inject
            at = draw(st.integers(0, len(text)))
            text = text[:at] + draw(st.sampled_from(INJECTIONS)) + text[at:]
        elif op == 6:  # delete a span
            at = draw(st.integers(0, len(text)))
            text = text[:at] + text[at + draw(st.integers(1, 60)) :]
        elif op == 7:  # repeat or swap lines
            lines = text.split("\n")
            i = draw(st.integers(0, len(lines) - 1))
            j = draw(st.integers(0, len(lines) - 1))
            if draw(st.booleans()):
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif op == 8:  # a JSON member's value of another type, or the member gone
            m = _pick(draw, list(_JSON_MEMBER_RE.finditer(text)))
            if m is not None:
                key = m.group(0).split(":", 1)[0]
                new = draw(st.sampled_from(("", *(f"{key}: {v}" for v in JSON_VALUES))))
                text = _replace(text, m, new)
        elif text:  # one character changed
            at = draw(st.integers(0, len(text) - 1))
            text = text[:at] + draw(st.characters()) + text[at + 1 :]
    return text


# Arbitrary text: lines of any characters, or undecodable bytes as a reader decodes them.
arbitrary_text = st.one_of(
    st.lists(st.text(max_size=200), max_size=20).map("\n".join),
    st.binary(max_size=2000).map(lambda b: b.decode("utf-8", "replace")),
)
