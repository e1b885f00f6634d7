"""The recorder: buffers a run's records and raw lines, and writes them in batches."""

from __future__ import annotations

import sqlite3
import time
from array import array
from typing import TypeAlias

from pairbench.domain import Line, Record
from pairbench.library.connection import Library
from pairbench.library.progress import Progress
from pairbench.library.runs import touch_run
from pairbench.library.series import (
    SharedTimes,
    ensure_series,
    insert_chunks,
    next_chunk_seq,
    to_blob,
)

# Lines arrive about once a second per stream; a flush is one small transaction, so the
# recorder may write several times a second and a killed process loses at most this long.
FLUSH_INTERVAL_S = 0.2

# The buffer of one (stream, metrics): the times, and the values of all the metrics flat,
# record after record (``len(values) == len(times) * len(metrics)``).
_Buffer: TypeAlias = "tuple[array[float], array[float]]"
# A buffer closed before its flush: (stream, metrics, times, values).
_Segment: TypeAlias = "tuple[str, tuple[str, ...], array[float], array[float]]"


class Recorder:
    """Collects the records and raw lines of one run and stores them in one transaction.

    ``add`` is the hot path (no SQL): records of the same stream and metrics tuple share one
    buffer, a time array and a flat value array. ``flush`` splits each buffer into one chunk
    per metric, all referring to one stored time blob (shared too by the other streams whose
    time stamps in this flush are byte-identical), plus one raw-output chunk per source. The engine
    calls ``flush_if_due`` every 0.1 s, so a killed process loses at most the lines of the
    last 0.3 s. After each commit the run's committed sample count goes to the library's
    progress journal (``library.progress``), so a commit lost with a deleted write-ahead log
    is reported on the next open.

    A series fed under two metrics tuples (e.g. ``("throughput_bps",)`` and then
    ``("throughput_bps", "retransmits")`` for the same stream) keeps its arrival order: opening
    a buffer closes every open buffer of the stream that shares a metric with it.
    """

    def __init__(self, lib: Library, run_id: int) -> None:
        self._lib = lib
        self._run_id = run_id
        self._buffers: dict[tuple[str, tuple[str, ...]], _Buffer] = {}
        self._closed: list[_Segment] = []  # in the order they were closed
        self._series_ids: dict[tuple[str, str], int] = {}
        self._next_seq: dict[int, int] = {}
        self._raw: dict[str, list[str]] = {}
        self._raw_seq = self._next_raw_seq()
        self._last_flush = time.monotonic()
        self.samples_written = 0
        self._journal = lib.progress
        self._identity = lib.conn.execute(
            "SELECT started_at, pair, tool, owner_host, owner_pid, owner_token FROM runs "
            "WHERE id = ?",
            (run_id,),
        ).fetchone()
        lib.keep_room()  # room to store how the run ends, even if the disk fills up

    def add(self, records: list[Record]) -> None:
        """Buffer records (no I/O).

        A record whose values do not match its metrics (their number, or not numbers) raises
        ``ValueError`` or ``TypeError``; the records before it in ``records`` stay buffered,
        and the buffers stay consistent.
        """
        buffers = self._buffers
        for stream, t, metrics, values in records:
            buf = buffers.get((stream, metrics))
            if buf is None:
                buf = self._open(stream, metrics)
            times, flat = buf
            if len(values) != len(metrics):
                raise ValueError(f"{len(values)} values for the metrics {metrics} of {stream!r}")
            times.append(t)
            try:
                flat.fromlist(list(values))  # all or nothing; faster than extend() on a tuple
            except BaseException:
                times.pop()
                raise

    def _open(self, stream: str, metrics: tuple[str, ...]) -> _Buffer:
        """A new buffer for (stream, metrics), closing the stream's overlapping ones."""
        names = set(metrics)
        if (
            not isinstance(stream, str)
            or len(names) != len(metrics)
            or not all(isinstance(m, str) for m in metrics)
        ):
            raise ValueError(f"a stream name and distinct metric names, got {stream!r} {metrics!r}")
        for key in [k for k in self._buffers if k[0] == stream and not names.isdisjoint(k[1])]:
            times, flat = self._buffers.pop(key)
            if times:
                self._closed.append((stream, key[1], times, flat))
        buf = self._buffers[(stream, metrics)] = (array("d"), array("d"))
        return buf

    def add_line(self, line: Line) -> None:
        """Buffer one raw output line under its source."""
        # Keyed by the LineSource itself, a str: its ``.value`` costs more than all the rest.
        lines = self._raw.get(line.source)
        if lines is None:
            lines = self._raw[line.source] = []
        lines.append(line.text)

    def flush_if_due(self, now: float | None = None) -> bool:
        """Flush when ``FLUSH_INTERVAL_S`` has passed since the last flush."""
        now = time.monotonic() if now is None else now
        if now - self._last_flush < FLUSH_INTERVAL_S:
            return False
        self.flush()
        self._last_flush = now
        return True

    @property
    def pending(self) -> int:
        """Samples buffered and not yet written."""
        return sum(len(values) for _, _, _, values in self._segments())

    def discard(self) -> int:
        """Drop everything buffered (it cannot be stored: the disk is full); the number of
        samples dropped."""
        dropped = self.pending
        self._buffers, self._closed, self._raw = {}, [], {}
        return dropped

    def _segments(self) -> list[_Segment]:
        return self._closed + [
            (stream, metrics, times, flat)
            for (stream, metrics), (times, flat) in self._buffers.items()
            if times
        ]

    def flush(self) -> int:
        """Write everything buffered in one transaction; return the number of samples.

        On a full disk (or one that this flush would fill: ``Library.ensure_room``) nothing
        is written, everything stays buffered, and ``LibraryFullError`` is raised.
        """
        self._last_flush = time.monotonic()
        conn = self._lib.conn
        segments = self._segments()
        if not segments and not self._raw:
            return 0
        self._lib.ensure_room(_bytes_of(segments, self._raw))
        # Restored if the transaction fails: ids of rolled-back series rows must not be reused.
        saved = (dict(self._series_ids), dict(self._next_seq), self._raw_seq)
        try:
            with self._lib.disk_errors():
                written = self._write(conn, segments)
        except BaseException:
            self._series_ids, self._next_seq, self._raw_seq = saved
            raise
        self._buffers = {}
        self._closed = []
        self._raw = {}
        self.samples_written += written
        self._note_progress()
        self._lib.keep_room()
        return written

    def _write(self, conn: sqlite3.Connection, segments: list[_Segment]) -> int:
        """The flush's one transaction; the number of samples written."""
        written = 0
        conn.execute("BEGIN IMMEDIATE")
        try:
            rows: list[tuple[int, int, int, int, bytes]] = []
            shared = SharedTimes(conn, self._run_id)
            for stream, metrics, times, flat in segments:
                n = len(times)
                k = len(metrics)
                time_id = shared.id_of(to_blob(times))
                for j, metric in enumerate(metrics):
                    series_id = self._series_id(stream, metric)
                    seq = self._next_seq[series_id]
                    self._next_seq[series_id] = seq + 1
                    values = flat if k == 1 else flat[j::k]
                    rows.append((series_id, seq, n, time_id, to_blob(values)))
                written += n * k
            insert_chunks(conn, rows)
            for source, lines in self._raw.items():
                conn.execute(
                    "INSERT INTO raw_chunks (run_id, seq, source, text) VALUES (?, ?, ?, ?)",
                    (self._run_id, self._raw_seq, str(source), "\n".join(lines)),
                )
                self._raw_seq += 1
            touch_run(conn, self._run_id, time.time())
            conn.execute("COMMIT")
        except BaseException:
            # SQLite may already have rolled back (disk full, I/O error): keep the real error.
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return written

    def _note_progress(self) -> None:
        if self._identity is None:
            return
        started_at, pair, tool, owner_host, owner_pid, owner_token = self._identity
        self._journal.write(
            Progress(
                run_id=self._run_id,
                started_at=float(started_at),
                pair=str(pair),
                tool=str(tool),
                samples=self.samples_written,
                owner_host=str(owner_host),
                owner_pid=int(owner_pid),
                owner_token=str(owner_token),
                updated_at=time.time(),
            )
        )

    def _series_id(self, stream: str, metric: str) -> int:
        """The id of a series row (created when new), inside the flush's transaction."""
        key = (stream, metric)
        series_id = self._series_ids.get(key)
        if series_id is None:
            conn = self._lib.conn
            series_id = ensure_series(conn, self._run_id, stream, metric)
            self._series_ids[key] = series_id
            self._next_seq[series_id] = next_chunk_seq(conn, series_id)
        return series_id

    def _next_raw_seq(self) -> int:
        row = self._lib.conn.execute(
            "SELECT COALESCE(MAX(seq) + 1, 0) FROM raw_chunks WHERE run_id = ?", (self._run_id,)
        ).fetchone()
        return int(row[0])


def _bytes_of(segments: list[_Segment], raw: dict[str, list[str]]) -> int:
    """About what a flush stores: its numbers (8 bytes each) and its raw text."""
    numbers = sum(len(times) + len(values) for _, _, times, values in segments)
    return 8 * numbers + sum(len(line) + 1 for lines in raw.values() for line in lines)
