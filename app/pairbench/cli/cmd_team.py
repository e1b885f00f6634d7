"""``pairbench team connect|status|push|watch``: this library's team library on PostgreSQL
(the address kept without a password; finished runs published through the outbox; runs
followed live)."""

from __future__ import annotations

import argparse
import getpass
import json
import sys

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.services.team import (
    LOCKED,
    OK,
    LibraryError,
    TeamError,
    TeamSetupError,
    TeamStatus,
    connect,
    push,
    status,
)
from pairbench.services.team_entities import EntityTally, Kind, parse_ref, runs_of


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``team`` and its subcommands."""
    p = sub.add_parser("team", help="a team library on PostgreSQL: connect, status, push, watch")
    tsub = p.add_subparsers(dest="team_command", required=True, metavar="connect|status|push|watch")
    c = tsub.add_parser("connect", help="connect this library to a team server (no secret kept)")
    c.add_argument("url", help="postgresql://USER@HOST[:PORT]/DATABASE")
    c.add_argument("--name", default="", help="who publishes (default: user@computer)")
    c.add_argument(
        "--no-auto", action="store_true", help="publish only on `team push` (default: every run)"
    )
    c.add_argument(
        "--password-prompt",
        action="store_true",
        help="ask for the password and keep it in the OS keyring",
    )
    c.add_argument("--json", action="store_true")
    c.set_defaults(handler=handle_connect)
    s = tsub.add_parser("status", help="the team server, the outbox and what was published")
    s.add_argument("--json", action="store_true")
    s.set_defaults(handler=handle_status)
    u = tsub.add_parser(
        "push", help="publish the outbox (and these runs, suites, campaigns) to the team server"
    )
    u.add_argument(
        "ids",
        nargs="*",
        type=_push_ref,
        metavar="ID",
        help="runs to publish too (a run id), or suite:ID, campaign:ID",
    )
    u.add_argument(
        "--all", action="store_true", help="every finished run, suite, campaign not yet published"
    )
    u.add_argument("--json", action="store_true")
    u.set_defaults(handler=handle_push)
    w = tsub.add_parser("watch", help="follow the team's runs live as they are published")
    w.add_argument("--run", metavar="UUID", help="only this run (its uuid in runs list --team)")
    w.add_argument("--until-done", action="store_true", help="stop when a watched run ends")
    w.add_argument("--timeout", type=float, default=3600.0, metavar="S", help="stop after S s")
    w.add_argument("--json", action="store_true", help="one JSON object per update")
    w.set_defaults(handler=handle_watch)


def _push_ref(text: str) -> tuple[Kind, int] | int:
    try:
        return parse_ref(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a run id, suite:ID or campaign:ID"
        ) from None


def status_json(st: TeamStatus) -> dict[str, object]:
    return {
        "url": st.url,
        "name": st.name,
        "auto": st.auto,
        "reachable": st.reachable,
        "state": st.state,
        "error": st.error or None,
        "role": st.role,
        "can_publish": st.can_publish,
        "schema": st.schema,
        "team_runs": st.team_runs,
        "pending": st.pending,
        "published": st.published,
        "last_error": st.last_error or None,
        "suites_waiting": st.suites_waiting,
        "campaigns_waiting": st.campaigns_waiting,
    }


def _print_status(env: Environment, st: TeamStatus, as_json: bool) -> None:
    if as_json:
        env.out(json.dumps(status_json(st)))
        return
    env.out(f"team library {st.url} (publishing as {st.name}, automatic: {_on(st.auto)})")
    if st.reachable and st.role:
        rights = "may publish" if st.can_publish else "read-only"
        env.out(f"  server: reachable, role {st.role} ({rights}), schema {st.schema}")
        if st.team_runs is not None:
            env.out(f"  runs on the server: {st.team_runs}")
    if st.state == LOCKED:
        env.out(f"  locked: {st.error}")
    elif st.reachable and st.error:
        env.out(f"  server: reachable, but {st.error}")
    elif st.error:
        env.out(f"  server: not reachable: {st.error}")
    env.out(f"  published from here: {st.published}; waiting in the outbox: {st.pending}")
    if st.suites_waiting or st.campaigns_waiting:
        env.out(f"  waiting: {st.suites_waiting} suite(s), {st.campaigns_waiting} campaign(s)")
    if st.last_error:
        env.out(f"  last error: {st.last_error}")


def _on(flag: bool) -> str:
    return "on" if flag else "off"


def handle_connect(args: argparse.Namespace, env: Environment) -> ExitStatus:
    password = None
    if args.password_prompt:
        if not sys.stdin.isatty():
            env.err("--password-prompt needs a terminal; use ~/.pgpass or PGPASSWORD instead")
            return ExitStatus.USAGE
        password = getpass.getpass(f"password for {args.url}: ")
    try:
        with env.open_library() as lib:
            st = connect(lib, args.url, name=args.name, auto=not args.no_auto, password=password)
    except (TeamSetupError, TeamError, LibraryError) as exc:
        env.err(f"error: {exc}")
        return ExitStatus.USAGE if isinstance(exc, TeamSetupError) else ExitStatus.ERROR
    _print_status(env, st, args.json)
    return ExitStatus.OK


def handle_status(args: argparse.Namespace, env: Environment) -> ExitStatus:
    try:
        with env.open_library() as lib:
            st = status(lib)
    except TeamSetupError as exc:
        env.err(f"error: {exc}")
        return ExitStatus.ERROR
    _print_status(env, st, args.json)
    return ExitStatus.OK if st.state == OK else ExitStatus.ERROR


def handle_push(args: argparse.Namespace, env: Environment) -> ExitStatus:
    try:
        with env.open_library() as lib:
            run_ids, entities = runs_of(args.ids)
            result = push(lib, run_ids, every=args.all, entities=entities)
    except (TeamSetupError, LibraryError) as exc:
        env.err(f"error: {exc}")
        return ExitStatus.ERROR
    if args.json:
        env.out(
            json.dumps(
                {
                    "pushed": result.pushed,
                    "skipped": result.skipped,
                    "pending": result.pending,
                    "error": result.error or None,
                    "suites": _tally(result.suites),
                    "campaigns": _tally(result.campaigns),
                }
            )
        )
    else:
        env.out(
            f"published {len(result.pushed)} run(s); {len(result.skipped)} already on the "
            f"server; {result.pending} waiting"
        )
        for what, tally in (("suite", result.suites), ("campaign", result.campaigns)):
            if tally.pushed or tally.skipped or tally.pending:
                env.out(
                    f"published {len(tally.pushed)} {what}(s); {len(tally.skipped)} already "
                    f"on the server; {tally.pending} waiting"
                )
        if result.error:
            env.err(f"stopped: {result.error} (the runs wait in the outbox: `team push` again)")
    return ExitStatus.ERROR if result.error else ExitStatus.OK


def _tally(tally: EntityTally) -> dict[str, object]:
    return {"pushed": tally.pushed, "skipped": tally.skipped, "pending": tally.pending}


def handle_watch(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Print each live update of the team's runs (or one run) until told to stop."""
    from pairbench.services.team_live import LiveUpdate, watch

    def shown(update: LiveUpdate) -> bool:
        if args.json:
            env.out(
                json.dumps(
                    {
                        "uuid": update.uuid,
                        "ran_by": update.ran_by,
                        "status": update.status,
                        "pair": update.pair,
                        "tool": update.tool,
                        "samples": update.samples,
                        "t": update.last_t,
                        "latest": update.latest,
                    }
                )
            )
        else:
            latest = ", ".join(f"{k} {v:.6g}" for k, v in list(update.latest.items())[:4])
            at = "" if update.last_t is None else f" t={update.last_t:.1f} s"
            env.out(
                f"{update.ran_by}: {update.tool} on {update.pair} {update.status}{at}: {latest}"
            )
        env.stdout.flush()
        return not (args.until_done and update.status != "running")

    try:
        with env.open_library() as lib:
            watch(lib, shown, run_uuid=args.run, timeout_s=args.timeout)
    except (TeamSetupError, TeamError, LibraryError) as exc:
        env.err(f"error: {exc}")
        return ExitStatus.ERROR
    except KeyboardInterrupt:
        return ExitStatus.CANCELLED
    return ExitStatus.OK
