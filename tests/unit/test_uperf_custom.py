"""A uperf profile of the user's: checked as uperf reads it, its variables filled from the pair
and the parameters, its run's shape, the parameters that carry it, the CLI that reads it, and
its output stored whole (issue 27 §2: uperf's connect.xml parsed to one zero)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.library.runs import list_runs
from pairbench.services.library import open_library
from pairbench.services.uperf_profiles import (
    check_profile_text,
    profile_file_params,
    read_profile,
)
from pairbench.tools.base import Capabilities, CommandContext, ParamError
from pairbench.tools.feed import feed_text
from pairbench.tools.registry import TOOLS
from pairbench.tools.uperf_custom import ProfileError, parse_profile
from pairbench.tools.uperf_custom_run import parse_vars, profile_env, profile_lines, run_shape
from pairbench.tools.uperf_text import UperfTextParser

UPERF = TOOLS["uperf"]
CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures" / "uperf"
CAPS = Capabilities("Uperf Version 1.0.8")

# The shape of uperf's workloads/netperf.xml and iperf.xml, written here: request/response and
# bulk writes, each between a connect and a disconnect transaction.
RR = """<?xml version="1.0"?>
<profile name="Request-Response">
  <group nthreads="$nthr">
    <transaction iterations="1">
      <flowop type="connect" options="remotehost=$h protocol=$proto
              wndsz=50k tcp_nodelay"/>
    </transaction>
    <transaction duration="$dur">
      <flowop type="write" options="size=$size"/>
      <flowop type="read" options="size=$size"/>
    </transaction>
    <transaction iterations="1">
      <flowop type="disconnect" />
    </transaction>
  </group>
</profile>
"""
CONNECT = """<?xml version="1.0"?>
<profile name="open-close">
  <group nthreads="$nthr">
    <transaction iterations="$iter">
      <flowop type="connect" options="remotehost=$h protocol=tcp"/>
      <flowop type="disconnect"/>
    </transaction>
  </group>
