"""``pairbench analyze burst ID | burst-table | fit``: burst credits of stored runs."""

from __future__ import annotations

import argparse
import json

from pairbench.analysis.burst_workload import BurstGroup, workload_fit
from pairbench.cli.burst_text import (
    allowance_lines,
    describe_estimate,
    describe_fit,
    format_size_bits,
)
from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.domain import quantities
from pairbench.domain.units import format_bits
from pairbench.export.escaping import terminal_text
from pairbench.export.table_render import markdown_table, text_table
from pairbench.export.tables import TextTable
from pairbench.services.burst import (
    AnalysisError,
    analyze_stored_burst,
    burst_groups,
    stored_burst,
)
from pairbench.services.runs import get_run


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``analyze`` and its subcommands."""
    p = sub.add_parser("analyze", help="analyse stored runs (burst credits)")
    a_sub = p.add_subparsers(dest="analyze_command", required=True, metavar="burst|burst-table|fit")
    p_burst = a_sub.add_parser(
        "burst", help="burst rate, baseline, burst time and bucket of a stored run"
    )
    p_burst.add_argument("id", type=int)
    p_burst.add_argument("--json", action="store_true")
    p_burst.set_defaults(handler=handle_burst)
    p_table = a_sub.add_parser(
        "burst-table", help="stored burst analyses grouped by a pair tag (instance type)"
    )
    p_table.add_argument("--tag", default="type", help="the tag to group by (default: type)")
    fmt = p_table.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true")
    fmt.add_argument("--md", action="store_true", help="a Markdown table")
    p_table.set_defaults(handler=handle_table)
    p_fit = a_sub.add_parser(
        "fit",
        help="will a workload fit: how long and how often it can burst",
        description="Rates like 750M, 0.75G, 750mbit; the bucket in bits (2700G, 2700Gbit) "
        "or bytes (337.5GB, 500MiB).",
    )
    p_fit.add_argument("--baseline", required=True, type=_rate, help="the baseline rate")
    p_fit.add_argument("--burst-rate", required=True, type=_rate, help="the burst rate")
    p_fit.add_argument("--bucket", required=True, type=_size, help="the credit bucket")
    p_fit.add_argument("--steady", required=True, type=_rate, help="the steady need")
    p_fit.add_argument("--need", required=True, type=_rate, help="the rate a burst needs")
    p_fit.add_argument(
        "--burst-length", type=float, default=None, metavar="S", help="seconds per burst"
    )
    p_fit.add_argument("--json", action="store_true")
    p_fit.set_defaults(handler=handle_fit)


def _rate(text: str) -> float:
    """A rate in bit/s: ``750M``, ``0.75G``, ``750mbit`` (``domain/quantities``)."""
    try:
        return float(quantities.rate_bps(text.strip()))
    except quantities.QuantityError as exc:
        raise argparse.ArgumentTypeError(f"not a rate: {exc}") from None


def _size(text: str) -> float:
    """A size in bits: ``2700G``/``2700Gbit`` bits, ``337.5GB`` bytes (SI), ``500MiB``."""
    try:
        return float(quantities.amount_bits(text.strip()))
    except quantities.QuantityError as exc:
        raise argparse.ArgumentTypeError(
            f"not a size (bits: 2700G or 2700Gbit; bytes: 337.5GB or 500MiB): {exc}"
        ) from None


def handle_burst(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Analyse one stored run, store the result with it, and print it."""
    with env.open_library() as lib:
        run = get_run(lib, args.id)
        try:
            estimate = analyze_stored_burst(lib, run.id)
        except AnalysisError as exc:
            env.err(terminal_text(f"pairbench: {exc}"))
            return ExitStatus.ERROR
        stored = stored_burst(lib, run.id) if estimate.detected else None
    if args.json:
        env.out(json.dumps({"run_id": run.id, **estimate.to_json()}))
        return ExitStatus.OK
    verdict = "burst step confirmed" if estimate.detected else "no burst step"
    env.out(terminal_text(f"run {run.id}: {run.spec.tool} on {run.spec.pair} — {verdict}"))
    for line in describe_estimate(estimate) + allowance_lines(stored or {}):
        env.out(f"  {line}")
    return ExitStatus.OK


def handle_table(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Print the per-group table of stored burst analyses."""
    with env.open_library() as lib:
        groups = burst_groups(lib, args.tag)
    if args.json:
        env.out(json.dumps([g.to_json() for g in groups]))
        return ExitStatus.OK
    if not groups:
        env.out(
            "no burst runs with a step yet: try `pairbench probe burst --pair NAME`, "
            "or `pairbench analyze burst ID` on a long run"
        )
        return ExitStatus.OK
    header: tuple[str, ...] = (args.tag, "runs", "baseline", "burst", "bucket", "max s at burst")
    # The group (a tag's value) and the tag's name may come from an imported file: the
    # renderers escape every cell for Markdown or the terminal.
    table = TextTable(header, tuple(_table_row(g) for g in groups), ("l",) + ("r",) * 5)
    env.out(markdown_table(table) if args.md else text_table(table))
    return ExitStatus.OK


def _table_row(group: BurstGroup) -> tuple[str, ...]:
    return (
        group.group,
        str(len(group.runs)),
        format_bits(group.baseline_bps),
        format_bits(group.burst_bps),
        format_size_bits(group.bucket_bits),
        f"{group.burst_seconds:.0f}",
    )


def handle_fit(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """The workload calculator."""
    try:
        fit = workload_fit(
            baseline_bps=args.baseline,
            burst_bps=args.burst_rate,
            bucket_bits=args.bucket,
            steady_bps=args.steady,
            need_bps=args.need,
            burst_length_s=args.burst_length,
        )
    except ValueError as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.USAGE
    if args.json:
        env.out(json.dumps(fit.to_json()))
        return ExitStatus.OK
    for line in describe_fit(fit):
        env.out(line)
    return ExitStatus.OK
