"""Where a storage suite stands and what it found, from the jobs it finished: the next job,
each stage's tracking values and steady-state verdict, and the report's tables (window
means per block size and mix)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pairbench.analysis.steady_state import SteadyParams, SteadyState, SteadyVerdict, steady_state
from pairbench.domain.storage import (
    Job,
    JobKey,
    Stage,
    StorageTest,
    SuiteParams,
    block_size_word,
    stages_of,
)

# A finished job's figures by its place in the suite (only completed jobs count).
Done = Mapping[JobKey, Mapping[str, float]]


def steady_params(params: SuiteParams) -> SteadyParams:
    """The steady-state rule's parameters of a suite (window 5, its excursions and rounds)."""
    return SteadyParams(
        data_excursion=params.data_excursion,
        slope_excursion=params.slope_excursion,
        max_rounds=params.max_rounds,
    )


@dataclass(frozen=True, slots=True)
class StageProgress:
    """One stage: its tracking value per complete round, and the verdict after them."""

    index: int
    stage: Stage
    values: tuple[float, ...]
    verdict: SteadyVerdict

    @property
    def finished(self) -> bool:
        return self.verdict.state is not SteadyState.PENDING

    @property
    def window_rounds(self) -> tuple[int, ...]:
        """The rounds the tables average: the deciding window, else the last complete
        rounds (at most 5) of a stage that was stopped early."""
        window = self.verdict.window
        if window is not None:
            return tuple(range(window.round - len(window.values) + 1, window.round + 1))
        count = len(self.values)
        return tuple(range(max(1, count - 4), count + 1))


@dataclass(frozen=True, slots=True)
class SuiteProgress:
    """Every stage's progress, the preconditioning passes done, and the next job (None: the
    suite is finished)."""

    params: SuiteParams
    precondition_done: int
    stages: tuple[StageProgress, ...]
    next_job: JobKey | None

    @property
    def finished(self) -> bool:
        return self.next_job is None


def complete_rounds(stage_index: int, stage: Stage, done: Done) -> int:
    """How many rounds of the stage, from round 1 on, have every job finished (a round
    under way, or one whose job must run again, ends the count)."""
    count = 0
    while all(JobKey(stage_index, count + 1, j) in done for j in range(len(stage.jobs))):
        count += 1
    return count


def _complete_rounds(stage_index: int, stage: Stage, done: Done) -> list[float]:
    """The tracking value of each complete round (``complete_rounds``)."""
    tracked = stage.job_index(stage.tracked)
    return [
        float(done[JobKey(stage_index, r, tracked)].get(stage.metric, 0.0))
        for r in range(1, complete_rounds(stage_index, stage, done) + 1)
    ]


@dataclass(frozen=True, slots=True)
class ConvergenceLine:
    """One line of the convergence plot: a block size's figure (the stage's tracking metric
    on the tracked mix) at each complete round of its stage (NaN where a job lacks it)."""

    stage: int
    bs: str
    metric: str
    rounds: tuple[int, ...]
    values: tuple[float, ...]


def convergence_lines(params: SuiteParams, done: Done) -> list[ConvergenceLine]:
    """The convergence plot's lines after the jobs in ``done`` (the window's live plot and
    the report's chart): per stage, one line per block size of the tracked mix, a point per
    complete round."""
    lines: list[ConvergenceLine] = []
    for index, stage in enumerate(stages_of(params.test)):
        rounds = tuple(range(1, complete_rounds(index, stage, done) + 1))
        tracked = stage.tracked
        for j, job in enumerate(stage.jobs):
            if (job.read_pct, job.sequential) != (tracked.read_pct, tracked.sequential):
                continue
            values = tuple(
                float(done[JobKey(index, r, j)].get(stage.metric, math.nan)) for r in rounds
            )
            lines.append(ConvergenceLine(index, job.bs, stage.metric, rounds, values))
    return lines


def suite_progress(params: SuiteParams, done: Done) -> SuiteProgress:
    """Where the suite stands after the jobs in ``done``."""
    rule = steady_params(params)
    passes = 0
    while JobKey(-1, passes + 1, 0) in done:
        passes += 1
    next_job: JobKey | None = None
    if passes < params.precondition_passes:
        next_job = JobKey(-1, passes + 1, 0)
    stages: list[StageProgress] = []
    for index, stage in enumerate(stages_of(params.test)):
        values = _complete_rounds(index, stage, done)
        verdict = steady_state(values, rule)
        progress = StageProgress(index, stage, tuple(values), verdict)
        stages.append(progress)
        if next_job is None and not progress.finished:
            round_no = len(values) + 1
            job = next(j for j in range(len(stage.jobs)) if JobKey(index, round_no, j) not in done)
            next_job = JobKey(index, round_no, job)
    return SuiteProgress(params, passes, tuple(stages), next_job)


