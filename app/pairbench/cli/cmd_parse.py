"""``pairbench parse TOOL FILE``: print a saved tool output (or a Flent data file, TOOL
``flent``) as parsed JSON; store nothing."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.domain import group_records
from pairbench.export.escaping import terminal_text
from pairbench.export.run_json import parse_payload
from pairbench.services.flent_import import FLENT, read_flent_file
from pairbench.services.import_guess import read_output_file
from pairbench.services.parsing import ParsedOutput, ParseError, known_tool, parse_output


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``parse``."""
    p = sub.add_parser("parse", help="parse a saved tool output and print it as JSON")
    p.add_argument("tool")
    p.add_argument("file", type=Path)
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Parse the whole file and print the ``parse`` JSON shape."""
    if args.tool == FLENT:
        try:
            flent = read_flent_file(args.file)
        except ParseError as exc:
            env.err(terminal_text(f"pairbench: {args.file} is not a Flent data file: {exc}"))
            return ExitStatus.ERROR
        except ValueError as exc:
            env.err(terminal_text(f"pairbench: {exc}"))
            return ExitStatus.ERROR
        parsed = ParsedOutput(FLENT, flent.records, flent.summary)
    else:
        tool = known_tool(args.tool)
        try:
            text = read_output_file(args.file)
        except ValueError as exc:
            env.err(terminal_text(f"pairbench: {exc}"))
            return ExitStatus.ERROR
        parsed = parse_output(tool, text)
    summary = parsed.summary
    payload = parse_payload(
        parsed.tool,
        summary.values,
        group_records(parsed.records),
        complete=summary.complete,
        error=summary.error,
        form=summary.form,
        reason=summary.reason,
    )
    env.out(json.dumps(payload))
    return ExitStatus.OK
