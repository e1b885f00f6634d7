"""Tests of the iperf 2 adapter and its parser against real iperf 2.1.8 captures (tests/data)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairbench.domain import Record, Summary
from pairbench.tools import iperf2, iperf2_text
from pairbench.tools.base import Capabilities, CommandContext, ParamError, ParseError, Parser
from pairbench.tools.iperf2_text import THROUGHPUT, Iperf2TextParser, parse_text_output
from parser_checks import (
    assert_records_well_formed,
    feed_all,
    feed_garbage,
    series_of,
    split_lines,
)

# Captured on this machine over loopback with Debian's iperf 2.1.8 (each .cmd says how).
DATA = Path(__file__).resolve().parents[1] / "data" / "iperf2"
FIXTURES = sorted(p.name for p in DATA.glob("*.out"))
CLIENT_FIXTURES = [name for name in FIXTURES if not name.startswith(("server_", "err_server"))]
CAPS = Capabilities(
    version="iperf version 2.1.8 (12 August 2022) pthreads", version_tuple=(2, 1, 8)
)
CTX = CommandContext("10.200.0.1", 5001)

FUZZ = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def text_of(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def parse(name: str) -> tuple[list[Record], Summary]:
    records, summary = parse_text_output(text_of(name))
    assert_records_well_formed(records)
    assert all(r.metrics is THROUGHPUT for r in records)
    return records, summary


def thr(records: list[Record], stream: str) -> list[float]:
    return [r.values[0] for r in records if r.stream == stream]


def times(records: list[Record], stream: str = "sum") -> list[float]:
    return [r.t for r in records if r.stream == stream]


@pytest.mark.parametrize("name", FIXTURES)
def test_feed_all_equals_parse_text_output(name: str) -> None:
    assert feed_all(Iperf2TextParser(), text_of(name).split("\n")) == parse(name)


@pytest.mark.parametrize("name", CLIENT_FIXTURES)
def test_times_strictly_increase_and_sum_exists(name: str) -> None:
    records, _ = parse(name)
    for points in series_of(records).values():
        ts = [t for t, _ in points]
        assert ts == sorted(set(ts))
    if records:
        assert "sum" in {r.stream for r in records}


# --------------------------------------------------------------------------- synthetic lines

OLD_CLIENT = [  # the iperf 2.0.x layout ("%4.1f-%4.1f sec"), made-up figures
    "------------------------------------------------------------",
    "Client connecting to 192.168.0.3, TCP port 5001",
    "TCP window size: 16.0 KByte (default)",
    "------------------------------------------------------------",
    "[  3] local 192.168.0.1 port 45127 connected with 192.168.0.3 port 5001",
    "[ ID] Interval       Transfer     Bandwidth",
    "[  3]  0.0- 1.0 sec  80.4 MBytes   674 Mbits/sec",
    "[  3]  1.0- 2.0 sec  81.1 MBytes   681 Mbits/sec",
    "[  3]  9.0-10.0 sec  81.2 MBytes   682 Mbits/sec",
    "[  3]  0.0-10.0 sec   808 MBytes   678 Mbits/sec",
]


def test_iperf_2_0_layout() -> None:
    records, summary = feed_all(Iperf2TextParser(), OLD_CLIENT)
    assert times(records, "3") == [1.0, 2.0, 10.0]
    assert thr(records, "sum") == [674e6, 681e6, 682e6]
    assert summary == Summary(values={"throughput_bps": 678e6}, complete=True, error=None)


def test_iperf_2_0_parallel_and_udp_columns() -> None:
    lines = [
        "[  4] local 10.0.0.1 port 1 connected with 10.0.0.2 port 5001",
        "[  3] local 10.0.0.1 port 2 connected with 10.0.0.2 port 5001",
        "[  4]  0.0- 1.0 sec  15.8 MBytes   132 Mbits/sec",
        "[  3]  0.0- 1.0 sec  12.6 MBytes   106 Mbits/sec",
        "[SUM]  0.0- 1.0 sec  28.4 MBytes   238 Mbits/sec",
        "[  3]  1.0- 2.0 sec   131 KBytes   1.0 Mbits/sec  0.007 ms    0/   91 (0%)",
        "[  3] 1.00-2.00 sec  6033 datagrams received out-of-order",
        "[SUM]  0.0- 2.0 sec  28.5 MBytes   119 Mbits/sec",
    ]
    records, summary = feed_all(Iperf2TextParser(), lines)
    assert [(r.stream, r.t, r.values[0]) for r in records] == [
        ("4", 1.0, 132e6),
        ("3", 1.0, 106e6),
        ("sum", 1.0, 238e6),
        ("3", 2.0, 1.0e6),
    ]
    assert summary.values == {"throughput_bps": 119e6}


def test_units() -> None:
    lines = [
        "[  1] 0.0000-1.0000 sec  1.00 GBytes  1.10 Tbits/sec",
        "[  1] 1.0000-2.0000 sec  1.00 KBytes  8.19 Kbits/sec",
        "[  1] 2.0000-3.0000 sec  0.00 Bytes  0.00 bits/sec",
        "[  1] 3.0000-4.0000 sec  1.65 GBytes  1722 MBytes/sec",  # -f M
        "[  1] 4.0000-5.0000 sec  1.65 GBytes  100 Bytes/sec",
    ]
    assert thr(feed_all(Iperf2TextParser(), lines)[0], "1") == [
        1.10e12,
        8.19e3,
        0.0,
        1722 * 1024**2 * 8,
        800.0,
    ]


def test_sum_label_with_a_count_and_repeated_intervals() -> None:
    lines = [
        "[  1] local a port 1 connected with b port 5001",
        "[  2] local a port 2 connected with b port 5001",
        "[SUM-2] 0.0000-1.0000 sec  5.08 GBytes  43.7 Gbits/sec",
        "[SUM-2] 0.5000-1.0000 sec  5.08 GBytes  43.7 Gbits/sec",  # does not advance: dropped
        "[SUM-2] 1.0000-1.0000 sec  5.08 GBytes  43.7 Gbits/sec",  # zero length: dropped
        "[SUM-2] 0.0000-1.0100 sec  5.10 GBytes  43.6 Gbits/sec",
    ]
    records, summary = feed_all(Iperf2TextParser(), lines)
    assert records == [Record("sum", 1.0, THROUGHPUT, (43.7e9,))]
    assert summary.values == {"throughput_bps": 43.6e9}


def test_killed_client_summary_comes_from_intervals() -> None:
    text = text_of("tcp_t3_P2.out")
    records, summary = parse_text_output(text[: text.index("[  2] 2.0000-3.0000")])
    assert thr(records, "sum") == [43.7e9, 52.4e9]
    assert (summary.complete, summary.error) == (False, None)
    assert summary.values == {"throughput_bps": pytest.approx((43.7e9 + 52.4e9) / 2)}


def test_failures_after_the_whole_run_line_are_no_error() -> None:
    lines = [*OLD_CLIENT[:8], "write failed: Broken pipe"]
    assert feed_all(Iperf2TextParser(), lines)[1].error == "write failed: Broken pipe"
    lines = [*OLD_CLIENT, "write failed: Broken pipe"]
    assert feed_all(Iperf2TextParser(), lines)[1].error is None
    lines = [*OLD_CLIENT, "tcp connect failed: Connection refused"]
    assert feed_all(Iperf2TextParser(), lines)[1].error == "tcp connect failed: Connection refused"


def test_a_new_client_banner_starts_afresh() -> None:
    records, summary = feed_all(Iperf2TextParser(), [*OLD_CLIENT[:8], *OLD_CLIENT])
    assert times(records, "3") == [1.0, 2.0, 1.0, 2.0, 10.0]
    assert summary.values == {"throughput_bps": 678e6}


@pytest.mark.parametrize(
    "line",
    [
        "[  1] 0.0000-1.0000 sec  2.67 GBytes  22.9 Gbits/se",
        "[  1] 0.0000-1.0000 sec  2.67 GBytes  22.9 Pbits/sec",
        "[  1] 0.0000-1.0000 sec  2.67 GBytes  2.2.9 Gbits/sec",
        "[  1] 0.0.000-1.0000 sec  2.67 GBytes  22.9 Gbits/sec",
        "[  1] 0.0000-1.0000 sec  2.67 GBytes  22.9 Gbits/secx",
        "[SUM] 0.0000-1.0000 sec  2.67 GBytes  garbage",
        "[  1] 0.0000-1.0000 sec  " + "9" * 20 + " GBytes  22.9 Gbits/sec",
        "[  1] 0.0000-1.0000 sec  2.67 GBytes  22.9 Gbits/sec" + " " * 5000,
        "[" + "x" * 5000,
    ],
)
def test_malformed_reports_raise_parse_error(line: str) -> None:
    parser = Iperf2TextParser()
    with pytest.raises(ParseError) as info:
        parser.feed(line)
    assert len(str(info.value)) < 300
    good = "[  1] 0.0000-1.0000 sec  2.67 GBytes  22.9 Gbits/sec"
    assert [r.stream for r in parser.feed(good)] == ["1", "sum"]


@pytest.mark.parametrize(
    "line",
    [
        "",
        "\r",
        "[ ID] Interval       Transfer     Bandwidth",
        "[  1] local 127.0.0.1 port 59734 connected with 127.0.0.1 port 5999",
        "[SUM]",
        "------------------------------------------------------------",
        "TCP window size:  512 KByte (WARNING: requested  256 KByte)",
        "iperf: unrecognized option `--bogus'",
        "x" * 100_000,
        "\x00\x01\xff\ufffd",
    ],
)
def test_chatter_is_ignored(line: str) -> None:
    parser = Iperf2TextParser()
    assert parser.feed(line) == []
    assert parser.close().error is None


def test_is_a_parser() -> None:
    parser: Parser = Iperf2TextParser()
    assert parser.feed("Client connecting to 10.0.0.1, TCP port 5001") == []
    assert parser.close() == Summary(values={}, complete=False, error=None)


def test_trailing_cr_and_lf_are_tolerated() -> None:
    text = text_of("tcp_t3_P2.out")
    expected = parse_text_output(text)
    for end in ("\r", "\n", "\r\n"):
        assert feed_all(Iperf2TextParser(), [line + end for line in text.split("\n")]) == expected


def test_long_lines_do_not_backtrack() -> None:
    nasty = [
        "[  1] 0.0000-1.0000 sec  2.67 GBytes  22.9 Gbits/sec" + " " * 4000 + "x",
        "[  1] 0.0000-1.0000 sec" + " " * 4000 + "x",
        "[" + " " * 4090 + "1]",
        "[  1] local " + "x " * 2000 + " connected wit",
        "write" + " failed: " * 450,
    ]
    # Only records or ParseError here; the time they take is bench/parser_worst.py's.
    for _ in range(20):
        feed_garbage(Iperf2TextParser, nasty)


# --------------------------------------------------------------------------- fuzzing


_PREFIXES = [
    "[  1]",
    "[SUM]",
    "[SUM-3]",
    "[  1] 0.0000-1.0000 sec",
    "[  3]  0.0- 1.0 sec",
    "[  1] 0.0000-1.0000 sec  2.67 GBytes",
    "[  1] 0.0000-1.0000 sec  2.67 GBytes  22.9 Gbits/sec",
    "[  1] local 10.0.0.1 port 1",
]
_TOKENS = st.sampled_from(
    [" ", "  ", "0", "1.5", "12", "99999999999999999999", "-", ".", "/", "sec", "Bytes",
     "KBytes", "Gbits/sec", "MBytes/sec", " connected with ", "failed: ", "\r", "\t", "x", "١"]
)  # fmt: skip


@FUZZ
@given(
    st.sampled_from(_PREFIXES),
    st.one_of(st.text(max_size=200), st.lists(_TOKENS, max_size=20).map("".join)),
)
def test_fuzz_report_like_lines(prefix: str, rest: str) -> None:
    feed_garbage(Iperf2TextParser, [prefix + rest, prefix + " " + rest])


# --------------------------------------------------------------------------- truncation


def headline(name: str) -> int | None:
    """Index of the whole-run line of "sum": the [SUM] one, or the only stream's."""
    lines = text_of(name).split("\n")
    has_sum = any(line.startswith("[SUM]") for line in lines)
    seen: set[str] = set()
    for i, line in enumerate(lines):
        if not line.startswith("[") or " sec " not in line:
            continue
        sid = line[1 : line.index("]")].strip()
        restarts = line[line.index("]") + 1 :].strip().startswith("0.0000-")
        if sid in seen and restarts and (sid == "SUM" or not has_sum):
            return i
        seen.add(sid)
    return None


