"""Tests of the ping adapter and its parser against the real iputils captures (tests/data)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairbench.domain import Record, Summary
from pairbench.tools import ping
from pairbench.tools.base import Capabilities, CommandContext, ParamError, ParseError, Parser
from pairbench.tools.ping_text import RTT, PingTextParser, parse_text_output
from parser_checks import (
    assert_records_well_formed,
    feed_all,
    feed_garbage,
    fixture_names,
    fixture_path,
    fixture_text,
    series_of,
    split_lines,
)

TOOL = "ping"
FIXTURES = fixture_names(TOOL)
INTERVAL = {  # the -i of each capture (see its .cmd)
    "c20_s1400_i02.out": 0.2,
    "c20_s1400_i02_D.out": 0.2,
    "c20_s1400_i02_quiet.out": 0.2,
    "err_host_unreachable.out": 0.5,
}
CAPS = Capabilities(version="ping from iputils 20221126", version_tuple=(20221126,))
CTX = CommandContext("10.200.0.1", 0)

FUZZ = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def parse(name: str, interval: float | None = None) -> tuple[list[Record], Summary]:
    records, summary = parse_text_output(
        fixture_text(TOOL, name), INTERVAL[name] if interval is None else interval
    )
    assert_records_well_formed(records)
    assert all(r.stream == "sum" and r.metrics is RTT for r in records)
    return records, summary


def rtts(records: list[Record]) -> list[float]:
    return [r.values[0] for r in records]


def times(records: list[Record]) -> list[float]:
    return [r.t for r in records]


def make(interval: float = 1.0) -> PingTextParser:
    return PingTextParser(interval)


def test_every_fixture_is_covered() -> None:
    assert sorted(INTERVAL) == FIXTURES


# --------------------------------------------------------------------------- golden


def test_c20_s1400_i02() -> None:
    records, summary = parse("c20_s1400_i02.out")
    assert rtts(records) == [
        0.048, 0.074, 0.072, 0.074, 0.071, 0.062, 0.075, 0.072, 0.073, 0.069,
        0.071, 0.072, 0.071, 0.071, 0.068, 0.067, 0.071, 0.072, 0.073, 0.078,
    ]  # fmt: skip
    # No -D: icmp_seq k ends its interval at k * 0.2 s.
    assert times(records) == [k / 5 for k in range(1, 21)]  # 0.2, 0.4, 0.6, ... 4.0
    assert summary == Summary(
        values={
            "packets": 20,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.048,
            "rtt_avg_ms": 0.070,
            "rtt_max_ms": 0.078,
            "rtt_mdev_ms": 0.006,
        },
        complete=True,
        error=None,
        form="text",
    )


def test_c20_s1400_i02_d() -> None:
    records, summary = parse("c20_s1400_i02_D.out")
    assert rtts(records) == [
        0.063, 0.072, 0.069, 0.068, 0.081, 0.070, 0.063, 0.071, 0.062, 0.069,
        0.067, 0.069, 0.071, 0.070, 0.075, 0.074, 0.070, 0.071, 0.096, 0.066,
    ]  # fmt: skip
    # -D: the first reply (seq 1) ends at 1 * 0.2 s, the others follow their timestamps:
    # [1795300404.966802] ... [1795300405.170303] ... [1795300408.842251].
    t = times(records)
    assert t[:3] == [0.2, 0.403501, 0.607504]
    assert t[-1] == 4.075449  # 0.2 + 3.875449
    assert all(a < b for a, b in itertools.pairwise(t))
    assert summary.complete is True
    assert summary.error is None
    assert summary.form == "text -D"
    assert summary.values == {
        "packets": 20,
        "lost_packets": 0,
        "lost_percent": 0,
        "rtt_min_ms": 0.062,
        "rtt_avg_ms": 0.070,
        "rtt_max_ms": 0.096,
        "rtt_mdev_ms": 0.007,
    }


def test_d_times_with_the_default_interval() -> None:
    # A saved file parsed without knowing its -i (pairbench parse): 1 s, ping's default.
    records, _ = parse("c20_s1400_i02_D.out", interval=1.0)
    assert times(records)[0] == 1.0
    assert times(records)[-1] == 4.875449


def test_c20_s1400_i02_quiet() -> None:
    records, summary = parse("c20_s1400_i02_quiet.out")
    assert records == []
    assert summary == Summary(
        values={
            "packets": 20,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.058,
            "rtt_avg_ms": 0.066,
            "rtt_max_ms": 0.108,
            "rtt_mdev_ms": 0.010,
        },
        # -q: ping's statistics are all there, but no per-reply times: said, not silent.
        complete=False,
        error=None,
        form="quiet",
        reason="ping -q prints no per-reply lines: no rtt_ms series "
        "(the summary has ping's own statistics)",
    )


def test_err_host_unreachable() -> None:
    records, summary = parse("err_host_unreachable.out")
    assert records == []
    assert summary.error == "Destination Host Unreachable"
    assert summary.complete is True  # ping's statistics were printed; there is no rtt line
    assert summary.values == {
        "packets": 6,  # -c 5 -w 6: ping went on sending until the deadline
        "lost_packets": 6,
        "icmp_errors": 6,
        "lost_percent": 100,
    }


@pytest.mark.parametrize("name", FIXTURES)
def test_feed_all_equals_parse_text_output(name: str) -> None:
    lines = fixture_text(TOOL, name).split("\n")
    assert feed_all(make(INTERVAL[name]), lines) == parse(name)


# --------------------------------------------------------------------------- synthetic lines

HEADER = "PING 10.0.0.1 (10.0.0.1) 56(84) bytes of data."


def reply(seq: int, rtt: str, epoch: str | None = None, tail: str = "") -> str:
    prefix = f"[{epoch}] " if epoch else ""
    return f"{prefix}64 bytes from 10.0.0.1: icmp_seq={seq} ttl=64 time={rtt} ms{tail}"


def test_partial_loss_duplicates_and_errors_counters() -> None:
    lines = [
        HEADER,
        reply(1, "0.051"),
        reply(1, "0.060", tail=" (DUP!)"),
        reply(3, "12.3"),
        "",
        "--- 10.0.0.1 ping statistics ---",
        "3 packets transmitted, 2 received, +1 duplicates, +1 errors, 33.3333% packet loss, "
        "time 2003ms",
        "rtt min/avg/max/mdev = 0.051/6.175/12.300/6.124 ms",
    ]
    records, summary = feed_all(make(), lines)
    assert records == [Record("sum", 1.0, RTT, (0.051,)), Record("sum", 3.0, RTT, (12.3,))]
    assert summary == Summary(
        values={
            "packets": 3,
            "lost_packets": 1,
            "duplicate_packets": 1,
            "icmp_errors": 1,
            "lost_percent": 33.3333,
            "rtt_min_ms": 0.051,
            "rtt_avg_ms": 6.175,
            "rtt_max_ms": 12.3,
            "rtt_mdev_ms": 6.124,
        },
        complete=True,
        error=None,
        form="text",
    )


def test_total_loss_without_icmp_errors_says_packet_loss() -> None:
    lines = [
        HEADER,
        "",
        "--- 10.0.0.1 ping statistics ---",
        "4 packets transmitted, 0 received, 100% packet loss, time 3062ms",
        "",
    ]
    records, summary = feed_all(make(), lines)
    assert records == []
    assert summary.error == "100% packet loss"
    assert summary.complete is True
    assert summary.values == {"packets": 4, "lost_packets": 4, "lost_percent": 100}


def test_some_icmp_errors_with_replies_are_no_error() -> None:
    lines = [
        HEADER,
        "From 10.0.0.254 icmp_seq=1 Destination Host Unreachable",
        reply(2, "0.050"),
        "2 packets transmitted, 1 received, +1 errors, 50% packet loss, time 1001ms",
        "rtt min/avg/max/mdev = 0.050/0.050/0.050/0.000 ms",
    ]
    summary = feed_all(make(), lines)[1]
    assert summary.error is None
    assert summary.values["lost_percent"] == 50


def test_ping_own_errors() -> None:
    # iputils 20221126 on this machine: `ping -n -c 1 nonexistent.invalid` (exit status 2).
    summary = feed_all(make(), ["ping: nonexistent.invalid: Name or service not known"])[1]
    assert summary == Summary(
        values={}, complete=False, error="nonexistent.invalid: Name or service not known"
    )
    warning = "ping: Warning: source address might be selected on device other than: eth0"
    assert feed_all(make(), [warning])[1].error is None


def test_replies_without_time_give_no_records() -> None:
    # iputils 20221126 on this machine: `ping -n -c 2 -s 8 127.0.0.1` (no room for a timestamp).
    lines = [
        "PING 127.0.0.1 (127.0.0.1) 8(36) bytes of data.",
        "16 bytes from 127.0.0.1: icmp_seq=1 ttl=64",
        "16 bytes from 127.0.0.1: icmp_seq=2 ttl=64",
        "",
        "--- 127.0.0.1 ping statistics ---",
        "2 packets transmitted, 2 received, 0% packet loss, time 1014ms",
        "",
    ]
    records, summary = feed_all(make(), lines)
    assert records == []
    assert summary == Summary(
        values={"packets": 2, "lost_packets": 0, "lost_percent": 0},
        complete=False,
        error=None,
        form="text",
        reason="ping printed no times (a payload under 16 bytes, -s): no rtt_ms series or rtt",
    )


def test_names_ipv6_and_trailing_whitespace() -> None:
    lines = [
        "64 bytes from localhost (127.0.0.1): icmp_seq=1 ttl=64 time=0.031 ms  \r",
        "64 bytes from ::1: icmp_seq=2 ttl=64 time=0.029 ms",
        "[1795307889.387779] 64 bytes from fe80::1%eth0: icmp_seq=3 ttl=64 time=1.05 ms\r\n",
    ]
    records = feed_all(make(0.5), lines)[0]
    assert rtts(records) == [0.031, 0.029, 1.05]
    assert times(records) == [0.5, 1.0, 1.5]  # the first -D reply anchors at 3 * 0.5


def test_truncated_output_summary_comes_from_the_replies() -> None:
    text = fixture_text(TOOL, "c20_s1400_i02.out")
    cut = text.index("1408 bytes from 10.200.0.1: icmp_seq=4 ")
    records, summary = parse_text_output(text[:cut], 0.2)
    assert rtts(records) == [0.048, 0.074, 0.072]
    assert summary.complete is False
    assert summary.error is None
    assert summary.values == {
        "rtt_min_ms": 0.048,
        "rtt_avg_ms": pytest.approx((0.048 + 0.074 + 0.072) / 3),
        "rtt_max_ms": 0.074,
        "rtt_mdev_ms": pytest.approx(0.011813363431112895),
    }


def test_icmp_errors_only_in_a_truncated_output_are_the_error() -> None:
    lines = [HEADER, "From 10.0.0.2 icmp_seq=1 Destination Host Unreachable"]
    assert feed_all(make(), lines)[1] == Summary(
        values={}, complete=False, error="Destination Host Unreachable", form="text"
    )


def test_times_strictly_increase_reordered_replies_are_dropped() -> None:
    parser = make(0.2)
    out = [r for line in (reply(1, "1"), reply(3, "1"), reply(2, "5")) for r in parser.feed(line)]
    assert times(out) == [0.2, 0.6]
    assert parser.dropped_replies == 1
    # With -D the timestamps decide: an equal timestamp gives no second record.
    parser = make(1.0)
    a = parser.feed(reply(1, "1", "100.000001"))
    b = parser.feed(reply(2, "1", "100.000001"))
    c = parser.feed(reply(3, "1", "100.5"))
    assert (times(a), b, times(c)) == ([1.0], [], [1.499999])


def test_sequence_numbers_wrap_past_65535() -> None:
    parser = make(1.0)
    seqs = [65534, 65535, 0, 1]
    out = [r for seq in seqs for r in parser.feed(reply(seq, "0.05"))]
    assert times(out) == [65534.0, 65535.0, 65536.0, 65537.0]
    assert parser.feed(reply(65533, "0.05")) == []  # a very late reply from before the wrap
    assert times(parser.feed(reply(2, "0.05"))) == [65538.0]


def test_a_new_header_starts_afresh() -> None:
    lines = [HEADER, reply(1, "0.5"), "1 packets transmitted, 1 received, 0% packet loss"]
    lines += [HEADER, reply(1, "0.7")]
    records, summary = feed_all(make(), lines)
    assert times(records) == [1.0, 1.0]
    assert summary.complete is False
    assert summary.values["rtt_max_ms"] == 0.7


@pytest.mark.parametrize(
    "line",
    [
        "64 bytes from 10.0.0.1: icmp_seq=x ttl=64 time=0.05 ms",
        "64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=1.2.3 ms",
        "64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=0.05 ms (DUP!) x",
        "64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=0.05 msec",
        "64 bytes from 10.0.0.1: icmp_seq=" + "9" * 50 + " ttl=64 time=0.05 ms",
        "[1.2] 64 bytes from x: garbage",
    ],
)
def test_malformed_reply_lines_raise_parse_error(line: str) -> None:
    parser = make()
    with pytest.raises(ParseError) as info:
        parser.feed(line)
    assert len(str(info.value)) < 300
    assert parser.feed(reply(1, "0.05")) == [Record("sum", 1.0, RTT, (0.05,))]


@pytest.mark.parametrize(
    "line",
    [
        "",
        HEADER,
        "--- 10.0.0.1 ping statistics ---",
        "pipe 6",
        "WARNING: probably, rcvbuf is not enough to hold preload.",
        "x" * 100_000,
        "64 bytes from " + "x" * 100_000,
        "\x00\x01\xff\ufffd",
    ],
)
def test_chatter_is_ignored(line: str) -> None:
    assert make().feed(line) == []


def test_is_a_parser() -> None:
    parser: Parser = make()
    assert parser.feed(HEADER) == []
    assert parser.close() == Summary(values={}, complete=False, error=None, form="text")
    with pytest.raises(ValueError, match="positive"):
        PingTextParser(0.0)


def test_long_lines_do_not_backtrack() -> None:
    nasty = [
        "64 bytes from " + "a" * 4000 + ": icmp_seq=1",
        "64 bytes from x: icmp_seq=1 ttl=64 time=" + "1" * 3900 + "x",
        "[" + "1" * 4000 + ".1] 64 bytes",
        "From " + " " * 4000 + "x",
        "1 packets transmitted, 1 received" + ", x" * 1300,
    ]
    # Only records or ParseError here; the time they take is bench/parser_worst.py's.
    for _ in range(20):
        feed_garbage(make, nasty)


# --------------------------------------------------------------------------- fuzzing


_PREFIXES = [
    "64 bytes from 10.0.0.1: icmp_seq=",
    "[1795300404.966802] 64 bytes from 10.0.0.1: icmp_seq=1 ttl=64 time=",
    "From 10.0.0.2 icmp_seq=1 ",
    "3 packets transmitted, 2 received",
    "rtt min/avg/max/mdev = ",
    "ping: ",
]
_TOKENS = st.sampled_from(
    [" ", "0", "1.5", "65535", "99999999999", ".", "/", "%", ", ", "+1 errors", "ms", "ttl=64",
     " time=", "(DUP!)", "packet loss", "\r", "\t", "x", "e+02", "١"]
)  # fmt: skip


@FUZZ
@given(
    st.sampled_from(_PREFIXES),
    st.one_of(st.text(max_size=200), st.lists(_TOKENS, max_size=20).map("".join)),
)
def test_fuzz_reply_like_lines(prefix: str, rest: str) -> None:
    samples = feed_garbage(make, [HEADER, prefix + rest, prefix + " " + rest])
    assert all(s.metric == "rtt_ms" for s in samples)


# --------------------------------------------------------------------------- truncation


def headline(name: str) -> int:
    """Index of the line after which the summary is complete: rtt line, else the stats line."""
    lines = fixture_text(TOOL, name).split("\n")
    for prefix in ("rtt min/avg/max/mdev", "6 packets transmitted"):
        found = [i for i, line in enumerate(lines) if line.startswith(prefix)]
        if found:
            return found[0]
    raise AssertionError(name)


def check_truncated(name: str, cut: int) -> None:
    data = fixture_path(TOOL, name).read_bytes()
    full_records, full_summary = parse(name)
    lines, rest = split_lines(data[:cut])
    records, summary = feed_all(make(INTERVAL[name]), lines)
    assert records == full_records[: len(records)]
    # Past the headline ping ended normally: complete, or a form that lacks a metric (-q).
    ended = summary.complete or summary.reason is not None
    assert ended is (len(lines) > headline(name)), (name, cut)
    if cut == len(data):
        assert (records, summary) == (full_records, full_summary)
    if rest is not None:
        feed_garbage(lambda: make(INTERVAL[name]), [*lines, rest])


@pytest.mark.parametrize("name", FIXTURES)
def test_truncated_at_every_line_end(name: str) -> None:
    data = fixture_path(TOOL, name).read_bytes()
    for cut in [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]:
        check_truncated(name, cut)


def test_series_of_the_d_fixture() -> None:
    ser = series_of(parse("c20_s1400_i02_D.out")[0])
    assert list(ser) == [("sum", "rtt_ms")]
    assert len(ser[("sum", "rtt_ms")]) == 20


# --------------------------------------------------------------------------- adapter


def test_defaults_and_argv() -> None:
    params = ping.resolve({})
    assert params == {"count": "20", "interval": "1", "size": "56", "deadline": "0"}
    cmds = ping.commands(params, CAPS, CTX)
    assert cmds.server is None
    assert cmds.client == [
        "ping", "-D", "-n", "-c", "20", "-i", "1", "-s", "56", "10.200.0.1",
    ]  # fmt: skip
    assert ping.expected_seconds(params) == 20.0


def test_argv_with_every_parameter() -> None:
    params = ping.resolve({"count": "5", "interval": "0.20", "size": "1400", "deadline": "6"})
    assert ping.commands(params, CAPS, CommandContext("fe80::1%eth0", 0)).client == [
        "ping", "-D", "-n", "-c", "5", "-i", "0.2", "-s", "1400", "-w", "6", "fe80::1%eth0",
    ]  # fmt: skip
    assert ping.expected_seconds(params) == pytest.approx(1.0)
    params = ping.resolve({"count": "100", "deadline": "3"})
    assert ping.expected_seconds(params) == 3.0


@pytest.mark.parametrize(
    ("value", "canonical"),
    [("0.2", "0.2"), ("0.20", "0.2"), ("1.0", "1"), ("60", "60"), ("0.002", "0.002")],
)
def test_interval_canonical_form(value: str, canonical: str) -> None:
    assert ping.resolve({"interval": value})["interval"] == canonical


@pytest.mark.parametrize(
    ("name", "value", "needle"),
    [
        ("interval", "0.001", "between 0.002 and 60"),
        ("interval", "61", "between 0.002 and 60"),
        ("interval", "0", "between"),
        ("interval", "1e-1", "number of seconds"),
        ("interval", ".5", "number of seconds"),
        ("interval", "0.2; id", "number of seconds"),
        ("interval", "$(id)", "number of seconds"),
        ("interval", "`id`", "number of seconds"),
        ("interval", "1\n2", "number of seconds"),
        ("interval", "-1", "number of seconds"),
        ("interval", "nan", "number of seconds"),
        ("count", "0", "at least 1"),
        ("count", "100001", "at most 100000"),
        ("count", "-c", "whole number"),
        ("count", "5;reboot", "whole number"),
        ("size", "65508", "at most 65507"),
        ("size", "$(id)", "whole number"),
        ("deadline", "-w", "whole number"),
        ("deadline", "`id`", "whole number"),
        ("deadline", "1.5", "whole number"),
        ("flood", "true", "unknown parameter"),
    ],
)
def test_bad_values_are_refused(name: str, value: str, needle: str) -> None:
    with pytest.raises(ParamError, match=needle):
        ping.resolve({name: value})


@pytest.mark.parametrize("target", ["-f", "10.0.0.1; id", "$(id)", "`id`", "a b", "x\ny", ""])
def test_hostile_targets_are_refused(target: str) -> None:
    with pytest.raises(ParamError):
        ping.commands(ping.resolve({}), CAPS, CommandContext(target, 0))


def test_capabilities_and_tool_entry() -> None:
    caps = ping.capabilities("ping from iputils 20221126\nlibcap: yes, IDN: yes\n")
    assert caps == CAPS
    assert ping.capabilities("ping utility, iputils-s20161105").version_tuple == (20161105,)
    assert ping.capabilities("").version_tuple == ()
    tool = ping.TOOL
    assert (tool.name, tool.debian_package, tool.version_argv) == (
        "ping",
        "iputils-ping",
        ["ping", "-V"],
    )
    assert tool.server_ready_text is None
    assert tool.params is ping.PARAMS
    parser = tool.parser(ping.resolve({"interval": "0.5"}), CAPS)
    assert parser.feed(reply(2, "0.05")) == [Record("sum", 1.0, RTT, (0.05,))]


# --------------------------------------------------------------------------- fast path


def _outcomes(lines: list[str], *, general_only: bool) -> tuple[list[object], Summary]:
    """Records or ParseError text per line, and the summary; optionally bypassing the fast path."""
    parser = make(0.2)
    feed = parser._feed_general if general_only else parser.feed
    out: list[object] = []
    for line in lines:
        try:
            out.append(feed(line))
        except ParseError as exc:
            out.append(str(exc))
    return out, parser.close()


@pytest.mark.parametrize("name", FIXTURES)
def test_fast_path_gives_what_the_general_path_gives(name: str) -> None:
    lines = fixture_text(TOOL, name).split("\n")
    assert _outcomes(lines, general_only=False) == _outcomes(lines, general_only=True)


_D_REPLY = "[1795300404.966802] 1408 bytes from 10.200.0.1: icmp_seq=1 ttl=64 time=0.063 ms"
_EDITS = st.sampled_from([*"0123456789. -[]:=x\r\t", "", "1.2.3", "١", " (DUP!)"])


@st.composite
def _mutated_reply(draw: st.DrawFn) -> str:
    line = list(_D_REPLY)
    for _ in range(draw(st.integers(0, 3))):
        line[draw(st.integers(0, len(line) - 1))] = draw(_EDITS)
    return "".join(line)


@FUZZ
@given(st.lists(_mutated_reply(), max_size=25))
def test_fuzz_fast_path_gives_what_the_general_path_gives(lines: list[str]) -> None:
    assert _outcomes(lines, general_only=False) == _outcomes(lines, general_only=True)
