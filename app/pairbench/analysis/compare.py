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
table, so each row describes one consistent set of runs. The inputs and a run's value of a
metric are ``analysis.compare_runs``; the table is ``analysis.compare_table``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from pairbench.analysis.compare_runs import (
    CompareError,
    GroupBy,
    RunInput,
    _metrics_of,
    default_metric,
    metric_info,
    pick_series,
    run_name,
    run_value,
)
from pairbench.analysis.compare_table import ComparisonTable, comparison_table
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
from pairbench.domain import HostPair, Metric, Run, RunStatus

# --- values of a metric per run -----------------------------------------------------------


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
