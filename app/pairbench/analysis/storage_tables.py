"""Pairbench's own tables of a storage suite: each job's figure averaged over the stage's
measurement window, per block size × mix (IOPS; the latency test's IOPS-weighted mean
latency, IOPS and peak latency; throughput per block size and direction, B/s)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pairbench.analysis.storage_suite import Done, StageProgress, SuiteProgress
from pairbench.domain.storage import Job, JobKey, StorageTest, SuiteParams, block_size_word

# The latency test's table names.
WEIGHTED_MEAN = "weighted mean latency"
LATENCY_IOPS = "latency IOPS"
PEAK = "peak latency"


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
    """Mean latency over reads and writes, weighted by their IOPS (µs): the mean time of
    one of the job's I/Os (CloudHarmony's ``_mean`` column averages the two unweighted)."""
    total = weight = 0.0
    for direction in ("read", "write"):
        lat = figures.get(f"{direction}_lat_mean_us")
        iops = figures.get(f"{direction}_iops", 0.0)
        if lat is not None and iops > 0:
            total += lat * iops
            weight += iops
    return total / weight if weight > 0 else None


def _max_latency(job: Job, figures: Mapping[str, float]) -> float | None:
    """The largest latency of the job's reads and writes (µs; fio's ``lat_ns.max``; the
    table takes the largest over the window, where CloudHarmony's ``_max`` column averages
    the window's (read + write) / 2)."""
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
    """Pairbench's own tables: IOPS (block size × mix); for the latency test the
    IOPS-weighted mean latency, its IOPS and the largest latency seen over the window (the
    peak); throughput per block size for reads and writes (B/s)."""
    tables: list[SuiteTable] = []
    for stage in progress.stages:
        if not stage.values:
            continue
        if params.test is StorageTest.IOPS:
            tables.append(_table("IOPS", "IOPS", stage, done, _iops))
        elif params.test is StorageTest.LATENCY:
            tables.append(_table(WEIGHTED_MEAN, "µs", stage, done, _mean_latency))
            tables.append(_table(LATENCY_IOPS, "IOPS", stage, done, _iops))
            maximum = _table(PEAK, "µs", stage, done, _max_latency, max)
            if maximum.cells:  # jobs recorded before maxima were kept have none
                tables.append(maximum)
        else:
            name = f"throughput {block_size_word(stage.stage.jobs[0].bs)}"
            tables.append(_table(name, "B/s", stage, done, _throughput))
    return tables
