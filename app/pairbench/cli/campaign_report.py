"""``pairbench campaign report ID --out DIR``: a campaign's tables and charts on disk."""

from __future__ import annotations

import argparse

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus


def add_report_parser(csub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``campaign report``."""
    report = csub.add_parser("report", help="write a campaign's tables and charts")
    report.add_argument("id", type=int)
    report.add_argument("--out", required=True, help="the directory to write into")
    report.set_defaults(handler=handle_report)


def handle_report(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Write the report (being built)."""
    env.err("pairbench: campaign report is not built yet")
    return ExitStatus.ERROR
