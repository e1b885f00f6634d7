"""A campaign as its report reads it (plain data, filled by ``services.campaign_report``) and
the report's model: groups of pairs × test columns with pooled statistics and ranks, the
discarded runs, skipped cells, each group against the baseline group and the time-of-day
bins of the runs."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from pairbench.analysis.campaign_groups import (
    LocalTime,
    TimeBin,
    VsBaseline,
    against_baseline,
    by_minute,
    pooled_stats,
    ranks,
    time_bins,
    wants_time_of_day,
)
from pairbench.analysis.compare_runs import lower_is_better
from pairbench.analysis.stats import GroupStats
from pairbench.analysis.verdicts import count_labels
from pairbench.domain.campaign import Cell
from pairbench.domain.units import NO_VALUE

PAIR = "pair"  # grouping by pair: each pair its own group


class CampaignReportError(ValueError):
    """A report that cannot be written as asked (unknown baseline, bad --out); says why."""


@dataclass(frozen=True, slots=True)
class RunValue:
    """One completed run of a cell: its value of the cell's metric, when it started, and
    why the outlier policy discarded it ("" when kept)."""

    run_id: int | None
    cell: int
    pair: str
    value: float
    at: float
    discard: str = ""
    suite_id: int | None = None  # a storage cell's suite (run_id is None)
    limited_by: str = ""  # the run's verdict ("cpu (client)"; "" when it has none)

    @property
    def source(self) -> str:
        """The run's id, or ``suite N`` for a storage cell's suite."""
        if self.run_id is not None:
            return str(self.run_id)
        return NO_VALUE if self.suite_id is None else f"suite {self.suite_id}"


@dataclass(frozen=True, slots=True)
class CellData:
    """One cell with its status (pending, open, done, skipped), the reason or verdict, and
    its completed runs in the order its verdict judged them."""

    cell: Cell
    status: str
    reason: str
    runs: tuple[RunValue, ...]


@dataclass(frozen=True, slots=True)
class CampaignData:
    """What the report shows of a stored campaign; ``groups`` maps each pair to its group
    (itself when grouped by pair) and ``group_by`` names the grouping."""

    id: int
    name: str
    label: str
    status: str
    created_at: float
    schedule_kind: str
    schedule: str  # in words ("every 1 min for 10 min")
    repeats: str  # in words
    outliers: str
    cells: tuple[CellData, ...]
    groups: Mapping[str, str]
    group_by: str = PAIR


@dataclass(frozen=True, slots=True)
class Column:
    """A test column (``Cell.column``) and the metric its cells measure."""

    name: str
    metric: str

    @property
    def lower_is_better(self) -> bool:
        return lower_is_better(self.metric)


@dataclass(frozen=True, slots=True)
class GroupCell:
    """A group's runs in one column, pooled over its pairs' cells: ``n`` completed runs,
    the statistics of the kept ones, the discarded ones, why its cells were skipped
    ("pair: why" when the group has several)
    and how many of its cells have no run yet."""

    group: str
    column: Column
    pairs: tuple[str, ...]
    n: int
    stats: GroupStats | None
    kept: tuple[RunValue, ...]
    discarded: tuple[RunValue, ...]
    skipped: tuple[str, ...]
    pending: int
    rank: int | None = None

    @property
    def limited_by(self) -> str:
        """What limited the kept runs ("network", "cpu (server) ×2, network ×1", "")."""
        return count_labels(r.limited_by for r in self.kept)

    @property
    def status(self) -> str:
        """measured, skipped (every cell skipped), pending (no run yet) or absent."""
        if self.stats is not None:
            return "measured"
        if self.skipped:
            return "skipped"
        return "pending" if self.pending else "absent"


@dataclass(frozen=True, slots=True)
class GroupTimes:
    """One group's runs of a column by time of day: kept runs per bin, discarded ones as
    (bin key, value)."""

    group: str
    bins: tuple[TimeBin, ...]
    discarded: tuple[tuple[int, float], ...]


@dataclass(frozen=True, slots=True)
class TimeOfDay:
    """A column's runs by hour of day, or by minute when the campaign spans under 2 h."""

    column: Column
    minute: bool
    groups: tuple[GroupTimes, ...]
    first_key: int  # the earliest bin of the whole campaign (minute charts start there)


@dataclass(frozen=True, slots=True)
class ReportModel:
    """Everything the tables and charts show."""

    data: CampaignData
    columns: tuple[Column, ...]
    groups: tuple[str, ...]
    cells: Mapping[tuple[str, str], GroupCell]
    baseline: str
    versus: Mapping[str, tuple[VsBaseline, ...]]  # column name → groups vs the baseline
    time_of_day: tuple[TimeOfDay, ...]

    def cell(self, group: str, column: Column) -> GroupCell:
        return self.cells[(group, column.name)]

    @property
    def discarded(self) -> list[tuple[GroupCell, RunValue]]:
        """Every discarded run with its group cell, in table order."""
        return [
            (gc, run)
            for column in self.columns
            for group in self.groups
            for gc in [self.cell(group, column)]
            for run in gc.discarded
        ]

    @property
    def skipped(self) -> list[CellData]:
        return [c for c in self.data.cells if c.status == "skipped"]


