"""The network lab end to end: real namespaces and sshd, a shaped data path, real tools."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import AuthMethod
from pairbench.lab import manager
from pairbench.lab.errors import LabError
from pairbench.lab.instance import current
from pairbench.lab.topology import PairTopology, single
from pairbench.library import Library
from pairbench.library.hosts import get_pair, pinned_host_keys
from testkit import require_program

if TYPE_CHECKING:
    from labkit import LabHandle, Shaper

pytestmark = pytest.mark.lab

IPERF_PORT = "5301"  # inside the lab's own namespaces


def _topo() -> PairTopology:
    """The lab's names and addresses (this session's lab instance: the default lab, or a
    worker's own under pytest-xdist); ``test_lab_topology`` checks them for the default lab."""
    return single()


def _ns(namespace: str, *argv: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ip", "netns", "exec", namespace, *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _ssh(
    host: dict[str, Any], known_hosts: Path, *command: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ssh", "-F", "/dev/null", "-i", host["key_path"],
         "-o", f"UserKnownHostsFile={known_hosts}", "-o", "GlobalKnownHostsFile=/dev/null",
         "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-o", "ConnectTimeout=5",
         "-p", str(host["port"]), f"{host['user']}@{host['address']}", *command],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )  # fmt: skip


def _ping_rtt_ms(count: int = 5, interval: str = "0.2") -> tuple[float, float, float]:
    """(avg RTT, mdev, loss %) of a ping from the client to the server's data address."""
    topo = _topo()
    result = _ns(
        topo.client.namespace,
        "ping", "-q", "-c", str(count), "-i", interval, "-W", "2", topo.server.data_address,
    )  # fmt: skip
    loss = re.search(r"([\d.]+)% packet loss", result.stdout)
    rtt = re.search(r"= [\d.]+/([\d.]+)/[\d.]+/([\d.]+) ms", result.stdout)
    assert loss is not None, result.stdout + result.stderr
    if rtt is None:
        return float("nan"), float("nan"), float(loss.group(1))
    return float(rtt.group(1)), float(rtt.group(2)), float(loss.group(1))


def _iperf3(seconds: int, *extra: str) -> dict[str, Any]:
    """One iperf3 TCP run client → server over the data path, as iperf3's JSON."""
    topo = _topo()
    server = subprocess.Popen(
        ["ip", "netns", "exec", topo.server.namespace, "iperf3", "-s", "-1", "-p", IPERF_PORT],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            listening = _ns(topo.server.namespace, "ss", "-Hltn", f"sport = :{IPERF_PORT}")
            if listening.stdout.strip():
                break
            time.sleep(0.05)
        else:
            pytest.fail("iperf3 server did not start listening within 5 s")
        client = _ns(
            topo.client.namespace,
            "iperf3", "-c", topo.server.data_address, "-p", IPERF_PORT, "-t", str(seconds), "-J",
            *extra,
            timeout=seconds + 30,
        )  # fmt: skip
        assert client.returncode == 0, client.stdout[-2000:] + client.stderr
        server.wait(timeout=10)
        result: dict[str, Any] = json.loads(client.stdout)
        return result
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(timeout=5)


def _lab_processes() -> list[str]:
    """Live processes that belong to the lab (by their command line: its sshd and delay lines
    name files in its state directories; other labs' processes are not this lab's)."""
    instance = current()
    roots = (f"{instance.state_root}/", f"{instance.multi_root}/")
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z" and any(root in cmdline for root in roots):
            found.append(f"{entry.name}: {cmdline}")
    return found


def _leftovers() -> list[str]:
    """What is left of the lab: namespaces and links with its prefix, its processes, its
    state directory."""
    instance = current()
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    names = [line.split()[0] for line in namespaces.splitlines() if line.strip()]
    found = [f"namespace {name}" for name in names if name.startswith(instance.prefix)]
    devs = [line.split(":")[1].strip() for line in links.splitlines() if line.count(":") >= 2]
    found += [f"link {dev}" for dev in devs if dev.startswith(instance.prefix)]
    found += [f"process {p}" for p in _lab_processes()]
    for folder in (instance.state_root, instance.run_dir):
        if folder is not None and folder.exists():
            found.append(f"directory {folder}")
    return found


# --- no root needed -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "option", [["--rate", "1;id"], ["--delay", "$(id)"], ["--loss", "-1"], ["--bucket", "5 MB"]]
)
def test_bad_shaping_is_refused_before_anything_is_made(option: list[str]) -> None:
    env = Environment(stdout=_Sink(), stderr=_Sink())
    assert run_cli(["lab", "up", *option], env) == 1
    assert isinstance(env.stderr, _Sink)
    assert env.stderr.text.startswith("pairbench: --")
    assert env.stderr.text.count("\n") == 1


