"""Series storage: columnar float64 chunks per (run, stream, metric), loaded as numpy arrays.

A chunk holds a series' values (``v``) and refers to a row of ``times`` holding its time
stamps (``t``): the series of a run sampled at the same instants share one stored time blob.
"""

from __future__ import annotations

import sqlite3
import sys
from array import array
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pairbench.domain import Series, metric_unit
from pairbench.library.connection import Library, LibraryError, write_transaction

_LITTLE = sys.byteorder == "little"


@dataclass(frozen=True, slots=True)
class SeriesArrays:
    """One stored series as numpy arrays (the form plots and analysis use)."""

    stream: str
    metric: str
    unit: str
    t: npt.NDArray[np.float64]
    v: npt.NDArray[np.float64]

    def to_series(self) -> Series:
        """The same data as a plain domain ``Series``."""
        return Series(
            self.stream,
            self.metric,
            self.unit,
            tuple(float(x) for x in self.t),
            tuple(float(x) for x in self.v),
        )


def to_blob(values: array[float]) -> bytes:
    """float64 values as a little-endian blob."""
    if not _LITTLE:
        values = array("d", values)
        values.byteswap()
    return values.tobytes()


def ensure_series(conn: sqlite3.Connection, run_id: int, stream: str, metric: str) -> int:
    """The id of the series row for (run, stream, metric), created if needed."""
    row = conn.execute(
        "SELECT id FROM series WHERE run_id = ? AND stream = ? AND metric = ?",
        (run_id, stream, metric),
    ).fetchone()
    if row:
        return int(row[0])
    cur = conn.execute(
        "INSERT INTO series (run_id, stream, metric, unit) VALUES (?, ?, ?, ?)",
        (run_id, stream, metric, metric_unit(metric)),
    )
    return int(cur.lastrowid or 0)


def next_chunk_seq(conn: sqlite3.Connection, series_id: int) -> int:
    """The sequence number the next chunk of a series gets."""
    row = conn.execute(
        "SELECT COALESCE(MAX(seq) + 1, 0) FROM chunks WHERE series_id = ?", (series_id,)
    ).fetchone()
    return int(row[0])


