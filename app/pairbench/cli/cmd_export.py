"""``pairbench export ID... --format json|csv|bundle --out PATH``: runs out of the library."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.export.escaping import terminal_text
from pairbench.export.selection import SelectionError, select_run_ids
from pairbench.services.run_export import BundleError, export_runs

FORMATS = ("json", "csv", "bundle")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``export``."""
    p = sub.add_parser(
        "export",
        help="export runs as JSON, CSV or an evidence bundle (zip)",
        description="json: every run as `runs show --json` plus its pair; csv: one long table "
        "(run_id, section, stream, key, unit, t, value) of fields, parameters, host facts, "
        "summary and samples; bundle: a zip with raw tool output, series, metadata, charts "
        "and a README, which `pairbench import-bundle` re-imports without loss.",
    )
    p.add_argument(
        "runs",
        nargs="+",
        metavar="ID",
        help="run ids (12), ranges (12-17), or pair:NAME, label:TEXT, tag:KEY=VALUE",
    )
    p.add_argument("--format", required=True, choices=FORMATS)
    p.add_argument("--out", required=True, type=Path, metavar="PATH", help="the file to write")
    p.add_argument("--metric", help="bundle: the metric its charts and table compare")
    p.add_argument("--no-charts", action="store_true", help="bundle: leave the charts out")
    p.add_argument("--json", action="store_true", help="print what was written as JSON")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Write the chosen runs to ``--out`` in the chosen format."""
    out: Path = args.out
    notes: list[str] = []
    try:
        with env.open_library() as lib:
            ids = select_run_ids(lib, args.runs)
            renderer = None if args.no_charts else env.chart_renderer
            notes += export_runs(
                lib, ids, out, args.format, chart_renderer=renderer, metric=args.metric
            )
    except (SelectionError, BundleError) as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    except OSError as exc:
        env.err(terminal_text(f"pairbench: cannot write {out}: {exc.strerror or exc}"))
        return ExitStatus.ERROR
    if args.json:
        env.out(json.dumps({"format": args.format, "out": str(out), "runs": ids, "notes": notes}))
    else:
        env.out(terminal_text(f"wrote {len(ids)} run(s) to {out} ({args.format})"))
        for note in notes:
            env.out(terminal_text(f"  note: {note}"))
    return ExitStatus.OK
