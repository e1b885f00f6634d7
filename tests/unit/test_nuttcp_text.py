"""Tests of the nuttcp adapter and its parser against the real nuttcp 6.1.2 captures."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairbench.domain import Record, Summary
from pairbench.tools import nuttcp
from pairbench.tools.base import Capabilities, CommandContext, ParamError, ParseError, Parser
from pairbench.tools.nuttcp_text import (
    TCP_INTERVAL,
    THROUGHPUT_ONLY,
    UDP_INTERVAL,
    NuttcpTextParser,
    parse_text_output,
)
from parser_checks import (
    assert_records_well_formed,
    feed_all,
    feed_garbage,
    fixture_names,
    fixture_path,
    fixture_text,
    split_lines,
)
from testkit import require_program

TOOL = "nuttcp"
FIXTURES = fixture_names(TOOL)
CAPS = Capabilities(version="nuttcp-6.1.2", version_tuple=(6, 1, 2))
CTX = CommandContext("10.200.0.1", 5000)

FUZZ = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def parse(name: str) -> tuple[list[Record], Summary]:
    records, summary = parse_text_output(fixture_text(TOOL, name))
    assert_records_well_formed(records)
    assert all(r.stream == "sum" for r in records)
    return records, summary


def col(records: list[Record], metric: str) -> list[float]:
    return [r.values[r.metrics.index(metric)] for r in records]


def times(records: list[Record]) -> list[float]:
    return [r.t for r in records]


def test_every_fixture_is_covered() -> None:
    assert FIXTURES == [
        "err_no_server.out",
        "tcp_T3_i1_verbose.out",
        "tcp_T5_i1.out",
        "tcp_T5_i1_fparse.out",
        "udp_R100m_l1400_i1.out",
        "udp_R100m_l1400_i1_fparse.out",
    ]


# --------------------------------------------------------------------------- golden


def test_tcp_t5_i1() -> None:
    records, summary = parse("tcp_T5_i1.out")
    # -T 5 -i 1: four interval lines; the fifth second is folded into the final line.
    assert times(records) == [1.0, 2.0, 3.0, 4.0]
    assert all(r.metrics is TCP_INTERVAL for r in records)
    assert col(records, "throughput_bps") == [9154.5586e6, 14226.9179e6, 15446.8602e6, 14947.5907e6]
    assert col(records, "retransmits") == [0, 0, 0, 0]
    assert summary == Summary(
        values={
            "throughput_bps": 13645.7266e6,
            "retransmits": 0,
            "rtt_ms": 0.13,
            "tx_cpu_percent": 72,
            "rx_cpu_percent": 36,
        },
        complete=True,
        error=None,
        form="text",
    )


def test_tcp_t5_i1_fparse() -> None:
    records, summary = parse("tcp_T5_i1_fparse.out")
    assert times(records) == [1.0, 2.0, 3.0, 4.0]
    assert all(r.metrics is TCP_INTERVAL for r in records)
    assert col(records, "throughput_bps") == [
        12878.5037e6,
        13817.7476e6,
        10925.6049e6,
        10708.8345e6,
    ]
    assert col(records, "retransmits") == [0, 0, 0, 0]
    assert summary == Summary(
        values={
            "throughput_bps": 11832.1152e6,
            "retransmits": 0,
            "rtt_ms": 0.28,
            "tx_cpu_percent": 81,
            "rx_cpu_percent": 31,
        },
        complete=True,
        error=None,
        form="fparse",
    )


def test_udp_r100m_l1400_i1() -> None:
    records, summary = parse("udp_R100m_l1400_i1.out")
    assert times(records) == [1.0, 2.0, 3.0, 4.0]
    assert all(r.metrics is UDP_INTERVAL for r in records)
    assert col(records, "throughput_bps") == [100.0010e6, 99.9928e6, 100.0045e6, 100.0023e6]
    assert col(records, "lost_packets") == [0, 0, 0, 0]
    assert col(records, "packets") == [8929, 8928, 8929, 8929]
    assert col(records, "lost_percent") == [0, 0, 0, 0]
    assert summary == Summary(
        values={
            "throughput_bps": 100.0004e6,
            "lost_packets": 0,
            "packets": 44643,
            "lost_percent": 0,
            "tx_cpu_percent": 98,
            "rx_cpu_percent": 7,
        },
        complete=True,
        error=None,
        form="text",
    )


def test_udp_r100m_l1400_i1_fparse() -> None:
    records, summary = parse("udp_R100m_l1400_i1_fparse.out")
    assert times(records) == [1.0, 2.0, 3.0, 4.0]
    assert all(r.metrics is UDP_INTERVAL for r in records)
    assert col(records, "throughput_bps") == [100.0657e6, 99.9952e6, 100.0055e6, 99.9931e6]
    assert col(records, "packets") == [8935, 8928, 8929, 8928]
    assert col(records, "lost_percent") == [0, 0, 0, 0]
    assert summary.values == {
        "throughput_bps": 100.0131e6,
        "lost_packets": 0,
        "packets": 44643,
        "lost_percent": 0,
        "tx_cpu_percent": 98,
        "rx_cpu_percent": 6,
    }
    assert summary.complete is True


def test_tcp_t3_i1_verbose() -> None:
    records, summary = parse("tcp_T3_i1_verbose.out")
    assert times(records) == [1.0, 2.0]
    assert col(records, "throughput_bps") == [12677.9394e6, 13415.0923e6]
    # -v prints no brief final line: the receiver's "nuttcp-r: ... = 12865.9782 Mbps" line.
    assert summary == Summary(
        values={
            "throughput_bps": 12865.9782e6,
            "retransmits": 0,
            "tx_cpu_percent": 77,
            "rx_cpu_percent": 32,
        },
        complete=True,
        error=None,
        form="text -v",
    )


def test_err_no_server() -> None:
    records, summary = parse("err_no_server.out")
    assert records == []
    assert summary == Summary(values={}, complete=False, error="connect: Connection refused")


@pytest.mark.parametrize("name", FIXTURES)
def test_feed_all_equals_parse_text_output(name: str) -> None:
    lines = fixture_text(TOOL, name).split("\n")
    assert feed_all(NuttcpTextParser(), lines) == parse(name)


def test_brief_and_fparse_lines_mix_per_line() -> None:
    lines = [
        " 1091.3750 MB /   1.00 sec = 9154.5586 Mbps     0 retrans",
        "megabytes=1647.2500 real_sec=1.00 rate_Mbps=13817.7476 retrans=2",
    ]
    records, summary = feed_all(NuttcpTextParser(), lines)
    assert records == [
        Record("sum", 1.0, TCP_INTERVAL, (9154.5586e6, 0)),
        Record("sum", 2.0, TCP_INTERVAL, (13817.7476e6, 2)),
    ]
    assert summary.complete is False
    assert summary.values == {
        "throughput_bps": pytest.approx((9154.5586e6 + 13817.7476e6) / 2),
        "retransmits": 2,
    }


# --------------------------------------------------------------------------- synthetic lines
# Lines below were printed by nuttcp 6.1.2 on this machine, over loopback, unless said otherwise.


def test_several_streams_have_no_retrans() -> None:
    lines = [  # nuttcp -i 1 -T 3 -P 5990 -N 4 127.0.0.1
        " 2841.6250 MB /   1.00 sec = 23836.5393 Mbps",
        " 2164.7500 MB /   1.00 sec = 18158.8034 Mbps",
        "",
        " 7519.1875 MB /   3.00 sec = 21032.1197 Mbps 47 %TX 50 %RX 0.09 msRTT",
    ]
    records, summary = feed_all(NuttcpTextParser(), lines)
    assert records == [
        Record("sum", 1.0, THROUGHPUT_ONLY, (23836.5393e6,)),
        Record("sum", 2.0, THROUGHPUT_ONLY, (18158.8034e6,)),
    ]
    assert summary.values == {
        "throughput_bps": 21032.1197e6,
        "tx_cpu_percent": 47,
        "rx_cpu_percent": 50,
        "rtt_ms": 0.09,
    }
    lines = [  # the same with -fparse
        "megabytes=2763.5625 real_sec=1.00 rate_Mbps=23181.0285",
        "",
        "megabytes=8286.7500 real_seconds=3.00 rate_Mbps=23171.7260 tx_cpu=67 rx_cpu=79 "
        "rtt_ms=0.08",
    ]
    records, summary = feed_all(NuttcpTextParser(), lines)
    assert records == [Record("sum", 1.0, THROUGHPUT_ONLY, (23181.0285e6,))]
    assert summary.values["rtt_ms"] == 0.08


def test_udp_loss() -> None:
    lines = [  # nuttcp -u -R 2g -l 1400 -i 1 -T 3 -P 5990 127.0.0.1
        "  231.0347 MB /   1.00 sec = 1937.9894 Mbps  4399 / 177440 ~drop/pkt  2.48 ~%loss",
        "  195.9150 MB /   1.00 sec = 1643.4215 Mbps 17372 / 164109 ~drop/pkt 10.59 ~%loss",
        "",
        "  658.6132 MB /   3.00 sec = 1841.5245 Mbps 96 %TX 26 %RX 22501 / 515791 drop/pkt "
        "4.36 %loss",
    ]
    records, summary = feed_all(NuttcpTextParser(), lines)
    assert records[1] == Record("sum", 2.0, UDP_INTERVAL, (1643.4215e6, 17372, 164109, 10.59))
    assert summary.values == {
        "throughput_bps": 1841.5245e6,
        "tx_cpu_percent": 96,
        "rx_cpu_percent": 26,
        "lost_packets": 22501,
        "packets": 515791,
        "lost_percent": 4.36,
    }
    summary = feed_all(NuttcpTextParser(), lines[:2])[1]
    assert summary.complete is False
    assert summary.values["lost_packets"] == 4399 + 17372
    assert summary.values["packets"] == 177440 + 164109
    assert summary.values["lost_percent"] == pytest.approx(100 * 21771 / 341549)


def test_running_totals_and_transmit_stats_are_ignored() -> None:
    lines = [  # -frunningtotal; -frunningtotal -fxmitstats (UDP); -fparse -frunningtotal
        " 2650.9375 MB /   1.00 sec = 22237.2308 Mbps     0 retrans Tot:  5254.4375 MB /   2.00 sec"
        " = 22038.1242 Mbps     0 retrans",
        "   11.9202 MB /   1.00 sec =   99.9930 Mbps     0 /  8928 ~drop/pkt  0.00 ~%loss Tot:"
        "    23.8604 MB /   2.00 sec =  100.0751 Mbps     0 / 17871 ~drop/pkt  0.00 ~%loss Trans:"
        "    11.9202 MB Tot:    23.8604 MB",
        "megabytes=126.2432 real_sec=1.00 rate_Mbps=1058.9624 drop=39237 pkt=133791 "
        "data_loss=29.32708 total_megabytes=126.2432 total_real_sec=1.00 "
        "total_rate_Mbps=1058.9624 drop=40000 pkt=140000 data_loss=29.32708",
        "   29.8031 MB /   2.50 sec =  100.0017 Mbps 99 %TX 6 %RX 0 / 22322 drop/pkt 0.00 %loss"
        " Trans: 29.8031 MB",
    ]
    records, summary = feed_all(NuttcpTextParser(), lines)
    assert [r.values for r in records] == [
        (22237.2308e6, 0),
        (99.9930e6, 0, 8928, 0),
        (1058.9624e6, 39237, 133791, 29.32708),  # the first drop= and pkt= (the interval's)
    ]
    assert summary.values["packets"] == 22322


def test_other_formats() -> None:
    lines = [
        "myid:  2757.1875 MB /   1.00 sec = 23127.5543 Mbps     0 retrans",  # -I myid
        "   11.9482 MB /   1.00 sec =  100.2249 Mbps  0.00 ~%loss",  # -f-drops (UDP)
        " 1253.8750 MB /   0.50 sec = 21033.5449 Mbps     0 retrans",  # -i 0.5
        " 1253.8750 MB /   0.00 sec = 21033.5449 Mbps     0 retrans",  # zero length: no record
        "   11.9482 MB /   1.00 sec =  100.2249 Mbps     3 /  8943 ~drop/pkt",  # -f-percentloss
    ]
    records = feed_all(NuttcpTextParser(), lines)[0]
    assert [(r.t, r.metrics, r.values) for r in records] == [
        (1.0, TCP_INTERVAL, (23127.5543e6, 0)),
        (2.0, ("throughput_bps", "lost_percent"), (100.2249e6, 0)),
        (2.5, TCP_INTERVAL, (21033.5449e6, 0)),
        (3.5, ("throughput_bps", "lost_packets", "packets"), (100.2249e6, 3, 8943)),
    ]


def test_hundredths_add_up_exactly() -> None:
    parser = NuttcpTextParser()
    out = [r for _ in range(1000) for r in parser.feed("  1.0000 MB /   0.10 sec = 83.8861 Mbps")]
    assert out[-1].t == 100.0
    assert out[9].t == 1.0


def test_errors_and_chatter() -> None:
    lines = [
        'nuttcp-t: Info: attempting to switch to deprecated "classic" mode',
        "nuttcp-t: Warning: IP frags or no data reception since buflen=8000 > ctlconnmss=1448",
        "ignoring interval=1.000000 which is greater than or equal timeout=1.000000",
        "nuttcp-r: v6.1.2: Error: server not ACKing data",
        "nuttcp-t: v6.1.2: Error: connect: Connection refused",
        "errno=111",
    ]
    records, summary = feed_all(NuttcpTextParser(), lines)
    assert records == []
    assert summary == Summary(values={}, complete=False, error="server not ACKing data")


@pytest.mark.parametrize(
    "line",
    [
        " 1091.3750 MB /   1.00 sec = 9154.5586 Mbps     x retrans",
        " 1091.3750 MB /   1.00 sec = 9154.5586 Mbps     0 retrans garbage",
        " 1091.3750 MB /   1.00 sec = garbage",
        " 1091.3.750 MB /   1.00 sec = 9154.5586 Mbps",
        " 1091.3750 MB /   1.0 sec = 9154.5586 Mbps",
        " 1 MB / 1 sec = " + "9" * 5000,
        "megabytes=1.0 real_sec=1.00 rate_Mbps=x",
        "megabytes=1.0 real_sec=1 rate_Mbps=1.0",
        "megabytes=1.0 rate_Mbps=1.0",
        "megabytes=1.0 real_sec=1.00 rate_Mbps=1.0 junk",
        "megabytes=1.0 real_sec=1.00 rate_Mbps=1.0 retrans=1.2.3",
    ],
)
def test_malformed_reports_raise_parse_error(line: str) -> None:
    parser = NuttcpTextParser()
    with pytest.raises(ParseError) as info:
        parser.feed(line)
    assert len(str(info.value)) < 300
    # The parser is still usable and its state was not disturbed.
    good = " 1091.3750 MB /   1.00 sec = 9154.5586 Mbps     0 retrans"
    assert parser.feed(good) == [Record("sum", 1.0, TCP_INTERVAL, (9154.5586e6, 0))]


@pytest.mark.parametrize(
    "line",
    ["", "\r", "x" * 100_000, "nuttcp-t: " + "x" * 100_000, "\x00\x01\xff\ufffd", "MB / sec"],
)
def test_chatter_is_ignored(line: str) -> None:
    assert NuttcpTextParser().feed(line) == []


def test_is_a_parser() -> None:
    parser: Parser = NuttcpTextParser()
    assert parser.feed("errno=111") == []
    assert parser.close() == Summary(values={}, complete=False, error=None)


def test_trailing_cr_and_lf_are_tolerated() -> None:
    text = fixture_text(TOOL, "udp_R100m_l1400_i1.out")
    expected = parse_text_output(text)
    for end in ("\r", "\n", "\r\n"):
        assert feed_all(NuttcpTextParser(), [line + end for line in text.split("\n")]) == expected


def test_long_lines_do_not_backtrack() -> None:
    nasty = [
        " 1.0000 MB /   1.00 sec = 1.0000 Mbps" + " " * 4000 + "x",
        " 1.0000 MB /   1.00 sec = 1.0000 Mbps " + "1 " * 2000 + "x",
        " " * 4000 + "1.0000 MB",
        "megabytes=1 " * 340,
        "nuttcp-t: " + "1" * 4000 + "user",
    ]
    # Only records or ParseError here; the time they take is bench/parser_worst.py's.
    for _ in range(20):
        feed_garbage(NuttcpTextParser, nasty)


# --------------------------------------------------------------------------- fuzzing


_PREFIXES = [
    " 1091.3750 MB /   1.00 sec = ",
    " 1091.3750 MB /   1.00 sec = 9154.5586 Mbps",
    " 8132.7500 MB /   5.00 sec = 13645.7266 Mbps 72 %TX",
    "megabytes=11.9295 real_sec=1.00 rate_Mbps=",
    "megabytes=7057.7500 real_seconds=5.00 rate_Mbps=11832.1152 ",
    "nuttcp-r: 4601.1250 MB in 3.00 real seconds = ",
    "nuttcp-t: v6.1.2: ",
]
_TOKENS = st.sampled_from(
    [" ", "  ", "0", "1.5", "12", "99999999999999999999", ".", "/", "=", "~", "%", "retrans",
     "drop/pkt", "~%loss", "%loss", "msRTT", "%RX", "Tot:", "pkt=", "retrans=", "Error: ",
     "\r", "\t", "x", "١"]
)  # fmt: skip


@FUZZ
@given(
    st.sampled_from(_PREFIXES),
    st.one_of(st.text(max_size=200), st.lists(_TOKENS, max_size=20).map("".join)),
)
def test_fuzz_report_like_lines(prefix: str, rest: str) -> None:
    samples = feed_garbage(NuttcpTextParser, [prefix + rest, prefix + " " + rest])
    assert all(s.stream == "sum" for s in samples)


# --------------------------------------------------------------------------- truncation


def headline(name: str) -> int | None:
    """Index of the line that completes the summary (final report or -v receiver line)."""
    for i, line in enumerate(fixture_text(TOOL, name).split("\n")):
        if "%TX" in line or "real_seconds=" in line or line.startswith("nuttcp-r: 4601"):
            return i
    return None


def check_truncated(name: str, cut: int) -> None:
    data = fixture_path(TOOL, name).read_bytes()
    full_records, full_summary = parse(name)
    lines, rest = split_lines(data[:cut])
    records, summary = feed_all(NuttcpTextParser(), lines)
    assert records == full_records[: len(records)]
    line = headline(name)
    assert summary.complete is (line is not None and len(lines) > line), (name, cut)
    if not summary.complete and records:
        assert summary.values["throughput_bps"] > 0  # the intervals' mean
    if cut == len(data):
        assert (records, summary) == (full_records, full_summary)
    if rest is not None:
        feed_garbage(NuttcpTextParser, [*lines, rest])


@pytest.mark.parametrize("name", FIXTURES)
def test_truncated_at_every_line_end(name: str) -> None:
    data = fixture_path(TOOL, name).read_bytes()
    for cut in [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]:
        check_truncated(name, cut)


def test_truncated_tcp_summary_from_intervals() -> None:
    text = fixture_text(TOOL, "tcp_T5_i1.out")
    records, summary = parse_text_output(text[: text.index(" 1840.7500")])
    assert times(records) == [1.0, 2.0]
    assert (summary.complete, summary.error) == (False, None)
    assert summary.values == {
        "throughput_bps": pytest.approx((9154.5586e6 + 14226.9179e6) / 2),
        "retransmits": 0,
    }


# --------------------------------------------------------------------------- adapter


def test_defaults_and_tcp_argv() -> None:
    params = nuttcp.resolve({})
    assert params == {
        "duration": "10",
        "udp": "false",
        "rate": "1g",
        "length": "0",
        "streams": "1",
        "window": "0",
        "reverse": "false",
        "interval": "1",
    }
    cmds = nuttcp.commands(params, CAPS, CTX)
    assert cmds.server == ["nuttcp", "-S", "--nofork", "-P", "5000"]
    assert cmds.client == [
        "nuttcp", "-i", "1", "-T", "10", "-P", "5000", "-p", "5001", "10.200.0.1",
    ]  # fmt: skip
    assert nuttcp.expected_seconds(params) == 10.0


def test_tcp_argv_with_every_parameter() -> None:
    given_ = {"duration": "5", "streams": "4", "window": "256K", "length": "64K", "reverse": "on"}
    cmds = nuttcp.commands(nuttcp.resolve(given_), CAPS, CommandContext("10.0.0.2", 5002))
    assert cmds.client == [
        "nuttcp", "-i", "1", "-T", "5", "-P", "5002", "-p", "5003", "-N", "4", "-w", "256",
        "-l", "65536", "-r", "10.0.0.2",
    ]  # fmt: skip
    assert cmds.server == ["nuttcp", "-S", "--nofork", "-P", "5002"]


@pytest.mark.parametrize(
    ("given_", "needed"),
    [({}, 2), ({"streams": "4"}, 5), ({"udp": "true"}, 2), ({"udp": "1", "rate": "10M"}, 2)],
)
def test_control_and_data_ports_are_distinct_and_follow_the_given_port(
    given_: dict[str, str], needed: int
) -> None:
    """The control port (-P) is the engine's port; the data port (-p, one per stream from it)
    the ports right after, all counted in ``ports_needed`` (which the engine keeps free)."""
    params = nuttcp.resolve(given_)
    for port in (5000, 43117):
        cmds = nuttcp.commands(params, CAPS, CommandContext("10.0.0.2", port))
        client = cmds.client
        control, data = int(client[client.index("-P") + 1]), int(client[client.index("-p") + 1])
        assert control == port and data == port + 1 != control
        assert cmds.server is not None and cmds.server[cmds.server.index("-P") + 1] == str(port)
        assert "-p" not in cmds.server  # the client tells the server its data port(s)
        assert nuttcp.ports_needed(params) == needed


def test_local_run_works_while_5001_is_taken(library_path: Path) -> None:
    """nuttcp's fixed data port 5001 held by a listening socket (another nuttcp, anything):
    a local run (control 5000 if free, its data port after it) still completes."""
    require_program("nuttcp")
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        holder.bind(("0.0.0.0", 5001))
    except OSError:
        holder.close()
        holder = None  # taken already: all the better for the test
    else:
        holder.listen()
    try:
        argv = [sys.executable, "-m", "pairbench", "--library", str(library_path), "run"]
        argv += ["--pair", "local", "--tool", "nuttcp", "--set", "duration=2", "--json"]
        for _ in range(60):  # another test's run may hold this computer for a moment
            done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
            if "is busy" not in done.stderr:
                break
            time.sleep(1.0)
        assert done.returncode == 0, done.stdout + done.stderr
        run = json.loads(done.stdout)
        assert run["status"] == "completed"
        assert run["summary"]["throughput_bps"] > 0
    finally:
        if holder is not None:
            holder.close()


@pytest.mark.parametrize(
    ("window", "kb"), [("256K", "256"), ("4M", "4096"), ("1G", "1048576"), ("1000", "1")]
)
def test_window_is_given_in_kb(window: str, kb: str) -> None:
    client = nuttcp.commands(nuttcp.resolve({"window": window}), CAPS, CTX).client
    assert client[client.index("-w") + 1] == kb


def test_udp_argv() -> None:
    cmds = nuttcp.commands(nuttcp.resolve({"udp": "true"}), CAPS, CTX)
    assert cmds.client == [
        "nuttcp", "-u", "-R", "1g", "-l", "1400", "-i", "1", "-T", "10", "-P", "5000",
        "-p", "5001", "10.200.0.1",
    ]  # fmt: skip
    params = nuttcp.resolve({"udp": "yes", "rate": "100M", "length": "8000", "duration": "3"})
    assert nuttcp.commands(params, CAPS, CTX).client == [
        "nuttcp", "-u", "-R", "100m", "-l", "8000", "-i", "1", "-T", "3", "-P", "5000",
        "-p", "5001", "10.200.0.1",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("rate", "syntax"),
    [
        ("2G", "2g"),
        ("2g", "2g"),
        ("500m", "500m"),
        ("1.5G", "1.5g"),
        ("1.50G", "1.5g"),
        ("800K", "800"),
        ("1500000", "1500"),
        ("3T", "3000g"),
        ("1000", "1"),
    ],
)
def test_rate_in_nuttcp_syntax(rate: str, syntax: str) -> None:
    assert nuttcp.nuttcp_rate(rate) == syntax
    client = nuttcp.commands(nuttcp.resolve({"udp": "true", "rate": rate}), CAPS, CTX).client
    assert client[client.index("-R") + 1] == syntax


@pytest.mark.parametrize(
    ("given_", "needle"),
    [
        ({"duration": "0"}, "at least 1"),
        ({"duration": "10; id"}, "whole number"),
        ({"streams": "129"}, "at most 128"),
        ({"rate": "$(id)"}, "rate"),
        ({"rate": "`id`"}, "rate"),
        ({"rate": "1g\n-S"}, "rate"),
        ({"rate": "-1g"}, "rate"),
        ({"udp": "true", "rate": "0"}, "at least 1K"),
        ({"udp": "true", "rate": "500"}, "at least 1K"),
        ({"udp": "true", "rate": "0m"}, "more than 0"),
        ({"window": "-w"}, "size"),
        ({"window": "0K"}, "more than 0"),
        ({"length": "1;id"}, "size"),
        ({"length": "128M"}, "TCP buffer"),
        ({"udp": "true", "length": "70000"}, "UDP datagram"),
        ({"udp": "true", "length": "4"}, "UDP datagram"),
        ({"udp": "true", "streams": "2"}, "streams cannot be combined with udp"),
        ({"udp": "true", "reverse": "true", "window": "1M"}, "window and reverse cannot"),
        ({"reverse": "maybe"}, "true or false"),
        ({"bitrate": "1G"}, "unknown parameter"),
    ],
)
def test_bad_values_are_refused(given_: dict[str, str], needle: str) -> None:
    with pytest.raises(ParamError, match=needle):
        nuttcp.resolve(given_)


@pytest.mark.parametrize("target", ["-S", "10.0.0.1; id", "$(id)", "`id`", "a b", "x\ny", ""])
def test_hostile_targets_are_refused(target: str) -> None:
    with pytest.raises(ParamError):
        nuttcp.commands(nuttcp.resolve({}), CAPS, CommandContext(target, 5000))


def test_capabilities_and_tool_entry() -> None:
    assert nuttcp.capabilities("nuttcp-6.1.2\n") == CAPS
    tool = nuttcp.TOOL
    assert (tool.name, tool.debian_package, tool.version_argv) == (
        "nuttcp",
        "nuttcp",
        ["nuttcp", "-V"],
    )
    assert tool.server_ready_text is None  # the server prints nothing: the port is watched
    assert tool.default_port == 5000
    assert isinstance(tool.parser(nuttcp.resolve({}), CAPS), NuttcpTextParser)
