"""The campaign report's figures: groups pooled from the cells' verdicts, ranks per column,
time-of-day bins (hour, or minute under 2 h), the baseline comparison, the tables, the CSV
and the files written (with a fake renderer)."""

from __future__ import annotations

import csv
import io
import random
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

import pytest

from campaign_shown import T0, make_cells, make_plan, make_shown
from pairbench.analysis.campaign import cell_verdict
from pairbench.analysis.campaign_groups import ranks, time_bins
from pairbench.analysis.compare_runs import lower_is_better
from pairbench.analysis.stats import describe, welch
from pairbench.domain.campaign import Cell, Plan, Schedule
from pairbench.domain.units import metric_scale
from pairbench.export.campaign_charts import report_charts
from pairbench.export.campaign_data import CampaignReportError, ReportModel, build_model
from pairbench.export.campaign_html import GENERATOR
from pairbench.export.campaign_tables import (
    campaign_csv,
    campaign_markdown,
    column_scale,
    discards_table,
    grid_table,
)
from pairbench.export.charts import ChartSpec
from pairbench.services.campaign_report import shown_data, write_model

PAIRS = ("p1", "p2", "p3")
ZONES = {"p1": "a", "p2": "b", "p3": "a"}
RATE = {"p1": 2e9, "p2": 5e9, "p3": 3e9}
RTT = {"p1": 0.5, "p2": 0.2, "p3": 0.9}


def _values(cell: Cell, rng: random.Random, n: int) -> list[float]:
    if cell.metric == "rtt_avg_ms":
        base = RTT[cell.pair]
    else:
        base = RATE[cell.pair] * int(cell.axes["streams"]) ** 0.5
    values = [base * (1 + rng.uniform(-0.03, 0.03)) for _ in range(n)]
    if cell.index % 4 == 0:
        values[1] = base * 3  # an outlier the MAD policy discards
    return values


def _runs(
    cells: Sequence[Cell], seed: int = 3, n: int = 6, start: float = T0, step: float = 37.0
) -> dict[int, list[tuple[float, float]]]:
    rng = random.Random(seed)
    out: dict[int, list[tuple[float, float]]] = {}
    for cell in cells:
        vals = _values(cell, rng, n)
        out[cell.index] = [
            (start + step * (k * len(cells) + cell.index), v) for k, v in enumerate(vals)
        ]
    return out


def _model(
    group_by: str = "pair",
    baseline: str | None = None,
    plan: Plan | None = None,
    runs: Mapping[int, Sequence[tuple[float, float]]] | None = None,
    skipped: Mapping[int, str] | None = None,
) -> tuple[ReportModel, list[Cell], Plan]:
    cells = make_cells(PAIRS)
    plan = plan or make_plan(PAIRS)
    shown = make_shown(plan, cells, runs if runs is not None else _runs(cells), skipped=skipped)
    groups = {p: p for p in PAIRS} if group_by == "pair" else {p: ZONES[p] for p in PAIRS}
    data = shown_data(shown, groups, group_by)
    return build_model(data, baseline, local=time.gmtime), cells, plan


def test_by_pair_each_group_is_its_cell_verdict() -> None:
    model, cells, plan = _model()
    runs = _runs(cells)
    assert model.groups == PAIRS
    assert [c.name for c in model.columns] == ["iperf3 streams=1", "iperf3 streams=4", "ping"]
    discards = 0
    for cell in cells:
        values = [v for _at, v in sorted(runs[cell.index])]
        verdict = cell_verdict(values, plan)
        gc = model.cells[(cell.pair, cell.column)]
        assert gc.n == verdict.n == len(values)
        assert verdict.stats is not None and gc.stats is not None
        assert gc.stats.mean == pytest.approx(verdict.stats.mean)
        assert sorted(r.value for r in gc.discarded) == sorted(d.value for d in verdict.discarded)
        discards += len(verdict.discarded)
    assert discards > 0  # the planted outliers were discarded
    assert len(model.discarded) == discards


