"""The contract every tool adapter and its incremental parser follow."""

from __future__ import annotations

import reprlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol

from pairbench.domain import LineSource, Record, Summary
from pairbench.domain.validation import check_address

if TYPE_CHECKING:
    from pairbench.tools.params import Param
    from pairbench.tools.provenance_readers import Provenance


class ParseError(ValueError):
    """Output that cannot be the tool's: the message says what and where.

    The one exception a parser's ``feed`` and ``close`` raise, whatever they are given: any
    other exception is a parser bug (``tests/unit/test_parser_robustness.py`` fuzzes for them).
    """


# A decoded JSON value shown in an error message: a few levels and items, never the whole of it.
# ``str()`` of a value nested ~1000 deep (which ``json.loads`` accepts) raises RecursionError.
_PREVIEW: Final = reprlib.Repr()
_PREVIEW.maxlevel = 3
_PREVIEW.maxdict = _PREVIEW.maxlist = 8
_PREVIEW.maxstring = _PREVIEW.maxother = 80
_PREVIEW.maxlong = 40


def preview(value: object, limit: int = 200) -> str:
    """A short text of ``value`` for a ``ParseError`` message: bounded in length and depth."""
    if isinstance(value, str):
        return value[:limit]
    try:
        return _PREVIEW.repr(value)[:limit]
    except (ValueError, RecursionError):  # an int of more than 4300 digits, say
        return f"<{type(value).__name__}>"


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
class CommandContext:
    """Where a run happens: the address the client sends to, the server's port, a work dir.

    ``workdir`` is a private temporary directory on the host that runs the main command,
    created by the engine when the tool asks for files (``Commands.files``) and removed after.
    """

    target: str
    port: int
    workdir: str = ""


@dataclass(frozen=True, slots=True)
class CollectedFile:
    """A file of the work directory brought back after the run's main command ended: its
    text (at most what the engine reads of one file), its size on the host, and whether the
    text is all of it."""

    text: str
    size: int
    complete: bool


@dataclass(frozen=True, slots=True)
class Commands:
    """The argv lists a run needs.

    ``client`` is the main command (its exit ends the run); it runs on the pair's client
    host, or on the server host when ``run_on == "server"`` (fio: the disk under test).
    ``server`` is started first on the server host and must become ready (its
    ``Tool.server_ready_text``, else its port accepting connections). ``files`` (name →
    content) are uploaded into ``CommandContext.workdir`` before the client starts, after
    ``folders`` (relative names) are made there. ``collect`` (shell patterns of file names
    in the work directory, ``*.log``) are brought back once the client ends, before the work
    directory is removed (``Tool.collected_analyses``). ``parse`` lists the output sources
    fed to the parser, in arrival order.
    """

    client: list[str]
    server: list[str] | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    files: Mapping[str, str] = field(default_factory=dict)
    run_on: Literal["client", "server"] = "client"
    parse: tuple[LineSource, ...] = (LineSource.CLIENT_OUT, LineSource.CLIENT_ERR)
    folders: tuple[str, ...] = ()
    collect: tuple[str, ...] = ()


def first_line_capabilities(version_output: str) -> Capabilities:
    """Capabilities from a version command whose first line names the version."""
    first = version_output.strip().splitlines()[0] if version_output.strip() else ""
    return Capabilities(version=first, version_tuple=parse_version_tuple(first))


def target_argument(target: str) -> str:
    """The target as one safe argv item: an address or host name, never an option."""
    try:
        return check_address(target)
    except ValueError as exc:
        raise ParamError(str(exc)) from exc


def parse_version_tuple(text: str) -> tuple[int, ...]:
    """The first dotted number in ``text`` as a tuple of ints, e.g. ``(3, 12)``; empty if none."""
    import re

    match = re.search(r"(\d+(?:\.\d+)+)", text)
    if not match:
        return ()
    return tuple(int(part) for part in match.group(1).split("."))


@dataclass(frozen=True, slots=True)
class HostCheck:
    """A check run on the main host before a run: ``verdict(stdout)`` raises ``ParamError``."""

    argv: list[str]
    verdict: Callable[[str], None]


@dataclass(frozen=True, slots=True)
class ToolPreset:
    """A named set of parameter values for a tool, taken from a field report: only those that
    differ from the tool's defaults; ``source`` names the report (``shared/field-reports``)."""

    name: str
    params: Mapping[str, str]
    source: str


