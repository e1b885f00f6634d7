"""A job file's fio logs as a run stores them (the ``fio_logs`` analysis) for display: a series
per log file and direction in the run's units (bandwidth in B/s, latency in µs), what each
plot is called, and their lines in ``runs show``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from pairbench.domain.metrics import metric_unit
from pairbench.library.series import SeriesArrays
from pairbench.tools.fio_logs import DIRECTIONS, LOGS_KIND

__all__ = ["LOGS_KIND", "describe_logs", "log_files", "log_series", "plot_title"]

# Each log: the metric its values become (after the direction), the factor from fio's unit,
# and what the log is called.
_LOGS: Mapping[str, tuple[str, float, str]] = {
    "bw": ("bytes_per_s", 1024.0, "bandwidth (fio's bw log)"),
    "iops": ("iops", 1.0, "IOPS (fio's iops log)"),
    "lat": ("lat_us", 1e-3, "total latency (fio's lat log)"),
    "clat": ("clat_us", 1e-3, "completion latency (fio's clat log)"),
    "slat": ("slat_us", 1e-3, "submission latency (fio's slat log)"),
}
_EPOCH_MS = 1e11  # times above this are log_unix_epoch's milliseconds since 1970


def log_files(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The stored log files that are well formed (others left out)."""
    files = payload.get("files")
    if not isinstance(files, list):
        return []
    return [
        f
        for f in files
        if isinstance(f, dict)
        and f.get("log") in _LOGS
        and all(isinstance(f.get(k), list) for k in ("t_ms", "value", "direction"))
        and len(f["t_ms"]) == len(f["value"]) == len(f["direction"])
    ]


def _stream(one: Mapping[str, Any]) -> str:
    job = one.get("job")
    return f"{one.get('prefix', '')}.{job}" if isinstance(job, int) else str(one.get("prefix"))


def log_series(payload: Mapping[str, Any]) -> list[SeriesArrays]:
    """A series per log file and direction: stream ``PREFIX.JOB`` (fio's job number), metric
    ``{direction}_bytes_per_s`` / ``_iops`` / ``_lat_us`` / ``_clat_us`` / ``_slat_us``,
    time in seconds (from the run's start; ``log_unix_epoch`` times from the first row)."""
    out: list[SeriesArrays] = []
    for one in log_files(payload):
        word, factor, _ = _LOGS[one["log"]]
        t = np.asarray(one["t_ms"], dtype=np.float64) / 1000.0
        if t.size and t[0] * 1000.0 > _EPOCH_MS:
            t = t - t[0]
        values = np.asarray(one["value"], dtype=np.float64) * factor
        directions = np.asarray(one["direction"])
        for index, name in enumerate(DIRECTIONS):
            mask = directions == index
            if mask.any():
                metric = f"{name}_{word}"
                out.append(
                    SeriesArrays(_stream(one), metric, metric_unit(metric), t[mask], values[mask])
                )
    return out


def plot_title(metric: str) -> str:
    """What a log's plot is called: ``Read bandwidth (fio's bw log)``."""
    direction, _, word = metric.partition("_")
    for _log, (known, _factor, title) in _LOGS.items():
        if word == known:
            return f"{direction.capitalize()} {title}"
    return metric.replace("_", " ")


def describe_logs(payload: Mapping[str, Any]) -> list[str]:
    """Short lines for ``runs show``: each log file, its rows and whether it is whole."""
    lines = []
    for one in log_files(payload):
        rows, size = len(one["t_ms"]), one.get("bytes", 0)
        whole = "" if one.get("complete") else f" (the first ones of its {size} bytes)"
        span = f", {one['t_ms'][0] / 1000:.1f} to {one['t_ms'][-1] / 1000:.1f} s" if rows else ""
        lines.append(f"{one.get('name', '?'):<24} {rows} rows{span}{whole}")
    return lines or ["no fio logs"]