def job_of(params: SuiteParams, key: JobKey) -> Job:
    """The fio job at ``key`` (a preconditioning pass: sequential 128 KiB writes)."""
    if key.precondition:
        return Job("128k", 0, sequential=True)
    return stages_of(params.test)[key.stage].jobs[key.job]


def jobs_total(params: SuiteParams, progress: SuiteProgress, done: Done) -> tuple[int, int]:
    """Jobs done and jobs planned so far: a finished stage counts its rounds, a running one
    at least the window (5 rounds) and the round under way, one not begun its window;
    preconditioning included."""
    planned = params.precondition_passes
    window = steady_params(params).window
    for stage in progress.stages:
        rounds = len(stage.values) if stage.finished else max(window, len(stage.values) + 1)
        planned += rounds * len(stage.stage.jobs)
    return len(done), planned


def verdict_json(progress: StageProgress) -> dict[str, object]:
    """A stage's verdict as stored and printed: state, rounds, the deciding round and window
    (values, mean, both excursions against their limits, the fitted line)."""
    verdict = progress.verdict
    window = verdict.window
    out: dict[str, object] = {
        "stage": progress.stage.name,
        "tracking": progress.stage.metric_label,
        "state": verdict.state.value,
        "reached": verdict.state is SteadyState.REACHED,
        "rounds": len(progress.values),
        "round": verdict.reached_at,
        "values": list(progress.values),
        "window": None,
    }
    if window is not None:
        out["window"] = {
            "end_round": window.round,
            "values": list(window.values),
            "mean": window.mean,
            "data_excursion": window.data_excursion,
            "data_limit": window.data_limit,
            "data_ok": window.data_ok,
            "slope": window.slope,
            "intercept": window.intercept,
            "slope_excursion": window.slope_excursion,
            "slope_limit": window.slope_limit,
            "slope_ok": window.slope_ok,
        }
    return out


# ----------------------------------------------------------------------------- tables


@dataclass(frozen=True, slots=True)
class Cell:
    """One table cell: a job's figure averaged over the window's rounds."""

    bs: str
    read_pct: int
    value: float
    rounds: int  # how many rounds it averages


@dataclass(frozen=True, slots=True)
class SuiteTable:
    """A report table: a figure per block size × mix (``name`` says which figure)."""

    name: str
    unit: str
    cells: tuple[Cell, ...]

    def value(self, bs: str, read_pct: int) -> float | None:
        for cell in self.cells:
            if cell.bs == bs and cell.read_pct == read_pct:
                return cell.value
        return None


def _iops(job: Job, figures: Mapping[str, float]) -> float | None:
    """Reads and writes per second together."""
    return figures.get("read_iops", 0.0) + figures.get("write_iops", 0.0)


def _mean_latency(job: Job, figures: Mapping[str, float]) -> float | None:
    """Mean latency over reads and writes, weighted by their IOPS (µs)."""
    total = weight = 0.0
    for direction in ("read", "write"):
        lat = figures.get(f"{direction}_lat_mean_us")
        iops = figures.get(f"{direction}_iops", 0.0)
        if lat is not None and iops > 0:
            total += lat * iops
            weight += iops
    return total / weight if weight > 0 else None


def _max_latency(job: Job, figures: Mapping[str, float]) -> float | None:
    """The largest latency of the job's reads and writes (µs; fio's ``lat_ns.max``)."""
    found = [figures[k] for k in ("read_lat_max_us", "write_lat_max_us") if k in figures]
    return max(found) if found else None


def _throughput(job: Job, figures: Mapping[str, float]) -> float | None:
    """Bytes per second in the job's direction (a sequential read or write)."""
    direction = "read" if job.read_pct == 100 else "write"
    return figures.get(f"{direction}_bytes_per_s")


