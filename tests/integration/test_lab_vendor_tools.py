"""The real tools the lab builds (packaging/vendor_tools.py): iperf3 3.21 with ``--json-stream``,
uperf, and hosts running different iperf3 versions; over real SSH on shaped links.

The module brings the lab up with ``--iperf3 3.21`` and restores the default lab (the system's
iperf3) at its end, so other lab tests see the lab they expect.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from labkit import LabHandle, lab_pids
from local_run_helpers import start_cli
from pairbench.domain import Run
from pairbench.lab import LabError, sshd, vendor
from pairbench.lab.state import LabPaths
from pairbench.lab.topology import single
from pairbench.library import Library
from pairbench.library.runs import get_run
from pairbench.library.series import load_raw_output, load_series
from pairbench.remote.launcher import TAG_VARIABLE
from testkit import REPO, require
from uperf_final_lines import assert_figures_are_uperfs

pytestmark = pytest.mark.lab

RUN_S = 4
RATE_BPS = 200e6


def _require_built(tool: vendor.VendorTool) -> None:
    require(vendor.find(tool) is not None, vendor.missing_reason(tool))


@pytest.fixture(scope="module")
def lab321(lab: LabHandle) -> Iterator[LabHandle]:
    """The lab with iperf3 3.21 on both hosts; the default lab again afterwards."""
    _require_built(vendor.IPERF3)
    try:
        lab.up("--iperf3", "3.21")
        yield lab
    finally:
        lab.up()


@dataclass
class LiveRun:
    """A ``pairbench run`` watched from outside: its live lines with arrival times."""

    status: int
    run: Run
    lines: list[tuple[float, str]]
    ended_at: float
    err: str

    @property
    def interval_times(self) -> list[float]:
        return [t for t, line in self.lines if "bit/s" in line and " s " in line]


def _run_live(library: Path, tool: str, *settings: str, timeout_s: float = 90) -> LiveRun:
    args = ["run", "--pair", "lab", "--tool", tool]
    for setting in settings:
        args += ["--set", setting]
    proc = start_cli(library, *args)
    assert proc.stdout is not None
    lines: list[tuple[float, str]] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append((time.monotonic(), line.rstrip("\n")))
    ended_at = time.monotonic()
    _out, err = proc.communicate(timeout=30)
    text = "\n".join(line for _t, line in lines)
    assert "run " in text, f"{text}\n{err}"
    run_id = int(text.split("run ", 1)[1].split(":", 1)[0])
    return LiveRun(proc.returncode, _stored(library, run_id), lines, ended_at, err)


def _stored(library: Path, run_id: int) -> Run:
    with Library.open(library) as lib:
        return get_run(lib, run_id)


def _events(library: Path, run_id: int, source: str = "client.stdout") -> list[dict[str, Any]]:
    """The ``--json-stream`` events of one source of the run's stored raw output."""
    with Library.open(library) as lib:
        chunks = load_raw_output(lib, run_id)
    events = []
    for chunk_source, text in chunks:
        if chunk_source != source:
            continue
        for line in text.splitlines():
            if line.startswith('{"event"'):
                events.append(json.loads(line))
    return events


def _end_event(library: Path, run_id: int) -> dict[str, Any]:
    ends = [e["data"] for e in _events(library, run_id) if e["event"] == "end"]
    assert len(ends) == 1, f"{len(ends)} end events"
    end: dict[str, Any] = ends[0]
    return end


def _assert_live(live: LiveRun) -> None:
    """Interval lines were printed while the run went on, not all at its end."""
    times = live.interval_times
    assert len(times) >= RUN_S - 1, [line for _t, line in live.lines]
    assert live.ended_at - times[0] > 1.5, "the first interval came with the end of the run"


def _assert_summary_is_the_end_event(run: Run, end: dict[str, Any], bidir: bool = False) -> None:
    received, sent = end["sum_received"], end["sum_sent"]
    assert run.summary["throughput_bps"] == received["bits_per_second"]
    assert run.summary["sender_throughput_bps"] == sent["bits_per_second"]
    assert run.summary.get("retransmits") == sent.get("retransmits")
    if bidir:
        reverse = end["sum_received_bidir_reverse"]["bits_per_second"]
        assert run.summary["throughput_reverse_bps"] == reverse
    print(
        f"run {run.id}: summary throughput {run.summary['throughput_bps']!r} == end "
        f"sum_received {received['bits_per_second']!r}; sender {sent['bits_per_second']!r}"
    )