def check_truncated(name: str, cut: int) -> None:
    data = (DATA / name).read_bytes()
    full_records, full_summary = parse(name)
    lines, rest = split_lines(data[:cut])
    records, summary = feed_all(Iperf2TextParser(), lines)
    assert records == full_records[: len(records)]
    line = headline(name)
    if name in CLIENT_FIXTURES:
        assert summary.complete is (line is not None and len(lines) > line), (name, cut)
    if cut == len(data):
        assert (records, summary) == (full_records, full_summary)
    if rest is not None:
        feed_garbage(Iperf2TextParser, [*lines, rest])


@pytest.mark.parametrize("name", FIXTURES)
def test_truncated_at_every_line_end(name: str) -> None:
    data = (DATA / name).read_bytes()
    for cut in [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]:
        check_truncated(name, cut)


# --------------------------------------------------------------------------- adapter


def test_defaults_and_argv() -> None:
    params = iperf2.resolve({})
    assert params == {"duration": "10", "streams": "1", "window": "0", "length": "0"}
    cmds = iperf2.commands(params, CAPS, CTX)
    assert cmds.server == ["iperf", "-s", "-p", "5001"]
    assert cmds.client == ["iperf", "-c", "10.200.0.1", "-p", "5001", "-t", "10", "-i", "1"]
    assert iperf2.expected_seconds(params) == 10.0


