"""``storage list|show --team`` and ``campaign list|show --team``: the team library's suites
and campaigns, with who published them (the local commands' handlers when not ``--team``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from pairbench.cli.entity_lines import campaign_line, suite_line
from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.services.library import LibraryError

# TeamError and TeamSetupError are a LibraryError and a ValueError (the latter: no team).
FAILURES = (LibraryError, ValueError)

Handler = Callable[[argparse.Namespace, Environment], ExitStatus]


def add_team_flag(parser: argparse.ArgumentParser, *, show: bool = False) -> None:
    """``--team`` (a list of the team library's) or, for show, ``--team UUID``."""
    if show:
        parser.add_argument(
            "--team", metavar="UUID", help="a suite or campaign of the team library"
        )
    else:
        parser.add_argument(
            "--team", action="store_true", help="the team library's, by who ran them"
        )


def team_or(local: Handler, team: Handler) -> Handler:
    """The team handler with ``--team``, the local one otherwise (a show without an id and
    without ``--team`` is a usage error)."""

    def handler(args: argparse.Namespace, env: Environment) -> ExitStatus:
        if args.team:
            return team(args, env)
        if getattr(args, "id", 0) is None:
            env.err("error: give the id (or --team UUID)")
            return ExitStatus.USAGE
        return local(args, env)

    return handler


def _errors(env: Environment, exc: Exception) -> ExitStatus:
    env.err(f"error: {exc}")
    return ExitStatus.ERROR


def handle_team_suites(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """The team library's suites, newest first."""
    from pairbench.services.team_entity_browse import suite_row_json, team_suites

    try:
        with env.open_library() as lib:
            rows = [suite_row_json(s) for s in team_suites(lib)]
    except FAILURES as exc:
        return _errors(env, exc)
    if args.json:
        env.out(json.dumps(rows))
        return ExitStatus.OK
    if not rows:
        env.out("no storage suites in the team library yet")
    for r in rows:
        env.out(suite_line(r, str(r["ran_by"])))
    return ExitStatus.OK


def handle_team_campaigns(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """The team library's campaigns, newest first."""
    from pairbench.services.team_entity_browse import campaign_row_json, team_campaigns

    try:
        with env.open_library() as lib:
            rows = [campaign_row_json(c) for c in team_campaigns(lib)]
    except FAILURES as exc:
        return _errors(env, exc)
    if args.json:
        env.out(json.dumps(rows))
        return ExitStatus.OK
    for r in rows:
        env.out(campaign_line(r, str(r["ran_by"])))
    return ExitStatus.OK


def handle_team_show(kind: str) -> Handler:
    """``storage show --team UUID`` or ``campaign show --team UUID``: one JSON object (the
    text form prints it indented)."""

    def handler(args: argparse.Namespace, env: Environment) -> ExitStatus:
        from pairbench.services.team_entity_browse import team_campaign_json, team_suite_json

        shown = team_suite_json if kind == "suite" else team_campaign_json
        try:
            with env.open_library() as lib:
                data = shown(lib, args.team)
        except FAILURES as exc:
            return _errors(env, exc)
        env.out(json.dumps(data) if args.json else json.dumps(data, indent=2))
        return ExitStatus.OK

    return handler
