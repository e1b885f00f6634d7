"""runs_filter: a date filter and an id filter through ``services.runs`` vs the raw SQL.

In process, on one open library of 10,000 varied runs, timed alternately: ``find_runs``
(``Run`` objects, filtered and sorted in SQL on an index) against ``fetchall`` of the same
SELECT (same columns, same order) on a plain sqlite3 connection to the same file. Filters:
one month of start times (~830 runs); ids 4,000-4,999. What remains above the raw query is
building one ``Run`` (and its ``RunSpec``) per row from the row itself
(``library.run_rows.runs_from_rows``), and the cycle collector's passes over them (both
timings include freeing what the call returned); the stored JSON columns (summary,
parameters, tags, host facts) are decoded when first read (``library.codec.LazyJsonMap``).
"read" shows the date filter's runs with every summary read as well, for information.
``find_run_ids`` and ``count_runs`` are shown too (no objects: the SQL alone).
"""

from __future__ import annotations

import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.common import Out, Verdict, fmt, median, spread
from bench.runs_library import RUNS, YEAR_START, build
from bench.runs_list import COLUMNS
from pairbench.library import Library
from pairbench.services.runs import IdRange, RunFilter, count_runs, find_run_ids, find_runs

NAME = "runs_filter"
# A filtered list through the services may take this many times as long as the raw query.
TARGET_RATIO = 2.0
MONTH = (YEAR_START + 90 * 86_400.0, YEAR_START + 120 * 86_400.0)
IDS = (4_000, 4_999)
ORDER = " ORDER BY started_at DESC, id DESC"


def _median_of(fn: Callable[[], object], repeats: int) -> list[float]:
    fn()
    times: list[float] = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def _alternately(
    ours: Callable[[], object], raw: Callable[[], object], repeats: int
) -> tuple[list[float], list[float]]:
    """Times of both, one after the other each round, so a change of load weighs on both."""
    ours()
    raw()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for fn, kept in zip((ours, raw), times, strict=True):
            start = time.perf_counter()
            fn()
            kept.append(time.perf_counter() - start)
    return times


def run(quick: bool, out: Out) -> Verdict:
    repeats = 9 if quick else 31
    runs = 2_000 if quick else RUNS
    ids = (IDS[0] * runs // RUNS, IDS[1] * runs // RUNS)
    by_date = RunFilter(since=MONTH[0], until=MONTH[1])
    by_id = RunFilter(ids=(IdRange(*ids),))
    with tempfile.TemporaryDirectory(prefix="pb-bench-filter-") as tmp:
        path = Path(tmp) / "library.sqlite"
        build(path, runs)
        with Library.open(path) as lib:
            conn = sqlite3.connect(path)
            sql = f"SELECT {COLUMNS} FROM runs WHERE "
            date_sql = sql + "started_at >= ? AND started_at < ?" + ORDER
            id_sql = sql + "id BETWEEN ? AND ?" + ORDER
            n_date = count_runs(lib, by_date)
            n_id = count_runs(lib, by_id)
            assert [r.id for r in find_runs(lib, by_date)] == [
                row[0] for row in conn.execute(date_sql, MONTH)
            ]
            ours_date, raw_date = _alternately(
                lambda: find_runs(lib, by_date),
                lambda: conn.execute(date_sql, MONTH).fetchall(),
                repeats,
            )
            ours_id, raw_id = _alternately(
                lambda: find_runs(lib, by_id),
                lambda: conn.execute(id_sql, ids).fetchall(),
                repeats,
            )
            read, raw_again = _alternately(
                lambda: [dict(run.summary) for run in find_runs(lib, by_date)],
                lambda: conn.execute(date_sql, MONTH).fetchall(),
                repeats,
            )
            counts = _median_of(lambda: count_runs(lib, by_date), repeats)
            id_lists = _median_of(lambda: find_run_ids(lib, by_date), repeats)
            raw_ids = _median_of(
                lambda: conn.execute(
                    "SELECT id FROM runs WHERE started_at >= ? AND started_at < ?" + ORDER, MONTH
                ).fetchall(),
                repeats,
            )
            conn.close()
    date_ratio = median(ours_date) / median(raw_date)
    id_ratio = median(ours_id) / median(raw_id)
    out(f"  date filter ({n_date} runs): raw {spread(raw_date, 1e3, 'ms')}")
    out(f"  date filter ({n_date} runs): find_runs {spread(ours_date, 1e3, 'ms')}")
    out(f"  id filter ({n_id} runs): raw {spread(raw_id, 1e3, 'ms')}")
    out(f"  id filter ({n_id} runs): find_runs {spread(ours_id, 1e3, 'ms')}")
    out(
        f"  date filter, every summary read too: {spread(read, 1e3, 'ms')}, "
        f"{fmt(median(read) / median(raw_again))}x the raw query"
    )
    out(f"  count_runs (date filter): {spread(counts, 1e3, 'ms')}")
    out(
        f"  find_run_ids (date filter): {spread(id_lists, 1e3, 'ms')}; "
        f"raw SELECT id: {spread(raw_ids, 1e3, 'ms')}"
    )
    out(f"  ratios: date {fmt(date_ratio)}, id {fmt(id_ratio)}")
    return Verdict(
        NAME,
        max(date_ratio, id_ratio),
        TARGET_RATIO,
        "the raw SQL (the worse of date and id)",
        info=f"date {fmt(date_ratio)}x, id {fmt(id_ratio)}x",
    )
