"""``pairbench runs list|show|delete``: browse the run library.

Labels, notes, pairs and the rest of a run may come from an imported file: the text output
shows them through ``export.escaping.terminal_text`` (control characters as escapes; ``list``
cuts them to their column).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import math
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.cli.run_lines import key_metric, when_text
from pairbench.domain import Run, RunStatus
from pairbench.services.runs import (
    SORT_KEYS,
    IdRange,
    LibraryError,
    RunFilter,
    count_runs,
    delete_run,
    find_runs,
    runs_list_json_parts,
    show_run,
)

if TYPE_CHECKING:
    from pairbench.domain import Series
    from pairbench.domain.diagnosis import Diagnosis

HELP = "list, show or delete stored runs"  # also in cli.main.COMMANDS (checked by a test)
LABEL_WIDTH = 48  # characters of a label in ``runs list``; longer ones end with "…"
# Per column of ``runs list``: longer pair, tool or label texts end with "…".
_LIST_CELL_MAX = (12, 19, 32, 12, 11, 24, LABEL_WIDTH)
_NOTE_LINES_RE = re.compile("\r\n|[\r\n]")
_ID_SPAN_RE = re.compile(r"^\s*(\d+)\s*(?:(-)\s*(\d*)\s*)?$")
_LIST_EPILOG = """\
times are local unless they say otherwise (e.g. 2026-11-24T09:30+01:00); a date alone
means the whole day: --since 2026-11-01 --until 2026-11-30 lists all of November.
ids: --id 12-40 (both included), --id 7,9,12-40, --id 100- (100 and later); repeatable."""


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``runs`` and its subcommands."""
    p = sub.add_parser("runs", help=HELP)
    runs_sub = p.add_subparsers(dest="runs_command", required=True, metavar="list|show|delete")
    p_list = runs_sub.add_parser(
        "list",
        help="all runs, newest first (or those matching filters)",
        epilog=_LIST_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p_list.add_argument("--json", action="store_true")
    p_list.add_argument(
        "--since", metavar="WHEN", type=since_time, help="runs started at or after this time"
    )
    p_list.add_argument(
        "--until",
        metavar="WHEN",
        type=until_time,
        help="runs started before this time (a date: before the end of that day)",
    )
    p_list.add_argument(
        "--id",
        metavar="IDS",
        dest="ids",
        action="append",
        type=id_ranges,
        help="run ids or id ranges, e.g. 12-40 or 7,9,12-40",
    )
    p_list.add_argument("--pair", help="runs on this pair")
    p_list.add_argument("--tool", help="runs of this tool")
    p_list.add_argument(
        "--status", choices=[s.value for s in RunStatus], help="runs with this status"
    )
    p_list.add_argument("--label", help="runs with exactly this label")
    p_list.add_argument(
        "--tag",
        metavar="KEY[=VALUE]",
        dest="tags",
        action="append",
        help="runs with this tag (any value, or this one in any case); repeatable",
    )
    p_list.add_argument(
        "--search", metavar="TEXT", help="text in the label, notes, tags or pair name"
    )
    p_list.add_argument(
        "--sort", choices=SORT_KEYS, default="started", help="order by (default: started)"
    )
    p_list.add_argument(
        "--ascending", action="store_true", help="oldest (or lowest) first instead of newest"
    )
    p_list.add_argument("--limit", type=_count, metavar="N", help="at most N runs")
    p_list.add_argument("--offset", type=_count, default=0, metavar="N", help="skip N runs first")
    p_list.add_argument(
        "--count", action="store_true", help="print only how many runs match (all pages)"
    )
    p_list.add_argument(
        "--team", action="store_true", help="the team library's runs (see `pairbench team`)"
    )
    p_list.set_defaults(handler=handle_list)
    p_show = runs_sub.add_parser("show", help="one run with its summary and series")
    p_show.add_argument("id", type=int)
    p_show.add_argument("--json", action="store_true")
    p_show.set_defaults(handler=handle_show)
    p_delete = runs_sub.add_parser("delete", help="delete a run and its data")
    p_delete.add_argument("id", type=int)
    p_delete.add_argument("--json", action="store_true")
    p_delete.set_defaults(handler=handle_delete)


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more, got {text}")
    return value


def _parse_when(text: str, *, day_end: bool) -> float:
    """An ISO date or date-time as epoch seconds (local time unless it names an offset)."""
    from datetime import date, datetime, timedelta  # here: listing runs needs no dates

    raw = text.strip()
    try:
        day = date.fromisoformat(raw)
    except ValueError:
        pass
    else:
        start = datetime(day.year, day.month, day.day)
        return (start + timedelta(days=1) if day_end else start).timestamp()
    try:
        return datetime.fromisoformat(raw).timestamp()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected an ISO date or time such as 2026-11-24 or 2026-11-24T09:30, got {text!r}"
        ) from None


