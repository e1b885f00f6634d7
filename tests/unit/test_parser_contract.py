"""The parser contract every tool of the registry passes, its live parsers and its file parser.

For every tool ``T`` in ``pairbench.tools.registry.TOOLS`` (a tool without a golden module,
``tests/unit/test_T_forms.py`` with ``GOLDENS``, fails here):

(a) goldens: every recorded capture parses, with the file parser (import, ``pairbench parse``),
    to its golden (``GOLDENS.check``), and has its ``.cmd``;
(b) chunking: a capture's bytes cut at random places and read by our transport's line
    reassembly give the same samples and summary as its lines read whole, live and file parser;
(c) fuzz: garbled, truncated, random and over-long input gives records and a summary or
    ``ParseError`` (the one error a parser declares), never anything else, in bounded time;
(d) unknown version: a capture whose version banner names a future version is read as before,
    or refused with a ``ParseError`` naming it, as the tool's golden module declares.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pairbench.tools
from pairbench.domain import Record, Summary, expand
from pairbench.tools.base import ParseError, Parser
from pairbench.tools.feed import feed_text
from pairbench.tools.registry import TOOLS
from parser_checks import (
    arbitrary_text,
    assert_only_parse_error,
    assert_values_sane,
    feed_lines_robustly,
    mutated_text,
)
from parser_contract import (
    OUTPUT_SUFFIXES,
    Goldens,
    feed_lines,
    goldens,
    random_chunks,
    reassembled_lines,
    same,
)

DATA = Path(__file__).resolve().parents[1] / "data"
# Real outputs besides the golden captures that the fuzz starts from too.
MORE_OUTPUTS = (DATA / "robustness", DATA / "fixtures")
CHUNKINGS = 2  # random cuttings of every capture
FUZZ = settings(
    max_examples=120,
    derandomize=True,  # the same inputs every run: a seeded generator, a fixed count
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# A parser that loops forever fails here instead of stalling the suite.
HANG_GUARD = pytest.mark.timeout(120)


def _capture_cases() -> list[object]:
    """(tool, capture) of every capture of every tool; a tool without goldens gives a case
    that fails."""
    cases: list[object] = []
    for tool in sorted(TOOLS):
        try:
            names = goldens(tool).capture_files()
        except ImportError:
            names = [f"<no test_{tool}_forms.GOLDENS>"]
        cases += [pytest.param(tool, name, id=f"{tool}/{name}") for name in names]
    return cases


Outcome = tuple[list[Record], Summary] | ParseError


def outcome(make: Callable[[], Parser], lines: list[str]) -> Outcome:
    """What a new parser gives for ``lines``: records and summary, or the ParseError."""
    try:
        return feed_lines(make(), lines)
    except ParseError as exc:
        return exc


def whole_lines(text: str) -> list[str]:
    """``text`` split at "\\n" as ``feed_text`` splits it (import, ``pairbench parse``)."""
    return text.split("\n")


def comparable(result: Outcome) -> object:
    """Samples and summary, or the error's message."""
    if isinstance(result, ParseError):
        return ("ParseError", str(result))
    records, summary = result
    return expand(records), summary


def parsers_of(tool: str, name: str) -> dict[str, Callable[[], Parser]]:
    """The file parser, and the live parser the engine makes for the capture's run."""
    g = goldens(tool)
    return {"file": TOOLS[tool].file_parser, "live": lambda: g.live_parser(name)}


# --------------------------------------------------------------------------- (a) goldens


def test_every_tool_has_its_goldens() -> None:
    for tool in TOOLS:
        g = goldens(tool)  # ImportError: the tool has no tests/unit/test_<tool>_forms.py
        assert g.capture_files(), f"{tool}: no captures in {g.folder}"
        assert sorted(g.names) == g.capture_files(), f"{tool}: goldens and captures differ"
        assert g.parts, f"{tool}: no parser classes declared"
        assert g.versions, f"{tool}: no version behaviour declared"


@pytest.mark.parametrize(("tool", "name"), _capture_cases())
def test_capture_parses_to_its_golden(tool: str, name: str) -> None:
    g = goldens(tool)
    assert name in g.names, f"{name} has no golden in test_{tool}_forms.py"
    assert (g.folder / name).with_suffix(".cmd").is_file(), f"{name} has no .cmd"
    records, summary = feed_text(TOOLS[tool].file_parser(), g.text(name))
    g.check(name, records, summary)