def test_argv_with_every_parameter() -> None:
    params = iperf2.resolve({"duration": "3", "streams": "2", "window": "256k", "length": "64K"})
    cmds = iperf2.commands(params, CAPS, CommandContext("::1", 5999))
    assert cmds.client == [
        "iperf", "-c", "::1", "-p", "5999", "-t", "3", "-i", "1", "-P", "2",
        "-w", "256K", "-l", "64K",
    ]  # fmt: skip
    assert cmds.server == ["iperf", "-s", "-p", "5999"]


@pytest.mark.parametrize(
    ("given_", "needle"),
    [
        ({"duration": "0"}, "at least 1"),
        ({"duration": "3;id"}, "whole number"),
        ({"streams": "$(id)"}, "whole number"),
        ({"streams": "129"}, "at most 128"),
        ({"window": "`id`"}, "size"),
        ({"window": "-w"}, "size"),
        ({"window": "0K"}, "more than 0"),
        ({"length": "64K\n-s"}, "size"),
        ({"length": "1.5K"}, "size"),
        ({"udp": "true"}, "unknown parameter"),
    ],
)
def test_bad_values_are_refused(given_: dict[str, str], needle: str) -> None:
    with pytest.raises(ParamError, match=needle):
        iperf2.resolve(given_)


@pytest.mark.parametrize("target", ["-s", "10.0.0.1; id", "$(id)", "`id`", "a b", "x\ny", ""])
def test_hostile_targets_are_refused(target: str) -> None:
    with pytest.raises(ParamError):
        iperf2.commands(iperf2.resolve({}), CAPS, CommandContext(target, 5001))


