"""The comparison model: runs grouped by tag, label or pair; statistics, table, metadata diff.

Qt-free and I/O-free: callers load ``RunInput``s (a run, its pair, its series) and call
``compare``. The result holds everything a view, the CLI or an export shows:

- per group: the metric's value of each run (the stored summary; the mean of the run's
  series when the summary lacks it), the outlier policy's verdict with every discarded run
  listed, and the statistics of the kept runs (``stats.describe``);
- each group against the baseline group: Welch's difference with its CI and p-value;
- a comparison table like the field reports' conclusions: one row per group, one column per
  applicable metric (latency, throughput, jitter, loss, IOPS, ...), each cell the mean of the
  group's kept runs with its CI and the difference from the baseline row;
- a metadata diff listing only the fields (tool version, parameters, host facts, ...) that
  differ between the compared runs;
- the time series of the metric, one curve per run, aligned at the run's start.

The outlier policy is judged on the chosen metric; a discarded run leaves every column of the
table, so each row describes one consistent set of runs.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

import numpy as np

from pairbench.analysis.metadata_diff import ABSENT as ABSENT
from pairbench.analysis.metadata_diff import FACT_ORDER as FACT_ORDER
from pairbench.analysis.metadata_diff import DiffRow as DiffRow
from pairbench.analysis.metadata_diff import MetadataDiff, diff_fields, run_fields
from pairbench.analysis.outliers import NO_POLICY, OutlierPolicy, OutlierResult, find_outliers
from pairbench.analysis.stats import (
    DEFAULT_CONFIDENCE,
    Difference,
    FloatArray,
    GroupStats,
    describe,
    welch,
)
from pairbench.analysis.verdicts import limited_by
from pairbench.domain import METRICS, HostPair, Metric, Run, RunStatus, metric_unit
from pairbench.domain.diagnosis import Diagnosis

# The metrics a comparison table shows when the runs have them, in the field reports' order.
TABLE_METRICS = (
    "latency_avg_us",
    "rtt_avg_ms",
    "throughput_bps",
    "jitter_ms",
    "lost_percent",
    "retransmits",
    "ops_per_s",
    "read_iops",
    "write_iops",
    "read_bytes_per_s",
    "write_bytes_per_s",
    "read_lat_mean_us",
    "write_lat_mean_us",
    "read_lat_p99_us",
    "write_lat_p99_us",
)
MAX_TABLE_COLUMNS = 6

# The metric compared when none is chosen: the first that every run has.
PREFERRED_METRICS = (
    "throughput_bps",
    "latency_avg_us",
    "rtt_avg_ms",
    "read_iops",
    "write_iops",
    "ops_per_s",
    "read_bytes_per_s",
    "write_bytes_per_s",
    "jitter_ms",
    "lost_percent",
)


class CompareError(ValueError):
    """The comparison cannot be made as asked (no runs, unknown metric or baseline, ...)."""


class SeriesLike(Protocol):
    """A series with numpy arrays (``library.series.SeriesArrays`` is one)."""

    @property
    def stream(self) -> str: ...
    @property
    def metric(self) -> str: ...
    @property
    def unit(self) -> str: ...
    @property
    def t(self) -> FloatArray: ...
    @property
    def v(self) -> FloatArray: ...


@dataclass(frozen=True, slots=True)
class RunInput:
    """One run to compare: the stored run, its pair (None if since removed), its series, and
    who ran it when known (a comparison with team runs)."""

    run: Run
    pair: HostPair | None = None
    series: Sequence[SeriesLike] = ()
    ran_by: str = ""
    diagnosis: Diagnosis | None = None  # what limited the run, when it has a stored verdict
    # The run's tool's parameter defaults (name → text), when the caller knows them: a
    # parameter not recorded then reads as its default in the metadata diff.
    param_defaults: Mapping[str, str] = field(default_factory=dict)


class GroupKind(enum.StrEnum):
    """What makes runs one group."""

    RUN = "run"  # every run on its own
    TAG = "tag"
    LABEL = "label"
    PAIR = "pair"
    RAN_BY = "ran_by"  # who ran each run (a comparison with team runs)


@dataclass(frozen=True, slots=True)
class GroupBy:
    """A grouping: ``run``, ``label``, ``pair``, ``ran_by`` or ``tag:KEY``."""

    kind: GroupKind = GroupKind.RUN
    key: str = ""

    @classmethod
    def parse(cls, text: str) -> GroupBy:
        """``run``, ``label``, ``pair``, ``ran_by`` or ``tag:KEY``."""
        name, sep, key = text.strip().partition(":")
        try:
            kind = GroupKind(name.lower())
        except ValueError:
            raise CompareError(
                f"unknown grouping {text!r}: use run, label, pair, ran_by or tag:KEY"
            ) from None
        if kind is GroupKind.TAG and not key:
            raise CompareError("group by tag needs its key: tag:KEY (e.g. tag:zone)")
        if kind is not GroupKind.TAG and sep:
            raise CompareError(f"grouping {name!r} takes no key")
        return cls(kind, key)

    def __str__(self) -> str:
        return f"tag:{self.key}" if self.kind is GroupKind.TAG else self.kind.value

    def name_of(self, item: RunInput) -> str:
        """The group a run belongs to."""
        run = item.run
        if self.kind is GroupKind.RUN:
            return run_name(run)
        if self.kind is GroupKind.LABEL:
            return run.label or "(no label)"
        if self.kind is GroupKind.PAIR:
            return run.spec.pair
        if self.kind is GroupKind.RAN_BY:
            return item.ran_by or "(unknown)"
        return tag_value(item, self.key) or f"(no {self.key})"


def run_name(run: Run) -> str:
    """``#ID label`` (or ``#ID`` for an unlabelled run)."""
    return f"#{run.id} {run.label}" if run.label else f"#{run.id}"