@pytest.mark.parametrize(
    "settings",
    [["streams=4"], ["reverse=true"], ["bidir=true"]],
    ids=["streams4", "reverse", "bidir"],
)
def test_iperf3_321_json_stream_tcp(lab321: LabHandle, settings: list[str]) -> None:
    lab321.shape("--rate", "200mbit")
    live = _run_live(lab321.library, "iperf3", f"duration={RUN_S}", *settings)
    assert live.status == 0, live.err
    run = live.run
    assert run.status.value == "completed", run.error
    assert run.tool_version.startswith("iperf 3.21"), run.tool_version
    _assert_live(live)
    events = _events(lab321.library, run.id)
    assert sum(e["event"] == "interval" for e in events) >= RUN_S  # it was --json-stream
    _assert_summary_is_the_end_event(
        run, _end_event(lab321.library, run.id), bidir="bidir=true" in settings
    )
    if "reverse=true" not in settings:  # the shaped direction: client → server
        assert run.summary["throughput_bps"] == pytest.approx(RATE_BPS, rel=0.05)
    if "streams=4" in settings:
        with Library.open(lab321.library) as lib:
            streams = {s.stream for s in load_series(lib, run.id) if s.metric == "throughput_bps"}
        assert len(streams) == 5  # four sockets and their sum


def test_iperf3_321_udp_client_to_server(lab321: LabHandle) -> None:
    lab321.shape("--rate", "200mbit")
    live = _run_live(lab321.library, "iperf3", f"duration={RUN_S}", "udp=true", "bitrate=50M")
    assert live.status == 0, live.err
    run = live.run
    assert run.status.value == "completed", run.error
    _assert_live(live)
    # The client streams JSON; the receiving server's text output is the one parsed (it alone
    # knows jitter and loss live). Its figures are iperf3's own end figures, as printed (3
    # significant digits for the rate, 3 decimals for jitter).
    end = _end_event(lab321.library, run.id)
    received = end["sum_received"]
    udp = received if "jitter_ms" in received else end["sum"]
    assert run.summary["throughput_bps"] == pytest.approx(received["bits_per_second"], rel=5e-3)
    assert run.summary["jitter_ms"] == pytest.approx(udp["jitter_ms"], abs=1e-3)
    assert run.summary["lost_percent"] == pytest.approx(udp["lost_percent"], abs=0.01)
    assert run.summary["throughput_bps"] == pytest.approx(50e6, rel=0.02)
    print(f"UDP: summary {run.summary} vs end sum_received {received}")


def _rtt_us(lab: LabHandle) -> float:
    """The data path's round trip by the lab's ping run (10 × 0.2 s), in µs: the median of
    ping's own per-packet times as stored (0.1 ms steps: ping prints 3 digits). Its mean moved
    by 1.7 ms once when the parallel part's load held replies; uperf's mean is over ~300
    round trips."""
    live = _run_live(lab.library, "ping", "count=10", "interval=0.2")
    assert live.status == 0, live.err
    with Library.open(lab.library) as lib:
        rtts = [
            float(v) for s in load_series(lib, live.run.id) if s.metric == "rtt_ms" for v in s.v
        ]
    assert len(rtts) == 10, rtts
    print(f"ping RTT mean {live.run.summary['rtt_avg_ms']} ms, each {rtts}")
    return float(statistics.median(rtts)) * 1000.0


def _uperf_left() -> dict[int, str]:
    """uperf processes of a Pairbench run still alive on the lab's hosts, pid → command
    line."""
    found: dict[int, str] = {}
    needle = f"{TAG_VARIABLE}=".encode()
    for pid in lab_pids():  # this lab's: other labs and local runs of other workers run uperf too
        environ = f"/proc/{pid}/environ"
        try:
            tagged = any(e.startswith(needle) for e in Path(environ).read_bytes().split(b"\0"))
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
        except OSError:
            continue
        if tagged and state != "Z" and comm == "uperf":
            found[pid] = cmdline
    return found


def _assert_no_uperf_left(within_s: float = 5.0) -> None:
    deadline = time.monotonic() + within_s
    while _uperf_left() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _uperf_left()


# A latency within 5 % of ping's round trip: a busy CPU delays both tools (beside the parallel
# part's loopback runs ping's mean was off by 1.7 ms once): alone (tests/README.md).
@pytest.mark.serial
@pytest.mark.parametrize("protocol", ["tcp", "udp"])
def test_uperf_latency_is_the_round_trip(lab: LabHandle, protocol: str) -> None:
    _require_built(vendor.UPERF)
    lab.shape("--delay", "5ms")
    rtt_us = _rtt_us(lab)
    live = _run_live(
        lab.library, "uperf", "profile=latency", f"protocol={protocol}", "size=90", "duration=3"
    )
    assert live.status == 0, live.err
    run = live.run
    assert run.tool_version.startswith("Uperf Version 1.0.8"), run.tool_version
    latency = run.summary["latency_avg_us"]
    error = latency - rtt_us
    spread = {k: run.summary.get(f"txn2_{k}") for k in ("count", "min_us", "max_us")}
    print(f"uperf {protocol} latency {latency:.1f} µs vs ping RTT {rtt_us:.1f} µs: {error:+.1f}")
    print(f"uperf's round trips: {spread}")
    assert abs(error) <= 0.05 * rtt_us + 50
    assert len(live.interval_times) >= 2
    _assert_no_uperf_left()