def test_capabilities_and_tool_entry() -> None:
    # `iperf -v` prints this on stderr and exits 1.
    assert iperf2.capabilities("iperf version 2.1.8 (12 August 2022) pthreads\n") == CAPS
    tool = iperf2.TOOL
    assert (tool.name, tool.debian_package, tool.version_argv) == (
        "iperf2",
        "iperf",
        ["iperf", "-v"],
    )
    assert tool.server_ready_text == "Server listening on TCP port"
    assert tool.default_port == 5001
    assert isinstance(tool.parser(iperf2.resolve({}), CAPS), Iperf2TextParser)


# --------------------------------------------------------------------------- fast path


def _outcomes(lines: list[str], *, general_only: bool) -> tuple[list[object], Summary]:
    """Records or ParseError text per line, and the summary; optionally bypassing the fast path."""
    parser = Iperf2TextParser()
    feed = parser._feed_general if general_only else parser.feed
    out: list[object] = []
    for line in lines:
        try:
            out.append(feed(line))
        except ParseError as exc:
            out.append(str(exc))
    return out, parser.close()


def test_the_fast_path_takes_the_usual_lines() -> None:
    fast = iperf2_text._FAST_MATCH
    assert fast("[  1] 0.0000-1.0000 sec  2.67 GBytes  22.9 Gbits/sec")
    assert fast("[SUM] 11.0000-12.0037 sec  4.23 GBytes  36.2 Gbits/sec")
    assert not fast("[  3]  0.0- 1.0 sec  80.4 MBytes   674 Mbits/sec")
    assert not fast("[  1] 0.0000-1.0000 sec  2.09 GBytes  17.9 Gbits/sec  17107/0   6")


