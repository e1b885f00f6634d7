"""Series storage: columnar float64 chunks per (run, stream, metric), loaded as numpy arrays."""

from __future__ import annotations

import sqlite3
import sys
from array import array
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from pairbench.domain import Series, metric_unit
from pairbench.library.connection import Library

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


def insert_chunks(
    conn: sqlite3.Connection, rows: Iterable[tuple[int, int, int, bytes, bytes]]
) -> None:
    """Insert (series_id, seq, n, t_blob, v_blob) rows."""
    conn.executemany("INSERT INTO chunks (series_id, seq, n, t, v) VALUES (?, ?, ?, ?, ?)", rows)


# A series whose chunks hold fewer samples than this on average is merged by compact_series:
# a live run flushes about one sample per series per second; a bulk import writes big chunks
# that loading reads just as fast, so rewriting them would only cost time.
SMALL_CHUNK_SAMPLES = 1024

# One series' chunks in order: the (series_id, seq) primary key gives the order, so SQLite
# sorts nothing (no temporary b-tree full of blobs).
_CHUNKS_OF_SERIES = "SELECT n, t, v FROM chunks WHERE series_id = ? ORDER BY seq"


def compact_series(
    conn: sqlite3.Connection,
    run_id: int,
    max_samples: int = 1 << 20,
    small_chunk: int = SMALL_CHUNK_SAMPLES,
) -> None:
    """Merge a finished run's small per-flush chunks into few large ones (fast loads).

    Only series of several chunks averaging fewer than ``small_chunk`` samples are rewritten,
    into chunks of at most ``max_samples``. Runs in one transaction: a crash leaves either
    the old chunks or the merged ones.
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
    conn.execute("BEGIN IMMEDIATE")
    try:
        for series_id in small:
            _merge_chunks(conn, series_id, max_samples)
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # SQLite may have rolled back already (disk full)
            conn.execute("ROLLBACK")
        raise


def _merge_chunks(conn: sqlite3.Connection, series_id: int, max_samples: int) -> None:
    """Rewrite one series' chunks as consecutive chunks of at most ``max_samples``."""
    chunks = conn.execute(_CHUNKS_OF_SERIES, (series_id,)).fetchall()
    if len(chunks) <= 1:
        return
    t_all = b"".join(bytes(c[1]) for c in chunks)
    v_all = b"".join(bytes(c[2]) for c in chunks)
    total = sum(int(c[0]) for c in chunks)
    conn.execute("DELETE FROM chunks WHERE series_id = ?", (series_id,))
    rows = []
    for seq, start in enumerate(range(0, total, max_samples)):
        stop = min(start + max_samples, total)
        rows.append(
            (series_id, seq, stop - start, t_all[start * 8 : stop * 8], v_all[start * 8 : stop * 8])
        )
    insert_chunks(conn, rows)


def load_series(lib: Library, run_id: int) -> list[SeriesArrays]:
    """Every series of a run, ordered by stream then metric ("sum" first)."""
    conn = lib.conn
    meta = conn.execute(
        "SELECT id, stream, metric, unit FROM series WHERE run_id = ? "
        "ORDER BY stream != 'sum', stream, metric",
        (run_id,),
    ).fetchall()
    out: list[SeriesArrays] = []
    for series_id, stream, metric, unit in meta:
        chunks = conn.execute(_CHUNKS_OF_SERIES, (series_id,)).fetchall()
        out.append(
            SeriesArrays(
                str(stream),
                str(metric),
                str(unit),
                _concat([c[1] for c in chunks]),
                _concat([c[2] for c in chunks]),
            )
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