@pytest.mark.serial  # a measured rate within 3 % (8 uperf threads): alone (tests/README.md)
def test_uperf_throughput_8_threads_is_the_shaped_rate(lab: LabHandle) -> None:
    _require_built(vendor.UPERF)
    lab.shape("--rate", "200mbit")
    live = _run_live(
        lab.library, "uperf", "profile=throughput", "threads=8", "size=8k", "duration=4"
    )
    assert live.status == 0, live.err
    measured = live.run.summary["throughput_bps"]
    error = measured / RATE_BPS - 1
    print(f"uperf throughput {measured / 1e6:.2f} Mbit/s on 200mbit ({error:+.2%})")
    assert measured == pytest.approx(RATE_BPS, rel=0.03)
    _assert_live(live)
    _assert_no_uperf_left()


def test_uperf_cancel_leaves_no_process(lab: LabHandle) -> None:
    _require_built(vendor.UPERF)
    lab.shape("--rate", "200mbit")
    proc = start_cli(
        lab.library, "run", "--pair", "lab", "--tool", "uperf", "--set", "profile=throughput",
        "--set", "duration=60",
    )  # fmt: skip
    assert proc.stdout is not None
    seen = 0
    deadline = time.monotonic() + 30
    while seen < 2 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen += "bit/s" in line
    assert seen == 2
    assert len(_uperf_left()) >= 2  # the slave on the server, the master on the client
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    _assert_no_uperf_left()


# A profile of the user's (issue 27): two groups at once on the lab pair, one of them with a
# variable of its own ($reps): uploaded over SFTP into the run's work directory, its variables
# in the master's environment over SSH ($h: the pair's server address), its output stored.
USER_PROFILE = """<?xml version="1.0"?>
<profile name="lab-mine">
  <group nthreads="$nthr">
    <transaction iterations="1">
      <flowop type="connect" options="remotehost=$h protocol=tcp"/>
    </transaction>
    <transaction duration="$dur">
      <flowop type="write" options="size=8k"/>
    </transaction>
    <transaction iterations="1">
      <flowop type="disconnect"/>
    </transaction>
  </group>
  <group nthreads="1">
    <transaction iterations="1">
      <flowop type="connect" options="remotehost=$h protocol=tcp tcp_nodelay"/>
    </transaction>
    <transaction duration="$dur">
      <flowop type="write" options="size=90 count=$reps"/>
      <flowop type="read" options="size=90"/>
    </transaction>
    <transaction iterations="1">
      <flowop type="disconnect"/>
    </transaction>
  </group>
</profile>
"""


def test_uperf_profile_of_the_users_over_ssh(lab: LabHandle, tmp_path: Path) -> None:
    _require_built(vendor.UPERF)
    lab.shape("--rate", "200mbit")
    path = tmp_path / "lab mine.xml"
    path.write_text(USER_PROFILE)
    live = _run_live(
        lab.library, "uperf", f"profile_file={path}", "threads=2", "duration=3",
        "profile_vars=reps=2",
    )  # fmt: skip
    assert live.status == 0, live.err
    run = live.run
    assert run.status.value == "completed", run.error
    assert run.spec.params["profile_file"] == "lab_mine.xml"
    assert run.spec.params["profile_xml"] == USER_PROFILE
    with Library.open(lab.library) as lib:
        stdout = "\n".join(t for s, t in load_raw_output(lib, run.id) if s == "client.stdout")
    # uperf's own final lines, every one stored; the timed transaction crossed the shaped
    # link (both groups write through it: at most its rate, less with the small requests)
    assert_figures_are_uperfs(run.summary, stdout)
    assert "group1_txn2_avg_us" in run.summary and "latency_avg_us" not in run.summary
    assert 0.5 * RATE_BPS < run.summary["throughput_bps"] <= 1.05 * RATE_BPS
    assert len(live.interval_times) >= 2
    _assert_no_uperf_left()


