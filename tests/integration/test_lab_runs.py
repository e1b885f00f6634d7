"""Runs over real SSH on the lab: shaped throughput, RTT, cancel, lost connections, bad keys."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from local_run_helpers import start_cli, wait_for_lines
from pairbench.domain import LineSource
from pairbench.library import Library
from pairbench.library.hosts import get_host, pin_host_key, pinned_host_keys, unpin_host_keys
from pairbench.library.runs import get_run
from pairbench.library.series import load_series
from pairbench.remote.host_keys import HostKeyPolicy
from pairbench.remote.ssh import SSHTransport

pytestmark = pytest.mark.lab


def _cli(library: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pairbench", "--library", str(library), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def _run_json(library: Path, *settings: str) -> tuple[int, dict[str, Any], str]:
    args = ["run", "--pair", "lab", "--tool", "iperf3", "--json"]
    for setting in settings:
        args += ["--set", setting]
    result = _cli(library, *args)
    lines = result.stdout.strip().splitlines()
    payload = json.loads(lines[-1]) if lines else {}
    return result.returncode, payload, result.stderr


def _ns_processes(namespace: str, name: str) -> list[int]:
    """Pids of processes called ``name`` inside a lab namespace."""
    out = subprocess.run(
        ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False
    ).stdout.split()
    found = []
    for pid in out:
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if comm == name:
            found.append(int(pid))
    return found


@pytest.mark.serial  # a CPU-sensitive measurement: alone (tests/README.md)
@pytest.mark.parametrize("rate_mbit", [50, 200, 900])
def test_iperf3_over_ssh_matches_the_shaped_rate(lab: Any, rate_mbit: int) -> None:
    lab.shape("--rate", f"{rate_mbit}mbit")
    status, final, err = _run_json(lab.library, "duration=5")
    assert status == 0, err
    measured = final["summary"]["throughput_bps"]
    print(f"shaped {rate_mbit} Mbit/s -> measured {measured / 1e6:.1f} Mbit/s")
    assert measured == pytest.approx(rate_mbit * 1e6, rel=0.05)
    with Library.open(lab.library) as lib:
        run = get_run(lib, final["id"])
        series = {(s.stream, s.metric): s for s in load_series(lib, run.id)}
    assert len(series[("sum", "throughput_bps")].t) == 5
    client, server = run.host_facts["client"], run.host_facts["server"]
    assert client["kernel"] and server["kernel"]
    assert server["interface"] == "data" and client["interface"] == "data"
    assert int(server["mtu"]) >= 1280
    assert run.tool_version.startswith("iperf 3.")


@pytest.mark.serial  # a CPU-sensitive measurement: alone (tests/README.md)
def test_pair_check_reports_rtt_versions_and_missing_tools(lab: Any) -> None:
    lab.shape("--delay", "5ms")
    result = _cli(lab.library, "pairs", "check", "lab", "--json")
    assert result.returncode == 0, result.stderr
    check = json.loads(result.stdout)
    text = json.dumps(check)
    assert check["data_path_rtt_ms"] == pytest.approx(10.0, rel=0.05)
    assert "iperf 3." in text
    assert "1.0.8" in text  # uperf, built from the pinned source for the lab (make test)
    for role in ("client", "server"):  # iperf 2 too: every tool of the registry is asked
        assert check[role]["versions"]["iperf2"].startswith("iperf version 2."), check[role]


def test_cancel_ends_the_remote_processes_on_both_hosts(lab: Any) -> None:
    lab.shape()
    proc = start_cli(
        lab.library, "run", "--pair", "lab", "--tool", "iperf3", "--set", "duration=60"
    )
    assert len(wait_for_lines(proc, "bit/s", 2, timeout_s=60)) == 2
    assert _ns_processes(lab.namespace("client"), "iperf3") and _ns_processes(
        lab.namespace("server"), "iperf3"
    )
    cancelled_at = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    while time.monotonic() - cancelled_at < 5 and (
        _ns_processes(lab.namespace("client"), "iperf3")
        or _ns_processes(lab.namespace("server"), "iperf3")
    ):
        time.sleep(0.1)
    assert not _ns_processes(lab.namespace("client"), "iperf3")
    assert not _ns_processes(lab.namespace("server"), "iperf3")
    run_id = int(out.split("run ")[1].split(":")[0])
    with Library.open(lab.library) as lib:
        assert get_run(lib, run_id).status.value == "cancelled"


def test_server_sshd_killed_mid_run_interrupts_and_keeps_samples(lab: Any) -> None:
    lab.shape()
    proc = start_cli(
        lab.library, "run", "--pair", "lab", "--tool", "iperf3", "--set", "duration=60"
    )
    assert len(wait_for_lines(proc, "bit/s", 3, timeout_s=60)) == 3
    for pid in _ns_processes(lab.namespace("server"), "sshd"):
        subprocess.run(["kill", "-9", str(pid)], check=False)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 4, (out, err)
    assert "lost" in err and "lab-server" in err
    assert len([line for line in err.splitlines() if line.startswith("pairbench:")]) == 1
    run_id = int(out.split("run ")[1].split(":")[0])
    with Library.open(lab.library) as lib:
        run = get_run(lib, run_id)
        series = {(s.stream, s.metric): s for s in load_series(lib, run_id)}
    assert run.status.value == "interrupted"
    assert len(series[("sum", "throughput_bps")].t) >= 3
    for pid in _ns_processes(
        lab.namespace("client"), "iperf3"
    ):  # the orphaned client ends by itself
        subprocess.run(["kill", "-9", str(pid)], check=False)
    lab.restart()  # `lab up` again: sshd back, and the next run reconnects
    status, final, err = _run_json(lab.library, "duration=2")
    assert status == 0, err
    assert final["status"] == "completed"


def test_changed_host_key_is_refused_with_both_fingerprints(lab: Any, tmp_path: Path) -> None:
    key = tmp_path / "other"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    fake = key.with_suffix(".pub").read_text().split()
    with Library.open(lab.library) as lib:
        real = pinned_host_keys(lib, "lab-server")
        unpin_host_keys(lib, "lab-server")
        pin_host_key(lib, "lab-server", f"{fake[0]} {fake[1]}")
    try:
        status, _, err = _run_json(lab.library, "duration=2")
        assert status == 1
        assert "HOST KEY CHANGED" in err and err.count("SHA256:") >= 2
        assert "Traceback" not in err
    finally:
        with Library.open(lab.library) as lib:
            unpin_host_keys(lib, "lab-server")
            for line in real:
                pin_host_key(lib, "lab-server", line)


def test_wrong_key_is_refused(lab: Any, tmp_path: Path) -> None:
    key = tmp_path / "stranger"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    with Library.open(lab.library) as lib:
        original = get_host(lib, "lab-client").key_path
    edit = _cli(lab.library, "hosts", "edit", "lab-client", "--key", str(key))
    assert edit.returncode == 0, edit.stderr
    try:
        status, _, err = _run_json(lab.library, "duration=2")
        assert status == 1
        assert "authentication failed" in err and "lab-client" in err
    finally:
        assert original is not None
        _cli(lab.library, "hosts", "edit", "lab-client", "--key", original)


def test_hostile_values_run_nowhere(lab: Any, tmp_path: Path) -> None:
    sentinel = tmp_path / "pwned"  # the lab hosts share this machine's file system
    touch = f"touch {sentinel}"
    for value in (
        f"1M;{touch}",
        f"$({touch})",
        f"`{touch}`",
        f"1M\n{touch}",
        "-b 1M",
        "'1M'",
    ):
        status, _, err = _run_json(lab.library, f"bitrate={value}")
        assert status != 0 and "bitrate" in err
    with Library.open(lab.library) as lib:
        host = get_host(lib, "lab-server")
        pinned = pinned_host_keys(lib, "lab-server")

    async def echo_hostile() -> str:
        transport = SSHTransport(host, HostKeyPolicy(pinned=pinned, known_hosts=()))
        try:
            hostile = [
                f"; {touch}",
                f"$({touch})",
                f"`{touch}`",
                f"'\"; {touch}",
                f"a\n{touch}",
            ]
            result = await transport.run(["printf", "%s|", *hostile])
            process = await transport.start(
                ["echo", *hostile], stdout=LineSource.SERVER_OUT, stderr=LineSource.SERVER_ERR
            )
            lines = [line.text async for line in process.lines()]
            await process.wait()
            return result.stdout + "\n".join(lines)
        finally:
            await transport.close()

    echoed = asyncio.run(echo_hostile())
    assert f"$({touch})" in echoed and "`touch" in echoed
    assert not sentinel.exists()
