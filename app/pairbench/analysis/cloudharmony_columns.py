"""CloudHarmony block-storage's figures of a suite's jobs, as its PHP computes them: each
round's tracking value in its units, and the columns of its results row (``jobMetrics``)
from the jobs of the measurement window, in its order.

- ``iops_{bs}_{r}_{w}``: IO/s, the window's mean of each job's read + write ``iops``,
  rounded to a whole number.
- ``latency_{bs}_{r}_{w}_mean`` / ``_max``: ms, the window's mean of each job's ``lat_ns``
  mean / max (a mixed job: (read + write) / 2, unweighted; each job's value ÷ 10⁶ rounded
  to 12 decimals, and the mean too).
- ``throughput_{1024k|128k}_{r}_{w}``: "MB/s" that are MiB/s: each job's read + write
  ``bw`` (KiB/s) ÷ 1024 rounded to 2 decimals, the window's mean of them rounded to 2.

A job's fio figures are those of its first ``jobs[]`` entry (``domain.storage.FIO_FIGURES``);
a job stored before Pairbench kept them has them derived from its summary figures."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from pairbench.analysis.php_numbers import php_round
from pairbench.domain.storage import Job, StorageTest, block_size_word, fio_figure_key

LATENCY_PRECISION = 12  # CloudHarmony's BLOCK_STORAGE_TEST_LATENCY_ROUND_PRECISION
# The summary figure (and its factor to fio's unit) a job stored without fio's own has.
_FROM_SUMMARY = {
    "iops": ("iops", 1.0),
    "bw": ("bytes_per_s", 1.0 / 1024),
    "lat_ns_mean": ("lat_mean_us", 1000.0),
    "lat_ns_max": ("lat_max_us", 1000.0),
}


def fio_figure(figures: Mapping[str, float], direction: str, name: str) -> float | None:
    """One of fio's own figures of a job (``domain.storage.FIO_FIGURES``), None if fio
    printed no such figure for the direction."""
    key = fio_figure_key(direction, name)
    if key in figures:
        return float(figures[key])
    summary, factor = _FROM_SUMMARY[name]
    value = figures.get(f"{direction}_{summary}")
    if value is None:
        return None
    return float(math.floor(value * factor)) if name == "bw" else float(value) * factor


def _zero(value: float | None) -> float:
    return 0.0 if value is None else value


def job_iops(figures: Mapping[str, float]) -> float:
    """Read plus write IOPS of one job."""
    read = _zero(fio_figure(figures, "read", "iops"))
    return read + _zero(fio_figure(figures, "write", "iops"))


def job_latency_ms(figures: Mapping[str, float], kind: str) -> float | None:
    """A job's ``lat_ns`` ``kind`` (mean or max) in ms, CloudHarmony's way: (write + read)
    / 2 when both are above 0, else the one that is; None when neither is."""
    write = _zero(fio_figure(figures, "write", f"lat_ns_{kind}"))
    read = _zero(fio_figure(figures, "read", f"lat_ns_{kind}"))
    if write > 0 and read > 0:
        latency = (write + read) / 2
    elif write > 0:
        latency = write
    elif read > 0:
        latency = read
    else:
        return None
    return php_round(latency / 1000000, LATENCY_PRECISION)


def job_mib_per_s(figures: Mapping[str, float]) -> float:
    """Read plus write ``bw`` (KiB/s) ÷ 1024, rounded to 2 decimals."""
    total = _zero(fio_figure(figures, "read", "bw")) + _zero(fio_figure(figures, "write", "bw"))
    return php_round(total / 1024, 2)


def tracking_value(test: StorageTest, figures: Mapping[str, float]) -> float:
    """A round's tracking value as CloudHarmony records it from the tracked job: write IOPS
    (iops), mean latency in ms (latency), write bw ÷ 1024 rounded to 2 decimals
    (throughput). NaN when the job has none."""
    if test is StorageTest.IOPS:
        value = fio_figure(figures, "write", "iops")
    elif test is StorageTest.LATENCY:
        value = job_latency_ms(figures, "mean")
    else:
        value = php_round(_zero(fio_figure(figures, "write", "bw")) / 1024, 2)
    return math.nan if value is None else value


def mix_words(read_pct: int) -> str:
    """``65_35``: a mix in CloudHarmony's column names."""
    return f"{read_pct}_{100 - read_pct}"


def size_word(test: StorageTest, bs: str) -> str:
    """A block size in CloudHarmony's column names (``1024k`` in throughput's)."""
    return "1024k" if test is StorageTest.THROUGHPUT and bs == "1m" else block_size_word(bs)


def _mean(values: Sequence[float | None]) -> float:
    """PHP's ``array_sum($v)/count($v)``: left to right, a missing value counted as 0."""
    total = 0.0
    for value in values:
        total += _zero(value)
    return total / len(values)


WindowJobs = Iterable[tuple[Job, Mapping[str, float]]]


def reference_columns(test: StorageTest, window_jobs: WindowJobs) -> dict[str, float]:
    """CloudHarmony's columns from the jobs of the measurement window(s), given in the order
    they ran (round by round; a throughput suite's stages one after the other)."""
    found: dict[str, list[float | None]] = {}
    for job, figures in window_jobs:
        name = f"{size_word(test, job.bs)}_{mix_words(job.read_pct)}"
        if test is StorageTest.IOPS:
            found.setdefault(f"iops_{name}", []).append(job_iops(figures))
        elif test is StorageTest.LATENCY:
            for kind in ("mean", "max"):
                latency = job_latency_ms(figures, kind)
                found.setdefault(f"latency_{name}_{kind}", []).append(latency)
        else:
            found.setdefault(f"throughput_{name}", []).append(job_mib_per_s(figures))
    if test is StorageTest.IOPS:
        return {key: php_round(_mean(values)) for key, values in found.items()}
    places = LATENCY_PRECISION if test is StorageTest.LATENCY else 2
    return {key: php_round(_mean(values), places) for key, values in found.items()}
