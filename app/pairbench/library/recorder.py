"""The recorder: buffers a run's samples and raw lines, and writes them in batches."""

from __future__ import annotations

import time
from array import array

from pairbench.domain import Line, Sample
from pairbench.library.connection import Library
from pairbench.library.runs import touch_run
from pairbench.library.series import ensure_series, insert_chunks, next_chunk_seq, to_blob

FLUSH_INTERVAL_S = 1.0


class Recorder:
    """Collects the samples and raw lines of one run and stores them in one transaction.

    ``add`` is the hot path (no SQL); ``flush`` writes one chunk per touched series plus one
    raw-output chunk per source. The engine calls ``flush_if_due`` at least every 0.5 s, so a
    killed process loses at most the last second of data.
    """

    def __init__(self, lib: Library, run_id: int) -> None:
        self._lib = lib
        self._run_id = run_id
        self._t: dict[tuple[str, str], array[float]] = {}
        self._v: dict[tuple[str, str], array[float]] = {}
        self._series_ids: dict[tuple[str, str], int] = {}
        self._next_seq: dict[int, int] = {}
        self._raw: dict[str, list[str]] = {}
        self._raw_seq = self._next_raw_seq()
        self._last_flush = time.monotonic()
        self.samples_written = 0

    def add(self, samples: list[Sample]) -> None:
        """Buffer samples (no I/O)."""
        t_bufs = self._t
        v_bufs = self._v
        for stream, metric, t, value in samples:
            key = (stream, metric)
            t_buf = t_bufs.get(key)
            if t_buf is None:
                t_buf = t_bufs[key] = array("d")
                v_bufs[key] = array("d")
            t_buf.append(t)
            v_bufs[key].append(value)

    def add_line(self, line: Line) -> None:
        """Buffer one raw output line under its source."""
        self._raw.setdefault(line.source.value, []).append(line.text)

    def flush_if_due(self, now: float | None = None) -> bool:
        """Flush when ``FLUSH_INTERVAL_S`` has passed since the last flush."""
        now = time.monotonic() if now is None else now
        if now - self._last_flush < FLUSH_INTERVAL_S:
            return False
        self.flush()
        self._last_flush = now
        return True

    def flush(self) -> int:
        """Write everything buffered in one transaction; return the number of samples."""
        self._last_flush = time.monotonic()
        conn = self._lib.conn
        pending = [(key, t_buf) for key, t_buf in self._t.items() if t_buf]
        if not pending and not self._raw:
            return 0
        written = 0
        # Restored if the transaction fails: ids of rolled-back series rows must not be reused.
        saved = (dict(self._series_ids), dict(self._next_seq), self._raw_seq)
        conn.execute("BEGIN IMMEDIATE")
        try:
            rows: list[tuple[int, int, int, bytes, bytes]] = []
            for key, t_buf in pending:
                series_id = self._series_ids.get(key)
                if series_id is None:
                    series_id = ensure_series(conn, self._run_id, key[0], key[1])
                    self._series_ids[key] = series_id
                    self._next_seq[series_id] = next_chunk_seq(conn, series_id)
                seq = self._next_seq[series_id]
                self._next_seq[series_id] = seq + 1
                v_buf = self._v[key]
                rows.append((series_id, seq, len(t_buf), to_blob(t_buf), to_blob(v_buf)))
                written += len(t_buf)
            insert_chunks(conn, rows)
            for source, lines in self._raw.items():
                conn.execute(
                    "INSERT INTO raw_chunks (run_id, seq, source, text) VALUES (?, ?, ?, ?)",
                    (self._run_id, self._raw_seq, source, "\n".join(lines)),
                )
                self._raw_seq += 1
            touch_run(conn, self._run_id, time.time())
            conn.execute("COMMIT")
        except BaseException:
            # SQLite may already have rolled back (disk full, I/O error): keep the real error.
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            self._series_ids, self._next_seq, self._raw_seq = saved
            raise
        for key, _ in pending:
            self._t[key] = array("d")
            self._v[key] = array("d")
        self._raw = {}
        self.samples_written += written
        return written

    def _next_raw_seq(self) -> int:
        row = self._lib.conn.execute(
            "SELECT COALESCE(MAX(seq) + 1, 0) FROM raw_chunks WHERE run_id = ?", (self._run_id,)
        ).fetchone()
        return int(row[0])
