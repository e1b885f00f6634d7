"""``pairbench campaign list|show|plans``: the library's campaigns, one campaign's cells
with their statistics, and the built-in plans."""

from __future__ import annotations

import argparse
import json

from pairbench.cli.entity_lines import campaign_line
from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.domain.units import format_value
from pairbench.export.escaping import terminal_text
from pairbench.services.campaign_json import campaign_json
from pairbench.services.campaign_plans import builtin_plans
from pairbench.services.campaigns import list_all, show_campaign
from pairbench.services.library import LibraryError


def handle_list(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """List campaigns."""
    try:
        with env.open_library() as lib:
            shown = [show_campaign(lib, c.id) for c in list_all(lib)]
    except LibraryError as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    rows = [campaign_json(s, with_cells=False) for s in shown]
    if args.json:
        env.out(json.dumps(rows))
        return ExitStatus.OK
    for row in rows:
        env.out(campaign_line(row))
    return ExitStatus.OK


def handle_show(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """A campaign's cells with their statistics."""
    try:
        with env.open_library() as lib:
            shown = show_campaign(lib, args.id)
    except LibraryError as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    if args.json:
        env.out(json.dumps(campaign_json(shown)))
        return ExitStatus.OK
    c = shown.campaign
    error = f" ({c.error})" if c.error else ""
    env.out(terminal_text(f"campaign {c.id}: {c.name}, {c.status}{error}"))
    env.out(
        terminal_text(
            f"  {shown.plan.repeats.describe()}, {shown.plan.order.value}, "
            f"{shown.plan.schedule.describe()}, outliers {shown.plan.outliers}"
        )
    )
    env.out(f"  runs {shown.runs_done} of ~{shown.runs_planned}")
    for row in shown.rows:
        stats = row.verdict.stats
        if stats is None:
            figures = "—"
        else:
            half = stats.ci.half_width if stats.ci is not None else None
            pm = f" ± {format_value(row.cell.metric, half)}" if half is not None else ""
            cv = f"  CV {stats.cv:.1%}" if stats.cv is not None else ""
            figures = f"{format_value(row.cell.metric, stats.mean)}{pm}{cv}"
        discards = f"  {len(row.verdict.discarded)} discarded" if row.verdict.discarded else ""
        env.out(
            terminal_text(
                f"  {row.cell.title:<40} n={row.verdict.n:<3} {figures}"
                f"{discards}  [{row.status}{': ' + row.reason if row.reason else ''}]"
            )
        )
    return ExitStatus.OK


def handle_plans(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """The built-in plans and the field reports they reproduce."""
    plans = builtin_plans()
    if args.json:
        env.out(
            json.dumps(
                [
                    {"name": p.name, "path": str(p.path), "title": p.title, "source": p.source}
                    for p in plans
                ]
            )
        )
        return ExitStatus.OK
    for p in plans:
        env.out(terminal_text(f"{p.name:<28} {p.title}"))
        env.out(terminal_text(f"{'':<28} from {p.source}"))
    return ExitStatus.OK
