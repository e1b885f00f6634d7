"""``pairbench storage run|resume|list|show``: the SNIA PTS storage suite with fio."""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import replace
from typing import Any

from pairbench.cli.entity_lines import suite_line
from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.cli.prompts import TerminalPrompt
from pairbench.cli.signals import cancel_on_signals
from pairbench.cli.storage_files import handle_compare, handle_report
from pairbench.cli.team_entities import add_team_flag, handle_team_show, handle_team_suites, team_or
from pairbench.domain import Run
from pairbench.domain.failures import RunError
from pairbench.domain.storage import (
    DEFAULT_DATA_EXCURSION,
    DEFAULT_IODEPTH,
    DEFAULT_MAX_ROUNDS,
    DEFAULT_PRECONDITION_PASSES,
    DEFAULT_ROUND_SECONDS,
    DEFAULT_SLOPE_EXCURSION,
    THREADS_PER_CORE_MAX,
    THREADS_PER_TARGET_MAX,
    JobKey,
    SteadyRule,
    StorageTest,
    SuiteParams,
    SuiteStatus,
    estimate_text,
    parse_size,
)
from pairbench.domain.units import format_value
from pairbench.export.escaping import terminal_text
from pairbench.services.library import Library, LibraryError
from pairbench.services.storage import (
    SuiteOutcome,
    SuiteRequest,
    SuiteShown,
    resume_suite,
    show_suite,
    start_suite,
    storage_suites,
)
from pairbench.services.storage_json import suite_json, suite_row
from pairbench.services.verdicts import run_verdicts