def columns_of(cells: Sequence[CellData]) -> list[Column]:
    """The test columns in plan order (a column's metric is its first cell's)."""
    seen: dict[str, Column] = {}
    for c in sorted(cells, key=lambda c: (c.cell.test, c.cell.index)):
        seen.setdefault(c.cell.column, Column(c.cell.column, c.cell.metric))
    return list(seen.values())


def groups_of(data: CampaignData) -> list[str]:
    """The groups in the order their first pair appears among the cells."""
    out: list[str] = []
    for c in sorted(data.cells, key=lambda c: c.cell.index):
        group = data.groups.get(c.cell.pair, c.cell.pair)
        if group not in out:
            out.append(group)
    return out


def group_cell(group: str, column: Column, members: Sequence[CellData]) -> GroupCell:
    """Pool ``members`` (the group's cells of ``column``); each cell's discards are its own
    verdict's (judged within the cell, never across pairs)."""
    runs = [r for c in members for r in c.runs]  # a skipped cell keeps the runs it had
    kept = tuple(r for r in runs if not r.discard)
    return GroupCell(
        group=group,
        column=column,
        pairs=tuple(dict.fromkeys(c.cell.pair for c in members)),
        n=len(runs),
        stats=pooled_stats(r.value for r in kept),
        kept=kept,
        discarded=tuple(r for r in runs if r.discard),
        skipped=tuple(
            c.reason if len(members) == 1 else f"{c.cell.pair}: {c.reason}"
            for c in members
            if c.status == "skipped"
        ),
        pending=sum(1 for c in members if c.status != "skipped" and not c.runs),
    )


def build_model(
    data: CampaignData, baseline: str | None = None, *, local: LocalTime = time.localtime
) -> ReportModel:
    """The report's model; ``CampaignReportError`` for a baseline that is no group."""
    columns = columns_of(data.cells)
    groups = groups_of(data)
    if baseline is not None and baseline not in groups:
        raise CampaignReportError(
            f"no group {baseline!r} to compare against; groups: {', '.join(groups) or 'none'}"
        )
    base = baseline if baseline is not None else (groups[0] if groups else "")
    cells: dict[tuple[str, str], GroupCell] = {}
    versus: dict[str, tuple[VsBaseline, ...]] = {}
    for column in columns:
        row = {}
        for group in groups:
            members = [
                c
                for c in data.cells
                if c.cell.column == column.name
                and data.groups.get(c.cell.pair, c.cell.pair) == group
            ]
            row[group] = group_cell(group, column, members)
        means = {g: (gc.stats.mean if gc.stats else None) for g, gc in row.items()}
        ranked = ranks(means, lower_is_better=column.lower_is_better)
        for group, gc in row.items():
            cells[(group, column.name)] = _with_rank(gc, ranked.get(group))
        kept = {g: [r.value for r in gc.kept] for g, gc in row.items()}
        versus[column.name] = tuple(
            against_baseline(kept, base, lower_is_better=column.lower_is_better)
        )
    tod = time_of_day(data, columns, groups, cells, local)
    return ReportModel(data, tuple(columns), tuple(groups), cells, base, versus, tod)


def _with_rank(gc: GroupCell, rank: int | None) -> GroupCell:
    return replace(gc, rank=rank)


def time_of_day(
    data: CampaignData,
    columns: Sequence[Column],
    groups: Sequence[str],
    cells: Mapping[tuple[str, str], GroupCell],
    local: LocalTime = time.localtime,
) -> tuple[TimeOfDay, ...]:
    """Per column, each group's runs by hour of day (by minute under 2 h of runs); empty
    when the campaign is run once within one hour of day."""
    times = [r.at for c in data.cells for r in c.runs]
    if not wants_time_of_day(data.schedule_kind, times, local):
        return ()
    minute = by_minute(times)
    first_key = min(int(t // 60) if minute else local(t).tm_hour for t in times)
    out = []
    for column in columns:
        series = []
        for group in groups:
            gc = cells[(group, column.name)]
            if not gc.kept and not gc.discarded:
                continue
            bins = time_bins(((r.at, r.value) for r in gc.kept), minute=minute, local=local)
            dropped = tuple(
                (int(r.at // 60) if minute else local(r.at).tm_hour, r.value) for r in gc.discarded
            )
            series.append(GroupTimes(group, tuple(bins), dropped))
        out.append(TimeOfDay(column, minute, tuple(series), first_key))
    return tuple(out)
