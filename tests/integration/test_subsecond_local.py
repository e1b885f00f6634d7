"""Sub-second intervals for every tool that has them, run for real on this computer: the
stored series step by the interval asked for (iperf3 3.12's text and 3.21's JSON events at
0.1 s, ping at 0.2 s, nuttcp at 0.1 s, fio at 100 ms, uperf at 100 ms), as they do at 1 s."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from pairbench.domain import LOCAL_PAIR, Run, RunSpec, RunStatus
from pairbench.lab import vendor
from pairbench.library import Library
from pairbench.library.series import load_series
from pairbench.services.running import run_on_pair
from testkit import require, require_program

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Library]:
    with Library.open(tmp_path / "library.sqlite") as opened:
        yield opened


def _run(lib: Library, tool: str, params: dict[str, str]) -> Run:
    run = asyncio.run(run_on_pair(lib, LOCAL_PAIR, RunSpec("local", tool, params)))
    assert run.status is RunStatus.COMPLETED, run.error
    return run


def _steps(lib: Library, run: Run, metric: str) -> np.ndarray:
    [series] = [s for s in load_series(lib, run.id) if (s.stream, s.metric) == ("sum", metric)]
    assert np.all(np.isfinite(series.v)), series.v
    return np.diff(series.t)


def _assert_every(steps: np.ndarray, interval: float, least: int, tolerance: float) -> None:
    """At least ``least`` steps of ``interval`` (their median within ``tolerance``), none but
    the last (a tool's short final one) as long as one and a half: never two in one."""
    assert len(steps) >= least, steps
    assert abs(float(np.median(steps)) - interval) <= tolerance, steps
    assert np.all(steps[:-1] < 1.5 * interval), steps


def _with_vendor(monkeypatch: pytest.MonkeyPatch, tool: vendor.VendorTool) -> None:
    program = vendor.find(tool)
    require(program is not None, vendor.missing_reason(tool))
    assert program is not None
    monkeypatch.setenv("PATH", f"{program.parent}:{Path('/usr/bin')}:{Path('/bin')}")


def test_iperf3_text_at_a_tenth_of_a_second(lib: Library) -> None:
    require_program("iperf3")
    run = _run(lib, "iperf3", {"duration": "1", "interval": "0.1", "streams": "2"})
    _assert_every(_steps(lib, run, "throughput_bps"), 0.1, 9, 0.011)


def test_iperf3_json_events_at_a_tenth_of_a_second(
    lib: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    _with_vendor(monkeypatch, vendor.IPERF3)
    run = _run(lib, "iperf3", {"duration": "1", "interval": "0.1", "streams": "2"})
    assert "3.21" in run.tool_version
    _assert_every(_steps(lib, run, "throughput_bps"), 0.1, 9, 0.011)


def test_ping_at_a_fifth_of_a_second(lib: Library) -> None:
    require_program("ping")
    run = _run(lib, "ping", {"count": "8", "interval": "0.2"})
    _assert_every(_steps(lib, run, "rtt_ms"), 0.2, 7, 0.02)  # ping's own -D stamps


def test_nuttcp_at_a_tenth_of_a_second(lib: Library) -> None:
    require_program("nuttcp")
    run = _run(lib, "nuttcp", {"duration": "1", "interval": "0.1"})
    _assert_every(_steps(lib, run, "throughput_bps"), 0.1, 8, 0.011)


def test_fio_at_a_hundred_milliseconds(lib: Library) -> None:
    require_program("fio")
    params = {
        "rw": "randread",
        "size": "8M",
        "runtime": "1",
        "ioengine": "psync",
        "direct": "false",
        "iodepth": "1",
        "status_interval": "100ms",
    }
    run = _run(lib, "fio", params)
    assert run.spec.params["status_interval"] == "0.1"
    # fio's clock: each document ~100 ms after the last (never merged in twos: 0.2 s).
    _assert_every(_steps(lib, run, "read_iops"), 0.1, 7, 0.02)


def test_uperf_at_a_hundred_milliseconds(lib: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    _with_vendor(monkeypatch, vendor.UPERF)
    run = _run(lib, "uperf", {"duration": "2", "interval": "0.1"})
    # uperf's own time stamps, ~100 ms apart while its timed transaction runs.
    _assert_every(_steps(lib, run, "ops_per_s")[:-1], 0.1, 6, 0.02)
