"""``pairbench campaign run|check|resume|list|show|cancel|plans|report``: a whole study as
one plan (pairs × tests × axes × repeats), run in the foreground or detached."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from pairbench.cli.campaign_browse import handle_list, handle_plans, handle_show
from pairbench.cli.campaign_report import add_report_parser
from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.cli.prompts import TerminalPrompt
from pairbench.cli.signals import cancel_on_signals
from pairbench.cli.team_entities import (
    add_team_flag,
    handle_team_campaigns,
    handle_team_show,
    team_or,
)
from pairbench.domain.campaign import Cell, Plan, RunKey
from pairbench.domain.failures import RunError, UserFileError
from pairbench.domain.units import format_value
from pairbench.domain.user_files import read_text
from pairbench.export.escaping import terminal_text
from pairbench.services.campaign_plan import PlanError, read_plan
from pairbench.services.campaign_plans import builtin_plan_path
from pairbench.services.campaign_watch import detach_campaign, stop_campaign
from pairbench.services.campaigns import (
    CampaignControl,
    CampaignOutcome,
    RunOutcome,
    create_from_plan,
    preview_plan,
    resume_campaign,
    show_campaign,
    start_campaign,
)
from pairbench.services.library import Library, LibraryError

HELP = "a whole study as one plan: pairs × tests × parameters × repeats"
_ID_FILE_BYTES = 4096  # an --id-file holds one campaign id


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``campaign`` and its subcommands."""
    p = sub.add_parser("campaign", help=HELP)
    csub = p.add_subparsers(dest="campaign_command", metavar="SUBCOMMAND", required=True)
    run = csub.add_parser("run", help="run a plan (a TOML file, or a built-in plan's name)")
    run.add_argument("plan", help="the plan file, or a built-in plan (see `campaign plans`)")
    run.add_argument("--json", action="store_true", help="end with one JSON object")
    run.add_argument(
        "--detach",
        action="store_true",
        help="run in the background (survives closing the terminal and the window); "
        "prints the campaign's id and log file",
    )
    run.add_argument(
        "--id-file",
        type=Path,
        metavar="PATH",
        help="keep the campaign's id in PATH; when PATH names a campaign that is not "
        "completed, resume it instead of starting anew (for systemd and cron: a restart or "
        "a reboot goes on with the same campaign)",
    )
    run.add_argument("--accept-new-host-key", action="store_true")
    run.set_defaults(handler=handle_run)
    check = csub.add_parser("check", help="check a plan: its cells, runs and duration")
    check.add_argument("plan")
    check.add_argument("--json", action="store_true")
    check.set_defaults(handler=handle_check)
    resume = csub.add_parser("resume", help="go on with a stopped campaign from its next run")
    resume.add_argument("id", type=int)
    resume.add_argument("--json", action="store_true")
    resume.add_argument("--detach", action="store_true", help="resume in the background")
    resume.add_argument("--accept-new-host-key", action="store_true")
    resume.set_defaults(handler=handle_resume)
    lst = csub.add_parser("list", help="the campaigns, newest first")
    lst.add_argument("--json", action="store_true")
    add_team_flag(lst)
    lst.set_defaults(handler=team_or(handle_list, handle_team_campaigns))
    show = csub.add_parser("show", help="a campaign's cells: n, mean ± 95 %% CI, CV, discards")
    show.add_argument("id", type=int, nargs="?")
    show.add_argument("--json", action="store_true")
    add_team_flag(show, show=True)
    show.set_defaults(handler=team_or(handle_show, handle_team_show("campaign")))
    cancel = csub.add_parser(
        "cancel", help="stop a campaign running in another process (its finished runs kept)"
    )
    cancel.add_argument("id", type=int)
    cancel.set_defaults(handler=handle_cancel)
    plans = csub.add_parser("plans", help="the built-in plans (from the field reports)")
    plans.add_argument("--json", action="store_true")
    plans.set_defaults(handler=handle_plans)
    add_report_parser(csub)


def _plan_path(text: str) -> Path:
    path = Path(text)
    if path.exists() or path.suffix == ".toml" or os.sep in text:
        return path
    return builtin_plan_path(text)


