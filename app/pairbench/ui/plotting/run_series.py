"""The buffers of one run's live plots: records queued, taken in within a time budget.

Each (stream, metric) has its buffer; the series that no plot draws yet are listed by plot.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable

import numpy as np

from pairbench.domain import Record
from pairbench.ui.plotting.buffers import GrowableSeries
from pairbench.ui.plotting.layout import PlotSpec, plot_for

INGEST_CHUNK = 500  # records taken in at once (~1 ms), between looks at the clock


class RunSeries:
    """(stream, metric) → its buffer, fed from queued records; ``missing``: plot id → the
    series its plot does not draw yet; ``changed``: samples came since the owner last looked."""

    def __init__(self) -> None:
        self.series: dict[tuple[str, str], GrowableSeries] = {}  # (stream, metric) → data
        self.specs: dict[str, PlotSpec] = {}  # metric → its plot
        self.missing: dict[str, list[tuple[str, str]]] = {}  # plot id → series not yet drawn
        self.queued: deque[list[Record]] = deque()  # records not yet in the buffers
        self.changed = False

    def queue(self, records: Iterable[Record]) -> None:
        """Queue records (any mix of streams and metrics) for their buffers."""
        batch = records if isinstance(records, list) else list(records)
        if batch:
            self.queued.append(batch)

    def ingest(self, budget_s: float | None) -> None:
        """Move queued records into the buffers (all of them, or until ``budget_s`` is spent)."""
        deadline = None if budget_s is None else time.perf_counter() + budget_s
        while self.queued:
            batch = self.queued.popleft()
            if len(batch) > INGEST_CHUNK:
                self.queued.appendleft(batch[INGEST_CHUNK:])
                batch = batch[:INGEST_CHUNK]
            self._ingest_batch(batch)
            if deadline is not None and time.perf_counter() > deadline:
                break

    def _ingest_batch(self, records: list[Record]) -> None:
        groups: dict[tuple[str, tuple[str, ...]], tuple[list[float], list[tuple[float, ...]]]]
        groups = {}
        for stream, t, metrics, values in records:
            group = groups.get((stream, metrics))
            if group is None:
                group = groups[(stream, metrics)] = ([], [])
            group[0].append(t)
            group[1].append(values)
        for (stream, metrics), (times, rows) in groups.items():
            if len(times) == 1:
                t = times[0]
                for metric, value in zip(metrics, rows[0], strict=True):
                    self.buffer_for(stream, metric).append(t, value)
                continue
            t_array = np.asarray(times, dtype=np.float64)
            v_array = np.asarray(rows, dtype=np.float64)
            for j, metric in enumerate(metrics):
                self.buffer_for(stream, metric).extend(t_array, v_array[:, j])
        self.changed = True

    def add(self, stream: str, metric: str, t: np.ndarray, v: np.ndarray) -> None:
        """Append a whole series at once (a stored run, a replay)."""
        self.buffer_for(stream, metric).extend(t, v)
        self.changed = True

    def buffer_for(self, stream: str, metric: str) -> GrowableSeries:
        """The buffer of (stream, metric), made (and listed as missing a plot) when new."""
        series = self.series.get((stream, metric))
        if series is None:
            series = self.series[(stream, metric)] = GrowableSeries()
            spec = self.specs.get(metric)
            if spec is None:
                spec = self.specs[metric] = plot_for(metric)
            self.missing.setdefault(spec.id, []).append((stream, metric))
        return series
