"""Tests of the uperf profile builder and adapter against the fixtures' netperf/iperf.xml."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairbench.tools import uperf
from pairbench.tools.base import Capabilities, CommandContext, ParamError
from pairbench.tools.uperf_profiles import (
    DEFAULT_VARS,
    Profile,
    ProfileVars,
    latency_profile,
    size_bytes,
    throughput_profile,
)
from pairbench.tools.uperf_text import UperfTextParser
from parser_checks import fixture_path

FUZZ = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
CTX = CommandContext(target="10.200.0.1", port=20000, workdir="/tmp/pairbench.AbC123")
CAPS = Capabilities(version="Uperf Version 1.0.8", version_tuple=(1, 0, 8))

# A structure: [(group attributes, [(transaction attributes, [(flowop type, options)])])],
# with every $variable replaced by its value as uperf would, and the options as a mapping
# (flags map to "").
Structure = list[tuple[dict[str, str], list[tuple[dict[str, str], list[tuple[str, Any]]]]]]


def fixture_profile(cmd_name: str) -> tuple[str, dict[str, str]]:
    """The profile XML reproduced in a fixture's .cmd file, and the env= values it ran with."""
    text = fixture_path("uperf", cmd_name).read_text(encoding="utf-8")
    head, _, xml = text.partition("# ---- profile file:")
    xml = xml.split("\n", 1)[1]
    command = [line for line in head.splitlines() if line and not line.startswith("#")][-1]
    # "... ip netns exec t2 env h=10.200.0.1 proto=tcp nthr=1 timeout 60 uperf -m iperf.xml"
    assignments = command.split(" env ", 1)[1].split(" uperf ")[0]
    env = dict(re.findall(r"\b([a-z]+)=(\S+)", assignments))
    return xml, env


def as_uperf_sees_it(xml: str, env: Mapping[str, str]) -> Structure:
    """Lower-case the profile (uperf's tokenizer does), then resolve every $variable."""

    def value(v: str) -> str:
        if v.startswith("$"):
            assert v[1:] in env, f"${v[1:]} is not in the environment"
            return env[v[1:]]
        return v

    def options(text: str) -> dict[str, str]:
        out: dict[str, str] = {}
        for item in text.split():
            key, _, val = item.partition("=")
            out[key] = value(val) if val else ""
        return out

    root = ET.fromstring(xml.lower())
    assert root.tag == "profile"
    groups: Structure = []
    for group in root:
        assert group.tag == "group"
        txns = []
        for txn in group:
            assert txn.tag == "transaction"
            flowops = []
            for op in txn:
                assert op.tag == "flowop"
                assert set(op.attrib) <= {"type", "options"}
                flowops.append((op.attrib["type"], options(op.attrib.get("options", ""))))
            txns.append(({k: value(v) for k, v in txn.attrib.items()}, flowops))
        groups.append(({k: value(v) for k, v in group.attrib.items()}, txns))
    return groups


# --------------------------------------------------------------------------- the fixture profiles


def test_latency_profile_is_netperf_xml() -> None:
    xml, env = fixture_profile("netperf_tcp_aep.cmd")
    assert env == {"h": "10.200.0.1", "proto": "tcp"}
    expected = as_uperf_sees_it(xml, env)
    ours = latency_profile("10.200.0.1")
    got = as_uperf_sees_it(ours.xml, ours.env)
    # The one deliberate difference: netperf.xml has the slave connect back ("accept");
    # Pairbench's master connects, so only the slave's port has to be reachable.
    assert expected[0][1][0][1][0][0] == "accept"
    expected[0][1][0][1][0] = ("connect", expected[0][1][0][1][0][1])
    assert got == expected
    assert got == [
        (
            {"nthreads": "1"},
            [
                (
                    {"iterations": "1"},
                    [
                        (
                            "connect",
                            {
                                "remotehost": "10.200.0.1",
                                "protocol": "tcp",
                                "wndsz": "50k",
                                "tcp_nodelay": "",
                            },
                        )
                    ],
                ),
                ({"duration": "10s"}, [("write", {"size": "90"}), ("read", {"size": "90"})]),
                ({"iterations": "1"}, [("disconnect", {})]),
            ],
        )
    ]


