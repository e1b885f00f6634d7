"""``pairbench storage report|compare``: a suite's report, or suites side by side, as files."""

from __future__ import annotations

import argparse
import json
from typing import Any

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.export.escaping import terminal_text
from pairbench.services.library import LibraryError


def _written(env: Environment, files: list[Any], extra: dict[str, Any], as_json: bool) -> None:
    if as_json:
        env.out(json.dumps({**extra, "files": [str(f) for f in files]}))
        return
    for path in files:
        env.out(terminal_text(f"wrote {path}"))


def _write_storage_report(args: argparse.Namespace, env: Environment, ids: list[int]) -> ExitStatus:
    """``storage report`` (one id) and ``storage compare`` (several)."""
    from pairbench.export.charts import ChartUnavailable
    from pairbench.export.storage_data import StorageReportError
    from pairbench.services.storage_report import (
        comparison_ratios,
        write_comparison,
        write_report,
    )

    if env.chart_renderer is None:
        env.err(
            "pairbench: cannot draw charts: this Pairbench has no chart renderer "
            "(charts need the desktop part, Qt); run the full pairbench."
        )
        return ExitStatus.ERROR
    extra: dict[str, Any] = {"suites": ids}
    try:
        with env.open_library() as lib:
            if len(ids) == 1 and args.storage_command == "report":
                files = write_report(lib, ids[0], args.out, env.chart_renderer, args.format)
            else:
                files = write_comparison(lib, ids, args.out, env.chart_renderer, args.format)
                extra["ratios"] = comparison_ratios(lib, ids)
    except (LibraryError, StorageReportError) as exc:
        env.err(terminal_text(f"pairbench: {exc}"))
        return ExitStatus.ERROR
    except ChartUnavailable as exc:
        env.err(terminal_text(f"pairbench: no report written: {exc}"))
        return ExitStatus.ERROR
    except OSError as exc:
        env.err(terminal_text(f"pairbench: cannot write the report in {args.out}: {exc}"))
        return ExitStatus.ERROR
    _written(env, files, extra, args.json)
    return ExitStatus.OK


def handle_report(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Write a suite's report: index.html, every chart (PNG, SVG, PDF if asked), storage.csv."""
    return _write_storage_report(args, env, [args.id])


def handle_compare(args: argparse.Namespace, env: Environment) -> ExitStatus:
    """Write a comparison of suites of one test: charts side by side, tables, ratios."""
    return _write_storage_report(args, env, list(args.ids))
