"""The multi-pair lab end to end: ``lab up --pairs 3`` with a rate and a delay per pair, each
pair registered and tagged, measured through ``pairbench run``, and removed without a trace."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from labkit import PairsLab, lab_pairs
from pairbench.lab.instance import current
from pairbench.lab.shaping import parse_rate, parse_time
from pairbench.library import Library
from pairbench.library.hosts import get_pair, pinned_host_keys
from testkit import require_program

if TYPE_CHECKING:
    from labkit import LabHandle

pytestmark = pytest.mark.lab

RATES = ["50mbit", "100mbit", "200mbit"]
DELAYS = ["1ms", "5ms", "10ms"]
# The single lab's tolerances (test_lab.py): rate within 5 %, round trip within 1 ms.
RATE_REL = 0.05
RTT_ABS_MS = 1.0


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PairsLab]:
    library = tmp_path_factory.mktemp("pairs") / "library.sqlite"
    with lab_pairs(len(RATES), library, RATES, DELAYS) as lab:
        yield lab


def _run(lab: PairsLab, pair: str, tool: str, *settings: str) -> dict[str, Any]:
    """``pairbench run --pair PAIR --tool TOOL --json``: the stored run's summary."""
    args = ["run", "--pair", pair, "--tool", tool, "--json"]
    for setting in settings:
        args += ["--set", setting]
    result = lab.cli(*args)
    assert result.returncode == 0, result.stderr
    final: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    assert final["status"] == "completed", final
    summary: dict[str, Any] = final["summary"]
    return summary


def _multi_leftovers() -> list[str]:
    """Namespaces, links, processes and files of the multi-pair lab still there (of this
    session's lab instance: another session's labs may be up beside it)."""
    instance = current()
    multi = re.compile(re.escape(instance.prefix) + r"\d+[csw]0?")
    multi_root = instance.multi_root
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
    found = [f"namespace {n}" for n in (line.split()[0] for line in namespaces.splitlines())]
    found += [f"link {line.split(':')[1].strip()}" for line in links.splitlines()]
    found = [item for item in found if multi.fullmatch(item.split()[1].split("@")[0])]
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if f"{multi_root}/" in cmdline:
            found.append(f"process {entry.name}: {cmdline}")
    if multi_root.exists():
        found.append(f"directory {multi_root}")
    return found


def test_each_pair_is_registered_with_its_tags_and_pinned_keys(pairs: PairsLab) -> None:
    assert pairs.names == [f"lab{k}" for k in range(1, len(RATES) + 1)]
    with Library.open(pairs.library) as lib:
        for k, (info, rate, delay) in enumerate(zip(pairs.pairs, RATES, DELAYS, strict=True), 1):
            pair = get_pair(lib, info["pair"])
            zone = f"z{k}"
            assert dict(pair.tags) == {
                "cloud": "lab",
                "lab": "multi",
                "zone": zone,
                "rate": rate,
                "delay": delay,
            }
            assert dict(pair.tags) == info["tags"]
            assert pair.data_address == info["data_address"] == info["server"]["data_address"]
            assert info["shaping"]["rate"] == rate and info["shaping"]["delay"] == delay
            for host, role in ((pair.client, "client"), (pair.server, "server")):
                assert host.name == f"lab{k}-{role}" == info[role]["name"]
                assert dict(host.tags) == {"lab": "true", "zone": zone}
                assert pinned_host_keys(lib, host.name) == [info[role]["host_key"]]
    addresses = [p[role]["address"] for p in pairs.pairs for role in ("client", "server")]
    assert len(set(addresses)) == len(addresses)


def test_each_pair_measures_its_own_rate_and_delay(pairs: PairsLab) -> None:
    require_program("iperf3")
    rtts, rates = [], []
    for info, rate, delay in zip(pairs.pairs, RATES, DELAYS, strict=True):
        ping = _run(pairs, info["pair"], "ping", "count=10", "interval=0.1")
        iperf = _run(pairs, info["pair"], "iperf3", "duration=2", "omit=1")
        rtts.append(ping["rtt_avg_ms"])
        rates.append(iperf["throughput_bps"])
        print(f"\n{info['pair']}: {rate}/{delay}: {rates[-1] / 1e6:.1f} Mbit/s, {rtts[-1]:.2f} ms")
        assert ping["lost_percent"] == 0
        assert ping["rtt_avg_ms"] == pytest.approx(2 * parse_time(delay) / 1000, abs=RTT_ABS_MS)
        assert iperf["throughput_bps"] == pytest.approx(parse_rate(rate), rel=RATE_REL)
    # The pairs rank as their shaping does.
    assert sorted(range(len(rates)), key=rates.__getitem__) == sorted(
        range(len(RATES)), key=lambda i: parse_rate(RATES[i])
    )
    assert sorted(range(len(rtts)), key=rtts.__getitem__) == sorted(
        range(len(DELAYS)), key=lambda i: parse_time(DELAYS[i])
    )


def test_status_lists_every_pair_with_its_shaping(pairs: PairsLab) -> None:
    result = pairs.cli("lab", "status", "--json")
    assert result.returncode == 0, result.stderr
    status = json.loads(result.stdout)
    assert status["multi"]["up"] and status["multi"]["healthy"], status["multi"]["problems"]
    listed = {p["pair"]: p for p in status["pairs"]}
    for info in pairs.pairs:
        assert listed[info["pair"]]["healthy"]
        assert listed[info["pair"]]["info"]["shaping"] == info["shaping"]
        assert listed[info["pair"]]["info"]["tags"] == info["tags"]


def test_the_single_lab_lives_beside_the_pairs(pairs: PairsLab, lab: LabHandle) -> None:
    status = lab.status()
    assert status["healthy"], status["problems"]
    assert lab.info["pair"] == "lab" and lab.info["tags"] == {"cloud": "lab"}
    assert lab.info["server"]["data_address"] == str(current().lab_network[2])  # 10.213.0.2
    names = {p["pair"] for p in status["pairs"]}
    assert names == {"lab", *pairs.names}


def test_down_pairs_leaves_nothing_of_them(pairs: PairsLab) -> None:
    result = pairs.cli("lab", "down", "--pairs")
    assert result.returncode == 0, result.stderr
    assert _multi_leftovers() == []
    status = json.loads(pairs.cli("lab", "status", "--json").stdout)
    assert status["multi"]["up"] is False
    assert [p["pair"] for p in status["pairs"] if p["pair"] != "lab"] == []
