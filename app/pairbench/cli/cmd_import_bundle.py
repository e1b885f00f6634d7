"""``pairbench import-bundle FILE``: store an evidence bundle's runs in this library."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.export.bundle import BundleError
from pairbench.export.bundle_import import import_bundle
from pairbench.export.escaping import terminal_text


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``import-bundle``."""
    p = sub.add_parser(
        "import-bundle",
        help="import the runs of an evidence bundle (from `pairbench export --format bundle`)",
    )
    p.add_argument("file", type=Path)
    p.add_argument(
        "--allow-duplicates",
        action="store_true",
        help="import runs even when this library has a run with the same start, pair and tool",
    )
    p.add_argument("--json", action="store_true", help="print {imported, skipped, ...} as JSON")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Import, then say which runs got which ids."""
    try:
        with env.open_library() as lib:
            result = import_bundle(lib, args.file, allow_duplicates=args.allow_duplicates)
    except BundleError as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    if args.json:
        env.out(
            json.dumps(
                {
                    "imported": [{"bundled_id": a, "id": b} for a, b in result.imported],
                    "skipped": [{"bundled_id": a, "existing_id": b} for a, b in result.skipped],
                    "pairs_added": list(result.pairs_added),
                    "notes": list(result.notes),
                }
            )
        )
        return ExitStatus.OK
    for old, new in result.imported:
        env.out(f"imported run {old} as run {new}")
    for old, existing in result.skipped:
        env.out(f"skipped run {old}: already in this library as run {existing}")
    for name in result.pairs_added:
        env.out(terminal_text(f"added pair {name}"))
    for note in result.notes:
        env.out(terminal_text(f"note: {note}"))
    return ExitStatus.OK
