"""A burst step confirmed by the NIC's bandwidth allowance counters (AWS ENA): the onset, the
match with the step, live from records and stored with the analysis (``analyze burst``)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np

from compare_runs import store_run
from pairbench.analysis.burst_allowance import (
    AllowanceOnset,
    AllowanceWatch,
    confirming,
    onset,
    onsets_of,
)
from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import Record
from pairbench.library import Library
from pairbench.library.analyses import get_analysis
from pairbench.library.series import SeriesArrays

STEP_S = 20  # the throughput falls from 1 Gbit/s to 200 Mbit/s after this interval
COUNTER = "ethtool_bw_out_allowance_exceeded_pps"


def _allowance(start: int | None, n: int = 60) -> np.ndarray:
    """The counter's rate: 0 until ``start`` (an interval end), then shaping."""
    return np.array([0.0 if start is None or t < start else 1200.0 for t in range(1, n + 1)])


def test_the_onset_is_the_first_rise_after_flat_intervals_that_lasts() -> None:
    t = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert onset(t, [0, 0, 0, 5, 7, 9]) == 4.0
    assert onset(t, [0, 3, 0, 0, 5, 7]) == 5.0  # a lone blip is no onset
    assert onset(t, [4, 4, 4, 4, 4, 4]) is None  # rising from the start: no step in sight
    assert onset(t, [0, 0, 0, 0, 0, 0]) is None
    assert onset(t, [0, 0, 0, 0, 0, 9]) == 6.0  # the run ended as it rose


def test_a_step_is_confirmed_by_an_onset_near_it_only() -> None:
    near = AllowanceOnset("client", "bw_out_allowance_exceeded", 21.0)
    far = AllowanceOnset("client", "bw_in_allowance_exceeded", 80.0)
    assert confirming(20.4, [far, near]) == near
    assert confirming(20.4, [far]) is None
    assert confirming(None, [near]) is None
    assert "a burst allowance, confirmed" in near.sentence(20.4)


def test_onsets_are_read_from_stored_nic_series_only() -> None:
    t = np.arange(1.0, 61.0)
    series = [
        SeriesArrays("client:nic", COUNTER, "pkt/s", t, _allowance(21)),
        SeriesArrays("server:nic", "ethtool_pps_allowance_exceeded_pps", "pkt/s", t, _allowance(5)),
        SeriesArrays("sum", COUNTER, "pkt/s", t, _allowance(3)),  # not telemetry
    ]
    assert onsets_of(series) == [AllowanceOnset("client", "bw_out_allowance_exceeded", 21.0)]


def test_the_live_watch_finds_the_onset_as_records_come() -> None:
    watch = AllowanceWatch()
    for t, value in enumerate(_allowance(21), 1):
        watch.feed(
            [Record("client:nic", float(t), (COUNTER, "ethtool_rx_drops_pps"), (value, 0.0))]
        )
        if t == 21:
            assert watch.onsets == []  # one rising interval is not yet an onset
    assert watch.onsets == [AllowanceOnset("client", "bw_out_allowance_exceeded", 21.0)]
    assert watch.present == {("client", "bw_out_allowance_exceeded")}


def _stored(lib: Library, allowance_from: int | None) -> int:
    t = np.arange(1.0, 61.0)
    throughput = np.array([1e9 if x <= STEP_S else 2e8 for x in t])
    streams = {"client:nic": {COUNTER: (t, _allowance(allowance_from))}}
    return store_run(
        lib,
        summary={"throughput_bps": 4.6e8},
        series={"throughput_bps": (t, throughput)},
        streams=streams,
        duration=60,
    )


def _analyze(library_path: Path, run_id: int) -> str:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library_path)})
    assert run_cli(["analyze", "burst", str(run_id)], env) == 0, err.getvalue()
    return out.getvalue()


def test_analyze_burst_stores_and_says_the_confirmation(library_path: Path) -> None:
    with Library.open(library_path) as lib:
        confirmed = _stored(lib, STEP_S + 1)
        elsewhere = _stored(lib, 50)
        without = _stored(lib, None)
    text = _analyze(library_path, confirmed)
    assert "bw_out_allowance_exceeded on the client started rising at 21.0 s" in text
    assert "a burst allowance, confirmed" in text
    assert "no bandwidth allowance counter rose near the step" in _analyze(library_path, elsewhere)
    with Library.open(library_path) as lib:
        stored = get_analysis(lib, confirmed, "burst")
        assert stored is not None and stored["allowance"]["confirmed"] is True
        assert stored["allowance"]["onset_t"] == 21.0
        assert get_analysis(lib, elsewhere, "burst")["allowance"] == {"confirmed": False}
    _analyze(library_path, without)
    with Library.open(library_path) as lib:
        # a flat counter is still a counter: no onset, nothing confirmed
        assert get_analysis(lib, without, "burst")["allowance"] == {"confirmed": False}
