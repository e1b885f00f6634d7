"""What every tool's golden module declares for the parser contract, and the contract's helpers.

``tests/unit/test_parser_contract.py`` runs the contract on every tool of the registry. For a
tool ``T`` it imports ``tests/unit/test_T_forms.py`` and takes its ``GOLDENS`` (a
``Goldens``): where the tool's recorded captures are, how to check a capture's parse against
its golden, which parser the engine makes for the capture's run, and how the tool's output
shows its version. A tool without such a module fails the contract.
"""

from __future__ import annotations

import asyncio
import importlib
import itertools
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pairbench.domain import LineSource, Record, Summary
from pairbench.remote.local import _LINE_LIMIT, LocalProcess
from pairbench.tools.base import Parser

# Capture files that hold a tool's output (``.stderr`` ones are the other half of a
# ``.stdout`` capture, checked by its tool's own tests).
OUTPUT_SUFFIXES = (".out", ".stdout")


@dataclass(frozen=True)
class VersionCheck:
    """How a tool's output shows the tool's version, and what its parsers do with a version
    they have never seen.

    ``banner``: a regular expression of the version as the output prints it (None: the output
    prints none; the version only reaches the parser through ``Capabilities``); ``future``: what
    it is replaced with, an unknown future version; ``refused``: True if the parsers refuse that
    output with ``ParseError`` (its message naming the version), False if they read it as
    before. ``recorded``/``future_output``: the version command's output of the recorded and of
    a future version, for a tool whose output prints no version: the parser made for the future
    version reads the captures as the one made for the recorded version does.
    """

    banner: str | None
    future: str
    refused: bool = False
    recorded: str = ""
    future_output: str = ""


@dataclass(frozen=True)
class Goldens:
    """A tool's recorded captures and their goldens (see ``tests/data/captures/README.md``).

    ``folder``: the captures (``NAME.out`` or ``NAME.stdout``, each with its ``NAME.cmd``);
    ``names``: the capture files the golden table covers (the contract fails unless that is
    every one of them); ``check(name, records, summary)``: asserts that the file parser's
    output of a capture is its golden; ``live_parser(name)``: the parser the engine makes for
    the run the capture was recorded from; ``parts``: the parser classes the tool's parsers
    are made of (fuzzed directly too: a wrapper that picks one by the first lines rarely hands
    garbage to the others); ``versions``: the version banners, see above.
    """

    folder: Path
    names: tuple[str, ...]
    check: Callable[[str, list[Record], Summary], None]
    live_parser: Callable[[str], Parser]
    parts: tuple[Callable[[], Parser], ...]
    versions: tuple[VersionCheck, ...]

    def text(self, name: str) -> str:
        """A capture's text as import reads it ("\\r" kept: uperf rewrites lines with it)."""
        return (self.folder / name).read_bytes().decode("utf-8", "replace")

    def capture_files(self) -> list[str]:
        """Every output capture in the folder."""
        return sorted(p.name for p in self.folder.iterdir() if p.suffix in OUTPUT_SUFFIXES)


def goldens(tool: str) -> Goldens:
    """``GOLDENS`` of ``tests/unit/test_<tool>_forms.py`` (ImportError if there is none)."""
    module = importlib.import_module(f"test_{tool}_forms")
    declared = module.GOLDENS
    assert isinstance(declared, Goldens), f"test_{tool}_forms.GOLDENS is not a Goldens"
    return declared


# --------------------------------------------------------------------------- line reassembly


def random_chunks(data: bytes, rng: random.Random, max_cuts: int = 80) -> list[bytes]:
    """``data`` cut at random places (inside lines, characters and "\\r\\n" pairs alike)."""
    if len(data) < 2:
        return [data]
    n = min(len(data) - 1, rng.randint(1, max_cuts))
    bounds = [0, *sorted(rng.sample(range(1, len(data)), n)), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


async def _pump(chunks: Iterable[bytes]) -> list[str]:
    reader = asyncio.StreamReader(limit=_LINE_LIMIT)
    # The reader of a local tool's pipe, without the process: the lines it makes of bytes that
    # arrive one chunk at a time (the pump reads each chunk before the next comes).
    process = LocalProcess.__new__(LocalProcess)
    process._queue = asyncio.Queue()
    pump = asyncio.create_task(process._pump(reader, LineSource.CLIENT_OUT))
    for chunk in chunks:
        reader.feed_data(chunk)
        await asyncio.sleep(0)
    reader.feed_eof()
    await pump
    lines: list[str] = []
    while (line := process._queue.get_nowait()) is not None:
        lines.append(line.text)
    return lines


def reassembled_lines(chunks: Sequence[bytes]) -> list[str]:
    """The lines our transport's reader (``remote/local.py``, ``LocalProcess._pump``) makes of
    ``chunks`` arriving one after the other."""
    return asyncio.run(_pump(chunks))


def feed_lines(parser: Parser, lines: Iterable[str]) -> tuple[list[Record], Summary]:
    """Every line through ``parser``, then its summary (``ParseError`` propagates)."""
    records: list[Record] = []
    for line in lines:
        records.extend(parser.feed(line))
    return records, parser.close()


def same(a: object, b: object) -> bool:
    """Equal, NaN equal to NaN (iperf3 3.0's "0/0 (-nan%)" is one)."""
    return repr(a) == repr(b)