def since_time(text: str) -> float:
    """``--since``: a date means its first instant."""
    return _parse_when(text, day_end=False)


def until_time(text: str) -> float:
    """``--until`` (excluded): a date means the end of that day."""
    return _parse_when(text, day_end=True)


def id_ranges(text: str) -> tuple[IdRange, ...]:
    """``7``, ``12-40``, ``100-`` or several of them separated by commas."""
    spans: list[IdRange] = []
    for part in text.split(","):
        match = _ID_SPAN_RE.match(part)
        if match is None:
            raise argparse.ArgumentTypeError(
                f"expected ids such as 12, 12-40 or 100-, got {part.strip()!r}"
            )
        low = int(match[1])
        high = low if not match[2] else (int(match[3]) if match[3] else 2**63 - 1)
        if high < low:
            raise argparse.ArgumentTypeError(f"empty id range {part.strip()!r}")
        spans.append(IdRange(low, high))
    return tuple(spans)


def list_filter(args: argparse.Namespace) -> RunFilter:
    """The ``RunFilter`` that ``runs list``'s options describe."""
    return RunFilter(
        pair=args.pair,
        tool=args.tool,
        status=None if args.status is None else RunStatus(args.status),
        text=args.search or None,
        limit=args.limit,
        since=args.since,
        until=args.until,
        ids=tuple(span for spans in args.ids or () for span in spans),
        label=args.label,
        tags=tuple(args.tags or ()),
        sort=args.sort,
        descending=not args.ascending,
        offset=args.offset,
    )


def handle_list(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Print the runs that match the options (every run by default), newest first."""
    flt = list_filter(args)
    if args.team:
        from pairbench.cli.team_runs import print_team_runs

        return print_team_runs(flt, args, env)
    if args.json and not args.count:
        return _print_json_list(flt, env)
    with env.open_library() as lib:
        if args.count:
            total = count_runs(lib, flt)
            env.out(json.dumps({"count": total}) if args.json else str(total))
            return ExitStatus.OK
        runs = find_runs(lib, flt)
    if not runs:
        if _filtered(args):
            env.out("no runs match")
        else:
            env.out("no runs yet: try `pairbench run --pair local --tool iperf3 --set duration=5`")
        return ExitStatus.OK
    from pairbench.export.table_render import text_table
    from pairbench.export.tables import TextTable

    rows = tuple(
        (
            str(run.id),
            when_text(run.started_at),
            run.spec.pair,
            run.spec.tool,
            run.status.value,
            key_metric(run),
            run.label,
        )
        for run in runs
    )
    table = TextTable(
        ("ID", "STARTED", "PAIR", "TOOL", "STATUS", "RESULT", "LABEL"),
        rows,
        ("r", "l", "l", "l", "l", "r", "l"),
    )
    env.out(text_table(table, cell_max=_LIST_CELL_MAX))
    return ExitStatus.OK


def _print_json_list(flt: RunFilter, env: Environment) -> ExitStatus:
    """``runs list --json``: the runs' fields as one JSON array, made from the raw rows (no
    ``Run`` apiece) and written piece by piece (8 MB at 10,000 runs)."""
    with _collector_paused():
        with env.open_library() as lib:
            parts = runs_list_json_parts(lib, flt)  # reads the rows now
        for part in parts:
            env.stdout.write(part)
    env.out()
    return ExitStatus.OK


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off while the rows are read and turned into text: they hold
    no cycles, and its passes over tens of thousands of new objects cost a tenth of the
    command (the CLI runs one command on one thread, and exits)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _filtered(args: argparse.Namespace) -> bool:
    flt = list_filter(args)
    return flt != RunFilter(sort=flt.sort, descending=flt.descending)


def handle_show(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Print one run: its fields, summary and (with --json) series."""
    with env.open_library() as lib:
        shown = show_run(lib, args.id)
    run, series, analyses = shown.run, shown.series, shown.analyses
    if args.json:
        from pairbench.export.run_json import run_payload
        from pairbench.services.run_again import run_again_line

        payload = {**run_payload(run, series), "analyses": analyses}
        payload["diagnosis"] = shown.diagnosis.payload() if shown.diagnosis else None
        payload["run_again"] = run_again_line(run)
        env.out(json.dumps(payload))
        return ExitStatus.OK
    from pairbench.export.escaping import terminal_text

    for line in _show_lines(run, series, analyses, shown.diagnosis):
        env.out(terminal_text(line))  # every line whole, one line each, controls as escapes
    return ExitStatus.OK