def test_throughput_profile_is_iperf_xml() -> None:
    xml, env = fixture_profile("iperf_tcp_nthr1_aep.cmd")
    assert env == {"h": "10.200.0.1", "proto": "tcp", "nthr": "1"}
    ours = throughput_profile("10.200.0.1", threads=1)
    assert as_uperf_sees_it(ours.xml, ours.env) == as_uperf_sees_it(xml, env)
    xml, env = fixture_profile("iperf_udp_nthr1_aep.cmd")
    ours = throughput_profile("10.200.0.1", threads=1, protocol="udp")
    assert as_uperf_sees_it(ours.xml, ours.env) == as_uperf_sees_it(xml, env)
    xml, env = fixture_profile("iperf_tcp_nthr2_a_raw.cmd")
    ours = throughput_profile("10.200.0.1", threads=2)
    assert as_uperf_sees_it(ours.xml, ours.env) == as_uperf_sees_it(xml, env)


def test_the_xml_is_all_lower_case_and_all_values_are_variables() -> None:
    for profile in (latency_profile("Host-A.example"), throughput_profile("fe80::1%eth0")):
        assert profile.xml == profile.xml.lower()  # nothing depends on uperf's lower-casing
        refs = set(re.findall(r"\$([a-z_][a-z0-9_]*)", profile.xml))
        assert refs == set(profile.env)  # every reference is set, nothing extra is passed
        assert all(name == name.lower() for name in profile.env)
        assert all(value for value in profile.env.values())  # uperf rejects empty values
        # The host's case survives: only the profile is lower-cased, not the environment.
        assert profile.env["h"] in ("Host-A.example", "fe80::1%eth0")
        assert "example" not in profile.xml and "fe80" not in profile.xml


def test_environment_values() -> None:
    p = throughput_profile(
        "server.lan", protocol="udp", size="1400", count=4, threads=3, duration_s=30, wndsz="1m"
    )
    assert p.env == {
        "h": "server.lan",
        "proto": "udp",
        "nthr": "3",
        "dur": "30s",
        "size": "1400",
        "count": "4",
        "wndsz": "1m",
    }
    assert "count" not in latency_profile("server.lan").env


def test_nodelay_flag() -> None:
    assert "tcp_nodelay" in latency_profile("h1").xml
    assert "tcp_nodelay" not in latency_profile("h1", nodelay=False).xml
    assert "tcp_nodelay" not in throughput_profile("h1", nodelay=False).xml


def test_custom_variable_names() -> None:
    names = ProfileVars(host="pb_host", protocol="pb_proto", threads="pb_nthr")
    p = latency_profile("h1", variables=names)
    assert "$pb_host" in p.xml and "$h " not in p.xml
    assert {"pb_host", "pb_proto", "pb_nthr"} <= set(p.env)
    assert DEFAULT_VARS.host == "h"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"host": "H"},
        {"host": "1x"},
        {"host": "a-b"},
        {"host": "a b"},
        {"host": ""},
        {"host": 'h"'},
        {"host": "h", "protocol": "h"},
    ],
)
def test_bad_variable_names_are_refused(kwargs: dict[str, str]) -> None:
    with pytest.raises(ParamError):
        ProfileVars(**kwargs)


@pytest.mark.parametrize(
    "host",
    [
        "",
        " 10.0.0.1",
        "10.0.0.1 ",
        "a b",
        'x" protocol="udp',
        "x'><flowop type='accept'/>",
        "x&amp;y",
        "$h",
        "$(reboot)",
        "`id`",
        "host;rm -rf /",
        "line\nbreak",
        "tab\there",
        "-P",
        "ä.example",
        "a" * 300,
    ],
)
def test_hostile_hosts_are_refused(host: str) -> None:
    for build in (latency_profile, throughput_profile):
        with pytest.raises(ParamError):
            build(host)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"protocol": "sctp"},
        {"protocol": "TCP"},
        {"protocol": 'tcp"'},
        {"size": "0"},
        {"size": "-1"},
        {"size": "8kb"},
        {"size": "1e3"},
        {"size": "8 k"},
        {"size": "$size"},
        {"size": "4g"},  # > 2 GiB - 1: uperf's int
        {"size": "65508", "protocol": "udp"},  # larger than a UDP datagram
        {"wndsz": "0"},
        {"wndsz": "1t"},
        {"threads": 0},
        {"threads": 1025},
        {"threads": True},
        {"threads": "2"},
        {"duration_s": 0},
        {"duration_s": 86401},
        {"duration_s": 1.5},
        {"name": "Netperf"},
        {"name": 'x"'},
        {"name": "a b"},
        {"name": ""},
        {"name": "<x>"},
    ],
)
def test_hostile_values_are_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ParamError):
        latency_profile("h1", **kwargs)
    with pytest.raises(ParamError):
        throughput_profile("h1", **kwargs)