@dataclass(frozen=True, slots=True)
class Tool:
    """Everything Pairbench knows about one tool (built in ``registry.py``, the one list of
    tools: nothing elsewhere keeps a list of tool names; ``docs/ARCHITECTURE.md`` has the
    checklist for adding one)."""

    name: str
    debian_package: str
    version_argv: list[str]
    server_ready_text: str | None
    default_port: int
    params: Mapping[str, Param]
    resolve: Callable[[Mapping[str, str]], dict[str, str]]
    capabilities: Callable[[str], Capabilities]
    expected_seconds: Callable[[Mapping[str, str]], float]
    commands: Callable[[Mapping[str, str], Capabilities, CommandContext], Commands]
    parser: Callable[[Mapping[str, str], Capabilities], Parser]
    # What a saved output records about its own run (``tools/provenance.py`` has the readers).
    provenance: Callable[[str], Provenance]
    # The built-in presets of the run form (at least one per tool).
    presets: tuple[ToolPreset, ...]
    # True when a run with these (resolved or partial) parameters is a TCP bulk transfer, where
    # a burst-credit analysis makes sense; None: the tool never is one (ping, fio).
    bulk_transfer: Callable[[Mapping[str, str]], bool] | None = None
    needs_workdir: bool = False
    install_command: str | None = None  # when not simply "apt-get install <debian_package>"
    # A parser for a saved output file (import/parse): may detect the format (text, JSON).
    file_parser_factory: Callable[[], Parser] | None = None
    # Tools that run on the server host alone (fio: the disk under test) need nothing on the
    # client host.
    server_only: bool = False
    # A safety check on the host before the run (fio: refuse a mounted raw device).
    host_check: Callable[[Mapping[str, str]], HostCheck | None] | None = None
    # Consecutive ports from the server port a run uses (nuttcp: its data ports follow the
    # control port); None: one.
    ports_needed: Callable[[Mapping[str, str]], int] | None = None
    # The folder the run's work directory goes in (fio: the file system under test); None or
    # "": the host's temporary directory.
    workdir_parent: Callable[[Mapping[str, str]], str] | None = None
    # Analyses (kind → JSON object) a finished run's parser gives beyond its summary, stored
    # with the run (fio: the json+ latency histogram).
    run_analyses: Callable[[Parser], Mapping[str, Mapping[str, Any]]] | None = None
    # Analyses (kind → JSON object) of the files a run brought back from its work directory
    # (``Commands.collect``; fio: a job file's own logs), from its parameters and the files.
    collected_analyses: (
        Callable[[Mapping[str, str], Mapping[str, CollectedFile]], Mapping[str, Mapping[str, Any]]]
        | None
    ) = None
    # The server port the user chose (iperf3's ``port``), 0 when Pairbench picks a free one;
    # None: the tool has no such parameter.
    fixed_port: Callable[[Mapping[str, str]], int] | None = None
    # The parameter that holds the reporting interval in seconds (its canonical value a
    # decimal number: ``params.SecondsParam``); the stall watch and the parsers read it.
    interval_param: str = "interval"
    # A parameter that changes the kind of run → the parameters whose meaning it changes
    # (iperf3's udp: a bitrate or length set for UDP datagrams means something else over
    # TCP). The run form clears those when it changes, and a preset sets it.
    tied: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def chosen_port(self, params: Mapping[str, str]) -> int:
        """The server port the user chose for a run with ``params``; 0: none."""
        return self.fixed_port(params) if self.fixed_port is not None else 0

    def interval_seconds(self, params: Mapping[str, str]) -> float:
        """The run's reporting interval in seconds (1 when the tool has no such parameter)."""
        try:
            return float(params.get(self.interval_param, "") or 1.0)
        except ValueError:
            return 1.0

    def ports(self, params: Mapping[str, str]) -> int:
        """How many consecutive ports from the server port a run with ``params`` uses."""
        return self.ports_needed(params) if self.ports_needed is not None else 1

    def workdir_folder(self, params: Mapping[str, str]) -> str:
        """Where the run's work directory goes ("": the host's temporary directory)."""
        return self.workdir_parent(params) if self.workdir_parent is not None else ""

    def analyses_of(self, parser: Parser) -> Mapping[str, Mapping[str, Any]]:
        """The analyses to store with a run whose output ``parser`` read (closed)."""
        return self.run_analyses(parser) if self.run_analyses is not None else {}

    def file_parser(self) -> Parser:
        """A parser for a saved output of this tool, whatever format it was saved in."""
        if self.file_parser_factory is not None:
            return self.file_parser_factory()
        return self.parser(self.resolve({}), Capabilities(version=""))

    @property
    def install_hint(self) -> str:
        """The command that installs the tool on a Debian or Ubuntu host."""
        return self.install_command or f"apt-get install {self.debian_package}"