def test_grouped_by_tag_pools_the_pairs_kept_runs() -> None:
    model, cells, plan = _model(group_by="zone")
    runs = _runs(cells)
    assert model.groups == ("a", "b")  # in the order their first pair appears
    for column in model.columns:
        for zone in ("a", "b"):
            members = [c for c in cells if ZONES[c.pair] == zone and c.column == column.name]
            kept: list[float] = []
            n = 0
            for c in members:
                verdict = cell_verdict([v for _at, v in sorted(runs[c.index])], plan)
                kept += verdict.kept
                n += verdict.n
            gc = model.cell(zone, column)
            assert gc.n == n and len(gc.kept) == len(kept)
            assert gc.stats is not None
            assert gc.stats.mean == pytest.approx(describe(kept).mean)
            assert gc.pairs == tuple(c.pair for c in members)
    table = grid_table(model)
    assert table.headers[:2] == ("Zone", "Pairs")
    assert table.rows[0][1] == "p1, p3"


def test_ranks_best_first_by_the_metric_direction() -> None:
    model, _cells, _plan = _model()
    for column in model.columns:
        means = {g: model.cell(g, column).stats.mean for g in model.groups}  # type: ignore[union-attr]
        order = sorted(means, key=means.__getitem__, reverse=not lower_is_better(column.metric))
        assert [model.cell(g, column).rank for g in order] == list(range(1, len(order) + 1))
    ping = next(c for c in model.columns if c.metric == "rtt_avg_ms")
    fastest = min(RTT, key=RTT.__getitem__)
    assert model.cell(fastest, ping).rank == 1


def test_equal_means_share_a_rank_and_none_gets_none() -> None:
    means: dict[str, float | None] = {"x": 4.0, "y": 9.0, "z": 4.0, "w": None, "v": 1.0}
    got = ranks(means, lower_is_better=False)
    assert "w" not in got
    for g, m in means.items():
        if m is not None:
            assert got[g] == 1 + sum(1 for o in means.values() if o is not None and o > m)
    assert got["x"] == got["z"]
    low = ranks(means, lower_is_better=True)
    assert low["v"] == 1 and low["y"] == len([m for m in means.values() if m is not None])


def test_time_of_day_by_hour_pools_days() -> None:
    cells = make_cells(PAIRS)
    plan = make_plan(PAIRS, schedule=Schedule("times", times=("03:00", "15:00"), days=2))
    runs: dict[int, list[tuple[float, float]]] = {}
    rng = random.Random(5)
    day = 86400.0
    midnight = T0 - T0 % day
    for cell in cells:
        runs[cell.index] = [
            (midnight + d * day + h * 3600 + 60 * cell.index + k, rng.uniform(1, 2) * 1e9)
            for d in range(2)
            for h in (3, 15)
            for k in range(2)
        ]
    model, _c, _p = _model(plan=plan, runs=runs)
    assert model.time_of_day and not model.time_of_day[0].minute
    tod = model.time_of_day[0]
    for g in tod.groups:
        gc = model.cell(g.group, tod.column)
        expected: dict[int, list[float]] = {}
        for r in gc.kept:
            expected.setdefault(datetime.fromtimestamp(r.at, UTC).hour, []).append(r.value)
        assert [b.key for b in g.bins] == sorted(expected)
        for b in g.bins:
            assert b.label == f"{b.key:02d}:00"
            assert b.stats.mean == pytest.approx(describe(expected[b.key]).mean)
            assert b.stats.n == len(expected[b.key])
    chart = {c.name: c.spec for c in report_charts(model)}["time-of-day-iperf3-streams-1"]
    assert "by hour of day" in chart.title
    assert [t[1] for t in chart.panels[0].x_ticks] == ["03:00", "15:00"]