</profile>
"""


def wrap(flowops: str, attrs: str = 'iterations="1"') -> str:
    return (
        f'<profile name="p"><group nthreads="1"><transaction {attrs}>{flowops}'
        "</transaction></group></profile>"
    )


# --------------------------------------------------------------------------- reading


def test_a_profile_as_uperf_reads_it() -> None:
    profile = parse_profile(RR)
    assert profile.name == "request-response"  # uperf lower-cases the whole profile
    [group] = profile.groups
    assert group.threads == "$nthr"
    assert [t.iterations or t.duration for t in group.transactions] == ["1", "$dur", "1"]
    connect = group.transactions[0].flowops[0]
    assert connect.type == "connect"
    assert connect.options == (
        ("remotehost", "$h"),
        ("protocol", "$proto"),
        ("wndsz", "50k"),
        ("tcp_nodelay", ""),
    )
    assert profile.variables() == {
        "nthr": "nthreads",
        "h": "remotehost",
        "proto": "protocol",
        "dur": "duration",
        "size": "size",
    }
    assert profile.host_variables() == {"h"}
    assert profile_lines(profile) == [
        "profile request-response: 1 group(s)",
        "  group 1: nthreads=$nthr",
        "    txn1 iterations=1: connect",
        "    txn2 duration=$dur: write, read",
        "    txn3 iterations=1: disconnect",
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<profile><group nthreads='1'>", "double-quoted"),
        ('<profile name="a"><group', "not well-formed XML"),
        ('<!DOCTYPE p [<!ENTITY x "y">]><profile name="&x;"/>', "DOCTYPE"),
        ('<profile name="a&amp;b"/>', "without XML entities"),
        ('<workload name="a"/>', "a uperf profile is <profile>"),
        ('<profile name="a"/>', "without a group"),
        ('<profile name="a"><job/></profile>', "<job> is not uperf's here"),
        ('<profile name="a">words<group nthreads="1"/></profile>', "text 'words'"),
        ('<profile name="a" owner="me"/>', "no attribute 'owner' on <profile>"),
        ('<profile name="a"><group><transaction/></group></profile>', "needs nthreads"),
        ('<profile name="a"><group nthreads="1"/></profile>', "without a transaction"),
        (wrap(""), "without a flowop"),
        (wrap('<flowop type="wait"/>'), "type='wait'"),
        (wrap("<flowop/>"), "no type"),
        (wrap('<flowop type="read" options="size=1 speed=9"/>'), "no option 'speed'"),
        (wrap('<flowop type="read" options="fast"/>'), "'fast' is not an option"),
        (wrap('<flowop type="read" options="size=1 -x"/>'), "uperf would ignore it"),
        (wrap('<flowop type="connect" options="remotehost=10.0.0.9"/>'), "write a variable"),
        (wrap('<flowop type="connect" options="remotehost=$h localhost=$l"/>'), "localhost"),
        (wrap('<flowop type="sendfile" options="dir=/etc"/>'), "dir"),
        (wrap('<flowop type="connect" options="remotehost=$h protocol=udapl"/>'), "udapl"),
        (wrap('<flowop type="read" options="size=$a-b"/>'), "a variable name"),
        (wrap('<flowop type="read"/>', 'iterations="2" duration="1s"'), "not both"),
        (wrap('<flowop type="read"><x/></flowop>'), "holds nothing"),
        ("<profile>" + " " * 70000 + "</profile>", "longer than 64 KiB"),
        ('<profile name="a\x00"/>', "NUL"),
    ],
)
def test_what_uperf_would_refuse_or_read_otherwise_is_refused(text: str, message: str) -> None:
    with pytest.raises(ProfileError, match=message.replace("(", r"\(").replace("$", r"\$")):
        parse_profile(text)


def test_comments_and_the_xml_declaration_are_allowed() -> None:
    # uperf skips them whole (single quotes in them too); elsewhere it reads double quotes only.
    text = "<?xml version='1.0'?><!-- it's mine -->" + wrap('<flowop type="nop"/><!-- x -->')
    assert parse_profile(text).groups[0].transactions[0].flowops[0].type == "nop"
    with pytest.raises(ProfileError, match="line 2: uperf reads only double-quoted"):
        parse_profile("<!-- a -->\n" + wrap("<flowop type='nop'/>"))


# --------------------------------------------------------------------------- variables


def test_variables_come_from_the_pair_the_parameters_and_profile_vars() -> None:
    profile = parse_profile(RR)
    params = {"protocol": "udp", "threads": "0", "duration": "3", "size": "1k"}
    env = profile_env(profile, params, "10.1.2.3")
    assert env == {"h": "10.1.2.3", "proto": "udp", "nthr": "1", "dur": "3s", "size": "1k"}
    with pytest.raises(ProfileError, match=r"uses \$size \(in its size\): set the size"):
        profile_env(profile, {**params, "size": "0"}, "h")
    connect = parse_profile(CONNECT)
    with pytest.raises(ProfileError, match=r"\$iter \(in its iterations\).*profile_vars=iter="):
        profile_env(connect, {"threads": "2"}, "h")
    env = profile_env(connect, {"threads": "2", "profile_vars": "iter=100"}, "h")
    assert env == {"h": "h", "nthr": "2", "iter": "100"}
    with pytest.raises(ProfileError, match=r"does not use \$itr"):
        profile_env(connect, {"profile_vars": "iter=1 itr=2"}, "h")
    with pytest.raises(ProfileError, match="pair's server address"):
        profile_env(connect, {"profile_vars": "iter=1 h=10.0.0.1"}, "h")
    with pytest.raises(ProfileError, match="set threads instead"):
        profile_env(connect, {"profile_vars": "iter=1 nthr=4"}, "h")


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("", {}),
        ("iter=100", {"iter": "100"}),
        (" ITER=1,conn=4  x_y=a.b:c ", {"iter": "1", "conn": "4", "x_y": "a.b:c"}),
    ],
)
def test_profile_vars(text: str, parsed: dict[str, str]) -> None:
    assert parse_vars(text) == parsed


@pytest.mark.parametrize(
    "text", ["iter", "=1", "iter=", "iter=a b'", "x=$(reboot)", "x=a;b", "x=`id`", "a=1 a=2"]
)
def test_profile_vars_refused(text: str) -> None:
    with pytest.raises(ProfileError, match="profile_vars"):
        parse_vars(text)


# --------------------------------------------------------------------------- the run's shape


def test_the_timed_transaction_threads_length_and_operations() -> None:
    rr = run_shape(parse_profile(RR), {"nthr": "3", "dur": "500m", "size": "90", "proto": "tcp"})
    assert (rr.threads, rr.main_txn, rr.ops_per_iteration, rr.udp) == (3, 2, 2, False)
    assert rr.seconds == pytest.approx(0.5)  # uperf's "m" is milliseconds
    connect = run_shape(parse_profile(CONNECT), {"nthr": "2", "iter": "5"})
    assert (connect.main_txn, connect.ops_per_iteration, connect.seconds) == (None, None, 0.0)
    bulk = wrap('<flowop type="write" options="count=10 size=8k protocol=udp"/>', 'duration="2s"')
    shape = run_shape(parse_profile(bulk), {})
    assert (shape.main_txn, shape.ops_per_iteration, shape.udp, shape.seconds) == (1, 10, True, 2)
    think = wrap(
        '<flowop type="write"/><flowop type="think" options="duration=1ms"/>', 'duration="1"'
    )
    assert run_shape(parse_profile(think), {}).ops_per_iteration is None
    two = RR.replace("</group>", "</group>" + RR.split("<profile", 1)[1].split(">", 1)[1][:-11])
    shape = run_shape(parse_profile(two), {"nthr": "2", "dur": "1s", "size": "1", "proto": "tcp"})
    assert (shape.threads, shape.main_txn, shape.ops_per_iteration) == (4, 2, None)
    with pytest.raises(ProfileError, match="1100 threads; at most 1024"):
        run_shape(parse_profile(two), {"nthr": "550", "dur": "1", "size": "1", "proto": "tcp"})
    with pytest.raises(ProfileError, match="nthreads='x'"):
        run_shape(parse_profile(CONNECT), {"nthr": "x", "iter": "1"})


# --------------------------------------------------------------------------- the tool


def test_resolve_keeps_what_applies_to_the_profile_and_is_idempotent() -> None:
    resolved = UPERF.resolve({"profile_xml": CONNECT, "profile_vars": "iter=50", "threads": "2"})
    assert resolved == {
        "profile_file": "profile.xml",
        "profile_xml": CONNECT,
        "profile_vars": "iter=50",
        "interval": "1",
        "threads": "2",
    }
    assert UPERF.resolve(resolved) == resolved
    rr = UPERF.resolve({"profile_file": "rr.xml", "profile_xml": RR, "size": "90"})
    assert set(rr) == {
        "profile_file",
        "profile_xml",
        "profile_vars",
        "interval",
        "protocol",
        "threads",
        "duration",
        "size",
    }
    assert rr["threads"] == "1" and rr["protocol"] == "tcp" and rr["duration"] == "10"


def test_resolve_refuses_what_the_profile_decides() -> None:
    with pytest.raises(ParamError, match="count, profile, size: set in the profile"):
        UPERF.resolve(
            {"profile_xml": CONNECT, "profile_vars": "iter=1", "size": "8k", "count": "3",
             "profile": "throughput"}
        )  # fmt: skip
    with pytest.raises(ParamError, match="needs the profile's text"):
        UPERF.resolve({"profile_file": "mine.xml"})
    with pytest.raises(ParamError, match="profile_vars applies only with a profile file"):
        UPERF.resolve({"profile_vars": "iter=1"})
    with pytest.raises(ParamError, match="--set profile_file=PATH"):
        UPERF.resolve({"profile": "workloads-netperf"})
    with pytest.raises(ParamError, match="a file name"):
        UPERF.resolve({"profile_file": "../x.xml", "profile_xml": CONNECT})


def test_commands_upload_the_profile_and_fill_its_variables_in_the_environment() -> None:
    params = UPERF.resolve({"profile_file": "open.xml", "profile_xml": CONNECT,
                            "profile_vars": "iter=7", "threads": "2"})  # fmt: skip
    commands = UPERF.commands(params, CAPS, CommandContext("10.9.8.7", 20123, "/tmp/pb.w"))
    assert commands.files == {"open.xml": CONNECT}  # as written: uperf reads it itself
    assert commands.env == {"h": "10.9.8.7", "nthr": "2", "iter": "7"}
    assert commands.client == [
        "uperf", "-m", "/tmp/pb.w/open.xml", "-R", "-i", "1s", "-a", "-P", "20123",
    ]  # fmt: skip
    assert commands.server == ["uperf", "-s", "-P", "20123"]
    with pytest.raises(ParamError, match="not a host name"):
        UPERF.commands(params, CAPS, CommandContext("$(reboot)", 1, "/w"))
    # uperf's own options apply to every profile
    fast = UPERF.resolve({**params, "interval": "0.2"})
    assert fast["interval"] == "0.2"
    client = UPERF.commands(fast, CAPS, CommandContext("10.9.8.7", 20123, "/tmp/pb.w")).client
    assert client[client.index("-i") + 1] == "200m"
    assert UPERF.expected_seconds(params) == pytest.approx(3.0)  # no timed transaction
    rr = UPERF.resolve({"profile_xml": RR, "size": "90", "duration": "4"})
    assert UPERF.expected_seconds(rr) == pytest.approx(4.0 + 3.0)


# --------------------------------------------------------------------------- its output


def test_a_profile_without_a_timed_transaction_keeps_every_figure() -> None:
    # The case: uperf's connect.xml (one iterations transaction) parsed to
    # {"total_throughput_bps": 0.0}, "complete", dropping every operation, the transaction's
    # mean time and the connect/disconnect times. Here a profile of that shape, run live.
    text = (CAPTURES / "profile_connect_t2_R_i1s_a.out").read_text()
    params = UPERF.resolve({"profile_xml": CONNECT, "profile_vars": "iter=1500", "threads": "2"})
    parser = UPERF.parser(params, CAPS)
    assert isinstance(parser, UperfTextParser)
    records, summary = feed_text(parser, text)
    assert summary.complete is True and summary.error is None and summary.reason is None
    values = summary.values
    # Txn0                3000    152.50us      0.00ns     32.47ms     33.84us
    assert (values["txn1_count"], values["txn1_avg_us"]) == (3000, 152.50)
    assert (values["txn1_max_us"], values["txn1_min_us"]) == (32.47e3, 33.84)
    # connect             3000    126.12us ...   disconnect          3000     23.89us ...
    assert (values["connect_count"], values["connect_avg_us"]) == (3000, 126.12)
    assert (values["disconnect_count"], values["disconnect_avg_us"]) == (3000, 23.89)
    # master             1.31s          0            0         6002        0.00
    assert (values["master_ops_count"], values["master_time_s"]) == (6002, 1.31)
    # timestamp_ms:1795832553010.8149 name:Txn1 nr_bytes:0 nr_ops:5412 (its last raw line)
    assert (values["txn1_bytes"], values["txn1_ops_count"]) == (0, 5412)
    # no timed transaction: no headline that would pretend to be one
    assert "throughput_bps" not in values and "latency_avg_us" not in values
    assert {r.stream for r in records} == {"txn1"}


# --------------------------------------------------------------------------- services and CLI


def test_read_profile_and_profile_file_params(tmp_path: Path) -> None:
    path = tmp_path / "open close.xml"
    path.write_text(CONNECT.replace("\n", "\r\n"), encoding="utf-8")
    profile = read_profile(path)
    assert profile.name == "open_close.xml" and profile.text == CONNECT
    assert profile.lines[0] == "profile open-close: 1 group(s)"
    for key in ("profile_file", "profile"):
        params, read = profile_file_params({key: str(path), "threads": "2"})
        assert read == profile
        assert params == {"profile_file": "open_close.xml", "profile_xml": CONNECT, "threads": "2"}
    again, _ = profile_file_params(params)  # a stored run's (run again): no file read
    assert again == params
    assert profile_file_params({"profile": "latency"}) == ({"profile": "latency"}, None)
    with pytest.raises(ProfileError, match="give the profile file once"):
        profile_file_params({"profile": str(path), "profile_file": str(path)})
    with pytest.raises(ProfileError, match=r"cannot read profile .*missing\.xml"):
        read_profile(tmp_path / "missing.xml")
    binary = tmp_path / "bin.xml"
    binary.write_bytes(b"<profile name='\xff'/>")
    with pytest.raises(ProfileError, match="not UTF-8"):
        read_profile(binary)
    assert check_profile_text(RR, "").name == "profile.xml"


def _cli(library: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library)})
    return run_cli(list(argv), env), out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("profile", "vars_", "error"),
    [
        (wrap('<flowop type="wait"/>'), "", "type='wait'"),
        (CONNECT, "", r"uses \$iter"),
        (CONNECT, "iter=1 x=$(reboot)", "profile_vars"),
    ],
)
def test_cli_refuses_a_bad_profile_before_anything_is_stored(
    tmp_path: Path, profile: str, vars_: str, error: str
) -> None:
    library = tmp_path / "lib.sqlite"
    path = tmp_path / "bad.xml"
    path.write_text(profile)
    args = ["run", "--pair", "local", "--tool", "uperf", "--set", f"profile={path}"]
    status, out, err = _cli(library, *args, "--set", f"profile_vars={vars_}")
    assert status == 1
    assert err.count("\n") == 1 and err.startswith("pairbench: ")
    assert re.search(error, err), err
    assert "Traceback" not in err + out
    with open_library(library) as lib:
        assert list_runs(lib) == []