def tag_value(item: RunInput, key: str) -> str | None:
    """A tag of the run, else of its pair, else of the pair's client host."""
    if key in item.run.tags:
        return item.run.tags[key]
    if item.pair is not None:
        if key in item.pair.tags:
            return item.pair.tags[key]
        if key in item.pair.client.tags:
            return item.pair.client.tags[key]
    return None


def metric_info(name: str) -> Metric:
    """The metric's unit and label (unknown names: their own name, no unit)."""
    return METRICS.get(name) or Metric(name, metric_unit(name), name)


def lower_is_better(metric: str) -> bool:
    """True for latencies, jitter, loss and retransmits (a storage report's latency
    columns too)."""
    if metric.startswith("latency_") and metric.endswith(("_mean", "_max")):
        return True
    return metric.endswith(("_us", "_ms", "_percent")) or metric in (
        "retransmits",
        "lost_packets",
    )


# --- values of a metric per run -----------------------------------------------------------


def pick_series(item: RunInput, metric: str) -> SeriesLike | None:
    """The run's series of ``metric``: the "sum" stream, else the first stream that has it."""
    candidates = [s for s in item.series if s.metric == metric]
    for s in candidates:
        if s.stream == "sum":
            return s
    return candidates[0] if candidates else None


def run_value(item: RunInput, metric: str) -> tuple[float | None, str]:
    """The run's value of ``metric`` and where it came from ("summary", "series mean")."""
    value = item.run.summary.get(metric)
    if value is not None and math.isfinite(value):
        return float(value), "summary"
    series = pick_series(item, metric)
    if series is not None and len(series.v):
        finite = series.v[np.isfinite(series.v)]
        if finite.size:
            return float(np.mean(finite)), "series mean"
    return None, ""


def default_metric(items: Sequence[RunInput]) -> str:
    """The metric to compare when none is chosen: the first every run has, in a fixed order."""
    if not items:
        raise CompareError("no runs to compare")
    have = [_metrics_of(item) for item in items]
    common = set.intersection(*have)
    anywhere = set.union(*have)
    for pool in (common, anywhere):
        for name in PREFERRED_METRICS:
            if name in pool:
                return name
        if pool:
            return sorted(pool)[0]
    raise CompareError("the runs have no summary values or series to compare")


def _metrics_of(item: RunInput) -> set[str]:
    names = {k for k, v in item.run.summary.items() if math.isfinite(v)}
    return names | {s.metric for s in item.series}


# --- the result --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RunValue:
    """A run's value of the compared metric."""

    run_id: int
    value: float
    source: str  # "summary" or "series mean"


@dataclass(frozen=True, slots=True)
class DiscardedRun:
    """A run the outlier policy discarded, with its value and the reason."""

    run_id: int
    group: str
    value: float
    reason: str


@dataclass(frozen=True, slots=True)
class GroupResult:
    """One group: its runs, their values, what the policy discarded, stats of the rest."""

    name: str
    description: str
    run_ids: tuple[int, ...]
    values: tuple[RunValue, ...]
    outliers: OutlierResult | None
    discarded: tuple[DiscardedRun, ...]
    stats: GroupStats | None  # of the kept values; None when no run has the metric
    missing: tuple[int, ...] = ()  # runs without a value of the metric

    @property
    def kept(self) -> tuple[RunValue, ...]:
        """The values the statistics are computed from."""
        gone = {d.run_id for d in self.discarded}
        return tuple(v for v in self.values if v.run_id not in gone)

    @property
    def kept_ids(self) -> tuple[int, ...]:
        """The ids of the kept runs."""
        return tuple(v.run_id for v in self.kept)


