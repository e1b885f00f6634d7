"""The contract every tool adapter and its incremental parser follow."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pairbench.domain import Record, Summary

if TYPE_CHECKING:
    from pairbench.tools.params import Param


class ParseError(ValueError):
    """Output that cannot be the tool's: the message says what and where."""


class ParamError(ValueError):
    """A run parameter that is unknown, malformed or out of range."""


class Parser(Protocol):
    """Incremental, pure parser: no I/O, no clock.

    ``feed`` takes one line without its newline (a trailing ``\\r`` or ``\\n`` is tolerated)
    and returns the records that line completes: one ``Record`` per stream the line gives
    values for (an aggregate the parser derives from it is a record of its own). Feeding the
    same output split in any way into lines gives the same records. ``close`` returns the
    summary once output ended.
    """

    def feed(self, line: str) -> list[Record]: ...

    def close(self) -> Summary: ...


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a host's copy of a tool can do, from its version string."""

    version: str
    version_tuple: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Commands:
    """The argv lists a run needs: an optional server and the client."""

    client: list[str]
    server: list[str] | None = None
    env: Mapping[str, str] = field(default_factory=dict)


def parse_version_tuple(text: str) -> tuple[int, ...]:
    """The first dotted number in ``text`` as a tuple of ints, e.g. ``(3, 12)``; empty if none."""
    import re

    match = re.search(r"(\d+(?:\.\d+)+)", text)
    if not match:
        return ()
    return tuple(int(part) for part in match.group(1).split("."))


@dataclass(frozen=True, slots=True)
class Tool:
    """Everything the engine needs to know about one tool (built in ``registry.py``)."""

    name: str
    debian_package: str
    version_argv: list[str]
    server_ready_text: str | None
    default_port: int
    params: Mapping[str, Param]
    resolve: Callable[[Mapping[str, str]], dict[str, str]]
    capabilities: Callable[[str], Capabilities]
    expected_seconds: Callable[[Mapping[str, str]], float]
    commands: Callable[[Mapping[str, str], Capabilities, str, int], Commands]
    parser: Callable[[Mapping[str, str], Capabilities], Parser]

    @property
    def install_hint(self) -> str:
        """The command that installs the tool on a Debian or Ubuntu host."""
        return f"apt-get install {self.debian_package}"
