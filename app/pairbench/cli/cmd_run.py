"""``pairbench run``: one run on a pair, with a live line per interval and a progress bar."""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.cli.prompts import TerminalPrompt
from pairbench.cli.signals import cancel_on_signals
from pairbench.domain import HostPair, Line, Record, Run, RunSpec, RunStatus
from pairbench.domain.failures import RunError
from pairbench.domain.units import format_value
from pairbench.export.escaping import terminal_text
from pairbench.services.fio_jobs import JobFileError, format_jobs, job_file_params
from pairbench.services.hosts import get_pair
from pairbench.services.library import Library, LibraryError
from pairbench.services.running import run_on_pair
from pairbench.services.uperf_profiles import ProfileError, profile_file_params

_BAR_WIDTH = 20
# The headline of a live line (the first of these a record has), then the other values shown.
_HEADLINES = ("throughput_bps", "read_iops", "write_iops", "rtt_ms", "ops_per_s")
_EXTRAS = (
    "retransmits",
    "jitter_ms",
    "lost_percent",
    "latency_avg_us",
    "read_bytes_per_s",
    "write_bytes_per_s",
    "read_lat_mean_us",
    "write_lat_mean_us",
)
# Streams printed live besides "sum": a fio group's aggregate ("group2"); a uperf profile's
# transactions ("txn1") while no "sum" came (a profile of the user's without a timed one).
_GROUP_STREAM = re.compile(r"group\d+")
_TXN_STREAM = re.compile(r"txn\d+")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``run``."""
    p = sub.add_parser("run", help="run a benchmark on a pair and store it")
    p.add_argument("--pair", required=True, help="pair name ('local' = this computer)")
    p.add_argument("--tool", required=True, help="tool to run, e.g. iperf3")
    p.add_argument(
        "--set",
        dest="settings",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a tool parameter, e.g. duration=5 streams=2 reverse=true udp=true bitrate=50M",
    )
    p.add_argument("--label", default="", help="a label stored with the run")
    p.add_argument("--json", action="store_true", help="end with one JSON object on stdout")
    p.add_argument(
        "--accept-new-host-key",
        action="store_true",
        help="trust and pin a host key seen for the first time (check its fingerprint first)",
    )
    p.set_defaults(handler=handle)


def parse_settings(settings: list[str]) -> dict[str, str]:
    """``KEY=VALUE`` strings into a dict; a malformed one raises ``ValueError``."""
    params: dict[str, str] = {}
    for item in settings:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set needs KEY=VALUE, got {item!r}")
        params[key.strip()] = value
    return params


class _LiveObserver:
    """Prints one line per interval of the aggregate stream, with progress and ETA."""

    def __init__(self, env: Environment, to_stderr: bool) -> None:
        self._write = env.err if to_stderr else env.out
        self._expected = 0.0
        self._started = time.monotonic()
        self._sum_seen = False

    def on_started(self, run_id: int, spec: RunSpec, expected_s: float) -> None:
        self._expected = expected_s
        self._started = time.monotonic()
        length = f"~{expected_s:.0f} s" if expected_s > 0 else "no fixed length"
        self._write(terminal_text(f"run {run_id}: {spec.tool} on {spec.pair}, {length}"))

    def on_line(self, line: Line) -> None:
        return None

    def on_notice(self, text: str) -> None:
        self._write(terminal_text(f"  ! {text}"))

    def on_records(self, records: list[Record]) -> None:
        for record in records:
            stream = record.stream
            self._sum_seen = self._sum_seen or stream == "sum"
            shown = (
                stream == "sum"
                or _GROUP_STREAM.fullmatch(stream) is not None
                or (not self._sum_seen and _TXN_STREAM.fullmatch(stream) is not None)
            )
            if shown and any(m in record.metrics for m in _HEADLINES):
                self._interval(record)

    def _interval(self, record: Record) -> None:
        values = dict(zip(record.metrics, record.values, strict=True))
        main = next(name for name in _HEADLINES if name in values)
        stream = "" if record.stream == "sum" else f"{record.stream} "
        extras = [
            f"{name} {format_value(name, values[name])}"
            for name in (*_HEADLINES, *_EXTRAS)
            if name in values and name != main
        ]
        self._write(
            f"{record.t:7.1f} s  {stream}{format_value(main, values[main]):>14}  "
            f"{'  '.join(extras):<22}  {self._progress(record.t)}"
        )

    def _progress(self, t: float) -> str:
        if self._expected <= 0:
            return ""
        share = min(1.0, t / self._expected)
        filled = round(share * _BAR_WIDTH)
        eta = max(0.0, self._expected - (time.monotonic() - self._started))
        return f"[{'#' * filled}{'.' * (_BAR_WIDTH - filled)}] {share:4.0%} ETA {eta:4.0f} s"

    def on_finished(self, run: Run) -> None:
        return None


def handle(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Run, store, and report; Ctrl-C cancels and stores the run as cancelled."""
    try:
        params = parse_settings(args.settings)
    except ValueError as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.USAGE
    if args.tool == "fio":  # a job file: read and checked here, its jobs shown first
        try:
            params, job = job_file_params(params)
        except JobFileError as exc:
            env.err(terminal_text(f"pairbench: {exc}"))
            return ExitStatus.ERROR
        for line in format_jobs(job) if job is not None else ():
            (env.err if args.json else env.out)(terminal_text(line))
    if args.tool == "uperf":  # a profile of the user's: read and checked here, shown first
        try:
            params, profile = profile_file_params(params)
        except ProfileError as exc:
            env.err(terminal_text(f"pairbench: {exc}"))
            return ExitStatus.ERROR
        for line in profile.lines if profile is not None else ():
            (env.err if args.json else env.out)(terminal_text(line))
    spec = RunSpec(pair=args.pair, tool=args.tool, params=params, label=args.label)
    try:
        with env.open_library() as lib:
            pair = get_pair(lib, args.pair)
            run = asyncio.run(_run(lib, pair, spec, env, args))
    except (LibraryError, RunError) as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    _report(run, env, args.json)
    return _exit_status(run.status)


async def _run(
    lib: Library, pair: HostPair, spec: RunSpec, env: Environment, args: argparse.Namespace
) -> Run:
    cancel = asyncio.Event()
    return await run_on_pair(
        lib,
        pair,
        spec,
        observer=_LiveObserver(env, to_stderr=args.json),
        cancel=cancel,
        secrets=TerminalPrompt(),
        accept_new_host_key=args.accept_new_host_key,
        on_ready=lambda: cancel_on_signals(cancel),
    )


def _report(run: Run, env: Environment, as_json: bool) -> None:
    if as_json:
        env.out(json.dumps({"id": run.id, "status": run.status.value, "summary": run.summary}))
        return
    error = f" ({run.error})" if run.error else ""
    env.out(terminal_text(f"run {run.id}: {run.status.value}{error}"))
    for name, value in run.summary.items():
        env.out(f"  {name:<24} {format_value(name, value)}")
    if run.status is not RunStatus.COMPLETED and run.error:
        env.err(terminal_text(f"pairbench: run {run.id} {run.status.value}: {run.error}"))


def _exit_status(status: RunStatus) -> ExitStatus:
    return {
        RunStatus.COMPLETED: ExitStatus.OK,
        RunStatus.CANCELLED: ExitStatus.CANCELLED,
        RunStatus.INTERRUPTED: ExitStatus.RUN_INTERRUPTED,
        RunStatus.STALLED: ExitStatus.RUN_STALLED,
    }.get(status, ExitStatus.RUN_FAILED)