@dataclass(frozen=True, slots=True)
class TableColumn:
    """A metric column of the comparison table."""

    metric: str
    label: str
    unit: str


@dataclass(frozen=True, slots=True)
class TableCell:
    """The mean of a group's kept runs for one metric, its CI and the change from baseline."""

    n: int = 0
    mean: float | None = None
    half_width: float | None = None  # of the 95 % CI; None for n < 2
    vs_baseline: float | None = None  # (mean − baseline mean) / baseline mean


@dataclass(frozen=True, slots=True)
class TableRow:
    """One group as a row: environment (the group), test description, n, cells."""

    group: str
    description: str
    n: int
    cells: tuple[TableCell, ...]
    is_baseline: bool = False
    limited_by: str = ""  # the kept runs' verdicts: "cpu (client)", "network ×2, rate ×1"


@dataclass(frozen=True, slots=True)
class ComparisonTable:
    """Rows of groups, columns of metrics, with a baseline row."""

    columns: tuple[TableColumn, ...]
    rows: tuple[TableRow, ...]
    baseline: str | None
    confidence: float = DEFAULT_CONFIDENCE


@dataclass(frozen=True, slots=True)
class Curve:
    """One run's time series of the metric, t in seconds since the run's start."""

    group: str
    run_id: int
    label: str  # legend text: pair and label
    stream: str
    t: FloatArray
    v: FloatArray


@dataclass(frozen=True, slots=True)
class Comparison:
    """Everything ``compare`` found; see the module docstring."""

    metric: Metric
    group_by: GroupBy
    policy: OutlierPolicy
    confidence: float
    groups: tuple[GroupResult, ...]
    baseline: str | None
    differences: Mapping[str, Difference]  # group name → against the baseline group
    table: ComparisonTable
    diff: MetadataDiff
    curves: tuple[Curve, ...]
    runs: tuple[Run, ...]
    pairs: Mapping[str, HostPair] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    def group(self, name: str) -> GroupResult:
        """The group of that name."""
        for g in self.groups:
            if g.name == name:
                return g
        raise KeyError(name)

    @property
    def discarded(self) -> tuple[DiscardedRun, ...]:
        """Every discarded run of every group."""
        return tuple(d for g in self.groups for d in g.discarded)


# --- building it -------------------------------------------------------------------------


def group_runs(items: Sequence[RunInput], by: GroupBy) -> list[tuple[str, list[RunInput]]]:
    """Runs gathered into groups, in order of first appearance."""
    groups: dict[str, list[RunInput]] = {}
    for item in items:
        groups.setdefault(by.name_of(item), []).append(item)
    return list(groups.items())