HELP = "the SNIA PTS storage suite with fio: run, resume, list, show"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``storage`` and its subcommands."""
    p = sub.add_parser("storage", help=HELP)
    ssub = p.add_subparsers(dest="storage_command", metavar="SUBCOMMAND", required=True)
    run = ssub.add_parser("run", help="run a suite (iops, latency or throughput) on a host")
    run.add_argument("--host", required=True, help="a saved host's name, or 'local'")
    run.add_argument(
        "--test",
        required=True,
        action="append",
        choices=[t.value for t in StorageTest],
        help="iops, latency or throughput; several run one after the other, a suite each",
    )
    run.add_argument(
        "--target", required=True, help="a raw device (/dev/...) or a directory for a test file"
    )
    run.add_argument(
        "--size", default="", help="test file size (4GiB), or a device's active range (all)"
    )
    run.add_argument(
        "--threads",
        type=int,
        default=None,
        help="fio numjobs (the host's CPUs), capped as CloudHarmony caps it: at most "
        "--threads-per-target-max, and --threads-per-core-max x the CPUs",
    )
    run.add_argument(
        "--threads-per-target-max",
        type=int,
        default=THREADS_PER_TARGET_MAX,
        help=f"numjobs at most this ({THREADS_PER_TARGET_MAX}, CloudHarmony's)",
    )
    run.add_argument(
        "--threads-per-core-max",
        type=int,
        default=THREADS_PER_CORE_MAX,
        help=f"numjobs at most this many per CPU ({THREADS_PER_CORE_MAX}, CloudHarmony's)",
    )
    run.add_argument(
        "--iodepth",
        type=int,
        default=DEFAULT_IODEPTH,
        help=f"I/O in flight per thread ({DEFAULT_IODEPTH})",
    )
    run.add_argument(
        "--round-seconds",
        type=int,
        default=DEFAULT_ROUND_SECONDS,
        help=f"seconds per job ({DEFAULT_ROUND_SECONDS})",
    )
    run.add_argument(
        "--max-rounds",
        type=int,
        default=DEFAULT_MAX_ROUNDS,
        help=f"rounds at most ({DEFAULT_MAX_ROUNDS})",
    )
    run.add_argument(
        "--precondition-passes",
        type=int,
        default=DEFAULT_PRECONDITION_PASSES,
        help=f"128 KiB sequential write passes ({DEFAULT_PRECONDITION_PASSES})",
    )
    run.add_argument(
        "--steady-state",
        default=SteadyRule.PTS.value,
        choices=[r.value for r in SteadyRule],
        help="the rule ending a stage: pts (the specification's, unrounded) or cloudharmony "
        "(its units and roundings: a published study's rounds)",
    )
    run.add_argument(
        "--data-excursion",
        type=float,
        default=None,
        help="steady state: max - min of the window at most this %% of its mean "
        f"({DEFAULT_DATA_EXCURSION * 100:g}; "
        "cloudharmony: twice the slope excursion)",
    )
    run.add_argument(
        "--slope-excursion",
        type=float,
        default=DEFAULT_SLOPE_EXCURSION * 100,
        help="steady state: the fitted line's rise across the window at most this %% "
        f"({DEFAULT_SLOPE_EXCURSION * 100:g})",
    )
    run.add_argument("--no-precondition", action="store_true", help="no preconditioning")
    run.add_argument(
        "--precondition-once",
        action="store_true",
        help="with several --test: precondition before the first only (and its 128 KiB "
        "throughput stage not again)",
    )
    run.add_argument(
        "--no-purge",
        action="store_true",
        help="no purge (blkdiscard, else a zero fill) before the suite; a device neither "
        "purges is refused without it",
    )
    run.add_argument("--confirm", default="", help="the device path again: its data goes")
    run.add_argument(
        "--force", action="store_true", help="test a device that holds a file system or partitions"
    )
    run.add_argument("--label", default="", help="a label stored with the suite")
    run.add_argument("--json", action="store_true", help="end with one JSON object on stdout")
    run.add_argument("--accept-new-host-key", action="store_true", help="pin a new host key")
    run.set_defaults(handler=handle_run)
    resume = ssub.add_parser("resume", help="go on with a stopped suite from its next job")
    resume.add_argument("id", type=int)
    resume.add_argument(
        "--force",
        action="store_true",
        help="go on although the device now holds a file system or partitions (destroyed)",
    )
    resume.add_argument("--json", action="store_true", help="end with one JSON object")
    resume.add_argument("--accept-new-host-key", action="store_true", help="pin a new host key")
    resume.set_defaults(handler=handle_resume)
    listing = ssub.add_parser("list", help="the stored suites, newest first")
    listing.add_argument("--json", action="store_true", help="a JSON array")
    add_team_flag(listing)
    listing.set_defaults(handler=team_or(handle_list, handle_team_suites))
    show = ssub.add_parser("show", help="a suite: its verdicts, jobs and tables")
    show.add_argument("id", type=int, nargs="?")
    show.add_argument("--json", action="store_true", help="one JSON object (with jobs, tables)")
    add_team_flag(show, show=True)
    show.set_defaults(handler=team_or(handle_show, handle_team_show("suite")))
    from pathlib import Path  # --out of report and compare

    report = ssub.add_parser("report", help="a suite's HTML report, charts and CSV in a directory")
    report.add_argument("id", type=int)
    report.add_argument("--out", required=True, type=Path, metavar="DIR", help="where to write")
    report.add_argument(
        "--format", default="png", choices=("png", "svg", "pdf"), help="charts (PNG+SVG always)"
    )
    report.add_argument("--json", action="store_true", help="one JSON object: the files written")
    report.set_defaults(handler=handle_report)
    compare = ssub.add_parser("compare", help="suites of one test side by side, with ratios")
    compare.add_argument("ids", type=int, nargs="+", metavar="ID", help="two suites or more")
    compare.add_argument("--out", required=True, type=Path, metavar="DIR", help="where to write")
    compare.add_argument(
        "--format", default="png", choices=("png", "svg", "pdf"), help="charts (PNG+SVG always)"
    )
    compare.add_argument("--json", action="store_true", help="one JSON object: files, ratios")
    compare.set_defaults(handler=handle_compare)


class _Progress:
    """Prints a line per job and per round (to stderr with ``--json``)."""

    def __init__(self, env: Environment, to_stderr: bool) -> None:
        self._say = env.err if to_stderr else env.out

    def on_job_started(self, key: JobKey, name: str, done: int, planned: int) -> None:
        self._say(terminal_text(f"[{done + 1}/{planned}] {name}"))

    def on_job_finished(self, key: JobKey, run: Run) -> None:
        figures = [
            f"{name} {format_value(name, run.summary[name])}"
            for name in ("read_iops", "write_iops", "write_lat_mean_us", "write_bytes_per_s")
            if name in run.summary
        ]
        self._say(terminal_text(f"    run {run.id} {run.status.value}: {', '.join(figures)}"))

    def on_round(self, stage: Any) -> None:
        verdict = stage.verdict
        line = f"  {stage.stage.name} round {len(stage.values)}: {stage.values[-1]:.6g}"
        window = verdict.window
        if window is not None:
            line += f" ({stage.rule.value} rule)" if window.rule != "pts" else ""
            line += (
                f" (window mean {window.mean:.6g}; data {window.data_excursion:.4g} "
                f"<= {window.data_limit:.4g}: {'yes' if window.data_ok else 'no'}; slope "
                f"{window.slope_excursion:.4g} <= {window.slope_limit:.4g}: "
                f"{'yes' if window.slope_ok else 'no'}) {verdict.state.value}"
            )
        self._say(line)


def _size(text: str) -> int:
    return parse_size(text) if text else 0


def _exit(status: SuiteStatus) -> ExitStatus:
    return {
        SuiteStatus.COMPLETED: ExitStatus.OK,
        SuiteStatus.CANCELLED: ExitStatus.CANCELLED,
        SuiteStatus.INTERRUPTED: ExitStatus.RUN_INTERRUPTED,
    }.get(status, ExitStatus.RUN_FAILED)


def _stage_line(stage: dict[str, Any]) -> str:
    """``iops: steady state reached at round 7 (pts rule)``."""
    at = f" at round {stage['round']}" if stage["round"] else ""
    return f"{stage['stage']}: steady state {stage['state']}{at} ({stage['rule']} rule)"


def _shown_json(lib: Library, suite_id: int) -> tuple[SuiteShown, dict[str, Any]]:
    """A suite and its ``storage show --json`` object, with what limited each job's run."""
    shown = show_suite(lib, suite_id)
    verdicts = run_verdicts(lib, (j.run_id for j in shown.jobs if j.run_id is not None))
    return shown, suite_json(shown, verdicts)


