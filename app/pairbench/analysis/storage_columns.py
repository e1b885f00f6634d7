"""A storage suite's columns, as its CSV and ``--json`` give them: first CloudHarmony's
(its names, units, roundings and order, from the jobs of each stage's deciding window, as
its code computes them), then its ``ss_*`` fields, then Pairbench's own figures under names
of their own (``_weighted_mean_us``, ``_peak_us``, ``_iops``, ``_bytes_per_s``). A
campaign cell takes one of them as its value, in the tables' units (IO/s, µs, B/s)."""

from __future__ import annotations

from pairbench.analysis.cloudharmony import ss_fields, verification_percent
from pairbench.analysis.cloudharmony_columns import mix_words, reference_columns, size_word
from pairbench.analysis.storage_suite import Done, SuiteProgress, suite_progress
from pairbench.analysis.storage_tables import (
    LATENCY_IOPS,
    PEAK,
    WEIGHTED_MEAN,
    SuiteTable,
    suite_tables,
)
from pairbench.domain.storage import Job, JobKey, StorageTest, SuiteParams, stages_of

Column = float | int | str
# Pairbench's own columns: the suffix of each latency table's cells.
_OWN_LATENCY = {WEIGHTED_MEAN: "weighted_mean_us", LATENCY_IOPS: "iops", PEAK: "peak_us"}
# CloudHarmony's units to the tables' (campaign values): ms to µs, MiB/s to B/s.
_TO_TABLE_UNITS = {
    StorageTest.IOPS: 1.0,
    StorageTest.LATENCY: 1000.0,
    StorageTest.THROUGHPUT: 2.0**20,
}


def window_jobs(progress: SuiteProgress, done: Done) -> list[tuple[Job, dict[str, float]]]:
    """The finished jobs of every stage's deciding window, in the order they ran."""
    out: list[tuple[Job, dict[str, float]]] = []
    for stage in progress.stages:
        for round_no in stage.window_rounds:
            if round_no > len(stage.values):
                continue
            for j, job in enumerate(stage.stage.jobs):
                figures = done.get(JobKey(stage.index, round_no, j))
                if figures is not None:
                    out.append((job, dict(figures)))
    return out


def cloudharmony_columns(progress: SuiteProgress, done: Done) -> dict[str, float]:
    """CloudHarmony's columns (``iops_*``, ``latency_*_mean``/``_max``, ``throughput_*``) in
    its units (IO/s; ms; "MB/s" = MiB/s) and order."""
    if not any(stage.values for stage in progress.stages):
        return {}
    return reference_columns(progress.params.test, window_jobs(progress, done))


def cloudharmony_ss(progress: SuiteProgress) -> dict[str, Column]:
    """CloudHarmony's ``ss_*`` fields: those of the last stage's deciding window (a
    throughput suite's row carries its 128 KiB stage's, as theirs), and the run options."""
    params = progress.params
    last = progress.stages[-1].reference if progress.stages else None
    return ss_fields(last, params.max_rounds, verification_percent(params.slope_excursion))


def own_columns(params: SuiteParams, tables: list[SuiteTable]) -> dict[str, float]:
    """Pairbench's own figures, named in CloudHarmony's style with a suffix of their own:
    ``latency_{bs}_{mix}_weighted_mean_us`` / ``_iops`` / ``_peak_us``,
    ``throughput_{bs}_{mix}_bytes_per_s``."""
    out: dict[str, float] = {}
    for table in tables:
        for cell in table.cells:
            name = f"{size_word(params.test, cell.bs)}_{mix_words(cell.read_pct)}"
            if params.test is StorageTest.LATENCY:
                out[f"latency_{name}_{_OWN_LATENCY[table.name]}"] = cell.value
            elif params.test is StorageTest.THROUGHPUT:
                out[f"throughput_{name}_bytes_per_s"] = cell.value
    return out


def suite_columns(
    params: SuiteParams, progress: SuiteProgress, done: Done, tables: list[SuiteTable]
) -> dict[str, Column]:
    """Every column of the suite's row: CloudHarmony's, its ``ss_*`` fields, Pairbench's."""
    return {
        **cloudharmony_columns(progress, done),
        **cloudharmony_ss(progress),
        **own_columns(params, tables),
    }


def named_values(params: SuiteParams, progress: SuiteProgress, done: Done) -> dict[str, float]:
    """Every figure column by name, in the tables' own units (IO/s, µs, B/s): what a campaign
    cell's metric takes (CloudHarmony's ms and MiB/s converted, its value otherwise kept)."""
    factor = _TO_TABLE_UNITS[params.test]
    theirs = {k: v * factor for k, v in cloudharmony_columns(progress, done).items()}
    return {**theirs, **own_columns(params, suite_tables(params, progress, done))}


# A suite's headline figure, when a campaign cell runs a suite and its plan names no metric:
# what the field reports quote (4k random reads, 4k random write latency, 1 MiB sequential
# reads).
HEADLINE = {
    StorageTest.IOPS: "iops_4k_100_0",
    StorageTest.LATENCY: "latency_4k_0_100_mean",
    StorageTest.THROUGHPUT: "throughput_1024k_100_0",
}


def column_names(test: StorageTest) -> list[str]:
    """Every figure column a suite of ``test`` reports (what a campaign cell may take as
    metric): CloudHarmony's, then Pairbench's own."""
    names: list[str] = []
    own: list[str] = []
    for stage in stages_of(test):
        for job in stage.jobs:
            name = f"{size_word(test, job.bs)}_{mix_words(job.read_pct)}"
            if test is StorageTest.IOPS:
                names.append(f"iops_{name}")
            elif test is StorageTest.LATENCY:
                names += [f"latency_{name}_mean", f"latency_{name}_max"]
                own += [f"latency_{name}_{suffix}" for suffix in _OWN_LATENCY.values()]
            else:
                names.append(f"throughput_{name}")
                own.append(f"throughput_{name}_bytes_per_s")
    return names + own


def suite_value(params: SuiteParams, done: Done, metric: str) -> float | None:
    """One column of a suite's report (its deciding window's figure) in the tables' own
    units (IO/s, µs, B/s; see ``domain.metrics``), or None when the suite has none."""
    progress = suite_progress(params, done)
    return named_values(params, progress, done).get(metric)