@pytest.mark.parametrize("count", [0, -1, 1_000_001, True])
def test_bad_counts_are_refused(count: Any) -> None:
    with pytest.raises(ParamError):
        throughput_profile("h1", count=count)


def test_sizes() -> None:
    assert size_bytes("90") == 90
    assert size_bytes("8k") == 8192
    assert size_bytes("8K") == 8192
    assert size_bytes("4m") == 4 * 1024**2
    assert size_bytes("1g") == 1024**3
    assert latency_profile("h1", size="65507", protocol="udp").env["size"] == "65507"


@FUZZ
@given(st.text(max_size=80))
def test_fuzz_any_host_is_refused_or_kept_out_of_the_xml(host: str) -> None:
    try:
        profile = latency_profile(host)
    except ParamError as exc:
        assert str(exc)
        return
    ET.fromstring(profile.xml)
    assert profile.env["h"] == host
    assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._:%-]*", host)


@FUZZ
@given(st.text(max_size=40), st.text(max_size=12), st.text(max_size=12))
def test_fuzz_any_name_and_size_is_refused_or_well_formed(name: str, size: str, wnd: str) -> None:
    try:
        profile = throughput_profile("h1", name=name, size=size, wndsz=wnd)
    except ParamError as exc:
        assert str(exc)
        return
    root = ET.fromstring(profile.xml)
    assert root.attrib["name"] == name == name.lower()
    assert '"' not in name and "<" not in name and "&" not in name
    assert size_bytes(size) >= 1


def test_profile_is_frozen() -> None:
    p = latency_profile("h1")
    assert isinstance(p, Profile)
    with pytest.raises(AttributeError):
        p.xml = "x"  # type: ignore[misc]


# --------------------------------------------------------------------------- the adapter


def test_resolve_fills_the_profile_defaults() -> None:
    assert uperf.resolve({}) == {
        "profile": "latency",
        "protocol": "tcp",
        "size": "90",
        "count": "10",
        "threads": "1",
        "wndsz": "50k",
        "nodelay": "true",
        "duration": "10",
        "interval": "1",
    }
    t = uperf.resolve({"profile": "throughput", "protocol": "UDP"})
    assert (t["size"], t["threads"], t["wndsz"], t["protocol"]) == ("8k", "8", "500k", "udp")
    assert uperf.resolve(t) == t  # idempotent: the engine resolves again
    given = {"profile": "throughput", "size": "64k", "threads": "4", "wndsz": "1m"}
    r = uperf.resolve(given)
    assert (r["size"], r["threads"], r["wndsz"]) == ("64k", "4", "1m")


@pytest.mark.parametrize(
    "given",
    [
        {"profile": "rr"},
        {"protocol": "sctp"},
        {"size": "x"},
        {"size": "70000", "protocol": "udp"},
        {"threads": "2000"},
        {"duration": "0"},
        {"count": "0"},
        {"nodelay": "maybe"},
        {"bogus": "1"},
        {"wndsz": "3g"},
        {"interval": "0.05"},  # below 0.1 s uperf 1.0.8 can stall a timed transaction
        {"interval": "11"},  # uperf's own bound (params.report_interval's high=10)
        {"interval": "1m"},  # minutes or uperf's milliseconds? neither: refused
    ],
)
def test_resolve_refuses(given: dict[str, str]) -> None:
    with pytest.raises(ParamError):
        uperf.resolve(given)