def compare(
    items: Sequence[RunInput],
    *,
    metric: str | None = None,
    group_by: GroupBy | None = None,
    policy: OutlierPolicy = NO_POLICY,
    baseline: str | None = None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> Comparison:
    """Compare runs on ``metric`` (default: ``default_metric``), grouped by ``group_by``.

    ``baseline`` names a group, or a run id (``"12"`` or ``"#12"``) whose group is then the
    baseline; default: the first group.
    """
    if not items:
        raise CompareError("no runs to compare")
    ids = [item.run.id for item in items]
    if len(set(ids)) != len(ids):
        raise CompareError("a run is listed twice")
    by = group_by or GroupBy()
    name = metric or default_metric(items)
    if not any(name in _metrics_of(item) for item in items):
        known = sorted(set.union(*(_metrics_of(item) for item in items)))
        raise CompareError(
            f"no compared run has the metric {name!r}; they have: {', '.join(known) or 'none'}"
        )
    grouped = group_runs(items, by)
    warnings = [
        f"run {item.run.id} is {item.run.status.value}"
        for item in items
        if item.run.status is not RunStatus.COMPLETED
    ]
    groups = tuple(_group_result(g, members, name, policy, confidence) for g, members in grouped)
    for g in groups:
        if g.missing:
            warnings.append(
                f"{g.name}: run(s) {', '.join(map(str, g.missing))} have no {name}; left out"
            )
    base = _resolve_baseline(baseline, groups, items, by)
    differences = _differences(groups, base, confidence)
    table = comparison_table(grouped, groups, name, base, confidence)
    group_of = {item.run.id: by.name_of(item) for item in items}
    return Comparison(
        metric=metric_info(name),
        group_by=by,
        policy=policy,
        confidence=confidence,
        groups=groups,
        baseline=base,
        differences=differences,
        table=table,
        diff=metadata_diff(items, [group_of[i] for i in ids]),
        curves=tuple(_curves(items, name, group_of)),
        runs=tuple(item.run for item in items),
        pairs={item.pair.name: item.pair for item in items if item.pair is not None},
        warnings=tuple(warnings),
    )


def _group_result(
    name: str, members: list[RunInput], metric: str, policy: OutlierPolicy, confidence: float
) -> GroupResult:
    values: list[RunValue] = []
    missing: list[int] = []
    for item in members:
        value, source = run_value(item, metric)
        if value is None:
            missing.append(item.run.id)
        else:
            values.append(RunValue(item.run.id, value, source))
    description = describe_group(members)
    if not values:
        return GroupResult(
            name, description, tuple(m.run.id for m in members), (), None, (), None, tuple(missing)
        )
    raw = [v.value for v in values]
    outliers = find_outliers(raw, policy)
    discarded = tuple(
        DiscardedRun(values[d.index].run_id, name, d.value, d.reason) for d in outliers.discarded
    )
    kept = [raw[i] for i in outliers.kept]
    return GroupResult(
        name=name,
        description=description,
        run_ids=tuple(m.run.id for m in members),
        values=tuple(values),
        outliers=outliers,
        discarded=discarded,
        stats=describe(kept, confidence=confidence),
        missing=tuple(missing),
    )


def describe_group(members: Iterable[RunInput]) -> str:
    """A test description: the pairs (their descriptions where set) and the tools."""
    pairs: list[str] = []
    tools: list[str] = []
    for item in members:
        pair = item.pair.description if item.pair and item.pair.description else item.run.spec.pair
        if pair not in pairs:
            pairs.append(pair)
        if item.run.spec.tool not in tools:
            tools.append(item.run.spec.tool)
    return f"{', '.join(pairs)} · {', '.join(tools)}"


def _resolve_baseline(
    wanted: str | None, groups: Sequence[GroupResult], items: Sequence[RunInput], by: GroupBy
) -> str | None:
    names = [g.name for g in groups]
    if wanted is None or wanted == "":
        # The oldest group: the one whose first run started first (ties: the listed order).
        first: dict[str, float] = {}
        for item in items:
            name = by.name_of(item)
            first[name] = min(first.get(name, item.run.started_at), item.run.started_at)
        usable = [g.name for g in groups if g.stats is not None]
        return min(usable, key=lambda n: first.get(n, float("inf"))) if usable else None
    if wanted in names:
        return wanted
    run_id = wanted.removeprefix("#")
    if run_id.isdigit():
        for item in items:
            if item.run.id == int(run_id):
                return by.name_of(item)
    raise CompareError(f"baseline {wanted!r} is neither a compared run nor a group: {names}")


def _differences(
    groups: Sequence[GroupResult], baseline: str | None, confidence: float
) -> dict[str, Difference]:
    if baseline is None:
        return {}
    base = next(g for g in groups if g.name == baseline)
    if base.stats is None:
        return {}
    base_values = [v.value for v in base.kept]
    return {
        g.name: welch([v.value for v in g.kept], base_values, confidence=confidence)
        for g in groups
        if g.name != baseline and g.stats is not None
    }


def table_metrics(items: Iterable[RunInput], primary: str) -> list[str]:
    """The table's metric columns: those of ``TABLE_METRICS`` the runs have, and the primary."""
    have: set[str] = set()
    for item in items:
        have |= {k for k, v in item.run.summary.items() if math.isfinite(v)}
    chosen = [m for m in TABLE_METRICS if m in have or m == primary]
    if primary not in chosen:
        chosen.insert(0, primary)
    if len(chosen) > MAX_TABLE_COLUMNS:
        others = [m for m in chosen if m != primary][: MAX_TABLE_COLUMNS - 1]
        chosen = [m for m in chosen if m == primary or m in others]
    return chosen


def comparison_table(
    grouped: Sequence[tuple[str, list[RunInput]]],
    groups: Sequence[GroupResult],
    primary: str,
    baseline: str | None,
    confidence: float = DEFAULT_CONFIDENCE,
) -> ComparisonTable:
    """One row per group over its kept runs; one column per applicable metric."""
    items = [item for _, members in grouped for item in members]
    metrics = table_metrics(items, primary)
    columns = tuple(TableColumn(m, metric_info(m).label, metric_info(m).unit) for m in metrics)
    means: dict[tuple[str, str], TableCell] = {}
    rows_data: list[tuple[GroupResult, list[RunInput]]] = []
    for (_, members), result in zip(grouped, groups, strict=True):
        gone = {d.run_id for d in result.discarded}
        kept = [m for m in members if m.run.id not in gone]
        rows_data.append((result, kept))
        for metric in metrics:
            values = [v for v in (run_value(m, metric)[0] for m in kept) if v is not None]
            if not values:
                means[(result.name, metric)] = TableCell()
                continue
            st = describe(values, confidence=confidence)
            half = st.ci.half_width if st.ci is not None else None
            means[(result.name, metric)] = TableCell(st.n, st.mean, half)
    rows: list[TableRow] = []
    for result, kept in rows_data:
        cells = []
        for metric in metrics:
            cell = means[(result.name, metric)]
            base = means.get((baseline, metric)) if baseline is not None else None
            vs = None
            if cell.mean is not None and base is not None and base.mean:
                vs = (cell.mean - base.mean) / base.mean
            cells.append(TableCell(cell.n, cell.mean, cell.half_width, vs))
        rows.append(
            TableRow(
                result.name,
                result.description,
                len(kept),
                tuple(cells),
                is_baseline=result.name == baseline,
                limited_by=limited_by(m.diagnosis for m in kept),
            )
        )
    return ComparisonTable(columns, tuple(rows), baseline, confidence)


def run_metadata(item: RunInput) -> dict[str, str]:
    """The fields a metadata diff looks at, flattened to strings."""
    return run_fields(item.run, item.pair, item.ran_by)


def metadata_diff(items: Sequence[RunInput], groups: Sequence[str] | None = None) -> MetadataDiff:
    """The fields whose values differ between ``items`` (``analysis.metadata_diff``: a field a
    run lacks counts as "—"; unset, empty and the tool's default read alike)."""
    group_names = tuple(groups) if groups is not None else tuple(run_name(i.run) for i in items)
    return diff_fields(
        [run_metadata(item) for item in items],
        group_names,
        [item.run.id for item in items],
        [item.param_defaults for item in items],
    )


def curve_label(item: RunInput) -> str:
    """Legend text of a run: pair and label (or id)."""
    return f"{item.run.spec.pair} · {item.run.label or f'#{item.run.id}'}"


def _curves(items: Sequence[RunInput], metric: str, group_of: Mapping[int, str]) -> list[Curve]:
    curves: list[Curve] = []
    for item in items:
        series = pick_series(item, metric)
        if series is None or not len(series.t):
            continue
        curves.append(
            Curve(
                group_of[item.run.id],
                item.run.id,
                curve_label(item),
                series.stream,
                np.asarray(series.t, dtype=float),
                np.asarray(series.v, dtype=float),
            )
        )
    return curves


def median_curve(
    curves: Sequence[Curve], step: float | None = None
) -> tuple[FloatArray, FloatArray]:
    """The pointwise median of several curves on a common time grid.

    E.g. a group's typical run, to draw under a live one. The grid spans the time all curves
    cover, in ``step`` seconds (default: the coarsest curve's median interval, so a run at
    0.1 s and one at 1 s meet at 1 s); each curve gives the mean of its values over each
    grid cell (a value covers its interval, which ends at its ``t``), so a finer curve is
    averaged, never sampled, onto a coarser grid.
    """
    finite = [(c, np.isfinite(c.v) & np.isfinite(c.t)) for c in curves]
    usable = [replace(c, t=c.t[ok], v=c.v[ok]) for c, ok in finite if np.count_nonzero(ok) >= 2]
    if not usable:
        raise CompareError("no curve has two points or more")
    if step is None:
        step = max(float(np.median(np.diff(c.t))) for c in usable)
    covered = [_coverage(c) for c in usable]
    start = max(max(float(c.t[0]) for c in usable), max(float(e[0]) for e, _ in covered) + step)
    end = min(float(c.t[-1]) for c in usable)
    if not step > 0 or end < start:
        raise CompareError("the curves do not overlap in time")
    grid = np.arange(start, end + step / 2, step)
    stacked = np.vstack(
        [(np.interp(grid, e, f) - np.interp(grid - step, e, f)) / step for e, f in covered]
    )
    return grid, np.median(stacked, axis=0)


def _coverage(curve: Curve) -> tuple[FloatArray, FloatArray]:
    """A curve's interval edges and the integral of its values up to each edge (the first
    interval taken as long as the second)."""
    t = curve.t.astype(float)
    edges = np.concatenate([[t[0] - (t[1] - t[0])], t])
    return edges, np.concatenate([[0.0], np.cumsum(curve.v * np.diff(edges))])
