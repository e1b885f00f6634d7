"""A uperf master's transactions, point by point: each one's cumulative counters (raw ``-R``
lines or progress pieces) differenced into interval records, its last line as uperf printed
it, and the timed transaction's figures over its whole length."""

from __future__ import annotations

from typing import Final

from pairbench.domain import Record
from pairbench.domain.samples import new_record
from pairbench.tools.uperf_details import FinalPoint
from pairbench.tools.uperf_summary import Timed

__all__ = ["Txn", "TxnPoints"]

_THR: Final = "throughput_bps"
_OPS: Final = "ops_per_s"
_LAT: Final = "latency_avg_us"

# One constant metrics tuple per kind of record (the recorder keys its buffers on it).
_TXN_METRICS: Final[tuple[str, ...]] = (_THR, _OPS)
_MAIN_METRICS: Final[tuple[str, ...]] = (_THR, _OPS, _LAT)


class Txn:
    """One transaction's cumulative counters: the first and the latest point seen."""

    __slots__ = (
        "b",
        "b0",
        "last",
        "main",
        "name",
        "o",
        "o0",
        "ops_rate",
        "rate",
        "stream",
        "t",
        "t0",
    )

    def __init__(self, name: str, main: bool, t: float, b: float, o: float) -> None:
        self.name = name
        self.stream = name.lower()
        self.main = main
        self.t0, self.b0, self.o0 = t, b, o
        self.t, self.b, self.o = t, b, o
        self.rate: float | None = None  # progress form: the rate uperf printed (bit/s)
        self.ops_rate: float | None = None  # progress form: the op/s uperf printed
        self.last = FinalPoint(b)  # the last line as uperf printed it (set by the parser)


class TxnPoints:
    """The transactions of one run (``UperfTextParser`` says how their points become records):
    ``main_name`` the timed one (``TxnN``; None: none), ``threads`` and
    ``ops_per_iteration`` for its interval latency (the parser sets them from uperf's
    ``Starting`` line and the profile)."""

    __slots__ = (
        "current",
        "last_emitted",
        "main_name",
        "offset",
        "ops_per_iteration",
        "t0",
        "threads",
        "txns",
    )

    def __init__(self, main_name: str | None, threads: int, ops_per_iteration: int | None) -> None:
        self.main_name = main_name
        self.threads = threads
        self.ops_per_iteration = ops_per_iteration
        self.t0: float | None = None  # first raw timestamp (ms)
        self.offset = 0.0  # progress form: seconds of the transactions before the current one
        self.current: Txn | None = None
        self.txns: dict[str, Txn] = {}
        self.last_emitted: dict[str, float] = {}

    def raw(self, name: str, ts: float, nbytes: float, ops: float) -> list[Record]:
        """A raw line of transaction ``name`` (``ts``: ms since the epoch): its records."""
        t0 = self.t0
        if t0 is None:
            t0 = self.t0 = ts
        records = self._point(name, (ts - t0) / 1000.0, nbytes, ops, exact=True)
        self.txns[name].last = FinalPoint(nbytes, ops)
        return records

    def progress(
        self, name: str, secs: float, nbytes: float, rate: float, ops_rate: float
    ) -> list[Record]:
        """A progress piece of transaction ``name`` as printed: its records."""
        current = self.current
        if current is not None and name != current.name:
            self.offset = current.t  # the previous transaction's end
        records = self._point(name, self.offset + secs, nbytes, ops_rate * secs, exact=False)
        txn = self.txns[name]
        if secs > 0.0:
            txn.rate, txn.ops_rate = rate, ops_rate
        txn.last = FinalPoint(nbytes, secs=secs, rate=rate, ops_rate=ops_rate)
        return records

    def _point(
        self, name: str, t: float, nbytes: float, ops: float, *, exact: bool
    ) -> list[Record]:
        """One cumulative point of transaction ``name``; the interval it closes, if any.

        ``exact``: raw counters, where a decrease means a new run of the transaction (start
        afresh); progress values are rounded, so a small step back there counts as zero.
        """
        txn = self.current
        if txn is None or txn.name != name:
            self.current = self.txns[name] = Txn(name, name == self.main_name, t, nbytes, ops)
            return []
        dt = t - txn.t
        if not dt > 0.0:
            return []  # zero-length (or a clock step back): wait for the next point
        db = nbytes - txn.b
        dops = ops - txn.o
        if db < 0.0 or dops < 0.0:
            if exact:
                self.current = self.txns[name] = Txn(name, txn.main, t, nbytes, ops)
                return []
            db, dops = max(db, 0.0), max(dops, 0.0)
        txn.t, txn.b, txn.o = t, nbytes, ops
        last = self.last_emitted
        stream = txn.stream
        previous = last.get(stream)
        if previous is not None and t <= previous:
            return []
        last[stream] = t
        thr = 8.0 * db / dt
        ops_per_s = dops / dt
        if not txn.main:
            return [new_record(Record, (stream, t, _TXN_METRICS, (thr, ops_per_s)))]
        opi = self.ops_per_iteration
        if opi is not None and dops > 0.0:
            values: tuple[float, ...] = (thr, ops_per_s, self.threads * dt * opi / dops * 1e6)
            metrics = _MAIN_METRICS
        else:
            values, metrics = (thr, ops_per_s), _TXN_METRICS
        last["sum"] = t
        return [
            new_record(Record, (stream, t, metrics, values)),
            new_record(Record, ("sum", t, metrics, values)),
        ]

    def timed(self, number: int) -> Timed:
        """The timed transaction's figures over its whole length, from its lines."""
        main = self.txns.get(f"Txn{number}")
        rates: dict[str, float] = {}
        latency: float | None = None
        if main is not None:
            dt, dops = main.t - main.t0, main.o - main.o0
            if main.rate is not None:
                rates[_THR] = main.rate
                rates[_OPS] = main.ops_rate if main.ops_rate is not None else 0.0
            elif dt > 0.0:
                rates[_THR] = 8.0 * (main.b - main.b0) / dt
                rates[_OPS] = dops / dt
            opi = self.ops_per_iteration
            if opi is not None and dt > 0.0 and dops > 0.0:
                latency = self.threads * dt * opi / dops * 1e6
        known = self.ops_per_iteration is not None
        return Timed(number, main is not None, rates, latency, known)