def test_commands_latency() -> None:
    cmds = uperf.commands(uperf.resolve({}), CAPS, CTX)
    assert cmds.server == ["uperf", "-s", "-P", "20000"]
    assert cmds.client == [
        "uperf",
        "-m",
        "/tmp/pairbench.AbC123/profile.xml",
        "-R",
        "-i",
        "1s",
        "-a",
        "-P",
        "20000",
    ]
    assert set(cmds.files) == {"profile.xml"}
    assert cmds.env == {
        "h": "10.200.0.1",
        "proto": "tcp",
        "nthr": "1",
        "dur": "10s",
        "size": "90",
        "wndsz": "50k",
    }
    assert cmds.run_on == "client"
    assert as_uperf_sees_it(cmds.files["profile.xml"], cmds.env) == as_uperf_sees_it(
        latency_profile("10.200.0.1").xml, latency_profile("10.200.0.1").env
    )


@pytest.mark.parametrize(
    ("interval", "option"),
    [
        ("1", "1s"),
        ("1.0", "1s"),
        ("0.1", "100m"),
        ("0.25", "250m"),
        ("1.5", "1500m"),
        ("10", "10s"),
        ("1s", "1s"),
        ("100ms", "100m"),
    ],
)
def test_the_interval_is_uperfs_i_in_seconds_or_milliseconds(interval: str, option: str) -> None:
    # uperf's -i: a number with s (seconds) or m (milliseconds: string_to_nsec, numbers.c)
    cmds = uperf.commands(uperf.resolve({"interval": interval}), CAPS, CTX)
    assert cmds.client[cmds.client.index("-i") + 1] == option


def test_commands_throughput_on_another_port() -> None:
    ctx = CommandContext(target="server.lan", port=20003, workdir="/tmp/pairbench.x/")
    params = uperf.resolve({"profile": "throughput", "threads": "2", "duration": "30"})
    cmds = uperf.commands(params, CAPS, ctx)
    assert cmds.server == ["uperf", "-s", "-P", "20003"]
    assert cmds.client[:3] == ["uperf", "-m", "/tmp/pairbench.x/profile.xml"]
    assert cmds.client[-2:] == ["-P", "20003"]
    assert cmds.env["nthr"] == "2" and cmds.env["dur"] == "30s" and cmds.env["count"] == "10"
    assert "count=$count size=$size" in cmds.files["profile.xml"]


def test_commands_without_a_workdir_and_with_a_bad_target() -> None:
    # The engine asks once with no work directory, only to learn where the run happens.
    cmds = uperf.commands(uperf.resolve({}), CAPS, CommandContext("10.0.0.1", 20000, ""))
    assert cmds.client[1:3] == ["-m", "profile.xml"] and cmds.run_on == "client"
    with pytest.raises(ParamError):
        uperf.commands(uperf.resolve({}), CAPS, CommandContext("a b", 20000, "/tmp/pairbench.x"))


def test_parser_is_told_the_profile() -> None:
    lat = uperf.parser(uperf.resolve({}), CAPS)
    assert isinstance(lat, UperfTextParser)
    thr = uperf.parser(uperf.resolve({"profile": "throughput", "count": "4"}), CAPS)
    lines = [
        "timestamp_ms:0.0 name:Txn2 nr_bytes:0 nr_ops:0",
        "timestamp_ms:1000.0 name:Txn2 nr_bytes:8192000 nr_ops:1000",
    ]
    # Latency: 1 thread, write + read per iteration: 1 s * 2 / 1000 ops = 2000 µs.
    assert [lat.feed(x) for x in lines][1][0].values[2] == pytest.approx(2000.0)
    # Throughput: 8 threads, 4 writes per iteration: 8 * 1 s * 4 / 1000 ops = 32000 µs.
    assert [thr.feed(x) for x in lines][1][0].values[2] == pytest.approx(32000.0)


def test_the_tool_entry() -> None:
    tool = uperf.TOOL
    assert tool.name == "uperf"
    assert tool.debian_package == "uperf"
    assert "https://github.com/uperf/uperf" in tool.install_hint
    assert tool.version_argv == ["uperf", "-V"]
    assert tool.server_ready_text is None
    assert tool.default_port == 20000
    assert tool.needs_workdir is True
    assert tool.params is uperf.PARAMS
    assert tool.expected_seconds(uperf.resolve({"duration": "30"})) == 33.0


def test_capabilities_from_uperf_v() -> None:
    text = fixture_path("uperf", "version.out").read_text(encoding="utf-8")
    caps = uperf.capabilities(text)
    assert caps.version == "Uperf Version 1.0.8"
    assert caps.version_tuple == (1, 0, 8)
    assert uperf.capabilities("").version_tuple == ()