@pytest.mark.parametrize("name", FIXTURES)
def test_fast_path_gives_what_the_general_path_gives(name: str) -> None:
    lines = text_of(name).split("\n")
    assert _outcomes(lines, general_only=False) == _outcomes(lines, general_only=True)


_REPORTS = [
    "[  1] 0.0000-1.0000 sec  2.67 GBytes  22.9 Gbits/sec",
    "[  2] 1.0000-2.0000 sec   482 MBytes  4.05 Gbits/sec",
    "[SUM] 1.0000-2.0000 sec  5.08 GBytes  43.7 Gbits/sec",
    "[  1] 0.0000-3.0165 sec  7.98 GBytes  22.7 Gbits/sec",
    "[  3]  2.0- 3.0 sec  80.4 MBytes   674 Mbits/sec",
]
_EDITS = st.sampled_from([*"0123456789. -[]SUMKGTBbitsyec/x\r\t", "", "1.2.3", "١"])


@st.composite
def _mutated_report(draw: st.DrawFn) -> str:
    line = list(draw(st.sampled_from(_REPORTS)))
    for _ in range(draw(st.integers(0, 3))):
        line[draw(st.integers(0, len(line) - 1))] = draw(_EDITS)
    return "".join(line)


@FUZZ
@given(st.lists(st.one_of(_mutated_report(), st.sampled_from(OLD_CLIENT)), max_size=25))
def test_fuzz_fast_path_gives_what_the_general_path_gives(lines: list[str]) -> None:
    assert _outcomes(lines, general_only=False) == _outcomes(lines, general_only=True)


def test_a_long_synthetic_run() -> None:
    lines = [f"[{i:3d}] local a port {i} connected with b port 5001" for i in (1, 2)]
    for k in range(3000):
        span = f"{k}.0000-{k + 1}.0000 sec"
        lines += [f"[  {i}] {span}  1.00 GBytes  {i}.{k % 10}0 Gbits/sec" for i in (2, 1)]
        lines.append(f"[SUM] {span}  2.00 GBytes  {k % 7 + 1}.00 Gbits/sec")
    lines.append("[SUM] 0.0000-3000.0100 sec  2.00 TBytes  4.00 Gbits/sec")
    out, summary = _outcomes(lines, general_only=False)
    assert (out, summary) == _outcomes(lines, general_only=True)
    records = [r for item in out if isinstance(item, list) for r in item]
    assert len(records) == 3 * 3000
    assert times(records)[-1] == 3000.0
    assert summary == Summary(values={"throughput_bps": 4e9}, complete=True, error=None)