def _report(env: Environment, outcome: SuiteOutcome, as_json: bool) -> None:
    """The suite as ``storage show`` gives it (``--json``: the same object), and how to go
    on with a stopped one."""
    with env.open_library() as lib:
        _shown, data = _shown_json(lib, outcome.suite_id)
    if as_json:
        env.out(json.dumps(data))
        return
    env.out(f"suite {outcome.suite_id}: {outcome.status.value}")
    for stage in data["stages"]:
        env.out(terminal_text(f"  {_stage_line(stage)}"))
    if outcome.error:
        env.err(terminal_text(f"pairbench: suite {outcome.suite_id}: {outcome.error}"))
    if outcome.status is not SuiteStatus.COMPLETED:
        env.err(f"pairbench: go on with `pairbench storage resume {outcome.suite_id}`")


def handle_run(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Run a storage suite per ``--test``, one after the other; Ctrl-C cancels the one
    running (finished jobs kept, resumable) and runs no more."""
    data = None if args.data_excursion is None else args.data_excursion / 100.0
    try:
        req = SuiteRequest(
            host=args.host,
            test=StorageTest(args.test[0]),
            target=args.target,
            size=_size(args.size),
            threads=args.threads,
            iodepth=args.iodepth,
            round_seconds=args.round_seconds,
            max_rounds=args.max_rounds,
            precondition_passes=0 if args.no_precondition else args.precondition_passes,
            purge=not args.no_purge,
            confirm=args.confirm,
            force=args.force,
            label=args.label,
            data_excursion=data,
            slope_excursion=args.slope_excursion / 100.0,
            steady_state=SteadyRule(args.steady_state),
            threads_per_target_max=args.threads_per_target_max,
            threads_per_core_max=args.threads_per_core_max,
            precondition_once=args.precondition_once,
        )
    except ValueError as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.USAGE
    status = ExitStatus.OK
    for index, test in enumerate(args.test):
        once = args.precondition_once and index > 0
        passes = 0 if once else req.precondition_passes
        status = _run_one(
            replace(req, test=StorageTest(test), precondition_passes=passes), args, env
        )
        if status is not ExitStatus.OK:
            break
    return status


def _run_one(req: SuiteRequest, args: argparse.Namespace, env: Environment) -> ExitStatus:
    """One suite: run, report, and its exit status."""
    say = env.err if args.json else env.out

    def on_created(suite_id: int, params: SuiteParams) -> None:
        say(terminal_text(f"suite {suite_id}: {params.test.value} on {params.target}"))
        say(f"  {estimate_text(params)}, plus preconditioning")
        cancel_on_signals(cancel)

    cancel = asyncio.Event()
    try:
        with env.open_library() as lib:
            outcome = asyncio.run(
                start_suite(
                    lib,
                    req,
                    observer=_Progress(env, args.json),
                    cancel=cancel,
                    secrets=TerminalPrompt(),
                    accept_new_host_key=args.accept_new_host_key,
                    on_created=on_created,
                )
            )
    except ValueError as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.USAGE
    except (LibraryError, RunError) as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    _report(env, outcome, args.json)
    return _exit(outcome.status)


def handle_resume(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Go on with a stopped suite."""
    cancel = asyncio.Event()

    def on_resumed(suite_id: int, params: SuiteParams) -> None:
        cancel_on_signals(cancel)

    try:
        with env.open_library() as lib:
            outcome = asyncio.run(
                resume_suite(
                    lib,
                    args.id,
                    observer=_Progress(env, args.json),
                    cancel=cancel,
                    secrets=TerminalPrompt(),
                    accept_new_host_key=args.accept_new_host_key,
                    on_resumed=on_resumed,
                    force=args.force,
                )
            )
    except (LibraryError, RunError, ValueError) as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    _report(env, outcome, args.json)
    return _exit(outcome.status)


def handle_list(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """The stored suites, newest first."""
    try:
        with env.open_library() as lib:
            suites = storage_suites(lib)
    except LibraryError as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    rows = [suite_row(s) for s in suites]
    if args.json:
        env.out(json.dumps(rows))
        return ExitStatus.OK
    if not rows:
        env.out("no storage suites yet: try `pairbench storage run --host local ...`")
    for row in rows:
        env.out(suite_line(row))
    return ExitStatus.OK


def handle_show(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """One suite: its verdicts and tables (``--json``: with every job)."""
    try:
        with env.open_library() as lib:
            shown, data = _shown_json(lib, args.id)
    except LibraryError as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    if args.json:
        env.out(json.dumps(data))
        return ExitStatus.OK
    env.out(terminal_text(f"suite {data['id']}: {data['params']['test']} on {data['host']}:"))
    env.out(terminal_text(f"  target {data['params']['target']}, status {data['status']}"))
    if data["error"]:
        env.out(terminal_text(f"  {data['error']}"))
    for stage in data["stages"]:
        env.out(terminal_text(f"  {_stage_line(stage)}; tracking {stage['tracking']}"))
        if stage["limited_by"]:
            env.out(terminal_text(f"    limited by {stage['limited_by']}"))
    for table in shown.tables:
        env.out(f"  {table.name} ({table.unit}):")
        for cell in table.cells:
            mix = f"{cell.read_pct}/{100 - cell.read_pct}"
            env.out(f"    {cell.bs:>5} {mix:>7}  {cell.value:,.1f}")
    return ExitStatus.OK
