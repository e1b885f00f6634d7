"""``pairbench probe burst``: measure a pair's burst credits with a run that stops by itself."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from pairbench.analysis.burst import BurstEstimate, BurstState
from pairbench.cli.burst_text import describe_estimate, format_duration, format_size_bits
from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.cli.prompts import TerminalPrompt
from pairbench.cli.signals import cancel_on_signals
from pairbench.domain import HostPair, Line, Record, Run, RunSpec, RunStatus
from pairbench.domain.failures import RunError
from pairbench.domain.units import format_bits, format_value
from pairbench.export.escaping import terminal_text
from pairbench.services.burst import (
    DEFAULT_AFTER_STEP_S,
    DEFAULT_MAX_DURATION_S,
    DEFAULT_STREAMS,
    METRIC,
    STREAM,
    BurstProbeOutcome,
    burst_probe_spec,
)
from pairbench.services.hosts import get_pair
from pairbench.services.library import Library, LibraryError
from pairbench.services.running import probe_burst_on_pair


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``probe`` and its subcommands."""
    p = sub.add_parser("probe", help="measurement presets that end by themselves (burst)")
    p_sub = p.add_subparsers(dest="probe_command", required=True, metavar="burst")
    b = p_sub.add_parser(
        "burst",
        help="burst credits: a long iperf3 TCP run that stops once the drop to baseline is known",
        description="Runs iperf3 (TCP, 1 s intervals) on the pair and watches the aggregate "
        "throughput: it stops --after-step seconds after the drop from burst to baseline is "
        "confirmed (or after --max-duration), and stores the run with its burst analysis.",
    )
    b.add_argument("--pair", required=True, help="the pair to measure")
    b.add_argument(
        "--after-step",
        type=_seconds,
        default=DEFAULT_AFTER_STEP_S,
        metavar="S",
        help=f"seconds to go on after the step is confirmed (default {DEFAULT_AFTER_STEP_S:g})",
    )
    b.add_argument(
        "--max-duration",
        type=int,
        default=DEFAULT_MAX_DURATION_S,
        metavar="S",
        help=f"iperf3's duration: the longest the probe runs (default {DEFAULT_MAX_DURATION_S})",
    )
    b.add_argument(
        "--streams", type=int, default=DEFAULT_STREAMS, help="parallel TCP streams (default 2)"
    )
    b.add_argument(
        "--refill-idle",
        type=_seconds,
        default=0.0,
        metavar="S",
        help="after the step, rest this long, then burst again to measure the refill rate",
    )
    b.add_argument("--label", default="", help="a label for the run")
    b.add_argument("--json", action="store_true", help="end with one JSON object on stdout")
    b.add_argument(
        "--accept-new-host-key",
        action="store_true",
        help="trust and pin a host key seen for the first time (check its fingerprint first)",
    )
    b.set_defaults(handler=handle_burst)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from exc
    if not 0 <= value <= 86400:
        raise argparse.ArgumentTypeError(f"{text!r} must be between 0 and 86400 seconds")
    return value


class _ProbeObserver:
    """One line per aggregate interval: the throughput and the live burst estimate."""

    def __init__(self, env: Environment, to_stderr: bool, after_step_s: float) -> None:
        self._write = env.err if to_stderr else env.out
        self._after = after_step_s
        self._estimate: BurstEstimate | None = None

    def on_estimate(self, estimate: BurstEstimate) -> None:
        self._estimate = estimate  # called just before on_records with the same interval

    def on_started(self, run_id: int, spec: RunSpec, expected_s: float) -> None:
        self._estimate = None
        self._write(
            terminal_text(
                f"run {run_id}: {spec.label} on {spec.pair} (iperf3, {spec.params.get('streams')} "
                f"streams, up to {expected_s:.0f} s; stops {self._after:g} s after the step)"
            )
        )

    def on_line(self, line: Line) -> None:
        return None

    def on_notice(self, text: str) -> None:
        self._write(terminal_text(f"  ! {text}"))

    def on_records(self, records: list[Record]) -> None:
        for record in records:
            if record.stream == STREAM and METRIC in record.metrics:
                value = record.values[record.metrics.index(METRIC)]
                self._write(
                    f"{record.t:7.1f} s  {format_value(METRIC, value):>14}  {self._status()}"
                )

    def _status(self) -> str:
        e = self._estimate
        if e is None or e.burst_bps is None:
            return ""
        if e.state is BurstState.NO_STEP:
            return f"burst so far {format_bits(e.burst_bps)}, no step yet"
        assert e.baseline_bps is not None and e.step_t is not None
        levels = (
            f"burst {format_bits(e.burst_bps)} → baseline {format_bits(e.baseline_bps)}, "
            f"bucket ≈ {format_size_bits(e.bucket_bits or 0)}"
        )
        if e.state is BurstState.SUSPECTED:
            return f"step suspected at {e.step_t:.1f} s: {levels}"
        left = self._after - (e.t - (e.confirmed_at or e.t))
        return f"step at {e.step_t:.1f} s ✓ {levels}; stopping in {max(left, 0):.0f} s"

    def on_finished(self, run: Run) -> None:
        return None


