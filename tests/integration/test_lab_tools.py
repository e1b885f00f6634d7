"""Every tool on the lab pair over real SSH: live series, summaries, the tools' own errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from local_run_helpers import start_cli, wait_for_lines
from pairbench.library import Library
from pairbench.library.runs import get_run
from pairbench.library.series import load_series

pytestmark = pytest.mark.lab


def _run(library: Path, tool: str, *settings: str) -> tuple[int, dict[str, Any], str]:
    args = ["run", "--pair", "lab", "--tool", tool, "--json"]
    for setting in settings:
        args += ["--set", setting]
    result = subprocess.run(
        [sys.executable, "-m", "pairbench", "--library", str(library), *args],
        capture_output=True,
        text=True,
        timeout=180,
    )
    lines = result.stdout.strip().splitlines()
    return result.returncode, (json.loads(lines[-1]) if lines else {}), result.stderr


def _series(library: Path, run_id: int) -> dict[tuple[str, str], Any]:
    with Library.open(library) as lib:
        return {(s.stream, s.metric): s for s in load_series(lib, run_id)}


def test_iperf3_udp_jitter_and_loss_are_live_from_the_server(lab: Any) -> None:
    """A UDP run on a link that starts dropping 2 % once the data flows: jitter and loss come
    live from the server's side, every interval. (The loss starts after the first interval:
    iperf3 3.12's UDP set-up waits on one hello datagram each way, and a lost one leaves the
    test without data; the run is then stored as stalled, as it should be. That happened once
    in a CI run with the loss on from the start.)"""
    lab.shape()
    proc = start_cli(
        lab.library, "run", "--pair", "lab", "--tool", "iperf3",
        *("--set", "duration=4", "--set", "udp=true", "--set", "bitrate=50M"),
    )  # fmt: skip
    try:
        assert wait_for_lines(proc, "bit/s", 1, timeout_s=30), "no interval line"
        lab.shape("--loss", "2%")
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    run_id = int(out.split("run ")[1].split(":")[0])
    series = _series(lab.library, run_id)
    for metric in ("jitter_ms", "lost_percent", "lost_packets"):
        assert len(series[("sum", metric)].t) >= 4, metric
    with Library.open(lab.library) as lib:
        run = get_run(lib, run_id)
    assert 0.5 < run.summary["lost_percent"] < 5


def test_ping_rtt_follows_the_shaped_delay(lab: Any) -> None:
    lab.shape("--delay", "5ms")
    proc = start_cli(
        lab.library,
        "run",
        "--pair",
        "lab",
        "--tool",
        "ping",
        "--set",
        "count=10",
        "--set",
        "interval=0.2",
        "--set",
        "size=1400",
    )
    live = wait_for_lines(proc, " ms", 3, timeout_s=30)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert len(live) == 3  # per-packet lines arrive as they happen
    run_id = int(out.split("run ")[1].split(":")[0])
    with Library.open(lab.library) as lib:
        run = get_run(lib, run_id)
    rtt = _series(lab.library, run_id)[("sum", "rtt_ms")]
    assert len(rtt.t) == 10
    assert run.summary["rtt_avg_ms"] == pytest.approx(10.0, rel=0.1)
    assert run.summary["lost_percent"] == 0


@pytest.mark.parametrize("udp", [False, True])
def test_nuttcp_tcp_and_udp(lab: Any, udp: bool) -> None:
    lab.shape("--rate", "200mbit")
    settings = ["duration=4"] + (["udp=true", "rate=100M", "length=1400"] if udp else [])
    status, final, err = _run(lab.library, "nuttcp", *settings)
    assert status == 0, err
    expected = 100e6 if udp else 200e6
    assert final["summary"]["throughput_bps"] == pytest.approx(expected, rel=0.06)
    series = _series(lab.library, final["id"])
    assert len(series[("sum", "throughput_bps")].t) >= 3


def test_iperf2_tcp(lab: Any) -> None:
    lab.shape("--rate", "200mbit")
    status, final, err = _run(lab.library, "iperf2", "duration=4", "streams=2")
    assert status == 0, err
    assert final["summary"]["throughput_bps"] == pytest.approx(200e6, rel=0.06)
    streams = {s for s, m in _series(lab.library, final["id"]) if m == "throughput_bps"}
    assert "sum" in streams and len(streams) == 3


def test_fio_runs_on_the_server_host(lab: Any) -> None:
    lab.shape()
    status, final, err = _run(lab.library, "fio", "runtime=3", "size=32M", "rw=randread")
    assert status == 0, err
    assert final["summary"]["read_iops"] > 100
    series = _series(lab.library, final["id"])
    assert len(series[("sum", "read_iops")].t) >= 2
    with Library.open(lab.library) as lib:
        run = get_run(lib, final["id"])
    assert run.tool_version.startswith("fio-")


def test_tool_errors_fail_the_run_with_the_tools_words(lab: Any) -> None:
    # A block larger than the file passes Pairbench's checks; fio itself refuses it.
    status, final, err = _run(lab.library, "fio", "runtime=2", "size=4k", "bs=1m")
    assert status == 3, err
    with Library.open(lab.library) as lib:
        run = get_run(lib, final["id"])
    assert run.status.value == "failed"
    assert run.error and "size too small" in run.error
    # A directory missing on the host is refused before anything runs or is stored.
    status, final, err = _run(lab.library, "fio", "runtime=2", "directory=/nonexistent/dir")
    assert status == 1 and final == {}, err
    assert "/nonexistent/dir does not exist" in err
