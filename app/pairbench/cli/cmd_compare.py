"""``pairbench compare ID...``: statistics, a comparison table and charts of stored runs, this
computer's and the team library's (``team:UUID``) mixed."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from pairbench.analysis.compare import Comparison, compare
from pairbench.analysis.compare_runs import CompareError, GroupBy
from pairbench.analysis.outliers import OutlierPolicy
from pairbench.analysis.stats import StatsError
from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.export.charts import (
    ChartKind,
    ChartUnavailable,
    SummaryStyle,
    chart_spec,
    check_chart_path,
)
from pairbench.export.compare_json import comparison_payload
from pairbench.export.escaping import terminal_text
from pairbench.export.selection import SelectionError
from pairbench.export.table_render import comparison_csv, to_html, to_markdown, to_text
from pairbench.export.tables import Report, comparison_report
from pairbench.services.compare_refs import (
    load_compare_inputs,
    parse_refs,
    resolve_baseline,
    runs_payload,
)
from pairbench.services.library import LibraryError

TABLE_SUFFIXES = (".md", ".csv", ".html")
_SIZE_RE = re.compile(r"([0-9]{3,5})x([0-9]{3,5})")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``compare``."""
    p = sub.add_parser(
        "compare",
        help="compare stored runs: statistics, table, charts",
        description="Compare stored runs (or groups of repeats) on one metric: n, mean, "
        "median, stddev, CV and 95 % CI per group, Welch's test against the baseline, a "
        "comparison table of every applicable metric, and what differs between the runs.",
    )
    p.add_argument(
        "runs",
        nargs="+",
        metavar="ID",
        help="run ids (12), ranges (12-17), pair:NAME, label:TEXT, tag:KEY=VALUE, or a team "
        "library's run: team:UUID (shown in the comparison as #-N, N its id on the server)",
    )
    p.add_argument(
        "--group-by",
        default="run",
        metavar="run|label|pair|ran_by|tag:KEY",
        help="treat runs sharing a label, pair, tag value or who ran them (ran_by: in a "
        "comparison with team runs) as repeats (default: run)",
    )
    p.add_argument("--metric", help="the metric to compare (default: throughput, else latency…)")
    p.add_argument(
        "--baseline",
        metavar="ID|team:UUID|GROUP",
        help="the baseline (default: the oldest group, whose first run started first)",
    )
    p.add_argument(
        "--outliers",
        default="none",
        metavar="none|iqr[:K]|mad[:K]",
        help="discard runs beyond K×IQR (default 1.5) or K×MAD (default 3); listed, never silent",
    )
    p.add_argument("--confidence", type=float, default=0.95, help="CI level (default: 0.95)")
    p.add_argument("--chart", type=Path, metavar="OUT.png|.svg|.pdf", help="write a chart")
    p.add_argument(
        "--chart-kind",
        choices=[k.value for k in ChartKind],
        default=ChartKind.BOTH.value,
        help="time-series overlay, summary with CIs, or both (default)",
    )
    p.add_argument(
        "--chart-style",
        choices=[k.value for k in SummaryStyle],
        default=SummaryStyle.POINTS.value,
        help="the summary's groups: means with CI (points, default), bars with CI, box plots",
    )
    p.add_argument("--size", default="1200x700", metavar="WxH", help="chart size in pixels")
    p.add_argument("--dpi", type=int, default=96, help="PNG resolution (default: 96)")
    p.add_argument("--title", help="chart and table title")
    p.add_argument("--table", type=Path, metavar="OUT.md|.csv|.html", help="write the table")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.set_defaults(handler=handle)


def handle(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Compare, print, and write the requested files."""
    try:
        policy = OutlierPolicy.parse(args.outliers)
        group_by = GroupBy.parse(args.group_by)
        width, height = _size(args.size)
        if args.chart is not None:
            check_chart_path(args.chart)
        if args.table is not None and args.table.suffix.lower() not in TABLE_SUFFIXES:
            raise ValueError(
                f"cannot tell the table format of {args.table.name!r}: use .md, .csv or .html"
            )
        if not 0.5 <= args.confidence < 1.0:
            raise ValueError("--confidence must be between 0.5 and 1 (e.g. 0.95)")
    except ValueError as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.USAGE
    if args.chart is not None and env.chart_renderer is None:
        env.err(
            "pairbench: cannot draw charts: this Pairbench has no chart renderer "
            "(charts need the desktop part, Qt). Leave out --chart, or run the full pairbench."
        )
        return ExitStatus.ERROR
    try:
        with env.open_library() as lib:
            loaded = load_compare_inputs(lib, parse_refs(lib, args.runs))
        cmp = compare(
            loaded.inputs,
            metric=args.metric,
            group_by=group_by,
            policy=policy,
            baseline=resolve_baseline(loaded, args.baseline, group_by),
            confidence=args.confidence,
        )
    except (SelectionError, CompareError, StatsError, LibraryError) as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    report = comparison_report(cmp, title=args.title)
    written: list[str] = []
    status = ExitStatus.OK
    if args.table is not None:
        try:
            _write_table(args.table, cmp, report)
            written.append(str(args.table))
        except OSError as exc:
            env.err(terminal_text(f"pairbench: cannot write {args.table}: {exc.strerror or exc}"))
            status = ExitStatus.ERROR
    if args.chart is not None:
        assert env.chart_renderer is not None
        spec = chart_spec(
            cmp,
            ChartKind(args.chart_kind),
            width=width,
            height=height,
            dpi=args.dpi,
            title=args.title,
            style=SummaryStyle(args.chart_style),
        )
        try:
            env.chart_renderer(spec, args.chart)
            written.append(str(args.chart))
        except ChartUnavailable as exc:
            env.err(terminal_text(f"pairbench: no chart written: {exc}"))
            status = ExitStatus.ERROR
        except OSError as exc:
            env.err(terminal_text(f"pairbench: cannot write {args.chart}: {exc}"))
            status = ExitStatus.ERROR
    if args.json:
        payload = comparison_payload(cmp)
        payload["runs"] = runs_payload(loaded)
        payload["files"] = written
        env.out(json.dumps(payload))
    else:
        env.out(to_text(report).rstrip("\n"))
        for run_id, published in loaded.team.items():
            env.out(
                terminal_text(
                    f"#{run_id}: team run {published.uuid}, ran by {published.ran_by} "
                    f"on {published.origin}"
                )
            )
        for path in written:
            env.out(f"wrote {path}")
    return status


def _size(text: str) -> tuple[int, int]:
    match = _SIZE_RE.fullmatch(text.strip().lower())
    if not match:
        raise ValueError(f"--size must look like 1200x700, got {text!r}")
    width, height = int(match.group(1)), int(match.group(2))
    if not (200 <= width <= 10000 and 150 <= height <= 10000):
        raise ValueError("--size: width 200–10000 and height 150–10000 pixels")
    return width, height


def _write_table(path: Path, cmp: Comparison, report: Report) -> None:
    suffix = path.suffix.lower()
    if suffix == ".csv":
        text = comparison_csv(cmp)
    elif suffix == ".html":
        text = to_html(report)
    else:
        text = to_markdown(report)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