def insert_time(conn: sqlite3.Connection, run_id: int, t_blob: bytes) -> int:
    """Store one time blob of a run; return its id (what chunks refer to as ``time_id``)."""
    cur = conn.execute(
        "INSERT INTO times (run_id, n, t) VALUES (?, ?, ?)", (run_id, len(t_blob) // 8, t_blob)
    )
    return int(cur.lastrowid or 0)


class SharedTimes:
    """The time blobs one transaction writes for a run: byte-identical blobs get one row.

    The metrics of a stream, and usually the streams of a run, are sampled at the same
    instants; their chunks then refer to one stored time blob instead of a copy each.
    A blob is shared only when its bytes are identical, so any series stores correctly.
    """

    def __init__(self, conn: sqlite3.Connection, run_id: int) -> None:
        self._conn = conn
        self._run_id = run_id
        self._ids: dict[bytes, int] = {}

    def id_of(self, t_blob: bytes) -> int:
        """The id of the time row holding exactly ``t_blob``, written when first seen."""
        time_id = self._ids.get(t_blob)
        if time_id is None:
            time_id = self._ids[t_blob] = insert_time(self._conn, self._run_id, t_blob)
        return time_id


def insert_chunks(
    conn: sqlite3.Connection, rows: Iterable[tuple[int, int, int, int, bytes]]
) -> None:
    """Insert (series_id, seq, n, time_id, v_blob) rows."""
    conn.executemany(
        "INSERT INTO chunks (series_id, seq, n, time_id, v) VALUES (?, ?, ?, ?, ?)", rows
    )


# A series whose chunks hold fewer samples than this on average is merged by compact_series:
# a live run flushes about one sample per series per second; a bulk import writes big chunks
# that loading reads just as fast, so rewriting them would only cost time.
SMALL_CHUNK_SAMPLES = 1024

# One series' chunks in order: the (series_id, seq) primary key gives the order, so SQLite
# sorts nothing (no temporary b-tree full of blobs).
_CHUNKS_OF_SERIES = "SELECT time_id, v FROM chunks WHERE series_id = ? ORDER BY seq"
_TIME_IDS_OF_SERIES = "SELECT time_id FROM chunks WHERE series_id = ? ORDER BY seq"


def compact_series(
    conn: sqlite3.Connection,
    run_id: int,
    max_samples: int = 1 << 20,
    small_chunk: int = SMALL_CHUNK_SAMPLES,
) -> None:
    """Merge a finished run's small per-flush chunks into few large ones (fast loads).

    Only series of several chunks averaging fewer than ``small_chunk`` samples are rewritten,
    into chunks of at most ``max_samples``. Series that shared the same sequence of time rows
    are merged together and share the merged time rows; time rows no chunk refers to any
    more are deleted. Runs in one transaction: a crash leaves either the old chunks or the
    merged ones.
    """
    small = [
        int(series_id)
        for series_id, count, total in conn.execute(
            "SELECT s.id, COUNT(*), SUM(c.n) FROM series s JOIN chunks c ON c.series_id = s.id "
            "WHERE s.run_id = ? GROUP BY s.id",
            (run_id,),
        )
        if count > 1 and total < count * small_chunk
    ]
    if not small:
        return
    # Last series first: rewriting a live run's chunks in descending series order took a third
    # of the time that ascending order took (bench/load.py: 130 ms against 420 ms).
    small.sort(reverse=True)
    with write_transaction(conn):
        groups: dict[tuple[int, ...], list[int]] = {}
        for series_id in small:
            key = tuple(int(r[0]) for r in conn.execute(_TIME_IDS_OF_SERIES, (series_id,)))
            groups.setdefault(key, []).append(series_id)
        shared = SharedTimes(conn, run_id)
        old_times: dict[int, bytes] = {}
        for time_ids, series_ids in groups.items():
            _merge_group(conn, time_ids, series_ids, max_samples, shared, old_times)
        conn.execute(
            "DELETE FROM times WHERE run_id = ? AND id NOT IN (SELECT c.time_id FROM series s "
            "JOIN chunks c ON c.series_id = s.id WHERE s.run_id = ?)",
            (run_id, run_id),
        )


def _merge_group(
    conn: sqlite3.Connection,
    time_ids: tuple[int, ...],
    series_ids: list[int],
    max_samples: int,
    shared: SharedTimes,
    old_times: dict[int, bytes],
) -> None:
    """Rewrite series of one time-id sequence as chunks of at most ``max_samples`` each."""
    missing = [i for i in dict.fromkeys(time_ids) if i not in old_times]
    for time_id in missing:
        row = conn.execute("SELECT t FROM times WHERE id = ?", (time_id,)).fetchone()
        if row is None:
            raise LibraryError(f"time row {time_id} is missing; `pairbench library check`")
        old_times[time_id] = bytes(row[0])
    t_all = b"".join(old_times[i] for i in time_ids)
    total = len(t_all) // 8
    bounds = [(start, min(start + max_samples, total)) for start in range(0, total, max_samples)]
    new_ids = [shared.id_of(t_all[a * 8 : b * 8]) for a, b in bounds]
    for series_id in series_ids:
        v_all = b"".join(bytes(r[1]) for r in conn.execute(_CHUNKS_OF_SERIES, (series_id,)))
        if len(v_all) != len(t_all):
            raise LibraryError(f"series {series_id}: its values and times differ in length")
        conn.execute("DELETE FROM chunks WHERE series_id = ?", (series_id,))
        insert_chunks(
            conn,
            [
                (series_id, seq, b - a, time_id, v_all[a * 8 : b * 8])
                for seq, ((a, b), time_id) in enumerate(zip(bounds, new_ids, strict=True))
            ],
        )


def load_series(lib: Library, run_id: int) -> list[SeriesArrays]:
    """Every series of a run, ordered by stream then metric ("sum" first).

    Series stored with the same time rows get the same (read-only) time array. The reads
    share one snapshot, so a flush or compaction committed meanwhile is seen whole or not.
    """
    conn = lib.conn
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")
    try:
        out = _load(conn, run_id)
    finally:
        if own and conn.in_transaction:
            conn.execute("COMMIT")
    return out


def _load(conn: sqlite3.Connection, run_id: int) -> list[SeriesArrays]:
    meta = conn.execute(
        "SELECT id, stream, metric, unit FROM series WHERE run_id = ? "
        "ORDER BY stream != 'sum', stream, metric",
        (run_id,),
    ).fetchall()
    if not meta:
        return []
    times: dict[int, bytes] = dict(
        conn.execute("SELECT id, t FROM times WHERE run_id = ?", (run_id,)).fetchall()
    )
    axes: dict[tuple[int, ...], npt.NDArray[np.float64]] = {}
    out: list[SeriesArrays] = []
    for series_id, stream, metric, unit in meta:
        chunks = conn.execute(_CHUNKS_OF_SERIES, (series_id,)).fetchall()
        key = tuple(c[0] for c in chunks)
        t = axes.get(key)
        if t is None:
            try:
                t = axes[key] = _concat([times[time_id] for time_id in key])
            except KeyError as exc:
                raise LibraryError(
                    f"run {run_id}: series {stream}/{metric} refers to a missing time row "
                    f"{exc.args[0]}; `pairbench library check` checks the whole file"
                ) from exc
        out.append(
            SeriesArrays(str(stream), str(metric), str(unit), t, _concat([c[1] for c in chunks]))
        )
    return out


def _concat(parts: list[bytes]) -> npt.NDArray[np.float64]:
    if not parts:
        return np.empty(0, dtype="<f8")
    joined = parts[0] if len(parts) == 1 else b"".join(parts)
    return np.frombuffer(joined, dtype="<f8").astype(np.float64, copy=False)


def load_raw_output(lib: Library, run_id: int) -> list[tuple[str, str]]:
    """The run's raw tool output as (source, text) chunks in arrival order."""
    rows = lib.conn.execute(
        "SELECT source, text FROM raw_chunks WHERE run_id = ? ORDER BY seq", (run_id,)
    ).fetchall()
    return [(str(source), str(text)) for source, text in rows]
