"""Which tool wrote a saved output file: its name first, else each tool's parser tries it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pairbench.domain.failures import InputRefusedError
from pairbench.domain.user_files import read_text
from pairbench.services.import_checks import check_has_result, check_text
from pairbench.services.importing import MAX_IMPORT_BYTES
from pairbench.tools.base import ParseError
from pairbench.tools.feed import feed_text
from pairbench.tools.registry import TOOLS, get_tool


@dataclass(frozen=True, slots=True)
class ToolGuess:
    """Tools that read the text: ``sure`` ones gave records or a summary (the richest reading
    first); ``weak`` ones recognised only an error message of their own. ``named`` is a tool
    the file name names; ``clear`` says the first sure tool read clearly more than the next
    (some parsers read each other's formats: iperf2's reads iperf3 text, with less in it)."""

    sure: list[str] = field(default_factory=list)
    weak: list[str] = field(default_factory=list)
    named: str | None = None
    clear: bool = False

    @property
    def tool(self) -> str | None:
        """The one tool to use without asking, or None when the user must choose."""
        if self.named is not None and self.named in self.sure:
            return self.named
        if len(self.sure) == 1 or (self.sure and self.clear):
            return self.sure[0]
        if not self.sure and len(self.weak) == 1:
            return self.weak[0]
        return None

    @property
    def candidates(self) -> list[str]:
        """Every tool, the likeliest first (to offer when asking)."""
        order = [self.named] if self.named else []
        order += self.sure + self.weak + sorted(TOOLS)
        return list(dict.fromkeys(name for name in order if name))


def read_output_file(path: Path) -> str:
    """A saved output's text: a regular file of at most ``MAX_IMPORT_BYTES``, decoded by its
    byte-order mark (UTF-16 as PowerShell writes it) or as UTF-8, undecodable bytes replaced;
    ``UserFileError`` (a ``ValueError``) says why not."""
    return read_text(path, what="the output file", limit=MAX_IMPORT_BYTES)


def tool_named_in(file_name: str) -> str | None:
    """A known tool whose name appears in the file name as a word (``iperf3-tcp.txt``)."""
    words = set(re.split(r"[^a-z0-9]+", file_name.lower()))
    named = [name for name in TOOLS if name in words]
    return named[0] if len(named) == 1 else None


def guess_tool(text: str, file_name: str = "") -> ToolGuess:
    """Try every tool's file parser on ``text``; rank readings by summary values, then records.

    Raises nothing, whatever the text: a tool whose parser rejects it (``ParseError``, the one
    error parsers raise) is no candidate. So is one whose parser fails in any other way, which
    would be a parser bug (the parser robustness tests hunt for them): a dropped file is then
    offered for the user to choose its tool rather than lost to an exception.
    """
    scored: list[tuple[tuple[int, int, bool], str]] = []
    weak: list[str] = []
    for name, tool in TOOLS.items():
        try:
            records, summary = feed_text(tool.file_parser(), text)
        except ParseError:
            continue  # not this tool's output
        except Exception:  # a parser bug must not break the guess (see the docstring)
            continue
        if records or summary.values:
            # An output that ended normally counts as whole even when its form lacks a metric.
            ended = summary.complete or summary.reason is not None
            scored.append(((len(summary.values), len(records), ended), name))
        elif summary.error:
            weak.append(name)
    scored.sort(key=lambda item: item[0], reverse=True)
    clear = len(scored) == 1 or (len(scored) > 1 and scored[0][0] > scored[1][0])
    return ToolGuess([name for _, name in scored], weak, tool_named_in(file_name), clear)


def check_readable(text: str, tool_name: str, file_name: str) -> None:
    """``ValueError`` naming ``file_name`` unless ``tool_name``'s parser finds measurements,
    a summary or an error (``import_checks.check_text`` and ``check_has_result``)."""
    tool = get_tool(tool_name)
    try:
        check_text(text, tool.name)
        records, summary = feed_text(tool.file_parser(), text)
        check_has_result(records, summary, tool.name)
    except InputRefusedError as exc:
        raise ValueError(f"{file_name}: {exc}") from None
