"""``pairbench runs list|show|delete``: browse the run library.

Labels, notes, pairs and the rest of a run may come from an imported file: the text output
shows them through ``export.escaping.terminal_text`` (control characters as escapes; ``list``
cuts them to their column).
"""

from __future__ import annotations

import argparse
import json
import re
from datetime import datetime
from typing import Any

from pairbench.cli.cmd_analyze import describe_analysis
from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.domain import Run, Series
from pairbench.domain.units import format_value
from pairbench.export.escaping import terminal_cell, terminal_text
from pairbench.export.run_json import run_fields, run_payload
from pairbench.library import LibraryError
from pairbench.library.analyses import get_analyses
from pairbench.library.runs import delete_run, get_run, list_runs
from pairbench.library.series import load_series

_KEY_METRICS = ("throughput_bps", "rtt_avg_ms", "latency_avg_us", "read_iops", "write_iops")
LABEL_WIDTH = 48  # characters of a label in ``runs list``; longer ones end with "…"
_NOTE_LINES_RE = re.compile("\r\n|[\r\n]")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``runs`` and its subcommands."""
    p = sub.add_parser("runs", help="list, show or delete stored runs")
    runs_sub = p.add_subparsers(dest="runs_command", required=True, metavar="list|show|delete")
    p_list = runs_sub.add_parser("list", help="all runs, newest first")
    p_list.add_argument("--json", action="store_true")
    p_list.set_defaults(handler=handle_list)
    p_show = runs_sub.add_parser("show", help="one run with its summary and series")
    p_show.add_argument("id", type=int)
    p_show.add_argument("--json", action="store_true")
    p_show.set_defaults(handler=handle_show)
    p_delete = runs_sub.add_parser("delete", help="delete a run and its data")
    p_delete.add_argument("id", type=int)
    p_delete.add_argument("--json", action="store_true")
    p_delete.set_defaults(handler=handle_delete)


def _when(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")


def _key_metric(run: Run) -> str:
    for name in _KEY_METRICS:
        if name in run.summary:
            return format_value(name, run.summary[name])
    return ""


def handle_list(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Print every run, newest first."""
    with env.open_library() as lib:
        runs = list_runs(lib)
    if args.json:
        env.out(json.dumps([run_fields(run) for run in runs]))
        return ExitStatus.OK
    if not runs:
        env.out("no runs yet: try `pairbench run --pair local --tool iperf3 --set duration=5`")
        return ExitStatus.OK
    env.out(
        f"{'ID':>5}  {'STARTED':19}  {'PAIR':12}  {'TOOL':7}  {'STATUS':11}  {'RESULT':>14}  LABEL"
    )
    for run in runs:
        env.out(
            f"{run.id:>5}  {_when(run.started_at):19}  {terminal_cell(run.spec.pair, 12)}  "
            f"{terminal_cell(run.spec.tool, 7)}  {run.status.value:11}  {_key_metric(run):>14}  "
            f"{terminal_text(run.label, LABEL_WIDTH)}"
        )
    return ExitStatus.OK


def handle_show(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Print one run: its fields, summary and (with --json) series."""
    with env.open_library() as lib:
        run = get_run(lib, args.id)
        series = [s.to_series() for s in load_series(lib, args.id)]
        analyses = get_analyses(lib, args.id)
    if args.json:
        env.out(json.dumps({**run_payload(run, series), "analyses": analyses}))
        return ExitStatus.OK
    for line in _show_lines(run, series, analyses):
        env.out(terminal_text(line))  # every line whole, one line each, controls as escapes
    return ExitStatus.OK


def _show_lines(run: Run, series: list[Series], analyses: dict[str, Any]) -> list[str]:
    lines = [f"run {run.id}: {run.spec.tool} on {run.spec.pair} — {run.status.value}"]
    lines.append(f"  started   {_when(run.started_at)}")
    if run.ended_at is not None:
        lines.append(f"  ended     {_when(run.ended_at)} ({run.ended_at - run.started_at:.1f} s)")
    lines.append(f"  version   {run.tool_version}")
    lines.append("  params    " + " ".join(f"{k}={v}" for k, v in sorted(run.spec.params.items())))
    if run.label:
        lines.append(f"  label     {run.label}")
    if run.error:
        lines.append(f"  error     {run.error}")
    lines.append("  summary" + ("" if run.summary_complete else " (incomplete)"))
    for name, value in run.summary.items():
        lines.append(f"    {name:<24} {format_value(name, value)}")
    lines.append("  series")
    for s in series:
        lines.append(f"    {s.stream:<12} {s.metric:<20} {len(s.t)} samples")
    if run.notes:
        # Notes may hold several lines: each on its own, indented under the first.
        first, *more = _NOTE_LINES_RE.split(run.notes)
        lines.append(f"  notes     {first}")
        lines += [f"            {line}" for line in more]
    for kind, payload in analyses.items():
        lines.append(f"  analysis  {kind}")
        lines += [f"    {line}" for line in describe_analysis(kind, payload)]
    return lines


def handle_delete(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Delete one run."""
    with env.open_library() as lib:
        delete_run(lib, args.id)
    if args.json:
        env.out(json.dumps({"deleted": args.id}))
    else:
        env.out(f"deleted run {args.id}")
    return ExitStatus.OK


__all__ = ["LibraryError", "add_parser"]