def test_ten_minutes_every_minute_bins_by_minute() -> None:
    cells = make_cells(PAIRS)
    plan = make_plan(PAIRS, schedule=Schedule("every", every_s=60, for_s=600))
    start = T0 - T0 % 3600 + 50 * 60  # runs cross an hour: 10 passes of 1 minute
    runs = {
        c.index: [(start + 60 * k + 2 * c.index, (1 + 0.01 * k) * 1e9) for k in range(10)]
        for c in cells
    }
    model, _c, _p = _model(plan=plan, runs=runs)
    tod = model.time_of_day[0]
    assert tod.minute
    for g in tod.groups:
        assert len(g.bins) == 10
        for b in g.bins:
            assert b.label == time.strftime("%H:%M", time.gmtime(b.key * 60))
    specs = [c.spec for c in report_charts(model) if c.name.startswith("time-of-day")]
    assert len(specs) == len(model.columns)
    assert all("by minute" in s.title for s in specs)
    bins = time_bins([(start + 60 * k, 1.0) for k in range(10)], minute=True, local=time.gmtime)
    assert [b.key for b in bins] == [int((start + 60 * k) // 60) for k in range(10)]


def test_a_once_campaign_within_one_hour_has_no_time_chart() -> None:
    cells = make_cells(PAIRS)
    start = T0 - T0 % 3600 + 60
    model, _c, _p = _model(runs=_runs(cells, start=start, step=2.0))
    assert model.time_of_day == ()
    assert not [c for c in report_charts(model) if c.name.startswith("time-of-day")]


def test_baseline_ratios_and_welch() -> None:
    cells = make_cells(PAIRS)
    runs = _runs(cells)
    runs[cells[5].index] = runs[cells[5].index][:1]  # p2 ping: one run, no test
    model, _c, _p = _model(baseline="p2", runs=runs)
    assert model.baseline == "p2"
    for column in model.columns:
        base = [r.value for r in model.cell("p2", column).kept]
        rows = {vs.group: vs for vs in model.versus[column.name]}
        assert set(rows) == {"p1", "p3"}
        for group, vs in rows.items():
            kept = [r.value for r in model.cell(group, column).kept]
            assert vs.ratio == pytest.approx(describe(kept).mean / describe(base).mean)
            assert vs.change == pytest.approx(vs.ratio - 1)  # type: ignore[operator]
            if len(base) >= 2:
                assert vs.test is not None
                assert vs.test.p_value == pytest.approx(welch(kept, base).p_value)
            else:
                assert vs.test is None
    with pytest.raises(CampaignReportError, match="no group 'nope'"):
        _model(baseline="nope")
    default, _c, _p = _model()
    assert default.baseline == PAIRS[0]


def test_skipped_and_pending_cells_are_shown() -> None:
    cells = make_cells(PAIRS)
    runs = _runs(cells)
    del runs[cells[3].index]  # p2 streams=1: no run yet
    del runs[cells[4].index]
    model, _c, _p = _model(runs=runs, skipped={cells[4].index: "3 failures in a row"})
    table = grid_table(model)
    row = table.rows[1]
    assert row[0] == "p2"
    assert row[1] == "pending" and row[2] == "—"
    assert row[3] == "skipped: 3 failures in a row"
    text = campaign_markdown(model, [])
    assert "## Skipped cells" in text and "3 failures in a row" in text


def test_a_cell_skipped_after_some_runs_keeps_them() -> None:
    cells = make_cells(PAIRS)
    runs = _runs(cells)
    cut = cells[6]  # p3 streams=1
    runs[cut.index] = runs[cut.index][:2]
    model, _c, _p = _model(runs=runs, skipped={cut.index: "host gone"})
    gc = model.cells[(cut.pair, cut.column)]
    values = [v for _at, v in runs[cut.index]]
    assert gc.n == len(values) and gc.stats is not None
    assert gc.stats.mean == pytest.approx(describe(values).mean)
    assert grid_table(model).rows[2][1].endswith("then skipped)")
    zones, _c, _p = _model(group_by="zone", runs=runs, skipped={cut.index: "host gone"})
    pooled = zones.cells[("a", cut.column)]
    assert pooled.skipped == ("p3: host gone",) and "1 skipped" in grid_table(zones).rows[0][2]


def test_grid_cells_and_csv_hold_the_numbers() -> None:
    model, _cells, _plan = _model()
    rows = list(csv.DictReader(io.StringIO(campaign_csv(model))))
    assert len(rows) == len(model.groups) * len(model.columns)
    table = grid_table(model)
    for row in rows:
        column = next(c for c in model.columns if c.name == row["test"])
        gc = model.cell(row["group"], column)
        assert gc.stats is not None and gc.stats.ci is not None
        assert float(row["mean"]) == gc.stats.mean
        assert int(row["n"]) == gc.n and int(row["discarded"]) == len(gc.discarded)
        assert int(row["rank"]) == gc.rank
        scale = column_scale(model, column)
        shown = scale.format(gc.stats.mean, gc.stats.ci.half_width, unit=False)
        k = model.columns.index(column)
        cell = table.rows[model.groups.index(row["group"])][1 + 2 * k]
        assert cell.startswith(f"{shown} (n {gc.n}, ")
    assert table.headers[1].endswith(f"({metric_scale('throughput_bps', 3e9).unit})")


def test_discards_table_names_the_runs() -> None:
    model, cells, plan = _model()
    shown_ids = {}
    runs = _runs(cells)
    every = sorted((at, c, v) for c, rs in runs.items() for at, v in rs)
    ids = {(c, at): 100 + k for k, (at, c, _v) in enumerate(every)}
    for cell in cells:
        ordered = sorted(runs[cell.index])
        verdict = cell_verdict([v for _at, v in ordered], plan)
        for d in verdict.discarded:
            shown_ids[ids[(cell.index, ordered[d.index][0])]] = d.reason
    table = discards_table(model)
    assert {int(r[0]): r[-1] for r in table.rows} == shown_ids


def _fake_renderer(calls: list[tuple[ChartSpec, Path]]):  # type: ignore[no-untyped-def]
    def render(spec: ChartSpec, path: Path) -> None:
        calls.append((spec, path))
        path.write_bytes(b"chart")

    return render


def test_write_model_files_and_out_dir_rules(tmp_path: Path) -> None:
    cells = make_cells(PAIRS)
    plan = make_plan(PAIRS, schedule=Schedule("every", every_s=60, for_s=600))
    model, _c, _p = _model(plan=plan, runs=_runs(cells, step=3.0))
    calls: list[tuple[ChartSpec, Path]] = []
    out = tmp_path / "report"
    files = write_model(model, out, _fake_renderer(calls), "pdf")
    charts = report_charts(model)
    assert len(charts) == 2 * len(model.columns)  # groups + time of day per column
    names = {f.name for f in files}
    assert names >= {f"{c.name}.{s}" for c in charts for s in ("png", "svg", "pdf")}
    assert {"campaign.csv", "campaign.md"} <= names and files[-1].name == "index.html"
    page = (out / "index.html").read_text(encoding="utf-8")
    assert GENERATOR in page
    for c in charts:
        assert f'src="{c.name}.png"' in page and f'href="{c.name}.pdf"' in page
    write_model(model, out, _fake_renderer(calls))  # its own report: rewritten
    foreign = tmp_path / "site"
    foreign.mkdir()
    (foreign / "index.html").write_text("<html>mine</html>")
    with pytest.raises(CampaignReportError, match="not a Pairbench campaign report"):
        write_model(model, foreign, _fake_renderer(calls))
    assert (foreign / "index.html").read_text() == "<html>mine</html>"
    with pytest.raises(CampaignReportError, match="chart format"):
        write_model(model, out, _fake_renderer(calls), "gif")


def test_user_text_is_escaped_in_the_page(tmp_path: Path) -> None:
    cells = make_cells(PAIRS)
    shown = make_shown(make_plan(PAIRS), cells, _runs(cells))
    groups = {p: f"<i>{ZONES[p]}</i>" for p in PAIRS}
    model = build_model(shown_data(shown, groups, "zone"), local=time.gmtime)
    write_model(model, tmp_path / "r", _fake_renderer([]))
    page = (tmp_path / "r" / "index.html").read_text(encoding="utf-8")
    assert "<i>" not in page and "&lt;i&gt;a&lt;/i&gt;" in page
