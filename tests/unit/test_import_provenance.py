"""Imports faithful to the source: a saved output's start time, addresses, parameters and
version come from the output itself (checked against the capture's own record of when and how
it ran), the pair is the saved one with those addresses, and hostile text yields nothing."""

from __future__ import annotations

import datetime as dt
import random
import re
from pathlib import Path

import pytest

from pairbench.domain import Host, HostPair
from pairbench.library import Library
from pairbench.library.hosts import add_host, add_pair
from pairbench.services.importing import import_output
from pairbench.tools.provenance import Provenance, provenance

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures"
CAPTURED = re.compile(r"^# captured: (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)", re.M)


def _capture(tool: str, name: str) -> tuple[str, str]:
    """(output, its .cmd note) of a recorded capture."""
    out = (CAPTURES / tool / f"{name}.out").read_text(encoding="utf-8", errors="replace")
    return out, (CAPTURES / tool / f"{name}.cmd").read_text(encoding="utf-8")


def _captured_at(cmd: str) -> float:
    """When the capture's note says it was recorded (UTC, to the second)."""
    m = CAPTURED.search(cmd)
    assert m, cmd[:200]
    return dt.datetime.fromisoformat(m.group(1).replace("Z", "+00:00")).timestamp()


def _flags(cmd: str) -> dict[str, str]:
    """``--name=value`` options on the capture's command line."""
    line = next(line for line in cmd.splitlines() if not line.startswith("#"))
    return dict(re.findall(r"--([\w]+)=(\S+)", line))


@pytest.mark.parametrize(
    ("name", "streams", "udp", "reverse"),
    [
        ("v321_tcp_P2_json", "2", False, False),
        ("v321_tcp_R_json_stream", "1", False, True),
        ("v3011_udp_json", "1", True, False),
        ("v312_tcp_V", "1", False, False),
    ],
)
def test_iperf3_json_and_verbose_text_say_when_where_and_how(
    name: str, streams: str, udp: bool, reverse: bool
) -> None:
    out, cmd = _capture("iperf3", name)
    found = provenance("iperf3", out)
    assert found.started_at is not None
    assert abs(found.started_at - _captured_at(cmd)) < 5.0  # the capture's own clock
    assert found.client == found.server == "127.0.0.1"  # "on loopback 127.0.0.1"
    duration = re.search(r" -t (\d+)", cmd)
    assert duration and found.params["duration"] == duration.group(1)
    assert found.params["streams"] == streams
    assert (found.params.get("udp") == "true") is udp
    assert (found.params.get("reverse") == "true") is reverse
    assert found.version.startswith("iperf 3.")
    assert found.version.split()[1] in cmd  # the version the note names


def test_fio_json_gives_the_job_options_and_the_start_before_its_runtime() -> None:
    out, cmd = _capture("fio", "json_randread_j2")
    found = provenance("fio", out)
    flags = _flags(cmd)
    for name in ("rw", "bs", "iodepth", "numjobs", "runtime", "size", "ioengine", "directory"):
        assert found.params[name] == flags[name], name
    assert found.params["direct"] == "true"  # --direct=1
    assert found.version == "fio-3.33"
    assert found.started_at is not None
    # captured when the command started (to the second); the run lasted --runtime seconds
    assert abs(found.started_at - _captured_at(cmd)) < 5.0


def test_ping_d_gives_its_first_stamp_address_size_and_count() -> None:
    out, cmd = _capture("ping", "c15_i02_D_O_lossy")
    found = provenance("ping", out)
    first = re.search(r"^\[(\d+\.\d+)\]", out, re.M)
    assert first and found.started_at == float(first.group(1))
    assert found.server == "10.253.77.2" and found.server in cmd
    assert found.params == {"size": "56", "count": "15"}  # -c 15, ping's default 56 bytes


def test_outputs_that_record_nothing_give_nothing() -> None:
    out, _ = _capture("iperf3", "v312_tcp_P2_fM")  # text without -V: no time line
    assert provenance("iperf3", out).started_at is None
    assert provenance("nuttcp", "whatever") == Provenance()
    rng = random.Random(7)
    pieces = ['{"start":', '"timestamp":{"timesecs":"x"}', "Time: never", "[1.5]", "{", "PING"]
    for _ in range(200):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        for tool in ("iperf3", "fio", "ping", "uperf"):
            provenance(tool, text)  # never raises


def test_an_import_keeps_the_source_and_finds_its_pair(library: Library) -> None:
    out, cmd = _capture("iperf3", "v321_tcp_P2_json")
    client = Host(name="a", address="127.0.0.1")
    server = Host(name="b", address="10.9.9.9")
    add_host(library, client)
    add_host(library, server)
    add_pair(library, HostPair("loop", client, server, data_address="127.0.0.1"))
    run = import_output(library, "iperf3", out, source_name="x.json")
    found = provenance("iperf3", out)
    assert run.spec.pair == "loop"  # its client and (data) server addresses
    assert run.started_at == found.started_at
    assert run.ended_at is not None and 2.5 < run.ended_at - run.started_at < 4.0  # -t 3
    assert dict(run.spec.params) == dict(found.params)
    assert run.tool_version == "iperf 3.21"
    assert run.host_facts["client"]["address"] == "127.0.0.1"
    assert run.host_facts["server"]["address"] == "127.0.0.1"
    other = import_output(library, "iperf3", out, pair="local")
    assert other.spec.pair == "local"  # an explicit pair wins
    ping_out, _ = _capture("ping", "c15_i02_D_O_lossy")
    assert import_output(library, "ping", ping_out).spec.pair == "local"  # no pair matches
    assert abs(run.started_at - _captured_at(cmd)) < 5.0


# The marks of a start time in an output: iperf3 JSON and -V text, fio JSON, ping -D, uperf -R.
RECORDS_TIME = {
    "iperf3": re.compile(r'"timesecs"|^Time: ', re.M),
    "fio": re.compile(r'"timestamp_ms"'),
    "ping": re.compile(r"^\[\d+\.\d+\] ", re.M),
    "uperf": re.compile(r"^timestamp_ms:", re.M),
}


@pytest.mark.parametrize("tool", ["iperf3", "fio", "uperf", "ping", "nuttcp"])
def test_every_capture_imports_with_the_time_and_parameters_it_holds(
    tool: str, library: Library
) -> None:
    from pairbench.services.parsing import ParseError
    from pairbench.tools.registry import get_tool

    checked = timed = 0
    for path in sorted((CAPTURES / tool).glob("*.out")):
        text = path.read_text(encoding="utf-8", errors="replace")
        found = provenance(tool, text)
        try:
            run = import_output(library, tool, text, pair="local", source_name=path.name)
        except ParseError:
            continue  # an error-only capture: nothing to store
        checked += 1
        cmd = path.with_suffix(".cmd").read_text(encoding="utf-8")
        if found.started_at is not None:
            timed += 1
            assert run.started_at == found.started_at, path.name
            assert abs(run.started_at - _captured_at(cmd)) < 60.0, path.name  # its own day
        pattern = RECORDS_TIME.get(tool)
        if pattern is not None and pattern.search(text):
            assert found.started_at is not None, f"{path.name} holds its start time"
        assert dict(run.spec.params) == dict(found.params), path.name
        get_tool(tool).resolve(run.spec.params)  # what an import stores can run again
    assert checked > 0
    if tool in RECORDS_TIME:
        assert timed > 0
