"""Storage suites' reports on disk: one suite's (``storage report``) or several compared
(``storage compare``): every chart as PNG and SVG (and PDF if asked), ``index.html`` and
``storage.csv``, drawn by the injected chart renderer."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pairbench.export.charts import ChartRenderer
from pairbench.export.report_dir import FORMATS as FORMATS
from pairbench.export.report_dir import INDEX, check_format, prepare_out_dir, write_charts
from pairbench.export.storage_data import StorageReportError, SuiteData, same_test
from pairbench.export.storage_html import GENERATOR, report_html, storage_csv
from pairbench.export.storage_table_charts import report_charts
from pairbench.export.storage_tables import ratio_json
from pairbench.library import Library
from pairbench.services.storage import SuiteShown, show_suite
from pairbench.services.storage_json import stage_verdicts
from pairbench.services.verdicts import run_verdicts

CSV = "storage.csv"
MAX_COMPARED = 8


def suite_data(lib: Library, suite_id: int) -> SuiteData:
    """A stored suite as its report reads it; ``LibraryError`` if there is none."""
    shown = show_suite(lib, suite_id)
    suite = shown.suite
    return SuiteData(
        id=suite.id,
        host=suite.host,
        label=suite.label,
        status=suite.status,
        created_at=suite.created_at,
        params=shown.params,
        progress=shown.progress,
        tables=tuple(shown.tables),
        done=shown.done,
        facts=dict(suite.facts),
        limited_by=stage_verdicts(shown, run_verdicts(lib, _run_ids(shown))),
    )


def _run_ids(shown: SuiteShown) -> list[int]:
    return [job.run_id for job in shown.jobs if job.run_id is not None]


def _check_out_dir(out_dir: Path) -> None:
    prepare_out_dir(out_dir, GENERATOR, "storage report", StorageReportError)


def _check_format(fmt: str) -> None:
    check_format(fmt, StorageReportError)


def write_suites(
    suites: Sequence[SuiteData], out_dir: Path, renderer: ChartRenderer, fmt: str = "png"
) -> list[Path]:
    """Write the report of ``suites`` (one, or several of one test) into ``out_dir``; the
    files written, ``index.html`` last. Charts raise ``ChartUnavailable`` without Qt."""
    _check_format(fmt)
    same_test(suites)
    out_dir = Path(out_dir)
    _check_out_dir(out_dir)
    written, charts = write_charts(report_charts(suites), out_dir, renderer, fmt)
    csv_path = out_dir / CSV
    csv_path.write_text(storage_csv(suites), encoding="utf-8")
    written.append(csv_path)
    index = out_dir / INDEX
    index.write_text(report_html(suites, charts, csv_name=CSV), encoding="utf-8")
    written.append(index)
    return written


def write_report(
    lib: Library, suite_id: int, out_dir: Path, renderer: ChartRenderer, fmt: str = "png"
) -> list[Path]:
    """One suite's report (every chart, ``index.html``, ``storage.csv``) in ``out_dir``."""
    _check_format(fmt)
    return write_suites([suite_data(lib, suite_id)], out_dir, renderer, fmt)


def compared_suites(lib: Library, ids: Sequence[int]) -> list[SuiteData]:
    """Two or more distinct suites of one test, in the order given (the first is the
    base of the ratios); ``StorageReportError`` otherwise."""
    if len(ids) < 2:
        raise StorageReportError("compare needs two suites or more")
    if len(set(ids)) != len(ids):
        raise StorageReportError("a suite is named twice")
    if len(ids) > MAX_COMPARED:
        raise StorageReportError(f"at most {MAX_COMPARED} suites compare side by side")
    suites = [suite_data(lib, i) for i in ids]
    same_test(suites)
    return suites


def write_comparison(
    lib: Library, ids: Sequence[int], out_dir: Path, renderer: ChartRenderer, fmt: str = "png"
) -> list[Path]:
    """Several suites of one test compared in ``out_dir``: their charts side by side (IOPS
    overlaid), their tables, the ratios per cell to the first suite."""
    _check_format(fmt)
    return write_suites(compared_suites(lib, ids), out_dir, renderer, fmt)


def comparison_ratios(lib: Library, ids: Sequence[int]) -> list[dict[str, object]]:
    """The ratios per cell (each suite ÷ the first) as numbers, for ``--json``."""
    return ratio_json(compared_suites(lib, ids))
