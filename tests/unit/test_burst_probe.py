"""The burst probe's stop rule, spec and refill arithmetic (no processes)."""

from __future__ import annotations

import numpy as np
import pytest

from pairbench.analysis.burst import BurstEstimate
from pairbench.domain import LOCAL_HOST, HostPair, Record, RunSpec, RunStatus
from pairbench.engine.burst import (
    BurstProbe,
    burst_probe_spec,
    excess_until_drop,
    measure_refill,
)
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run, finish_run


def _records(t: float, bps: float) -> list[Record]:
    """One line of ``iperf3 -P 2`` text: a stream's record, then the [SUM] record."""
    return [
        Record("5", t, ("throughput_bps",), (bps / 2,)),
        Record("sum", t, ("throughput_bps", "retransmits"), (bps, 0.0)),
    ]


def test_probe_stops_after_step_seconds_after_the_confirmation() -> None:
    seen: list[BurstEstimate] = []
    clock = iter(range(1000, 2000))
    probe = BurstProbe(10, on_estimate=seen.append, clock=lambda: float(next(clock)))
    notes = {}
    for t in range(1, 80):
        bps = 1e9 if t <= 20 else 2e8
        note = probe.check(_records(float(t), bps))
        if note:
            notes[t] = note
    confirmed_at = probe.estimate.confirmed_at
    assert confirmed_at == 26.0  # the sixth full interval at the baseline
    first = min(notes)
    assert first == confirmed_at + 10
    assert notes[first] == (
        "stopped by the burst probe 10 s after the step was confirmed; step at 20.0 s"
    )
    assert len(seen) == 79  # one estimate per aggregate interval, none for stream lines
    assert probe.traffic_started_at == 1000.0 - 1.0  # wall clock of t = 0
    assert probe.check([Record("5", 99.0, ("throughput_bps",), (1.0,))]) is None


def test_probe_never_stops_a_flat_run_and_zero_after_step_stops_at_once() -> None:
    flat = BurstProbe(0)
    assert all(flat.check(_records(float(t), 1e9)) is None for t in range(1, 200))
    quick = BurstProbe(0)
    stops = [quick.check(_records(float(t), 1e9 if t <= 10 else 2e8)) for t in range(1, 30)]
    assert stops.index(next(s for s in stops if s)) + 1 == 16  # confirmed at 16 s
    with pytest.raises(ValueError):
        BurstProbe(-1)


def test_probe_spec_carries_the_pair_tags() -> None:
    pair = HostPair("r4", LOCAL_HOST, LOCAL_HOST, tags={"type": "r4.large"})
    spec = burst_probe_spec(pair, max_duration_s=1800, streams=4)
    assert spec.tool == "iperf3" and spec.pair == "r4"
    assert dict(spec.params) == {"duration": "1800", "streams": "4"}
    assert dict(spec.tags) == {"type": "r4.large", "probe": "burst", "phase": "burst"}
    assert spec.label == "burst probe"
    with pytest.raises(ValueError):
        burst_probe_spec(pair, streams=0)


def test_excess_until_drop() -> None:
    t = np.arange(1, 11, dtype=float)
    v = np.array([1e9, 1e9, 6e8, 2e8, 2e8, 9e8, 2e8, 2e8, 2e8, 2e8])
    # 2 s at +800 Mbit/s, then the interval that falls below the midpoint (+400 Mbit/s).
    assert excess_until_drop(t, v, 2e8, 1e9) == pytest.approx(2 * 8e8 + 4e8)
    assert excess_until_drop(t, np.full(10, 1e9), 2e8, 1e9) == pytest.approx(10 * 8e8)


def _stored(lib: Library, values: list[float]) -> int:
    run_id = create_run(lib, RunSpec("local", "iperf3", {}))
    recorder = Recorder(lib, run_id)
    recorder.add(
        [Record("sum", float(i), ("throughput_bps",), (v,)) for i, v in enumerate(values, 1)]
    )
    recorder.flush()
    finish_run(lib, run_id, RunStatus.COMPLETED, summary={}, complete=True)
    return run_id


def test_measure_refill_with_and_without_a_detected_step(library: Library) -> None:
    first = BurstEstimate.from_json(
        {
            "state": "confirmed",
            "t": 40.0,
            "samples": 40,
            "burst_bps": 1e9,
            "baseline_bps": 2e8,
            "bucket_bits": 16e9,
        }
    )
    short = _stored(library, [1e9, 6e8] + [2e8] * 10)  # 1.5 s of burst: too short for a step
    undetected = BurstEstimate.from_json({"state": "no_step", "t": 12.0, "samples": 12})
    result = measure_refill(library, 1, first, short, undetected, idle_s=6.0)
    assert result.refilled_bits == pytest.approx(8e8 + 4e8)
    assert result.refill_bps == pytest.approx(2e8)
    assert result.refill_ratio == pytest.approx(1.0)
    assert result.full is False and result.after_run == 1
    full_again = BurstEstimate.from_json({**first.to_json(), "bucket_bits": 15.5e9})
    result = measure_refill(library, 1, first, short, full_again, idle_s=100.0)
    assert result.full is True and result.refill_bps == pytest.approx(15.5e7)
