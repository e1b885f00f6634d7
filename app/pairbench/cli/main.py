"""The ``pairbench`` argument parser and dispatch to one module per command."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Sequence
from pathlib import Path

from pairbench import __version__
from pairbench.cli import (
    cmd_analyze,
    cmd_compare,
    cmd_export,
    cmd_hosts,
    cmd_import,
    cmd_import_bundle,
    cmd_lab,
    cmd_library,
    cmd_pairs,
    cmd_parse,
    cmd_probe,
    cmd_run,
    cmd_runs,
)
from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.export.escaping import terminal_text
from pairbench.library import LibraryError
from pairbench.tools.base import ParamError, ParseError


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (DESIGN §4)."""
    parser = argparse.ArgumentParser(
        prog="pairbench",
        description="Pairbench: cloud network and storage benchmarks. "
        "Without a command, opens the desktop workbench.",
    )
    parser.add_argument("--version", action="version", version=f"pairbench {__version__}")
    parser.add_argument(
        "--library",
        type=Path,
        default=None,
        help="the library file (default: $PAIRBENCH_LIBRARY, else the user data directory)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    cmd_run.add_parser(sub)
    cmd_runs.add_parser(sub)
    cmd_parse.add_parser(sub)
    cmd_import.add_parser(sub)
    cmd_hosts.add_parser(sub)
    cmd_pairs.add_parser(sub)
    cmd_lab.add_parser(sub)
    cmd_probe.add_parser(sub)
    cmd_analyze.add_parser(sub)
    cmd_compare.add_parser(sub)
    cmd_export.add_parser(sub)
    cmd_import_bundle.add_parser(sub)
    cmd_library.add_parser(sub)
    return parser


def run_cli(argv: Sequence[str], env: Environment | None = None) -> int:
    """Run one CLI command in-process and return its exit status (never raises on user error)."""
    env = env or Environment()
    parser = build_parser()
    try:
        with contextlib.redirect_stderr(env.stderr), contextlib.redirect_stdout(env.stdout):
            args = parser.parse_args(list(argv))
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.library is not None:
        env.library_path = args.library
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(env.stderr)
        return ExitStatus.USAGE
    try:
        return int(handler(args, env))
    except (LibraryError, ParamError, ParseError) as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    except BrokenPipeError:
        return ExitStatus.ERROR
