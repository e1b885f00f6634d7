"""iperf3 as guides write it and at 0.1 s, over real SSH on the lab: a run by bytes on a port
of the user's choosing, IPv4 only, reporting every 0.1 s; and the burst-credit emulation
measured from a run at 0.1 s, its step found to a tenth of a second."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest

from pairbench.lab.shaping import parse_rate, parse_size
from pairbench.library import Library
from pairbench.library.series import load_raw_output, load_series

# Serial: iperf3's 0.1 s intervals (each step within 0.05 s) and shaped rates within 5 % are
# CPU-sensitive measurements (tests/README.md).
pytestmark = [pytest.mark.lab, pytest.mark.serial, pytest.mark.timeout(300)]


def _run(lab: Any, *settings: str, timeout: float = 120) -> dict[str, Any]:
    args = ["run", "--pair", "lab", "--tool", "iperf3", "--json"]
    for setting in settings:
        args += ["--set", setting]
    result = lab.cli(*args, timeout=timeout)
    assert result.returncode == 0, result.stderr[-2000:]
    payload: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return payload


def _sum_times(lab: Any, run_id: int) -> np.ndarray:
    with Library.open(lab.library) as lib:
        for series in load_series(lib, run_id):
            if (series.stream, series.metric) == ("sum", "throughput_bps"):
                return np.asarray(series.t)
    raise AssertionError(f"run {run_id} has no aggregate throughput")


def test_a_run_by_bytes_on_a_chosen_port_at_a_tenth_of_a_second(lab: Any, shaped: Any) -> None:
    shaped("--rate", "100mbit")
    run = _run(lab, "bytes=24M", "interval=0.1", "port=5333", "version4=true")
    assert run["status"] == "completed"
    assert 90e6 <= run["summary"]["throughput_bps"] <= 101e6
    with Library.open(lab.library) as lib:
        raw = "\n".join(text for _, text in load_raw_output(lib, run["id"]))
    assert "port 5333" in raw  # iperf3's own words: the client reached the chosen port
    sender = re.findall(r"sec\s+(\S+ \S?Bytes).*sender", raw)
    assert sender and sender[-1] == "24.0 MBytes"  # iperf3's count: -n 24M, 1024-based
    # ~2 s at 100 Mbit/s (the shaper's queue lets the first tenths go faster): 0.1 s steps.
    steps = np.diff(_sum_times(lab, run["id"]))
    assert len(steps) >= 15 and abs(float(np.median(steps)) - 0.1) <= 0.01, steps
    assert np.all(steps[:-1] < 0.15), steps


def test_burst_credits_from_a_run_at_a_tenth_of_a_second(lab: Any, shaped: Any) -> None:
    burst, rate, bucket = "1gbit", "200mbit", "600MB"
    shaped("--rate", rate, "--burst-rate", burst, "--bucket", bucket)
    burst_bps, rate_bps = parse_rate(burst), parse_rate(rate)
    bucket_bits = parse_size(bucket) * 8
    burst_s = bucket_bits / (burst_bps - rate_bps)  # ~6 s at the burst rate
    run = _run(lab, "interval=0.1", f"duration={round(burst_s) + 9}", timeout=180)
    assert run["status"] == "completed"
    analysed = lab.cli("analyze", "burst", str(run["id"]), "--json")
    assert analysed.returncode == 0, analysed.stderr
    estimate = json.loads(analysed.stdout)
    assert estimate["detected"] is True
    assert estimate["burst_bps"] == pytest.approx(burst_bps, rel=0.05)
    assert estimate["baseline_bps"] == pytest.approx(rate_bps, rel=0.05)
    assert estimate["burst_seconds"] == pytest.approx(burst_s, rel=0.10)
    assert estimate["bucket_bits"] == pytest.approx(bucket_bits, rel=0.10)
    # The rule kept its length in seconds: the knobs stored are those for 0.1 s intervals.
    shown = json.loads(lab.cli("runs", "show", str(run["id"]), "--json").stdout)
    params = shown["analyses"]["burst"]["params"]
    assert (params["min_burst_intervals"], params["confirm_intervals"]) == (20, 60)