def test_the_lab_needs_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    for call in (lambda: manager.up(manager.Shaping()), manager.status, manager.down):
        with pytest.raises(LabError, match=r"the lab needs root: run as root \(sudo\)"):
            call()


class _Sink:
    """A text stream that keeps what was written."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        self.text += text
        return len(text)

    def flush(self) -> None:
        pass


# --- the running lab ----------------------------------------------------------------------


def test_up_is_idempotent(lab: LabHandle) -> None:
    before = lab.status()
    sshd_before = {p["namespace"]: p["pid"] for p in before["processes"] if p["name"] == "sshd"}
    again = lab.cli("lab", "up", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == lab.info
    after = lab.status()
    assert after["healthy"], after["problems"]
    assert after["info"] == before["info"]
    assert {p["namespace"]: p["pid"] for p in after["processes"] if p["name"] == "sshd"} == (
        sshd_before
    )


def test_status_shows_both_sshd_alive(lab: LabHandle) -> None:
    status = lab.status()
    assert status["up"] and status["healthy"], status["problems"]
    sshd = {p["namespace"]: p for p in status["processes"] if p["name"] == "sshd"}
    assert set(sshd) == {_topo().client.namespace, _topo().server.namespace}
    assert all(p["alive"] and p["pid"] > 1 for p in sshd.values())
    text = lab.cli("lab", "status")
    assert text.returncode == 0
    assert "lab: up, healthy" in text.stdout


def test_hosts_pair_and_pinned_keys_are_in_the_library(lab: LabHandle) -> None:
    with Library.open(lab.library) as lib:
        pair = get_pair(lib, "lab")
        pins = {name: pinned_host_keys(lib, name) for name in ("lab-client", "lab-server")}
    topo = _topo()
    assert pair.data_address == topo.server.data_address
    assert pair.description == "Pairbench network lab"
    assert dict(pair.tags) == {"cloud": "lab"}
    for host, role in ((pair.client, "client"), (pair.server, "server")):
        info = lab.info[role]
        assert host.name == f"lab-{role}"
        assert (host.address, host.port, host.user) == (info["address"], 22, "root")
        assert host.auth is AuthMethod.KEY
        assert host.key_path == info["key_path"] == f"{current().state_root}/lab_key"
        assert dict(host.tags) == {"lab": "true"}
        assert pins[host.name] == [info["host_key"]]
        assert info["host_key"].startswith("ssh-ed25519 AAAA")
    assert (lab.info["client"]["address"], lab.info["server"]["address"]) == (
        topo.client.address,
        topo.server.address,
    )


def test_ssh_reaches_both_hosts_with_the_pinned_keys(lab: LabHandle, tmp_path: Path) -> None:
    require_program("ssh")
    topo = _topo()
    for role, data in (("client", topo.client.data_address), ("server", topo.server.data_address)):
        host = lab.info[role]
        known = tmp_path / f"known_{role}"
        known.write_text(f"{host['address']} {host['host_key']}\n")
        result = _ssh(host, known, "ip", "-o", "-4", "addr")
        assert result.returncode == 0, result.stderr
        data_lines = [line for line in result.stdout.splitlines() if " data " in line]
        assert data_lines and f"inet {data}/24" in data_lines[0], result.stdout
    # The pin means something: the client's key does not pass for the server.
    wrong = tmp_path / "known_wrong"
    wrong.write_text(f"{topo.server.address} {lab.info['client']['host_key']}\n")
    refused = _ssh(lab.info["server"], wrong, "true")
    assert refused.returncode != 0
    assert "Host key verification failed" in refused.stderr


@pytest.mark.serial  # a CPU-sensitive measurement: alone (tests/README.md)
def test_ping_and_delay(lab: LabHandle, shaped: Shaper) -> None:
    avg, _mdev, loss = _ping_rtt_ms()
    assert loss == 0
    assert avg < 1.0
    shaped("--delay", "5ms")
    avg, _mdev, loss = _ping_rtt_ms()
    print(f"\nRTT with --delay 5ms: {avg:.3f} ms")
    assert loss == 0
    assert avg == pytest.approx(10.0, abs=1.0)


@pytest.mark.serial  # a CPU-sensitive measurement: alone (tests/README.md)
def test_jitter_and_loss(lab: LabHandle, shaped: Shaper) -> None:
    shaped("--delay", "5ms", "--jitter", "2ms")
    avg, mdev, loss = _ping_rtt_ms(count=20, interval="0.05")
    assert loss == 0
    assert avg == pytest.approx(10.0, abs=1.5)
    assert mdev > 0.4
    shaped("--loss", "20%")
    _avg, _mdev, loss = _ping_rtt_ms(count=300, interval="0.01")
    print(f"\nloss with --loss 20%: {loss}%")
    assert 12 <= loss <= 30  # binomial: σ ≈ 2.3 %


@pytest.mark.serial  # a CPU-sensitive measurement: alone (tests/README.md)
@pytest.mark.parametrize("rate_mbit", [50, 200, 900])
def test_rate_accuracy(lab: LabHandle, shaped: Shaper, rate_mbit: int) -> None:
    require_program("iperf3")
    shaped("--rate", f"{rate_mbit}mbit")
    result = _iperf3(4)
    received = result["end"]["sum_received"]["bits_per_second"]
    print(f"\n--rate {rate_mbit}mbit: receiver {received / 1e6:.2f} Mbit/s")
    assert received == pytest.approx(rate_mbit * 1e6, rel=0.05)


@pytest.mark.serial  # a CPU-sensitive measurement: alone (tests/README.md)
def test_burst_emulation(lab: LabHandle, shaped: Shaper) -> None:
    require_program("iperf3")
    shaped("--rate", "100mbit", "--burst-rate", "400mbit", "--bucket", "50MB")
    result = _iperf3(8, "-i", "1")
    mbit = [i["sum"]["bits_per_second"] / 1e6 for i in result["intervals"]]
    print(f"\nburst 400mbit / 50MB bucket / 100mbit: {[round(m) for m in mbit]} Mbit/s")
    assert len(mbit) >= 8
    assert 340 <= mbit[0] <= 460
    assert all(85 <= m <= 115 for m in mbit[-3:])


def test_a_broken_lab_is_rebuilt_by_up(lab: LabHandle) -> None:
    status = lab.status()
    server = _topo().server.namespace
    pid = next(p["pid"] for p in status["processes"] if p["namespace"] == server)
    subprocess.run(["kill", str(pid)], check=True)
    deadline = time.monotonic() + 5
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    broken = lab.cli("lab", "status", "--json")
    assert broken.returncode == 1
    assert "sshd of lab-server is not running" in json.loads(broken.stdout)["problems"]
    refused = lab.cli("lab", "shape", "--rate", "100mbit")
    assert refused.returncode == 1
    assert "run `pairbench lab up`" in refused.stderr
    info = lab.info
    lab.up()
    assert lab.status()["healthy"]
    assert lab.info == info  # the keys were kept: nothing to re-pin


def test_up_refuses_an_address_space_in_use(lab: LabHandle) -> None:
    network = current().lab_network  # 10.213.0.0/16
    taken = f"{network.network_address + 99 * 256}/24"  # 10.213.99.0/24
    assert lab.cli("lab", "down").returncode == 0
    subprocess.run(["ip", "route", "add", "blackhole", taken], check=True)
    try:
        refused = lab.cli("lab", "up")
        assert refused.returncode == 1
        assert f"{network} is already in use" in refused.stderr
        assert refused.stderr.count("\n") == 1
        assert _leftovers() == []
    finally:
        subprocess.run(["ip", "route", "del", "blackhole", taken], check=False)
    lab.up()


def test_down_removes_everything(lab: LabHandle) -> None:
    result = lab.cli("lab", "down")
    assert result.returncode == 0, result.stderr
    assert _leftovers() == []
    assert lab.status()["up"] is False
    lab.up()


def test_down_without_state_file_finds_the_lab_by_name(lab: LabHandle) -> None:
    lab.up("--delay", "1ms")  # a delay line runs too
    (current().state_root / "state.json").unlink()
    status = lab.status()
    assert status["up"] is False
    assert "leftovers of a lab" in status["problems"][0]
    result = lab.cli("lab", "down")
    assert result.returncode == 0, result.stderr
    assert _leftovers() == []
    lab.up()


def test_cli_in_process_matches_the_subprocess(lab: LabHandle) -> None:
    env = Environment(stdout=_Sink(), stderr=_Sink(), library_path=lab.library)
    assert run_cli(["lab", "status", "--json"], env) == 0
    assert isinstance(env.stdout, _Sink)
    assert json.loads(env.stdout.text)["info"] == lab.info
    assert sys.executable
