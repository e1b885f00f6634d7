"""The ``pairbench`` argument parser and dispatch to one module per command.

One parser reads the whole command line, for the window as for the CLI: ``--library`` and,
optionally, a command. Only the module of the command given is imported (CLI start time);
every other command is listed, with its help, from ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pairbench import __version__
from pairbench.cli.exit_status import ExitStatus

if TYPE_CHECKING:
    from pairbench.cli.environment import Environment

# The commands that store runs: after them, a library that publishes to its team library
# automatically publishes what waits in its outbox (cli/team_publish.py).
STORING = frozenset({"run", "import", "import-bundle", "probe", "storage", "campaign"})

# Every command: its module (imported only when the command runs) and its one-line help, in
# the order ``--help`` lists them. Each module's ``add_parser`` registers the same help.
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("pairbench.cli.cmd_run", "run a benchmark on a pair and store it"),
    "runs": ("pairbench.cli.cmd_runs", "list, show or delete stored runs"),
    "parse": ("pairbench.cli.cmd_parse", "parse a saved tool output and print it as JSON"),
    "import": ("pairbench.cli.cmd_import", "store a saved tool output as a run"),
    "hosts": ("pairbench.cli.cmd_hosts", "add, list, show, edit or remove the hosts runs use"),
    "pairs": (
        "pairbench.cli.cmd_pairs",
        "add, list, show, edit, remove or check client/server pairs",
    ),
    "lab": ("pairbench.cli.cmd_lab", "a network lab of real hosts on this machine (needs root)"),
    "probe": ("pairbench.cli.cmd_probe", "measurement presets that end by themselves (burst)"),
    "analyze": ("pairbench.cli.cmd_analyze", "analyse stored runs (burst credits)"),
    "compare": ("pairbench.cli.cmd_compare", "compare stored runs: statistics, table, charts"),
    "export": ("pairbench.cli.cmd_export", "export runs as JSON, CSV or an evidence bundle (zip)"),
    "import-bundle": (
        "pairbench.cli.cmd_import_bundle",
        "import the runs of an evidence bundle (from `pairbench export --format bundle`)",
    ),
    "library": ("pairbench.cli.cmd_library", "check the library file"),
    "storage": (
        "pairbench.cli.cmd_storage",
        "the SNIA PTS storage suite with fio: run, resume, list, show",
    ),
    "campaign": (
        "pairbench.cli.cmd_campaign",
        "a whole study as one plan: pairs × tests × parameters × repeats",
    ),
    "team": (
        "pairbench.cli.cmd_team",
        "a team library on PostgreSQL: connect, status, push, watch",
    ),
}


@dataclass(frozen=True, slots=True)
class Invocation:
    """What a command line asks for: a command to run, or (without one) the window."""

    args: argparse.Namespace

    @property
    def command(self) -> str | None:
        """The command's name; None opens the window."""
        command: str | None = self.args.command
        return command

    @property
    def library(self) -> Path | None:
        """``--library``, if given."""
        library: Path | None = self.args.library
        return library


def command_in(argv: Sequence[str]) -> str | None:
    """The command word of ``argv`` (the first word that is not a global option), if any."""
    words = iter(argv)
    for word in words:
        if word == "--library":
            next(words, None)
        elif word == "--":
            return next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def build_parser(
    command: str | None = None, *, every_command: bool = False
) -> argparse.ArgumentParser:
    """The program's parser; the subparser of ``command`` (or each, with ``every_command``)
    in full, the others as their names and help only (left out for a known ``command``: its
    own parser is all that parsing it needs, and they cost a millisecond apiece)."""
    parser = argparse.ArgumentParser(
        prog="pairbench",
        description="Pairbench: cloud network and storage benchmarks. "
        "Without a command, opens the desktop workbench (on --library's file).",
    )
    parser.add_argument("--version", action="version", version=f"pairbench {__version__}")
    parser.add_argument(
        "--library",
        type=Path,
        default=None,
        help="the library file (default: $PAIRBENCH_LIBRARY, else the user data directory)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        if every_command or name == command:
            importlib.import_module(module).add_parser(sub)
        elif command not in COMMANDS:  # no command, or an unknown one: list them all
            sub.add_parser(name, help=help_text, add_help=False)
    return parser


def parse_command_line(argv: Sequence[str], env: Environment) -> Invocation | int:
    """Parse the whole command line; an exit status instead when argparse ends it (help,
    version, a usage error: written to the environment's streams)."""
    parser = build_parser(command_in(argv))
    try:
        with contextlib.redirect_stderr(env.stderr), contextlib.redirect_stdout(env.stdout):
            args = parser.parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    return Invocation(args)


def run_command(invocation: Invocation, env: Environment) -> int:
    """Run the parsed command and return its exit status (never raises on user error)."""
    if invocation.library is not None:
        env.library_path = invocation.library
    handler = getattr(invocation.args, "handler", None)
    if handler is None:
        build_parser().print_help(env.stderr)
        return ExitStatus.USAGE
    try:
        command = getattr(invocation.args, "command", "")
        if command not in STORING:
            return int(handler(invocation.args, env))
        from pairbench.cli.team_publish import live_publishing, publish_after

        with live_publishing(env):
            status = int(handler(invocation.args, env))
        publish_after(env)
        return status
    except BrokenPipeError:
        return ExitStatus.ERROR
    except Exception as exc:
        failure = _user_error(exc, env)
        if failure is None:
            raise
        from pairbench.export.escaping import terminal_text

        env.err(terminal_text(f"pairbench: {failure}"))
        return ExitStatus.ERROR


def _user_error(exc: Exception, env: Environment) -> Exception | None:
    """A failure the user can act on, to report in one line (no traceback): ``exc`` itself,
    or what an SQLite error of the library's disk (full, failing) means; None otherwise."""
    # Imported only once something failed: a command that needs none of them is not slowed.
    from pairbench.services.library import LibraryError, LibraryFullError, storage_failure
    from pairbench.services.parsing import ParamError, ParseError

    if isinstance(exc, LibraryError | LibraryFullError | ParamError | ParseError):
        return exc
    return storage_failure(exc, env.resolve_library_path())


def run_cli(argv: Sequence[str], env: Environment | None = None) -> int:
    """Run one CLI command in-process and return its exit status (never raises on user error).

    Without a command this is a usage error (``pairbench.main`` opens the window instead).
    """
    if env is None:
        from pairbench.cli.environment import Environment

        env = Environment()
    parsed = parse_command_line(argv, env)
    if isinstance(parsed, int):
        return parsed
    return run_command(parsed, env)
