"""fio's own log files of a job file's run (``write_bw_log``, ``write_lat_log``,
``write_iops_log``): their names, written into the run's work directory (fio's working
directory), brought back after the run and stored as the ``fio_logs`` analysis, bounded."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from pairbench.tools.base import CollectedFile
from pairbench.tools.fio_jobtext import FioJob, JobFileError

LOGS_KIND: Final = "fio_logs"
# The log options a job file may set, and the logs each makes (fio's file name suffixes).
LOG_OPTIONS: Final[Mapping[str, tuple[str, ...]]] = {
    "write_bw_log": ("bw",),
    "write_iops_log": ("iops",),
    "write_lat_log": ("lat", "clat", "slat"),
}
# What each log's value is (fio's HOWTO, "Log File Formats").
UNITS: Final[Mapping[str, str]] = {
    "bw": "KiB/s",
    "iops": "IO/s",
    "lat": "ns",
    "clat": "ns",
    "slat": "ns",
}
# The files the engine brings back from the work directory (what Pairbench keeps of them is
# ``MAX_ROWS`` per file, ``MAX_TOTAL_ROWS`` in all).
COLLECT: Final = ("*.log",)
MAX_ROWS: Final = 10_000
MAX_TOTAL_ROWS: Final = 100_000
DIRECTIONS: Final = ("read", "write", "trim")
_NAME: Final = re.compile(r"[^/\x00-\x1f]{1,200}")


def check_log_option(job: FioJob, key: str) -> None:
    """A log option's value names a file in the work directory: no ``/``, not ``.`` or
    ``..`` (empty: fio names the log after the job)."""
    value = job.option(key)
    if value and (not _NAME.fullmatch(value) or value in (".", "..")):
        raise JobFileError(
            f"{job.where}: {key}={value[:60]}: a log's name is a file name, without '/': fio "
            "writes it into the run's work directory, from where Pairbench stores it with the "
            "run"
        )


def log_prefixes(jobs: Iterable[FioJob]) -> list[str]:
    """The names the jobs' logs start with (a log option's value, else the job's name)."""
    prefixes: list[str] = []
    for job in jobs:
        for key in LOG_OPTIONS:
            if key in job.options:
                prefix = job.option(key) or job.name
                if prefix not in prefixes:
                    prefixes.append(prefix)
    return prefixes


def _match(name: str, prefixes: Iterable[str]) -> tuple[str, str, int | None] | None:
    """``(prefix, log, job number)`` of a log file's name (``rr_bw.1.log``; ``rr_bw.log``
    with ``per_job_logs=0``), or None for another file."""
    for prefix in sorted(prefixes, key=len, reverse=True):
        if not name.startswith(f"{prefix}_"):
            continue
        m = re.fullmatch(r"(bw|iops|lat|clat|slat)(?:\.(\d{1,6}))?\.log", name[len(prefix) + 1 :])
        if m is not None:
            return prefix, m.group(1), int(m.group(2)) if m.group(2) else None
    return None


def _rows(text: str, limit: int) -> tuple[list[float], list[float], list[int], bool]:
    """A log's ``time (ms), value, direction`` rows (up to ``limit``), and whether every
    line was read; a line that is no log row (a cut last line) ends it."""
    t: list[float] = []
    values: list[float] = []
    dirs: list[int] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if len(t) >= limit:
            return t, values, dirs, False
        parts = [p.strip() for p in line.split(",")]
        try:
            when, value, direction = float(parts[0]), float(parts[1]), int(parts[2])
        except (IndexError, ValueError):
            return t, values, dirs, False
        if not (math.isfinite(when) and math.isfinite(value)) or direction not in (0, 1, 2):
            return t, values, dirs, False
        t.append(when)
        values.append(value)
        dirs.append(direction)
    return t, values, dirs, True


def logs_payload(
    collected: Mapping[str, CollectedFile], prefixes: Iterable[str]
) -> dict[str, Any] | None:
    """The ``fio_logs`` analysis of the files brought back: each log of the jobs' (by name,
    job number and log kind) with its rows (``t_ms``, ``value``, ``direction``: 0 read, 1
    write, 2 trim), unit, size on the host and whether it is whole; None when there is none."""
    files: list[dict[str, Any]] = []
    budget = MAX_TOTAL_ROWS
    for name in sorted(collected):
        found = _match(name, prefixes)
        if found is None:
            continue
        prefix, log, job = found
        one = collected[name]
        # A file read only in part may end inside a row ("2500, 16"): that row is left out.
        text = one.text if one.complete else one.text[: one.text.rfind("\n") + 1]
        t, values, dirs, whole = _rows(text, min(MAX_ROWS, budget))
        budget -= len(t)
        files.append(
            {
                "name": name,
                "prefix": prefix,
                "log": log,
                "job": job,
                "unit": UNITS[log],
                "bytes": one.size,
                "rows": len(t),
                "complete": whole and one.complete,
                "t_ms": t,
                "value": values,
                "direction": dirs,
            }
        )
    if not files:
        return None
    return {"source": "fio log files", "files": files}


def log_analyses(
    prefixes: Iterable[str], collected: Mapping[str, CollectedFile]
) -> dict[str, dict[str, Any]]:
    """The analyses of the collected files (``Tool.collected_analyses``)."""
    payload = logs_payload(collected, prefixes)
    return {LOGS_KIND: payload} if payload is not None else {}
