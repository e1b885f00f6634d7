"""Checks every tool parser's tests share: streaming reassembly, random chunkings, records."""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

from pairbench.domain import Record, Sample, Summary, expand
from pairbench.tools.base import ParseError, Parser
from testkit import FIXTURES


def fixture_text(tool: str, name: str) -> str:
    """A fixture file's text exactly as stored (``\r`` kept: uperf rewrites lines with it)."""
    return (FIXTURES / tool / name).read_bytes().decode("utf-8", errors="replace")


def fixture_names(tool: str, pattern: str = "*.out") -> list[str]:
    """Names of a tool's fixture files matching ``pattern``."""
    return sorted(p.name for p in (FIXTURES / tool).glob(pattern))


def fixture_path(tool: str, name: str) -> Path:
    """The path of a fixture file."""
    return FIXTURES / tool / name


def lines_from_chunks(chunks: Iterable[bytes]) -> tuple[list[str], str | None]:
    """Reassemble byte chunks as a streaming reader does: buffer until "\\n", decode each line.

    Returns the complete lines and the unterminated rest (None when the data ended in "\\n").
    """
    buf = b""
    lines: list[str] = []
    for chunk in chunks:
        buf += chunk
        while True:
            nl = buf.find(b"\n")
            if nl < 0:
                break
            lines.append(buf[:nl].decode("utf-8", "replace"))
            buf = buf[nl + 1 :]
    return lines, (buf.decode("utf-8", "replace") if buf else None)


def random_chunks(data: bytes, rng: random.Random) -> list[bytes]:
    """``data`` cut at up to 40 random places."""
    if len(data) < 2:
        return [data]
    cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(0, 40))))
    bounds = [0, *cuts, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def feed_all(parser: Parser, lines: Iterable[str]) -> tuple[list[Record], Summary]:
    """Feed every line, then close."""
    records: list[Record] = []
    for line in lines:
        records.extend(parser.feed(line))
    return records, parser.close()


def assert_chunking_invariant(
    make_parser: Callable[[], Parser], data: bytes, *, rounds: int = 20, seed: int = 7
) -> None:
    """Any chunking of ``data`` into a stream gives the same records and summary."""
    expected_lines, rest = lines_from_chunks([data])
    expected = feed_all(make_parser(), [*expected_lines, *([rest] if rest else [])])
    rng = random.Random(seed)
    for _ in range(rounds):
        lines, rest = lines_from_chunks(random_chunks(data, rng))
        got = feed_all(make_parser(), [*lines, *([rest] if rest else [])])
        assert got == expected


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
