"""Shared setup of the compare benchmarks: 10 stored runs of 86,400 one-second samples each."""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from pairbench.domain import Record, RunSpec, RunStatus
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run, finish_run
from pairbench.library.series import compact_series

RUNS = 10
POINTS = 86_400  # 24 h at 1 s
DAY = 1_717_200_000.0


def store_day_runs(lib: Library, runs: int = RUNS, points: int = POINTS) -> list[int]:
    """``runs`` finished iperf3-like runs with one "sum" throughput series of ``points``."""
    ids: list[int] = []
    t = np.arange(1.0, points + 1.0)
    rng = np.random.default_rng(1)
    metrics = ("throughput_bps",)
    for i in range(runs):
        # A day of throughput: a diurnal swing, noise, and every third run a burst then a drop.
        v = 9e9 + 4e8 * np.sin(2 * math.pi * t / 86_400 + i) + rng.normal(0, 5e7, points)
        if i % 3 == 2:
            v[300:] *= 0.1
        run_id = create_run(
            lib,
            RunSpec("local", "iperf3", {"duration": str(points)}, label=f"day {i + 1}"),
            started_at=DAY + i * 86_400,
        )
        recorder = Recorder(lib, run_id)
        recorder.add(
            [Record("sum", a, metrics, (b,)) for a, b in zip(t.tolist(), v.tolist(), strict=True)]
        )
        recorder.flush()
        finish_run(
            lib,
            run_id,
            RunStatus.COMPLETED,
            summary={"throughput_bps": float(v.mean())},
            complete=True,
            ended_at=DAY + i * 86_400 + points,
        )
        compact_series(lib.conn, run_id)
        ids.append(run_id)
    return ids


def make_library(directory: Path) -> tuple[Path, list[int], float]:
    """A library file in ``directory`` holding the runs; (path, run ids, seconds to make)."""
    start = time.perf_counter()
    path = directory / "compare.sqlite"
    with Library.open(path) as lib:
        ids = store_day_runs(lib)
    return path, ids, time.perf_counter() - start
