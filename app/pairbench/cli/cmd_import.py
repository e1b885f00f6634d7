"""``pairbench import TOOL FILE``: store a saved tool output (or a Flent data file, TOOL
``flent``) as a run in the library."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.domain.units import format_value
from pairbench.domain.validation import parse_tag
from pairbench.export.escaping import terminal_text
from pairbench.services.flent_import import FLENT, import_flent, read_flent_file
from pairbench.services.import_guess import read_output_file
from pairbench.services.importing import InputRefusedError, import_output
from pairbench.services.library import LibraryError
from pairbench.services.parsing import ParseError


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``import``."""
    p = sub.add_parser("import", help="store a saved tool output as a run")
    p.add_argument(
        "tool", help="the tool that wrote the file, or flent for a Flent data file (.flent.gz)"
    )
    p.add_argument("file", type=Path)
    p.add_argument(
        "--pair",
        default=None,
        help="the pair it was run on (default: the saved pair whose client and server have "
        "the addresses the output names, else local)",
    )
    p.add_argument(
        "--tag",
        dest="tags",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a tag stored with the run (repeatable)",
    )
    p.add_argument("--label", default="", help="a label for the run")
    p.add_argument("--json", action="store_true", help="print {id, status, summary} as JSON")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Parse the file and store it; nothing is stored when it cannot be parsed."""
    path: Path = args.file
    flent = args.tool == FLENT
    try:
        source = read_flent_file(path) if flent else read_output_file(path)
    except ParseError as exc:
        env.err(terminal_text(f"pairbench: {path} is not a Flent data file: {exc}"))
        return ExitStatus.ERROR
    except ValueError as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    try:
        tags = dict(parse_tag(item) for item in args.tags)
    except ValueError as exc:
        env.err(terminal_text(f"pairbench: --tag: {exc}"))
        return ExitStatus.USAGE
    with env.open_library() as lib:
        try:
            if isinstance(source, str):
                run = import_output(
                    lib,
                    args.tool,
                    source,
                    pair=args.pair,
                    label=args.label,
                    source_name=path.name,
                    tags=tags,
                )
            else:
                run = import_flent(
                    lib, source, pair=args.pair, label=args.label, source_name=path.name, tags=tags
                )
        except ParseError as exc:
            env.err(terminal_text(f"pairbench: {path} is not {args.tool} output: {exc}"))
            return ExitStatus.ERROR
        except InputRefusedError as exc:
            env.err(terminal_text(f"pairbench: {path} not imported: {exc}; nothing stored"))
            return ExitStatus.ERROR
        except LibraryError as exc:
            env.err(terminal_text(f"pairbench: {exc}"))
            return ExitStatus.ERROR
    if args.json:
        env.out(json.dumps({"id": run.id, "status": run.status.value, "summary": run.summary}))
    else:
        error = f" ({run.error})" if run.error else ""
        env.out(
            terminal_text(
                f"imported {path.name} as run {run.id} on pair {run.spec.pair}: "
                f"{run.status.value}{error}"
            )
        )
        for name, value in run.summary.items():
            env.out(f"  {name:<24} {format_value(name, value)}")
    return ExitStatus.OK
