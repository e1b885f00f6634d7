"""``pairbench library check``: SQLite's full check of the library file, writing nothing."""

from __future__ import annotations

import argparse
import json

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.export.escaping import terminal_text
from pairbench.services.library import check_library_file, disk_full


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``library`` and its subcommands."""
    p = sub.add_parser("library", help="check the library file")
    lib_sub = p.add_subparsers(dest="library_command", required=True, metavar="check")
    p_check = lib_sub.add_parser(
        "check", help="read every page of the library with SQLite's check; write nothing"
    )
    p_check.add_argument("--json", action="store_true")
    p_check.set_defaults(handler=handle_check)


def handle_check(args: argparse.Namespace, env: Environment) -> int:
    """Check the library; exit 0 when SQLite finds it whole, 1 with the problems otherwise.
    A full disk (said on stderr, ``disk_full`` in JSON) is no problem of the file."""
    path = env.resolve_library_path()
    report = check_library_file(path)
    full = disk_full(path)
    if full is not None:
        env.err(terminal_text(f"pairbench: note: {full}"))
    if args.json:
        env.out(
            json.dumps(
                {
                    "path": str(path),
                    "ok": report.ok,
                    "problems": list(report.problems),
                    "disk_full": str(full) if full is not None else None,
                }
            )
        )
    elif report.ok:
        env.out(f"library {path}: ok (every page checked)")
    else:
        env.out(f"library {path} is damaged:")
        for problem in report.problems:
            env.out(f"  {problem}")
        env.out(
            "Pairbench will not write to it. Restore it from a backup, or salvage what is "
            f"readable: sqlite3 {path} .recover | sqlite3 NEW.sqlite"
        )
    return ExitStatus.OK if report.ok else ExitStatus.ERROR
