"""End to end on this computer: real iperf3 runs through the CLI, stored and read back."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from local_run_helpers import (
    alive,
    children_of,
    cli_json,
    start_cli,
    wait_for_lines,
)
from pairbench.library import Library
from pairbench.library.runs import get_run
from pairbench.library.series import load_series
from testkit import require_program

pytestmark = pytest.mark.lab


@pytest.fixture(autouse=True)
def _iperf3() -> None:
    require_program("iperf3")


def _receiver_bps(raw_text: str) -> float:
    """The bit rate on iperf3's own receiver summary line, from its raw output."""
    units = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
    for line in raw_text.splitlines():
        match = re.search(r"([\d.]+) ([KMGT]?)bits/sec\s.*receiver$", line)
        if match and (line.startswith("[SUM]") or "SUM" not in raw_text):
            return float(match.group(1)) * units[match.group(2)]
    raise AssertionError("no receiver line in the raw output")


def test_five_second_run_streams_live_and_stores_run(library_path: Path) -> None:
    proc = start_cli(
        library_path, "run", "--pair", "local", "--tool", "iperf3", "--set", "duration=5"
    )
    started = time.monotonic()
    lines = wait_for_lines(proc, "bit/s", 5, timeout_s=30)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert len(lines) == 5, (lines, out, err)
    # Live: the first interval line arrives long before the last (not all at the end).
    assert lines[-1][0] - lines[0][0] > 2.5
    assert lines[0][0] - started < 6
    run_id = int(re.search(r"run (\d+): completed", out).group(1))  # type: ignore[union-attr]

    shown = cli_json(library_path, "runs", "show", str(run_id), "--json")
    assert shown["status"] == "completed"
    assert shown["tool"] == "iperf3"
    assert shown["tool_version"].startswith("iperf 3.")
    throughput = [s for s in shown["series"] if s["metric"] == "throughput_bps"]
    assert {s["stream"] for s in throughput} >= {"sum"}
    for series in throughput:
        assert len(series["t"]) == 5
        assert series["t"] == pytest.approx([1, 2, 3, 4, 5], abs=0.05)
    with Library.open(library_path) as lib:
        raw = "\n".join(text for source, text in _raw(lib, run_id) if source == "client.stdout")
        facts = get_run(lib, run_id).host_facts
    assert shown["summary"]["throughput_bps"] == pytest.approx(_receiver_bps(raw), rel=1e-9)
    assert facts["client"]["kernel"]
    assert int(facts["client"]["cpu_count"]) >= 1


def _raw(lib: Library, run_id: int) -> list[tuple[str, str]]:
    from pairbench.library.series import load_raw_output

    return load_raw_output(lib, run_id)


def test_two_streams_have_per_stream_and_sum_series(library_path: Path) -> None:
    result = subprocess.run(
        [
            *(sys.executable, "-m", "pairbench", "--library", str(library_path)),
            *("run", "--pair", "local", "--tool", "iperf3", "--json"),
            *("--set", "duration=2", "--set", "streams=2"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    final = json.loads(result.stdout.strip().splitlines()[-1])
    assert final["status"] == "completed"
    assert final["summary"]["throughput_bps"] > 1e6
    with Library.open(library_path) as lib:
        series = load_series(lib, final["id"])
    streams = {s.stream for s in series if s.metric == "throughput_bps"}
    assert len(streams) == 3 and "sum" in streams
    assert {s.metric for s in series} >= {"throughput_bps", "retransmits", "cwnd_bytes"}


def test_udp_run_reports_loss_and_jitter(library_path: Path) -> None:
    final = _run_json(library_path, "duration=2", "udp=true", "bitrate=20M")
    assert final["status"] == "completed"
    assert final["summary"]["throughput_bps"] == pytest.approx(20e6, rel=0.1)
    assert "jitter_ms" in final["summary"] and "lost_percent" in final["summary"]


def test_reverse_run_completes(library_path: Path) -> None:
    final = _run_json(library_path, "duration=2", "reverse=true")
    assert final["status"] == "completed"
    assert final["summary"]["throughput_bps"] > 1e6


def _run_json(library_path: Path, *settings: str) -> dict[str, object]:
    args = ["run", "--pair", "local", "--tool", "iperf3", "--json"]
    for setting in settings:
        args += ["--set", setting]
    proc = start_cli(library_path, *args)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode in (0, 3), err
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return result


def test_sigkill_mid_run_leaves_interrupted_run_with_samples(library_path: Path) -> None:
    proc = start_cli(
        library_path, "run", "--pair", "local", "--tool", "iperf3", "--set", "duration=30"
    )
    lines = wait_for_lines(proc, "bit/s", 4, timeout_s=30)
    assert len(lines) == 4
    time.sleep(1.2)  # the recorder flushes at least once a second
    iperfs = children_of(proc.pid)
    proc.kill()
    proc.communicate(timeout=10)
    for pid in iperfs:  # orphaned tools of the killed process: end them (not under test here)
        subprocess.run(["kill", "-9", str(pid)], check=False)
    with Library.open(library_path) as lib:
        (run,) = [get_run(lib, 1)]
        series = {(s.stream, s.metric): s for s in load_series(lib, run.id)}
    assert run.status.value == "interrupted"
    assert run.error and "stopped unexpectedly" in run.error
    sums = series[("sum", "throughput_bps")]
    assert len(sums.t) >= 4  # every interval printed before the last second was stored
    assert list(sums.t[:4]) == pytest.approx([1, 2, 3, 4], abs=0.05)


def test_ctrl_c_cancels_and_ends_both_processes(library_path: Path) -> None:
    proc = start_cli(
        library_path, "run", "--pair", "local", "--tool", "iperf3", "--set", "duration=30"
    )
    lines = wait_for_lines(proc, "bit/s", 2, timeout_s=30)
    assert len(lines) == 2
    iperfs = children_of(proc.pid)
    assert len(iperfs) == 3  # the server's, the client's and the host sampler's watchdogs
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=15)
    assert proc.returncode == 130, (out, err)
    assert "cancelled" in out
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in iperfs) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(pid) for pid in iperfs)
    with Library.open(library_path) as lib:
        run = get_run(lib, 1)
        series = {(s.stream, s.metric): s for s in load_series(lib, run.id)}
    assert run.status.value == "cancelled"
    assert len(series[("sum", "throughput_bps")].t) >= 2


def test_unknown_pair_and_bad_setting_are_clear_errors(library_path: Path) -> None:
    for args, needle in (
        (["--pair", "nope", "--tool", "iperf3"], "no pair named 'nope'"),
        (["--pair", "local", "--tool", "iperf3", "--set", "duration=abc"], "duration"),
        (["--pair", "local", "--tool", "iperf3", "--set", "colour=red"], "unknown parameter"),
        (["--pair", "local", "--tool", "iperf3", "--set", "novalue"], "KEY=VALUE"),
        (["--pair", "local", "--tool", "nosuchtool"], "unknown tool"),
    ):
        proc = start_cli(library_path, "run", *args)
        _out, err = proc.communicate(timeout=30)
        assert proc.returncode != 0, args
        assert needle in err, (args, err)
        assert "Traceback" not in err


def test_missing_iperf3_names_the_install_command(library_path: Path) -> None:
    env = {**os.environ, "PATH": "/nonexistent"}
    result = subprocess.run(
        [
            *(sys.executable, "-m", "pairbench", "--library", str(library_path), "run"),
            *("--pair", "local", "--tool", "iperf3"),
        ],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    assert result.returncode == 1
    assert "iperf3 is not installed" in result.stderr
    assert "apt-get install iperf3" in result.stderr
