"""``pairbench export ID... --format json|csv|bundle --out PATH``: runs out of the library."""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from pathlib import Path

from pairbench import __version__
from pairbench.analysis.compare import SeriesLike
from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.domain import Series
from pairbench.export.bundle import BundleError, write_bundle
from pairbench.export.escaping import terminal_text
from pairbench.export.run_json import runs_document
from pairbench.export.runs_csv import write_runs_csv
from pairbench.export.selection import SelectionError, select_run_ids
from pairbench.services.compare import compare_inputs
from pairbench.services.library import Library

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
            if args.format == "bundle":
                renderer = None if args.no_charts else env.chart_renderer
                written = write_bundle(lib, ids, out, chart_renderer=renderer, metric=args.metric)
                notes += written.notes
            else:
                _write_text(lib, ids, out, args.format)
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


def _series(s: SeriesLike) -> Series:
    return Series(s.stream, s.metric, s.unit, tuple(s.t.tolist()), tuple(s.v.tolist()))


def _write_text(lib: Library, ids: list[int], out: Path, fmt: str) -> None:
    """JSON or CSV, written to a temp file beside ``out`` and renamed into place."""
    inputs = compare_inputs(lib, ids)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            if fmt == "json":
                document = runs_document(
                    ((i.run, i.pair, [_series(s) for s in i.series]) for i in inputs),
                    pairbench_version=__version__,
                )
                json.dump(document, handle)
            else:
                write_runs_csv(handle, ((i.run, i.series) for i in inputs))
        os.replace(tmp_name, out)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