class _Progress:
    """A line per run started and finished, and each notice."""

    def __init__(self, env: Environment, to_stderr: bool) -> None:
        self._write = env.err if to_stderr else env.out
        self.count = 0

    def on_run_started(self, key: RunKey, cell: Cell) -> None:
        retry = f", attempt {key.attempt}" if key.attempt > 1 else ""
        self._write(
            terminal_text(f"→ {cell.title}: pass {key.occurrence + 1}, round {key.round}{retry}")
        )

    def on_run_finished(self, key: RunKey, cell: Cell, outcome: RunOutcome) -> None:
        self.count += 1
        if outcome.run is not None:
            run = f"run {outcome.run.id}"
        else:
            run = "no run" if outcome.suite_id is None else f"suite {outcome.suite_id}"
        if outcome.value is not None:
            shown = f"{cell.metric} {format_value(cell.metric, outcome.value)}"
        else:
            shown = f"{outcome.status}: {outcome.error}"
        self._write(terminal_text(f"  {run}: {shown}"))

    def on_notice(self, text: str) -> None:
        self._write(terminal_text(f"  ! {text}"))

    def on_waiting(self, seconds: float, why: str) -> None:
        self._write(terminal_text(f"  … waiting {seconds:.0f} s ({why})"))


def handle_check(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Print what a plan will do, or what is wrong with it."""
    try:
        plan, _ = read_plan(_plan_path(args.plan))
        with env.open_library() as lib:
            preview = preview_plan(lib, plan)
    except (PlanError, LibraryError) as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.USAGE if isinstance(exc, PlanError) else ExitStatus.ERROR
    if args.json:
        env.out(
            json.dumps(
                {
                    "name": plan.name,
                    "cells": len(preview.cells),
                    "passes": preview.passes,
                    "runs_min": preview.runs_min,
                    "runs_max": preview.runs_max,
                    "seconds_min": round(preview.seconds_min, 1),
                    "seconds_max": round(preview.seconds_max, 1),
                    "warnings": preview.warnings,
                }
            )
        )
        return ExitStatus.OK
    env.out(terminal_text(f"{plan.name}: {len(preview.cells)} cells, {preview.passes} pass(es)"))
    for cell in preview.cells:
        env.out(terminal_text(f"  {cell.index:>4}  {cell.title}  ({cell.metric})"))
    runs = f"{preview.runs_min}" + (
        f" to {preview.runs_max}" if preview.runs_max != preview.runs_min else ""
    )
    env.out(f"runs: {runs}, about {_hours(preview.seconds_min)} to {_hours(preview.seconds_max)}")
    for warning in preview.warnings:
        env.err(terminal_text(f"pairbench: warning: {warning}"))
    return ExitStatus.OK


def _hours(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 60:.0f} min" if seconds >= 60 else f"{seconds:.0f} s"


def handle_run(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Run a plan to its end (Ctrl-C cancels, keeping every finished run)."""
    try:
        plan, text = read_plan(_plan_path(args.plan))
        with env.open_library() as lib:
            remembered = _remembered(lib, args.id_file)
            if remembered is not None:
                env.err(f"campaign {remembered} (from {args.id_file}): resuming it")
                if args.detach:
                    return _detach(env, lib, remembered, args)
                outcome = asyncio.run(_resume(lib, remembered, args, env))
                return _report(env, outcome, args.json)
            if args.detach:
                campaign_id = create_from_plan(lib, plan, text)
                _remember(args.id_file, campaign_id)
                return _detach(env, lib, campaign_id, args)
            progress = _Progress(env, args.json)
            outcome = asyncio.run(_start(lib, plan, text, progress, env, args))
    except PlanError as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.USAGE
    except (LibraryError, RunError, OSError) as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    return _report(env, outcome, args.json)


def _remembered(lib: Library, id_file: Path | None) -> int | None:
    """The campaign named in ``--id-file`` when it can go on (exists, not completed)."""
    if id_file is None or not id_file.exists():
        return None
    try:
        text = read_text(id_file, what="the id file", limit=_ID_FILE_BYTES).strip()
    except UserFileError as exc:
        raise PlanError(str(exc)) from None
    if not text.isascii() or not text.isdigit() or len(text) > 18:
        raise PlanError(f"{id_file} does not hold a campaign id (got {text[:40]!r})")
    try:
        campaign = show_campaign(lib, int(text)).campaign
    except LibraryError:
        return None  # deleted, or another library's: start anew
    return None if campaign.status == "completed" else campaign.id


def _remember(id_file: Path | None, campaign_id: int) -> None:
    """Write the campaign's id into ``--id-file`` (atomically)."""
    if id_file is None:
        return
    partial = id_file.with_name(id_file.name + ".partial")
    partial.write_text(f"{campaign_id}\n", encoding="utf-8")
    partial.replace(id_file)


async def _start(
    lib: Library,
    plan: Plan,
    text: str,
    progress: _Progress,
    env: Environment,
    args: argparse.Namespace,
) -> CampaignOutcome:
    control = CampaignControl()
    cancel_on_signals(control.cancel)
    return await start_campaign(
        lib,
        plan,
        text,
        observer=progress,
        control=control,
        secrets=TerminalPrompt(),
        accept_new_host_key=args.accept_new_host_key,
        on_created=lambda cid: _created(env, args, cid, plan),
    )


def _created(env: Environment, args: argparse.Namespace, campaign_id: int, plan: Plan) -> None:
    _remember(args.id_file, campaign_id)
    env.err(terminal_text(f"campaign {campaign_id}: {plan.name}"))


def handle_resume(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Go on with a stopped campaign."""
    try:
        with env.open_library() as lib:
            if args.detach:
                return _detach(env, lib, args.id, args)
            outcome = asyncio.run(_resume(lib, args.id, args, env))
    except (LibraryError, RunError, PlanError) as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    return _report(env, outcome, args.json)


async def _resume(
    lib: Library, campaign_id: int, args: argparse.Namespace, env: Environment
) -> CampaignOutcome:
    control = CampaignControl()
    cancel_on_signals(control.cancel)
    return await resume_campaign(
        lib,
        campaign_id,
        observer=_Progress(env, args.json),
        control=control,
        secrets=TerminalPrompt(),
        accept_new_host_key=args.accept_new_host_key,
    )


def _detach(
    env: Environment, lib: Library, campaign_id: int, args: argparse.Namespace
) -> ExitStatus:
    """Hand the campaign to a background ``campaign resume`` that outlives this command."""
    library = env.resolve_library_path()
    log = library.parent / f"campaign-{campaign_id}.log"
    argv = [
        sys.executable,
        "-m",
        "pairbench",
        "--library",
        str(library),
        "campaign",
        "resume",
        str(campaign_id),
    ]
    if args.accept_new_host_key:
        argv.append("--accept-new-host-key")
    pid = detach_campaign(lib, campaign_id, argv, log)
    if args.json:
        env.out(
            json.dumps(
                {"id": campaign_id, "status": "running", "runs": 0, "pid": pid, "log": str(log)}
            )
        )
    else:
        env.out(f"campaign {campaign_id} runs in the background (pid {pid}); log: {log}")
        env.out(
            f"follow it: pairbench campaign show {campaign_id}; stop it: "
            f"pairbench campaign cancel {campaign_id}"
        )
    return ExitStatus.OK


def _report(env: Environment, outcome: CampaignOutcome, as_json: bool) -> ExitStatus:
    if as_json:
        env.out(
            json.dumps(
                {
                    "id": outcome.campaign_id,
                    "status": outcome.status.value,
                    "runs": list(outcome.run_ids),
                    "suites": list(outcome.suite_ids),
                    "runs_this_session": outcome.runs,
                    "error": outcome.error,
                }
            )
        )
    else:
        error = f" ({outcome.error})" if outcome.error else ""
        env.out(
            terminal_text(
                f"campaign {outcome.campaign_id}: {outcome.status.value}{error}, "
                f"{outcome.runs} run(s) this session"
            )
        )
    if outcome.status.value == "completed":
        return ExitStatus.OK
    return ExitStatus.CANCELLED if outcome.status.value == "cancelled" else ExitStatus.RUN_FAILED


def handle_cancel(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Ask the process running a campaign (on this computer) to stop it."""
    try:
        with env.open_library() as lib:
            pid = stop_campaign(lib, args.id)
    except LibraryError as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    env.out(
        f"campaign {args.id}: asked process {pid} to stop (its run in flight is kept, cancelled)"
    )
    return ExitStatus.OK
