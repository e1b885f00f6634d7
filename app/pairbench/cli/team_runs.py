"""``pairbench runs list --team``: the team library's runs, with the local list's fields and
filters plus who ran each, from where."""

from __future__ import annotations

import argparse
import json

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.cli.run_lines import key_metric, when_text
from pairbench.export.run_json import run_fields
from pairbench.services.runs import RunFilter
from pairbench.services.team import LibraryError, TeamError, TeamSetupError, team_runs


def print_team_runs(flt: RunFilter, args: argparse.Namespace, env: Environment) -> ExitStatus:
    """List (or count) the team's runs that match ``flt``, newest first."""
    try:
        with env.open_library() as lib:
            runs = team_runs(lib, flt)
    except (TeamSetupError, TeamError, LibraryError) as exc:
        env.err(f"error: {exc}")
        return ExitStatus.ERROR
    if args.count:
        env.out(json.dumps({"count": len(runs)}) if args.json else str(len(runs)))
        return ExitStatus.OK
    if args.json:
        env.out(
            json.dumps(
                [
                    {**run_fields(t.run), "uuid": t.uuid, "ran_by": t.ran_by, "origin": t.origin}
                    for t in runs
                ]
            )
        )
        return ExitStatus.OK
    if not runs:
        env.out("no team runs match")
        return ExitStatus.OK
    from pairbench.export.table_render import text_table
    from pairbench.export.tables import TextTable

    rows = tuple(
        (
            str(t.run.id),
            when_text(t.run.started_at),
            t.run.spec.pair,
            t.run.spec.tool,
            t.run.status.value,
            key_metric(t.run),
            t.ran_by,
            t.run.label,
        )
        for t in runs
    )
    headers = ("ID", "STARTED", "PAIR", "TOOL", "STATUS", "RESULT", "RAN BY", "LABEL")
    table = TextTable(headers, rows, ("r", "l", "l", "l", "l", "r", "l", "l"))
    env.out(text_table(table, cell_max=(12, 19, 32, 12, 11, 24, 28, 40)))
    return ExitStatus.OK