def _table(
    name: str,
    unit: str,
    stage: StageProgress,
    done: Done,
    figure: Callable[[Job, Mapping[str, float]], float | None],
    combine: Callable[[list[float]], float] | None = None,
) -> SuiteTable:
    """``figure`` of each job of the stage over the stage's window rounds, combined by
    ``combine`` (default: their mean)."""
    cells: list[Cell] = []
    rounds = [r for r in stage.window_rounds if r <= len(stage.values)]
    for j, job in enumerate(stage.stage.jobs):
        values = [
            v
            for r in rounds
            if (key := JobKey(stage.index, r, j)) in done
            and (v := figure(job, done[key])) is not None
        ]
        if values:
            value = combine(values) if combine else sum(values) / len(values)
            cells.append(Cell(job.bs, job.read_pct, value, len(values)))
    return SuiteTable(name, unit, tuple(cells))


def suite_tables(params: SuiteParams, progress: SuiteProgress, done: Done) -> list[SuiteTable]:
    """The report's tables: IOPS (block size × mix); for the latency test the mean latency,
    its IOPS and the largest latency seen over the window; throughput per block size for
    reads and writes."""
    tables: list[SuiteTable] = []
    for stage in progress.stages:
        if not stage.values:
            continue
        if params.test is StorageTest.IOPS:
            tables.append(_table("IOPS", "IOPS", stage, done, _iops))
        elif params.test is StorageTest.LATENCY:
            tables.append(_table("mean latency", "µs", stage, done, _mean_latency))
            tables.append(_table("latency IOPS", "IOPS", stage, done, _iops))
            maximum = _table("max latency", "µs", stage, done, _max_latency, max)
            if maximum.cells:  # jobs recorded before maxima were kept have none
                tables.append(maximum)
        else:
            name = f"throughput {block_size_word(stage.stage.jobs[0].bs)}"
            tables.append(_table(name, "B/s", stage, done, _throughput))
    return tables


_LATENCY_SUFFIX = {"mean latency": "mean", "max latency": "max", "latency IOPS": "iops"}


def _column(test: StorageTest, table: str, bs: str, read_pct: int) -> str:
    """The CloudHarmony name of one table cell's column."""
    mix = f"{read_pct}_{100 - read_pct}"
    if test is StorageTest.IOPS:
        return f"iops_{block_size_word(bs)}_{mix}"
    if test is StorageTest.LATENCY:
        return f"latency_{block_size_word(bs)}_{mix}_{_LATENCY_SUFFIX[table]}"
    return f"throughput_{'1024k' if bs == '1m' else block_size_word(bs)}_{mix}"


def named_values(params: SuiteParams, tables: list[SuiteTable]) -> dict[str, float]:
    """Every table cell by its CloudHarmony column name, in the tables' own units (IO/s,
    µs, B/s)."""
    return {
        _column(params.test, table.name, cell.bs, cell.read_pct): cell.value
        for table in tables
        for cell in table.cells
    }


def csv_columns(params: SuiteParams, tables: list[SuiteTable]) -> dict[str, float]:
    """The tables as CloudHarmony's block-storage suite names its report columns:
    ``iops_4k_0_100``, ``latency_4k_65_35_mean`` / ``_max`` / ``_iops``,
    ``throughput_1024k_100_0``
    (throughput in MB/s, latency in ms, as theirs)."""
    out = named_values(params, tables)
    if params.test is StorageTest.THROUGHPUT:
        return {name: value / 1e6 for name, value in out.items()}
    if params.test is StorageTest.LATENCY:
        return {n: v if n.endswith("_iops") else v / 1000.0 for n, v in out.items()}
    return out


# A suite's headline figure, when a campaign cell runs a suite and its plan names no metric:
# what the field reports quote (4k random reads, 4k random write latency, 1 MiB sequential
# reads).
HEADLINE = {
    StorageTest.IOPS: "iops_4k_100_0",
    StorageTest.LATENCY: "latency_4k_0_100_mean",
    StorageTest.THROUGHPUT: "throughput_1024k_100_0",
}


def column_names(test: StorageTest) -> list[str]:
    """Every column a suite of ``test`` reports (what a campaign cell may take as metric)."""
    tables = ("mean latency", "latency IOPS", "max latency")
    names = tables if test is StorageTest.LATENCY else ("",)
    return [
        _column(test, table, job.bs, job.read_pct)
        for stage in stages_of(test)
        for table in names
        for job in stage.jobs
    ]


def suite_value(params: SuiteParams, done: Done, metric: str) -> float | None:
    """One column of a suite's report (its steady window's figure) in the tables' own
    units (IO/s, µs, B/s; see ``domain.metrics``), or None when the suite has none."""
    progress = suite_progress(params, done)
    return named_values(params, suite_tables(params, progress, done)).get(metric)