@pytest.mark.parametrize(
    ("choice", "client", "server"),
    [("client=3.21,server=system", "3.21", "3.12"), ("client=system,server=3.21", "3.12", "3.21")],
    ids=["client321", "server321"],
)
def test_mixed_iperf3_versions(lab: LabHandle, choice: str, client: str, server: str) -> None:
    _require_built(vendor.IPERF3)
    require(
        vendor.version_of("/usr/bin/iperf3", vendor.IPERF3).startswith("iperf 3.12"),
        "the system's iperf3 is not 3.12",
    )
    try:
        lab.up("--iperf3", choice)
        expected = dict(part.split("=") for part in choice.split(","))
        assert lab.info["tools"]["iperf3"] == expected
        lab.shape("--rate", "200mbit")
        tcp = _run_live(lab.library, "iperf3", "duration=3")
        assert tcp.status == 0, tcp.err
        run = tcp.run
        assert run.tool_version.startswith(f"client iperf {client}"), run.tool_version
        assert f"/ server iperf {server}" in run.tool_version, run.tool_version
        assert run.summary["throughput_bps"] == pytest.approx(RATE_BPS, rel=0.05)
        if client == "3.21":  # the client's JSON stream is read as JSON
            _assert_summary_is_the_end_event(run, _end_event(lab.library, run.id))
        else:  # 3.12 prints text
            assert not _events(lab.library, run.id)
        udp = _run_live(lab.library, "iperf3", "duration=3", "udp=true", "bitrate=50M")
        assert udp.status == 0, udp.err
        assert udp.run.status.value == "completed", udp.run.error
        assert udp.run.summary["throughput_bps"] == pytest.approx(50e6, rel=0.02)
        assert "jitter_ms" in udp.run.summary
    finally:
        lab.up()


# Without the lab: the choices, the PATH the lab hosts get, the build step's checks.


def _fake_build(cache: Path, tool: vendor.VendorTool) -> Path:
    folder = cache / tool.key
    (folder / "bin").mkdir(parents=True)
    program = folder / "bin" / tool.program
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    (folder / vendor.STAMP).write_text(f"{tool.sha256} {tool.archive}\n")
    return program


def test_iperf3_choices_are_parsed_and_checked() -> None:
    assert vendor.parse_iperf3_choice(None) == vendor.LabTools("system", "system")
    assert vendor.parse_iperf3_choice("3.21") == vendor.LabTools("3.21", "3.21")
    assert vendor.parse_iperf3_choice("server=3.21") == vendor.LabTools("system", "3.21")
    assert vendor.parse_iperf3_choice(" client=3.21 , server=system") == vendor.LabTools(
        "3.21", "system"
    )
    for bad in ("3.12", "client=3.21,client=system", "peer=3.21", "client=latest"):
        with pytest.raises(LabError):
            vendor.parse_iperf3_choice(bad)


def test_lab_hosts_path_puts_the_chosen_builds_first(tmp_path: Path) -> None:
    env = {vendor.CACHE_ENV: str(tmp_path)}
    empty = {vendor.CACHE_ENV: str(tmp_path / "none")}
    if vendor.on_path(vendor.IPERF3) is None:
        with pytest.raises(LabError, match=r"iperf3 3\.21 is not built"):
            vendor.host_path("3.21", empty)
    uperf = _fake_build(tmp_path, vendor.UPERF)
    iperf3 = _fake_build(tmp_path, vendor.IPERF3)
    assert vendor.host_path("system", env) == f"{uperf.parent}:{vendor.SYSTEM_PATH}"
    assert vendor.host_path("3.21", env) == f"{iperf3.parent}:{uperf.parent}:{vendor.SYSTEM_PATH}"
    (tmp_path / vendor.IPERF3.key / vendor.STAMP).unlink()  # an unfinished build is not used
    assert vendor.cached(vendor.IPERF3, env) is None
    config = sshd.config_text(single().client, LabPaths(tmp_path), vendor.host_path("system", env))
    assert f'SetEnv "SHLVL=1" "PATH={uperf.parent}:{vendor.SYSTEM_PATH}"' in config.splitlines()


def test_build_step_refuses_an_archive_with_another_sha256(tmp_path: Path) -> None:
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for tool in vendor.TOOLS:
        (mirror / tool.archive).write_bytes(b"not the pinned archive")
    env = {
        **os.environ,
        vendor.MIRROR_ENV: str(mirror),
        vendor.CACHE_ENV: str(tmp_path / "cache"),
        "PATH": "/usr/bin:/bin",
    }
    result = subprocess.run(
        [sys.executable, str(REPO / "packaging" / "vendor_tools.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2, result.stdout
    for tool, line in zip((vendor.UPERF, vendor.IPERF3), lines, strict=True):
        assert line.startswith(f"vendor tools: {tool.program} {tool.version}: NOT AVAILABLE")
        assert f"is not the pinned {tool.sha256}" in line
    assert not list((tmp_path / "cache").glob("*/bin/*"))
