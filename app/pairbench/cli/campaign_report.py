"""``pairbench campaign report ID --out DIR``: a campaign's tables and charts on disk."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.export.escaping import terminal_text
from pairbench.services.library import LibraryError


def add_report_parser(csub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``campaign report``."""
    report = csub.add_parser(
        "report",
        help="write a campaign's tables and charts",
        description="Write a campaign's report into a directory: index.html, campaign.md and "
        "campaign.csv (groups × tests: mean ± 95 %% CI, n, CV, discards, rank; the groups "
        "against the baseline; the discarded runs), and its charts as PNG and SVG (PDF too "
        "with --format pdf): each group's mean with CI per test, and the metric by time of "
        "day for a scheduled campaign.",
    )
    report.add_argument("id", type=int)
    report.add_argument("--out", required=True, type=Path, help="the directory to write into")
    report.add_argument(
        "--format",
        choices=("png", "svg", "pdf"),
        default="png",
        help="the charts shown in index.html (PNG and SVG are always written; pdf adds PDFs)",
    )
    report.add_argument(
        "--group-by",
        default="pair",
        metavar="TAG",
        help="rows: 'pair' (default), or a tag of the pairs (or of their client host) such "
        "as zone, region or type; a group's runs are pooled per test",
    )
    report.add_argument(
        "--baseline",
        metavar="GROUP",
        help="the group the others are compared to (default: the first)",
    )
    report.add_argument("--json", action="store_true", help="print the files written as JSON")
    report.set_defaults(handler=handle_report)


def handle_report(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Write the report: every chart, campaign.md, campaign.csv, index.html."""
    from pairbench.export.campaign_data import CampaignReportError
    from pairbench.export.charts import ChartUnavailable
    from pairbench.services.campaign_report import report_model, report_summary, write_model

    if env.chart_renderer is None:
        env.err(
            "pairbench: cannot draw charts: this Pairbench has no chart renderer "
            "(charts need the desktop part, Qt); run the full pairbench."
        )
        return ExitStatus.ERROR
    try:
        with env.open_library() as lib:
            model = report_model(lib, args.id, args.group_by, args.baseline)
        files = write_model(model, args.out, env.chart_renderer, args.format)
    except (LibraryError, CampaignReportError) as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    except ChartUnavailable as exc:
        env.err(terminal_text(f"pairbench: no report written: {exc}"))
        return ExitStatus.ERROR
    except OSError as exc:
        env.err(terminal_text(f"pairbench: cannot write the report in {args.out}: {exc}"))
        return ExitStatus.ERROR
    if args.json:
        env.out(json.dumps({"written": [str(f) for f in files], **report_summary(model)}))
    else:
        for path in files:
            env.out(terminal_text(f"wrote {path}"))
    return ExitStatus.OK
