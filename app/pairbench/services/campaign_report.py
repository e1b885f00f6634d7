"""A campaign's report on disk (``campaign report``): its tables (``campaign.md``,
``campaign.csv``, ``index.html``) and charts (PNG and SVG, PDF if asked) drawn by the
injected chart renderer, rows by pair or by a tag of the pairs, against a baseline group."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pairbench.export.campaign_charts import report_charts
from pairbench.export.campaign_data import (
    PAIR,
    CampaignData,
    CampaignReportError,
    CellData,
    ReportModel,
    RunValue,
    build_model,
)
from pairbench.export.campaign_html import GENERATOR, report_html
from pairbench.export.campaign_tables import campaign_csv, campaign_markdown
from pairbench.export.charts import ChartRenderer
from pairbench.export.report_dir import FORMATS as FORMATS
from pairbench.export.report_dir import INDEX, check_format, prepare_out_dir, write_charts
from pairbench.library import Library
from pairbench.services.campaigns import CampaignShown, CellRow, show_campaign
from pairbench.services.hosts import list_pairs
from pairbench.services.verdicts import run_verdicts

CSV = "campaign.csv"
MARKDOWN = "campaign.md"


def pair_groups(lib: Library, pairs: list[str], group_by: str) -> dict[str, str]:
    """Each pair's group: itself (``pair``), else the value of its tag ``group_by`` (or its
    client host's), ``no <tag>`` when neither has it (or the pair is gone)."""
    if group_by == PAIR:
        return {p: p for p in pairs}
    known = {p.name: p for p in list_pairs(lib)}
    out = {}
    for name in pairs:
        pair = known.get(name)
        value = None
        if pair is not None:
            value = pair.tags.get(group_by, pair.client.tags.get(group_by))
        out[name] = value if value else f"no {group_by}"
    return out


def _cell_data(shown: CampaignShown, row: CellRow, verdicts: Mapping[int, str]) -> CellData:
    """The cell's completed runs in the order its verdict judged them, each marked with its
    discard reason and what limited it."""
    reasons = {d.index: d.reason for d in row.verdict.discarded}
    runs = tuple(
        RunValue(
            a.run_id,
            row.cell.index,
            row.cell.pair,
            float(a.value),
            a.at,
            reasons.get(i, ""),
            a.suite_id,
            verdicts.get(a.run_id, "") if a.run_id is not None else "",
        )
        for i, a in enumerate(row.judged)
        if a.value is not None
    )
    return CellData(row.cell, row.status, row.reason, runs)


def shown_data(
    shown: CampaignShown,
    groups: Mapping[str, str],
    group_by: str = PAIR,
    verdicts: Mapping[int, str] | None = None,
) -> CampaignData:
    """A shown campaign as its report reads it, its pairs grouped by ``groups``; ``verdicts``:
    each run's stored verdict label (run id → "cpu (client)")."""
    c = shown.campaign
    return CampaignData(
        id=c.id,
        name=c.name,
        label=c.label,
        status=c.status,
        created_at=c.created_at,
        schedule_kind=shown.plan.schedule.kind,
        schedule=shown.plan.schedule.describe(),
        repeats=shown.plan.repeats.describe(),
        outliers=shown.plan.outliers,
        cells=tuple(_cell_data(shown, row, verdicts or {}) for row in shown.rows),
        groups=dict(groups),
        group_by=group_by,
    )


def campaign_data(lib: Library, campaign_id: int, group_by: str = PAIR) -> CampaignData:
    """A stored campaign as its report reads it; ``LibraryError`` if there is none."""
    shown = show_campaign(lib, campaign_id)
    pairs = list(dict.fromkeys(row.cell.pair for row in shown.rows))
    runs = [a.run_id for row in shown.rows for a in row.judged if a.run_id is not None]
    return shown_data(shown, pair_groups(lib, pairs, group_by), group_by, run_verdicts(lib, runs))


def report_model(
    lib: Library, campaign_id: int, group_by: str = PAIR, baseline: str | None = None
) -> ReportModel:
    """What the report shows; ``CampaignReportError`` for a baseline that is no group."""
    if not group_by.strip():
        raise CampaignReportError("--group-by needs a tag name (zone, region, type ...) or pair")
    return build_model(campaign_data(lib, campaign_id, group_by.strip()), baseline)


def _check_out_dir(out_dir: Path) -> None:
    prepare_out_dir(out_dir, GENERATOR, "campaign report", CampaignReportError)


def _check_format(fmt: str) -> None:
    check_format(fmt, CampaignReportError)


def write_model(
    model: ReportModel, out_dir: Path, renderer: ChartRenderer, fmt: str = "png"
) -> list[Path]:
    """Write the report of ``model`` into ``out_dir``: every chart, ``campaign.md``,
    ``campaign.csv``, ``index.html`` last; the files written."""
    _check_format(fmt)
    out_dir = Path(out_dir)
    _check_out_dir(out_dir)
    written, charts = write_charts(report_charts(model), out_dir, renderer, fmt)
    for name, text in (
        (CSV, campaign_csv(model)),
        (MARKDOWN, campaign_markdown(model, [(c.title, c.shown) for c in charts])),
    ):
        (out_dir / name).write_text(text, encoding="utf-8")
        written.append(out_dir / name)
    index = out_dir / INDEX
    index.write_text(report_html(model, charts, csv_name=CSV, md_name=MARKDOWN), encoding="utf-8")
    written.append(index)
    return written


def write_report(
    lib: Library,
    campaign_id: int,
    out_dir: Path,
    renderer: ChartRenderer,
    fmt: str = "png",
    group_by: str = PAIR,
    baseline: str | None = None,
) -> list[Path]:
    """A campaign's report (charts, tables, ``index.html``) in ``out_dir``."""
    _check_format(fmt)
    return write_model(report_model(lib, campaign_id, group_by, baseline), out_dir, renderer, fmt)


def report_summary(model: ReportModel) -> dict[str, Any]:
    """What ``--json`` adds to the files written: the grouping, groups, baseline, columns,
    and each group cell's n, mean and rank."""
    return {
        "campaign": model.data.id,
        "group_by": model.data.group_by,
        "groups": list(model.groups),
        "baseline": model.baseline,
        "columns": [c.name for c in model.columns],
        "time_of_day": bool(model.time_of_day),
        "time_of_day_by": (
            None if not model.time_of_day else "minute" if model.time_of_day[0].minute else "hour"
        ),
        "cells": [
            {
                "group": gc.group,
                "test": gc.column.name,
                "metric": gc.column.metric,
                "status": gc.status,
                "n": gc.n,
                "mean": None if gc.stats is None else gc.stats.mean,
                "ci95": None
                if gc.stats is None or gc.stats.ci is None
                else [gc.stats.ci.low, gc.stats.ci.high],
                "discarded": len(gc.discarded),
                "rank": gc.rank,
            }
            for c in model.columns
            for g in model.groups
            for gc in [model.cell(g, c)]
        ],
    }