def _show_lines(
    run: Run, series: list[Series], analyses: dict[str, Any], verdict: Diagnosis | None
) -> list[str]:
    from pairbench.domain.diagnosis import DIAGNOSIS_KIND
    from pairbench.domain.telemetry import TELEMETRY_KIND, split_stream
    from pairbench.domain.units import format_value
    from pairbench.services.run_again import COMMANDS_KIND, command_lines, run_again_line

    lines = [f"run {run.id}: {run.spec.tool} on {run.spec.pair} — {run.status.value}"]
    lines.append(f"  started   {when_text(run.started_at)}")
    if run.ended_at is not None:
        took = run.ended_at - run.started_at
        length = f" ({took:.1f} s)" if math.isfinite(took) else ""
        lines.append(f"  ended     {when_text(run.ended_at)}{length}")
    lines.append(f"  version   {run.tool_version}")
    lines.append("  params    " + " ".join(f"{k}={v}" for k, v in sorted(run.spec.params.items())))
    if run.label:
        lines.append(f"  label     {run.label}")
    if run.error:
        lines.append(f"  error     {run.error}")
    lines.append("  summary" + ("" if run.summary_complete else " (incomplete)"))
    for name, value in run.summary.items():
        lines.append(f"    {name:<24} {format_value(name, value)}")
    if verdict is not None:
        lines.append(f"  limited   {verdict.label()}")
        lines += [f"            {sentence}" for sentence in verdict.evidence]
    lines.append("  series")
    hosts: dict[str, list[str]] = {}
    for s in series:
        split = split_stream(s.stream)
        if split is None:
            lines.append(f"    {s.stream:<12} {s.metric:<20} {len(s.t)} samples")
        elif split[1] not in hosts.setdefault(split[0], []):
            hosts[split[0]].append(split[1])
    for role, parts in hosts.items():
        count = sum(1 for s in series if s.stream.startswith(f"{role}:"))
        lines.append(f"    {role + ':*':<12} {count} series of host telemetry: {', '.join(parts)}")
    if run.notes:
        # Notes may hold several lines: each on its own, indented under the first.
        first, *more = _NOTE_LINES_RE.split(run.notes)
        lines.append(f"  notes     {first}")
        lines += [f"            {line}" for line in more]
    lines.append(f"  again     {run_again_line(run)}")
    record = analyses.get(COMMANDS_KIND)
    if record is not None:
        for role, host, line in command_lines(record):
            lines.append(f"  {role:<9} {host}: {line}")
        for name, content in dict(record.get("files") or {}).items():
            lines.append(f"  file      {name} ({len(content)} characters, uploaded)")
    shown_apart = (COMMANDS_KIND, DIAGNOSIS_KIND, TELEMETRY_KIND)
    analyses = {k: v for k, v in analyses.items() if k not in shown_apart}
    if analyses:
        # Imported only for a run with analyses: it loads the burst model (numpy).
        from pairbench.cli.burst_text import describe_analysis
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