def test_every_parser_class_is_in_the_contract() -> None:
    """A new parser class, or a registry parser of a new class, cannot escape the contract."""
    covered: set[type] = set()
    for tool in TOOLS.values():
        g = goldens(tool.name)
        covered |= {type(make()) for make in g.parts}
        assert type(tool.file_parser()) in covered, tool.name
        for name in g.names:
            assert type(g.live_parser(name)) in covered, (tool.name, name)
    modules = [
        name
        for _, name, _ in pkgutil.iter_modules(pairbench.tools.__path__)
        if name.endswith(("_text", "_json", "_terse", "_auto"))
    ]
    assert len(modules) >= 10
    for module_name in modules:
        module = importlib.import_module(f"pairbench.tools.{module_name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__ and cls.__name__.endswith("Parser"):
                assert cls in covered, cls


# --------------------------------------------------------------------------- (b) chunking


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_random_chunks_through_our_line_reassembly_give_the_same_samples(tool: str) -> None:
    g = goldens(tool)
    for name in g.names:
        data = (g.folder / name).read_bytes()
        for kind, make in parsers_of(tool, name).items():
            whole = comparable(outcome(make, whole_lines(g.text(name))))
            for seed in range(CHUNKINGS):
                lines = reassembled_lines(random_chunks(data, random.Random(f"{name}{seed}")))
                got = comparable(outcome(make, lines))
                assert same(got, whole), (name, kind, seed)


# --------------------------------------------------------------------------- (c) fuzz


@functools.cache
def seed_outputs(tool: str) -> tuple[bytes, ...]:
    """The tool's golden captures and the other real outputs of it in tests/data."""
    g = goldens(tool)
    paths = [g.folder / name for name in g.names]
    for folder in MORE_OUTPUTS:
        paths += sorted(p for p in (folder / tool).glob("*") if p.suffix in OUTPUT_SUFFIXES)
    return tuple(p.read_bytes() for p in paths)


@st.composite
def truncated(draw: st.DrawFn, outputs: tuple[bytes, ...]) -> str:
    """An output cut at a random byte (inside a line or a character), its head or its tail."""
    data = draw(st.sampled_from(outputs))
    cut = draw(st.integers(0, len(data)))
    return (data[:cut] if draw(st.booleans()) else data[cut:]).decode("utf-8", "replace")


@st.composite
def random_bytes(draw: st.DrawFn) -> str:
    """Bytes of any value, decoded the way our readers do, as Latin-1, or with lone
    surrogates for the undecodable ones."""
    blob = draw(st.binary(max_size=2000))
    codec, errors = draw(
        st.sampled_from([("utf-8", "replace"), ("latin-1", "strict"), ("utf-8", "surrogateescape")])
    )
    return blob.decode(codec, errors)


@st.composite
def over_long_line(draw: st.DrawFn, outputs: tuple[bytes, ...]) -> str:
    """A line of the tool's output (or its start) and up to 20,000 characters more, among its
    other lines."""
    lines = draw(st.sampled_from(outputs)).decode("utf-8", "replace").split("\n")
    i = draw(st.integers(0, len(lines) - 1))
    head = lines[i][: draw(st.integers(0, len(lines[i])))]  # the line itself, or cut short
    filler = draw(st.sampled_from(["9", "1", " ", "x", "1.5 ", "{", "[", "\r", "é"]))
    lines[i] = head + filler * draw(st.integers(1, 20_000))
    return "\n".join(lines)


def every_parser(tool: str, name: str) -> list[Callable[[], Parser]]:
    """The tool's file parser, its live parser for the run of capture ``name``, its parts."""
    g = goldens(tool)
    return [TOOLS[tool].file_parser, lambda: g.live_parser(name), *g.parts]


@functools.cache
def all_texts() -> list[str]:
    """Every tool's outputs."""
    return [out.decode("utf-8", "replace") for tool in sorted(TOOLS) for out in seed_outputs(tool)]


@pytest.mark.parametrize("tool", sorted(TOOLS))
@HANG_GUARD
@FUZZ
@given(data=st.data())
def test_fuzz_gives_records_or_parse_error(tool: str, data: st.DataObject) -> None:
    g = goldens(tool)
    outputs = seed_outputs(tool)
    texts = [text.decode("utf-8", "replace") for text in outputs]
    text = data.draw(
        st.one_of(
            mutated_text(texts),  # garbled: numbers, units, JSON values, cuts, injections
            mutated_text(all_texts()),  # other tools' and forms' output, garbled
            truncated(outputs),
            random_bytes(),
            arbitrary_text,
            over_long_line(outputs),
        ),
        label="text",
    )
    name = data.draw(st.sampled_from(g.names), label="live parser of")
    for make in every_parser(tool, name):
        assert_only_parse_error(make, text)


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_outputs_cut_after_any_line_read(tool: str) -> None:
    """The fuzz's starting points, unmutated, cut after every few lines: sound values (on the
    robustness captures, tests/data/robustness, or the goldens of a tool without them)."""
    g = goldens(tool)
    folder = DATA / "robustness" / tool
    paths = sorted(folder.glob("*.out")) or [g.folder / name for name in g.names]
    for path in paths:
        text = path.read_bytes().decode("utf-8", "replace")
        lines = text.split("\n")
        for cut in range(0, len(lines) + 1, max(1, len(lines) // 25)):
            for make in every_parser(tool, g.names[0]):
                records, summary = feed_lines_robustly(make, lines[:cut])
                assert_values_sane(text, records, summary)


# --------------------------------------------------------------------------- (d) versions


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_an_unknown_future_version_is_read_or_refused_as_declared(tool: str) -> None:
    g = goldens(tool)
    for version in g.versions:
        if version.banner is None:
            check_version_from_capabilities(tool, g, version.recorded, version.future_output)
            continue
        banner = re.compile(version.banner)
        with_banner = [name for name in g.names if banner.search(g.text(name))]
        assert with_banner, f"{tool}: no capture shows {version.banner!r}: update GOLDENS"
        for name in with_banner:
            text = g.text(name)
            future = banner.sub(version.future, text)
            for kind, make in parsers_of(tool, name).items():
                got = outcome(make, whole_lines(future))
                if version.refused:
                    assert isinstance(got, ParseError), (name, kind, got)
                    assert "version" in str(got), (name, kind, str(got))
                else:
                    recorded = outcome(make, whole_lines(text))
                    assert same(comparable(got), comparable(recorded)), (name, kind)


def check_version_from_capabilities(tool: str, g: Goldens, recorded: str, future: str) -> None:
    """A tool whose output shows no version: made for a future version (from its version
    command's output), its parser reads every capture as the one for the recorded version."""
    t = TOOLS[tool]
    assert recorded and future and recorded != future, tool
    old, new = t.capabilities(recorded), t.capabilities(future)
    assert old.version != new.version, tool
    for name in g.names:
        lines = whole_lines(g.text(name))
        expected = outcome(lambda: t.parser(t.resolve({}), old), lines)
        got = outcome(lambda: t.parser(t.resolve({}), new), lines)
        assert same(comparable(got), comparable(expected)), name