def handle_burst(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Run the probe, store it with its analysis, and report."""
    try:
        with env.open_library() as lib:
            pair = get_pair(lib, args.pair)
            spec = burst_probe_spec(
                pair, max_duration_s=args.max_duration, streams=args.streams, label=args.label
            )
            outcome = asyncio.run(_probe(lib, pair, spec, env, args))
    except (LibraryError, RunError, ValueError) as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    _report(outcome, env, args.json)
    return _exit_status(outcome)


async def _probe(
    lib: Library,
    pair: HostPair,
    spec: RunSpec,
    env: Environment,
    args: argparse.Namespace,
) -> BurstProbeOutcome:
    cancel = asyncio.Event()
    observer = _ProbeObserver(env, to_stderr=args.json, after_step_s=args.after_step)
    return await probe_burst_on_pair(
        lib,
        pair,
        spec,
        after_step_s=args.after_step,
        refill_idle_s=args.refill_idle,
        observer=observer,
        cancel=cancel,
        on_estimate=observer.on_estimate,
        secrets=TerminalPrompt(),
        accept_new_host_key=args.accept_new_host_key,
        on_ready=lambda: cancel_on_signals(cancel),
    )


def _report(outcome: BurstProbeOutcome, env: Environment, as_json: bool) -> None:
    run, estimate = outcome.run, outcome.estimate
    if as_json:
        payload: dict[str, Any] = {
            "id": run.id,
            "status": run.status.value,
            "summary": run.summary,
            "notes": run.notes,
            "burst": estimate.to_json(),
        }
        if outcome.refill_run is not None:
            payload["refill_run"] = {
                "id": outcome.refill_run.id,
                "status": outcome.refill_run.status.value,
                "burst": outcome.refill_estimate.to_json() if outcome.refill_estimate else None,
            }
            payload["refill"] = outcome.refill.to_json() if outcome.refill else None
        env.out(json.dumps(payload))
        return
    error = f" ({run.error})" if run.error else ""
    env.out(terminal_text(f"run {run.id}: {run.status.value}{error}"))
    if run.notes:
        env.out(terminal_text(f"  {run.notes}"))
    for line in describe_estimate(estimate):
        env.out(f"  {line}")
    refill = outcome.refill
    if outcome.refill_run is not None:
        env.out(f"refill run {outcome.refill_run.id}: {outcome.refill_run.status.value}")
    if refill is not None:
        if refill.refill_bps is None or refill.refilled_bits is None:
            env.out(f"  refill: nothing measurable came back after {refill.idle_s:.1f} s idle")
        else:
            bound = " (at least: the bucket was full again)" if refill.full else ""
            ratio = f" = {refill.refill_ratio:.2f} × baseline" if refill.refill_ratio else ""
            env.out(
                f"  refill: {format_size_bits(refill.refilled_bits)} after "
                f"{format_duration(refill.idle_s)} idle → {format_bits(refill.refill_bps)}"
                f"{ratio}{bound}"
            )
    for r in (run, outcome.refill_run):
        if r is not None and r.status is not RunStatus.COMPLETED and r.error:
            env.err(terminal_text(f"pairbench: run {r.id} {r.status.value}: {r.error}"))


def _exit_status(outcome: BurstProbeOutcome) -> ExitStatus:
    run = outcome.run
    if run.status is RunStatus.COMPLETED and outcome.refill_run is not None:
        run = outcome.refill_run
    return {
        RunStatus.COMPLETED: ExitStatus.OK,
        RunStatus.CANCELLED: ExitStatus.CANCELLED,
        RunStatus.INTERRUPTED: ExitStatus.RUN_INTERRUPTED,
    }.get(run.status, ExitStatus.RUN_FAILED)
