"""Tests of the iperf3 3.12 text parser against the real captures in tests/data/fixtures."""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import select
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairbench.domain import Record, Sample, Summary, expand
from pairbench.tools import iperf3_text_grammar, iperf3_text_summary
from pairbench.tools.base import ParseError, Parser
from pairbench.tools.iperf3_text import Iperf3TextParser, parse_text_output
from parser_checks import split_lines
from testkit import FIXTURES, require_program

IPERF3 = FIXTURES / "iperf3"
TEXT_FIXTURES = sorted(p.name for p in IPERF3.glob("*.out") if not p.stem.endswith("_json"))

KB = 1024.0
MB = 1024.0**2

# The metrics of each kind of interval line, in the order the records give them.
KINDS = {
    ("throughput_bps", "retransmits", "cwnd_bytes"),  # TCP sender, per stream
    ("throughput_bps", "retransmits"),  # TCP sender, [SUM]
    ("throughput_bps", "packets"),  # UDP sender
    ("throughput_bps", "jitter_ms", "lost_packets", "packets", "lost_percent"),  # UDP receiver
    ("throughput_bps",),  # TCP receiver
}
SEEN_KINDS: dict[tuple[str, ...], tuple[str, ...]] = {}

FUZZ = settings(
    max_examples=200,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


# --------------------------------------------------------------------------- helpers


def read_text(name: str) -> str:
    return (IPERF3 / name).read_text(encoding="utf-8")


def parse_text(text: str) -> tuple[list[Sample], Summary]:
    """``parse_text_output``, its records expanded into samples (what the tests compare)."""
    records, summary = parse_text_output(text)
    check_records(records)
    return expand(records), summary


def parse(name: str) -> tuple[list[Sample], Summary]:
    return parse_text(read_text(name))


def check_records(records: list[Record]) -> None:
    """Well-formed records: typed fields, one value per metric, shared metrics tuples."""
    for r in records:
        assert isinstance(r, Record)
        assert isinstance(r.stream, str) and isinstance(r.t, float)
        assert len(r.metrics) == len(r.values) == len(set(r.metrics)) > 0
        assert all(isinstance(v, float) for v in r.values)
        assert r.metrics in KINDS
        # One constant tuple per kind of line, reused by every record (the recorder keys on it).
        assert SEEN_KINDS.setdefault(r.metrics, r.metrics) is r.metrics


def feed_samples(parser: Iperf3TextParser, line: str) -> list[Sample]:
    records = parser.feed(line)
    check_records(records)
    return expand(records)


def series(samples: list[Sample]) -> dict[tuple[str, str], list[tuple[float, float]]]:
    """(stream, metric) -> [(t, value), ...] in feed order."""
    out: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for s in samples:
        out[(s.stream, s.metric)].append((s.t, s.value))
    return dict(out)


def values(samples: list[Sample], stream: str, metric: str) -> list[float]:
    return [s.value for s in samples if s.stream == stream and s.metric == metric]


def times(samples: list[Sample], stream: str, metric: str = "throughput_bps") -> list[float]:
    return [s.t for s in samples if s.stream == stream and s.metric == metric]


def feed_all(lines: list[str]) -> tuple[list[Sample], Summary]:
    parser = Iperf3TextParser()
    samples: list[Sample] = []
    for line in lines:
        samples.extend(feed_samples(parser, line))
    return samples, parser.close()


def feed_or_parse_error(parser: Iperf3TextParser, line: str) -> list[Sample]:
    """Feed a line: the only exception allowed is ParseError; anything else fails the test."""
    try:
        records = parser.feed(line)
    except ParseError as exc:
        assert str(exc)
        return []
    assert isinstance(records, list)
    check_records(records)
    out = expand(records)
    for s in out:
        assert isinstance(s, Sample)
        assert isinstance(s.stream, str) and isinstance(s.metric, str)
        assert isinstance(s.t, float) and isinstance(s.value, float)
    return out


def test_fixture_directory_is_there() -> None:
    assert IPERF3.is_dir(), IPERF3
    assert len(TEXT_FIXTURES) == 14, TEXT_FIXTURES


# --------------------------------------------------------------------------- golden: client TCP


def test_tcp_t5() -> None:
    samples, summary = parse("tcp_t5.out")
    ser = series(samples)
    assert set(ser) == {
        (stream, metric)
        for stream in ("5", "sum")
        for metric in ("throughput_bps", "retransmits", "cwnd_bytes")
    }
    assert all(len(v) == 5 for v in ser.values())
    assert times(samples, "5") == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert values(samples, "5", "throughput_bps") == [14.2e9, 14.0e9, 11.5e9, 14.7e9, 14.5e9]
    assert values(samples, "5", "retransmits") == [1698, 726, 580, 1343, 962]
    assert values(samples, "5", "cwnd_bytes") == [458 * KB, 1.76 * MB, 594 * KB, 484 * KB, 404 * KB]
    # -P 1 prints no [SUM] line: "sum" is a copy of stream 5.
    for metric in ("throughput_bps", "retransmits", "cwnd_bytes"):
        assert ser[("sum", metric)] == ser[("5", metric)]
    assert summary.complete is True
    assert summary.error is None
    assert summary.values == {
        "throughput_bps": 13.8e9,  # receiver line
        "sender_throughput_bps": 13.8e9,
        "retransmits": 5309,
    }


def test_tcp_t5_p2() -> None:
    samples, summary = parse("tcp_t5_P2.out")
    ser = series(samples)
    assert {s.stream for s in samples} == {"5", "7", "sum"}
    assert all(len(v) == 5 for v in ser.values())
    # [SUM] has no cwnd.
    assert ("sum", "cwnd_bytes") not in ser
    assert values(samples, "sum", "throughput_bps") == [21.3e9, 21.5e9, 13.5e9, 16.8e9, 21.7e9]
    assert values(samples, "sum", "retransmits") == [6315, 3473, 1021, 2863, 5523]
    assert values(samples, "5", "throughput_bps") == [10.6e9, 10.3e9, 6.85e9, 8.48e9, 10.8e9]
    assert values(samples, "7", "throughput_bps") == [10.7e9, 11.2e9, 6.65e9, 8.32e9, 10.9e9]
    assert values(samples, "7", "cwnd_bytes") == [
        472 * KB,
        2.37 * MB,
        1.45 * MB,
        467 * KB,
        345 * KB,
    ]
    assert values(samples, "5", "retransmits") == [2808, 1518, 542, 1276, 2567]
    assert times(samples, "sum") == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert summary.complete is True
    assert summary.values == {
        "throughput_bps": 19.0e9,
        "sender_throughput_bps": 19.0e9,
        "retransmits": 19195,
    }


def test_tcp_t5_reverse() -> None:
    samples, summary = parse("tcp_t5_reverse.out")
    ser = series(samples)
    # The client receives: throughput only.
    assert set(ser) == {("5", "throughput_bps"), ("sum", "throughput_bps")}
    assert values(samples, "5", "throughput_bps") == [10.9e9, 12.1e9, 10.1e9, 13.6e9, 11.7e9]
    assert ser[("sum", "throughput_bps")] == ser[("5", "throughput_bps")]
    assert summary.complete is True
    assert summary.values == {
        "throughput_bps": 11.7e9,
        "sender_throughput_bps": 11.7e9,
        "retransmits": 1031,  # the server's, relayed in the sender line
    }


def test_tcp_t5_bidir() -> None:
    samples, summary = parse("tcp_t5_bidir.out")
    ser = series(samples)
    assert set(ser) == {
        ("5", "throughput_bps"),
        ("5", "retransmits"),
        ("5", "cwnd_bytes"),
        ("7", "throughput_bps"),
        ("sum", "throughput_bps"),
        ("sum", "retransmits"),
        ("sum", "cwnd_bytes"),
        ("sum-reverse", "throughput_bps"),
    }
    assert all(len(v) == 5 for v in ser.values())
    # [TX-C] (client -> server) is the forward direction "sum"; [RX-C] is "sum-reverse".
    assert values(samples, "5", "throughput_bps") == [1.96e9, 1.57e9, 1.69e9, 1.66e9, 1.61e9]
    assert values(samples, "5", "cwnd_bytes") == [404 * KB, 325 * KB, 387 * KB, 345 * KB, 322 * KB]
    assert values(samples, "7", "throughput_bps") == [918e6, 926e6, 922e6, 926e6, 929e6]
    assert ser[("sum", "throughput_bps")] == ser[("5", "throughput_bps")]
    assert ser[("sum-reverse", "throughput_bps")] == ser[("7", "throughput_bps")]
    assert summary.complete is True
    assert summary.values == {
        "throughput_bps": 1.69e9,  # [TX-C] receiver
        "sender_throughput_bps": 1.70e9,  # [TX-C] sender
        "retransmits": 0,
        "throughput_reverse_bps": 924e6,  # [RX-C] receiver
    }


def test_tcp_t12_shaped_burst() -> None:
    samples, summary = parse("tcp_t12_shaped_burst.out")
    ser = series(samples)
    assert all(len(v) == 12 for v in ser.values())
    assert times(samples, "5") == [float(i) for i in range(1, 13)]
    thr = values(samples, "sum", "throughput_bps")
    assert thr == [
        943e6, 916e6, 930e6, 924e6, 922e6, 542e6, 193e6, 193e6, 188e6, 192e6, 190e6, 193e6,
    ]  # fmt: skip
    assert values(samples, "5", "cwnd_bytes")[9] == 5.66 * KB  # "5.66 KBytes" at 9.00-10.00
    assert set(values(samples, "5", "retransmits")) == {0.0}
    assert summary.complete is True
    assert summary.values == {
        "throughput_bps": 525e6,
        "sender_throughput_bps": 527e6,
        "retransmits": 0,
    }


# --------------------------------------------------------------------------- golden: client UDP


def test_udp_b50m_l1400() -> None:
    samples, summary = parse("udp_b50M_l1400.out")
    ser = series(samples)
    # The sender's interval lines: throughput and datagrams only.
    assert set(ser) == {
        ("5", "throughput_bps"),
        ("5", "packets"),
        ("sum", "throughput_bps"),
        ("sum", "packets"),
    }
    assert values(samples, "5", "throughput_bps") == [50.0e6] * 5
    assert values(samples, "5", "packets") == [4461, 4464, 4465, 4464, 4464]
    assert ser[("sum", "packets")] == ser[("5", "packets")]
    assert summary.complete is True
    assert summary.values == {
        "throughput_bps": 50.0e6,
        "sender_throughput_bps": 50.0e6,
        "jitter_ms": 0.008,
        "lost_packets": 0,
        "packets": 22318,
        "lost_percent": 0,
    }


def test_udp_b2g_l8000_loss() -> None:
    samples, summary = parse("udp_b2G_l8000_loss.out")
    assert values(samples, "5", "throughput_bps") == [2.00e9] * 5
    assert values(samples, "sum", "packets") == [31242, 31242, 31242, 31232, 31265]
    assert summary.complete is True
    assert summary.error is None  # the stderr "warning: UDP block size ..." is chatter
    assert summary.values == {
        "throughput_bps": 1.76e9,  # receiver, not the 2.00 Gbits/sec sent
        "sender_throughput_bps": 2.00e9,
        "jitter_ms": 0.031,
        "lost_packets": 18707,
        "packets": 156179,  # the receiver's total, not the sender's 156223
        "lost_percent": 12,
    }


# --------------------------------------------------------------------------- golden: server side


def test_server_oneoff_tcp() -> None:
    parser = Iperf3TextParser()
    samples = [
        s
        for line in read_text("server_oneoff_tcp.out").split("\n")
        for s in feed_samples(parser, line)
    ]
    summary = parser.close()
    assert parser.is_server
    ser = series(samples)
    assert set(ser) == {("5", "throughput_bps"), ("sum", "throughput_bps")}
    assert values(samples, "sum", "throughput_bps") == [11.9e9, 13.4e9, 11.3e9, 15.1e9, 15.6e9]
    assert times(samples, "sum") == [1.0, 2.0, 3.0, 4.0, 5.0]
    # Its own figures are all there, but a receiving server has no retransmits: the form
    # cannot carry them, and the summary says so (complete False, with the reason).
    assert summary.complete is False
    assert summary.reason == iperf3_text_summary.REASON_SERVER_TCP
    assert summary.values == {"throughput_bps": 13.5e9}


def test_server_oneoff_udp() -> None:
    samples, summary = parse("server_oneoff_udp.out")
    ser = series(samples)
    metrics = {"throughput_bps", "jitter_ms", "lost_packets", "packets", "lost_percent"}
    assert set(ser) == {(stream, m) for stream in ("5", "sum") for m in metrics}
    assert all(len(v) == 5 for v in ser.values())
    assert values(samples, "5", "throughput_bps") == [1.78e9, 1.86e9, 1.70e9, 1.68e9, 1.60e9]
    assert values(samples, "5", "jitter_ms") == [0.023, 0.020, 0.018, 0.044, 0.018]
    assert values(samples, "5", "lost_packets") == [3407, 2120, 4594, 4993, 6131]
    assert values(samples, "5", "packets") == [31230, 31248, 31198, 31304, 31161]
    assert values(samples, "5", "lost_percent") == [11, 6.8, 15, 16, 20]
    assert ser[("sum", "lost_percent")] == ser[("5", "lost_percent")]
    assert summary.complete is True
    assert summary.values == {
        "throughput_bps": 1.73e9,
        "jitter_ms": 0.018,
        "lost_packets": 21245,
        "packets": 156141,
        "lost_percent": 14,
    }


def session_tests() -> dict[int, str]:
    """server_session_multi.out cut into its tests: number -> text from its "Accepted" line."""
    text = read_text("server_session_multi.out")
    parts = text.split("Accepted connection from ")
    return {n: "Accepted connection from " + part for n, part in enumerate(parts[1:], start=1)}


def test_server_session_multi_whole_log() -> None:
    samples, summary = parse("server_session_multi.out")
    assert samples
    # Each test restarts the clock; within one test each series strictly increases.
    # The log ends with the banner of test #14 (no client yet): the summary is test #13's,
    # whose client was interrupted but whose server printed no "client has terminated"; a
    # receiving server's form has no retransmits (complete False, with the reason).
    assert summary.complete is False
    assert summary.reason == iperf3_text_summary.REASON_SERVER_TCP
    assert summary.values == {"throughput_bps": 17.6e9}
    assert summary.error is None
    # The same samples as the tests parsed one by one.
    one_by_one = [s for part in session_tests().values() for s in parse_text(part)[0]]
    assert samples == one_by_one


def test_server_session_multi_zero_length_intervals_are_skipped() -> None:
    tests = session_tests()
    assert len(tests) == 13
    # Test #1 ends "[  5]   5.00-5.00   sec  4.06 MBytes  10.7 Gbits/sec": not a sample.
    samples, summary = parse_text(tests[1])
    assert values(samples, "sum", "throughput_bps") == [14.2e9, 13.9e9, 11.5e9, 14.7e9, 14.5e9]
    assert times(samples, "5") == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert summary.values == {"throughput_bps": 13.8e9}
    # Test #2 (-P 2): [SUM] 5.00-5.00 is skipped too.
    samples, summary = parse_text(tests[2])
    assert values(samples, "sum", "throughput_bps") == [21.3e9, 21.5e9, 13.5e9, 16.8e9, 21.7e9]
    assert times(samples, "8") == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert summary.values == {"throughput_bps": 19.0e9}
    # Test #4: a short last interval 5.00-5.01 is a real one.
    samples, summary = parse_text(tests[4])
    assert times(samples, "sum") == [1.0, 2.0, 3.0, 4.0, 5.0, 5.01]
    assert values(samples, "sum", "throughput_bps")[-1] == 8.81e9
    assert values(samples, "8", "throughput_bps")[-1] == 3.46e9
    assert summary.values == {"throughput_bps": 14.4e9}
    # Test #10 (UDP): "5.00-5.00 ... 0.035 ms  0/15 (0%)" is skipped.
    samples, summary = parse_text(tests[10])
    assert times(samples, "5", "jitter_ms") == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert values(samples, "5", "lost_percent") == [9.3, 9.6, 16, 9.3, 18]
    assert summary.complete is True
    assert summary.values == {
        "throughput_bps": 1.75e9,
        "jitter_ms": 0.035,
        "lost_packets": 19512,
        "packets": 156203,
        "lost_percent": 12,
    }


def test_server_session_multi_bidir_roles() -> None:
    # Test #5 is the server side of tcp_t5_bidir: [RX-S] is client->server data ("sum"),
    # [TX-S] the reverse ("sum-reverse", with the server's retransmits and cwnd).
    samples, summary = parse_text(session_tests()[5])
    ser = series(samples)
    assert set(ser) == {
        ("5", "throughput_bps"),
        ("sum", "throughput_bps"),
        ("8", "throughput_bps"),
        ("8", "retransmits"),
        ("8", "cwnd_bytes"),
        ("sum-reverse", "throughput_bps"),
        ("sum-reverse", "retransmits"),
        ("sum-reverse", "cwnd_bytes"),
    }
    assert values(samples, "sum", "throughput_bps") == [1.94e9, 1.56e9, 1.69e9, 1.65e9, 1.61e9]
    assert values(samples, "sum-reverse", "throughput_bps") == [929e6, 931e6, 927e6, 919e6, 935e6]
    assert values(samples, "sum-reverse", "cwnd_bytes")[0] == 277 * KB
    assert summary.complete is False  # no retransmits of the client's sending streams
    assert summary.reason == iperf3_text_summary.REASON_SERVER_TCP
    # The server prints only its own side: receiver for [RX-S], sender for [TX-S].
    assert summary.values == {"throughput_bps": 1.69e9, "throughput_reverse_bps": 928e6}


def test_server_session_multi_client_terminated() -> None:
    tests = session_tests()
    # Test #12: the client got SIGINT; the server repeats "2.00-3.00" and then computes its
    # summary over 3.00 s (16.6 Gbits/sec), then says "iperf3: the client has terminated".
    samples, summary = parse_text(tests[12])
    assert times(samples, "5") == [1.0, 2.0, 3.0]  # the repeated interval is dropped
    assert values(samples, "sum", "throughput_bps") == [14.8e9, 12.9e9, 15.5e9]
    assert summary.error == "the client has terminated"
    assert summary.complete is False
    assert summary.values["throughput_bps"] == pytest.approx((14.8e9 + 12.9e9 + 15.5e9) / 3)
    # Test #11: eight full intervals, then the same message.
    samples, summary = parse_text(tests[11])
    assert len(times(samples, "sum")) == 8
    assert summary.error == "the client has terminated"
    assert summary.complete is False
    assert summary.values["throughput_bps"] == pytest.approx((3 * 101e6 + 5 * 99.6e6) / 8)
    # Test #13: the same repeated interval, but no message: the summary stands as printed.
    samples, summary = parse_text(tests[13])
    assert times(samples, "5") == [1.0, 2.0, 3.0]
    assert summary.complete is False  # a receiving server: no retransmits (the reason says)
    assert summary.reason == iperf3_text_summary.REASON_SERVER_TCP
    assert summary.values == {"throughput_bps": 17.6e9}


def test_server_session_multi_udp_tests() -> None:
    tests = session_tests()
    samples, summary = parse_text(tests[9])
    assert values(samples, "sum", "lost_packets") == [5730, 3174, 3526, 3403, 2874]
    assert values(samples, "sum", "lost_percent") == [18, 10, 11, 11, 9.2]
    assert summary.values["lost_packets"] == 18707
    assert summary.values["packets"] == 156179
    samples, summary = parse_text(tests[7])
    assert values(samples, "sum", "jitter_ms") == [0.008, 0.006, 0.007, 0.006, 0.008]
    assert summary.values["jitter_ms"] == 0.008


# --------------------------------------------------------------------------- golden: errors


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("err_conn_refused.out", "unable to connect to server: Connection refused"),
        ("err_server_busy.out", "the server is busy running a test. try again later"),
        ("err_unknown_option_json_stream.out", "unrecognized option '--json-stream'"),
    ],
)
def test_errors(name: str, error: str) -> None:
    samples, summary = parse(name)
    assert samples == []
    assert summary.error == error
    assert summary.complete is False
    assert dict(summary.values) == {}


def test_tcp_interrupted_sigint() -> None:
    samples, summary = parse("tcp_interrupted_sigint.out")
    assert times(samples, "sum") == [1.0, 2.0, 3.0, 3.49]
    assert values(samples, "5", "throughput_bps") == [14.8e9, 12.9e9, 15.5e9, 13.5e9]
    assert values(samples, "5", "retransmits") == [2071, 872, 1532, 441]
    assert values(samples, "5", "cwnd_bytes") == [458 * KB, 356 * KB, 469 * KB, 342 * KB]
    assert summary.error == "interrupt - the client has terminated"
    # The receiver line says "0.00 Bytes  0.00 bits/sec" (the server's figures never came):
    # the summary is incomplete and its throughput is the time-weighted interval mean.
    assert summary.complete is False
    expected = (14.8e9 * 1 + 12.9e9 * 1 + 15.5e9 * 1 + 13.5e9 * 0.49) / 3.49
    assert summary.values["throughput_bps"] == pytest.approx(expected)
    # The sender line is the client's own and is right.
    assert summary.values["sender_throughput_bps"] == 14.3e9
    assert summary.values["retransmits"] == 4916
    assert set(summary.values) == {"throughput_bps", "sender_throughput_bps", "retransmits"}


# iperf3 3.12 (Debian 12) over loopback: `iperf3 -c 127.0.0.1 -t 5 --forceflush`, its server
# (`iperf3 -s -1`) stopped by SIGINT 1.5 s in (as a cancelled run's server can be stopped first).
# stdout, then the one stderr line. Captured 2026-11-24.
SERVER_TERMINATED = """\
Connecting to host 127.0.0.1, port 5393
[  5] local 127.0.0.1 port 52114 connected to 127.0.0.1 port 5393
[ ID] Interval           Transfer     Bitrate         Retr  Cwnd
[  5]   0.00-1.00   sec  3.40 GBytes  29.2 Gbits/sec    0    895 KBytes{PAD}
[ ID] Interval           Transfer     Bitrate         Retr  Cwnd
[  5]   0.00-1.00   sec  3.40 GBytes  29.2 Gbits/sec    0    895 KBytes{PAD}
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Retr
[  5]   0.00-1.00   sec  5.11 GBytes  43.9 Gbits/sec    0             sender
[  5]   0.00-1.00   sec  0.00 Bytes  0.00 bits/sec                  receiver

iperf3: error - the server has terminated
""".format(PAD=" " * 7)  # iperf3 pads its interval lines with 7 spaces


def test_client_whose_server_was_stopped_first_stores_no_zero() -> None:
    samples, summary = parse_text(SERVER_TERMINATED)
    assert times(samples, "sum") == [1.0]  # the repeated interval is skipped
    assert summary.error == "the server has terminated"
    # "0.00 bits/sec receiver" is no measurement, and the sender line divides all the bytes
    # by the last full interval's end (5.11 GB in "1.00 s"): neither is stored. What is
    # stored is measured: the intervals' mean.
    assert summary.complete is False
    assert summary.values == {"throughput_bps": 29.2e9, "retransmits": 0.0}


def test_zero_receiver_line_without_any_message_is_not_stored() -> None:
    """The single-stream cancel of tcp_interrupted_sigint.out with its stderr line missing
    (the interrupt message is what told the parser before): still no zero."""
    text = read_text("tcp_interrupted_sigint.out").replace(
        "iperf3: interrupt - the client has terminated\n", ""
    )
    _, summary = parse_text(text)
    assert summary.error is None
    assert summary.complete is False
    expected = (14.8e9 * 1 + 12.9e9 * 1 + 15.5e9 * 1 + 13.5e9 * 0.49) / 3.49
    assert summary.values["throughput_bps"] == pytest.approx(expected)
    assert summary.values["sender_throughput_bps"] == 14.3e9


def test_udp_receiver_zero_with_datagrams_lost_is_a_real_zero() -> None:
    """udp_b50M_l1400.out with every datagram lost: the receiver's zero is measured."""
    text = read_text("udp_b50M_l1400.out").replace(
        "29.8 MBytes  50.0 Mbits/sec  0.008 ms  0/22318 (0%)  receiver",
        "0.00 Bytes  0.00 bits/sec  0.000 ms  22318/22318 (100%)  receiver",
    )
    _, summary = parse_text(text)
    assert summary.complete is True
    assert summary.values["throughput_bps"] == 0.0
    assert summary.values["lost_packets"] == 22318


@pytest.mark.parametrize("name", TEXT_FIXTURES)
def test_every_series_strictly_increases(name: str) -> None:
    parts = list(session_tests().values()) if name == "server_session_multi.out" else None
    for text in parts or [read_text(name)]:
        for points in series(parse_text(text)[0]).values():
            ts = [t for t, _ in points]
            assert all(a < b for a, b in itertools.pairwise(ts)), (name, ts)


@pytest.mark.parametrize("name", TEXT_FIXTURES)
def test_sum_always_exists_with_data(name: str) -> None:
    samples, _ = parse(name)
    if samples:
        assert {s.stream for s in samples} >= {"sum"}


# --------------------------------------------------------------------------- synthetic lines

PREAMBLE = [
    "Connecting to host 10.0.0.1, port 5201",
    "[  5] local 10.0.0.2 port 40000 connected to 10.0.0.1 port 5201",
]


def test_omitted_intervals_give_no_samples() -> None:
    lines = [
        *PREAMBLE,
        "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd",
        "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  1698    458 KBytes       (omitted)",
        "[  5]   1.00-2.00   sec  1.63 GBytes  14.0 Gbits/sec  726   1.76 MBytes       (omitted)",
        "[  5]   0.00-1.00   sec  1.34 GBytes  11.5 Gbits/sec  580    594 KBytes       ",
        "[  5]   1.00-2.00   sec  1.71 GBytes  14.7 Gbits/sec  1343    484 KBytes       ",
    ]
    parser = Iperf3TextParser()
    samples = [s for line in lines for s in feed_samples(parser, line)]
    assert parser.omitted_intervals == 2
    assert values(samples, "5", "throughput_bps") == [11.5e9, 14.7e9]
    assert times(samples, "sum") == [1.0, 2.0]
    summary = parser.close()
    assert summary.complete is False  # no summary yet
    assert summary.values["throughput_bps"] == pytest.approx((11.5e9 + 14.7e9) / 2)
    assert summary.values["retransmits"] == 580 + 1343


def test_zero_length_intervals_give_no_samples() -> None:
    lines = [
        *PREAMBLE,
        "[  5]   0.00-0.00   sec  4.06 MBytes  10.7 Gbits/sec  0    458 KBytes       ",
        "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  0    458 KBytes       ",
        "[  5]   1.00-1.00   sec  4.06 MBytes  10.7 Gbits/sec  0    458 KBytes       ",
    ]
    samples, summary = feed_all(lines)
    assert times(samples, "5") == [1.0]
    assert summary.values["throughput_bps"] == 14.2e9


def test_is_a_parser() -> None:
    parser: Parser = Iperf3TextParser()
    assert parser.feed("iperf Done.") == []
    assert parser.close() == Summary(values={}, complete=False, error=None, form="text")


def test_omitted_udp_receiver_and_sum_lines() -> None:
    lines = [
        "[  5] local 10.0.0.2 port 1 connected to 10.0.0.1 port 5201",
        "[  7] local 10.0.0.2 port 2 connected to 10.0.0.1 port 5201",
        "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams",
        "[  5]   0.00-1.00   sec  5.96 MBytes  50.0 Mbits/sec  0.008 ms  0/4462 (0%)  (omitted)",
        "[SUM]   0.00-1.00   sec  11.9 MBytes   100 Mbits/sec  0.008 ms  0/8924 (0%)  (omitted)",
    ]
    parser = Iperf3TextParser()
    assert [s for line in lines for s in parser.feed(line)] == []
    assert parser.omitted_intervals == 2


def test_byte_rates_and_units() -> None:
    # -f M prints rates in MBytes/sec (1024-based bytes): converted to bit/s.
    parser = Iperf3TextParser()
    for line in PREAMBLE:
        parser.feed(line)
    out = feed_samples(
        parser, "[  5]   0.00-1.00   sec  1.65 GBytes  1722 MBytes/sec  0    3.00 MBytes       "
    )
    assert out[0] == Sample("5", "throughput_bps", 1.0, 1722 * MB * 8)
    assert out[2] == Sample("5", "cwnd_bytes", 1.0, 3 * MB)
    out = feed_samples(
        parser, "[  5]   1.00-2.00   sec  1.00 KBytes  8.19 Kbits/sec  0    100 Bytes       "
    )
    assert out[0].value == 8.19e3
    assert out[2].value == 100.0
    out = feed_samples(
        parser, "[  5]   2.00-3.00   sec  1.00 TBytes  1.10 Tbits/sec  0    1.00 GBytes       "
    )
    assert out[0].value == 1.10e12
    out = feed_samples(
        parser, "[  5]   3.00-4.00   sec  0.00 Bytes  0.00 bits/sec    0   0.00 Bytes       "
    )
    assert out[0].value == 0.0
    # -f m forces Mbits even above 1000.
    out = feed_samples(
        parser, "[  5]   4.00-5.00   sec  1.37 GBytes  11781 Mbits/sec  0    458 KBytes       "
    )
    assert out[0].value == 11781e6


def test_loss_percent_formats() -> None:
    lines = [
        "[  5] local 10.0.0.1 port 5201 connected to 10.0.0.2 port 1",
        "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams",
        "[  5]   0.00-1.00   sec  1.00 MBytes  8.39 Mbits/sec  0.010 ms  1/1562 (0.064%)  ",
        "[  5]   1.00-2.00   sec  0.00 Bytes  0.00 bits/sec  0.010 ms  1500/1500 (1e+02%)  ",
        "[  5]   2.00-3.00   sec  0.00 Bytes  0.00 bits/sec  0.000 ms  0/0 (0%)  ",
    ]
    samples = feed_all(lines)[0]
    assert values(samples, "5", "lost_percent") == [0.064, 100.0, 0.0]
    assert values(samples, "sum", "lost_packets") == [1, 1500, 0]
    summary = feed_all(lines)[1]
    assert summary.complete is False
    assert summary.values["lost_packets"] == 1501
    assert summary.values["packets"] == 3062
    assert summary.values["lost_percent"] == pytest.approx(100 * 1501 / 3062)
    assert summary.values["jitter_ms"] == 0.0


def test_bidir_p2_sum_roles() -> None:
    lines = [
        "[  5] local a port 1 connected to b port 5201",
        "[  7] local a port 2 connected to b port 5201",
        "[  9] local a port 3 connected to b port 5201",
        "[ 11] local a port 4 connected to b port 5201",
        "[ ID][Role] Interval           Transfer     Bitrate         Retr  Cwnd",
        "[  5][TX-C]   0.00-1.00   sec   233 MBytes  1.96 Gbits/sec    0    404 KBytes       ",
        "[  7][TX-C]   0.00-1.00   sec   233 MBytes  1.96 Gbits/sec    0    404 KBytes       ",
        "[SUM][TX-C]   0.00-1.00   sec   466 MBytes  3.92 Gbits/sec    0             ",
        "[  9][RX-C]   0.00-1.00   sec   109 MBytes   918 Mbits/sec                  ",
        "[ 11][RX-C]   0.00-1.00   sec   109 MBytes   918 Mbits/sec                  ",
        "[SUM][RX-C]   0.00-1.00   sec   218 MBytes  1.84 Gbits/sec                  ",
        "- - - - - - - - - - - - - - - - - - - - - - - - -",
        "[ ID][Role] Interval           Transfer     Bitrate         Retr",
        "[  5][TX-C]   0.00-5.00   sec  1012 MBytes  1.70 Gbits/sec    0             sender",
        "[  5][TX-C]   0.00-5.00   sec  1008 MBytes  1.69 Gbits/sec                  receiver",
        "[SUM][TX-C]   0.00-5.00   sec  1.98 GBytes  3.40 Gbits/sec    7             sender",
        "[SUM][TX-C]   0.00-5.00   sec  1.97 GBytes  3.38 Gbits/sec                  receiver",
        "[SUM][RX-C]   0.00-5.00   sec  1.08 GBytes  1.86 Gbits/sec    3             sender",
        "[SUM][RX-C]   0.00-5.00   sec  1.08 GBytes  1.85 Gbits/sec                  receiver",
    ]
    samples, summary = feed_all(lines)
    ser = series(samples)
    assert ser[("sum", "throughput_bps")] == [(1.0, 3.92e9)]
    assert ser[("sum-reverse", "throughput_bps")] == [(1.0, 1.84e9)]
    assert ("sum", "cwnd_bytes") not in ser
    assert summary.complete is True
    assert summary.values == {
        "throughput_bps": 3.38e9,
        "sender_throughput_bps": 3.40e9,
        "retransmits": 7,
        "throughput_reverse_bps": 1.85e9,
    }


def test_trailing_cr_and_lf_are_tolerated() -> None:
    text = read_text("tcp_t5.out")
    expected = parse_text(text)
    assert feed_all([line + "\r" for line in text.split("\n")]) == expected
    assert feed_all([line + "\n" for line in text.split("\n")]) == expected
    assert feed_all([line + "\r\n" for line in text.split("\n")]) == expected


def test_interrupted_reverse_client_keeps_its_own_receiver_line() -> None:
    # With -R the client is the receiver: after SIGINT its receiver line is real and the
    # sender line (the server's figures) is the "0.00 bits/sec" one.
    lines = [
        "Connecting to host 10.0.0.1, port 5201",
        "Reverse mode, remote host 10.0.0.1 is sending",
        *PREAMBLE[1:],
        "[ ID] Interval           Transfer     Bitrate",
        "[  5]   0.00-1.00   sec  1.27 GBytes  10.9 Gbits/sec                  ",
        "[  5]   1.00-1.50   sec   700 MBytes  11.7 Gbits/sec                  ",
        "iperf3: interrupt - the client has terminated",
        "- - - - - - - - - - - - - - - - - - - - - - - - -",
        "[ ID] Interval           Transfer     Bitrate         Retr",
        "[  5]   0.00-1.50   sec  0.00 Bytes  0.00 bits/sec    0             sender",
        "[  5]   0.00-1.50   sec  1.95 GBytes  11.2 Gbits/sec                  receiver",
    ]
    summary = feed_all(lines)[1]
    assert summary.error == "interrupt - the client has terminated"
    assert summary.complete is True
    assert summary.values == {"throughput_bps": 11.2e9}


def test_truncated_run_summary_comes_from_intervals() -> None:
    text = read_text("tcp_t5_P2.out")
    cut = text.index("[  5]   3.00-4.00")
    samples, summary = parse_text(text[:cut])
    assert times(samples, "sum") == [1.0, 2.0, 3.0]
    assert summary.complete is False
    assert summary.error is None
    assert summary.values == {
        "throughput_bps": pytest.approx((21.3e9 + 21.5e9 + 13.5e9) / 3),
        "retransmits": 6315 + 3473 + 1021,
    }


@pytest.mark.parametrize(
    "line",
    [
        "[  5]   0.00-1.00   sec  garbage",
        "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  1698    458 KBy",
        "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/se",
        "[  5]   0.00-1.00   sec  1.65 PBytes  14.2 Gbits/sec",
        "[SUM]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  12 ms",
        "[  5][TX-C]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  x",
        "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  1698    458 KBytes  receiverx",
        "[  5]   0.00-1.00   sec  1.65 GBytes  1.4.2 Gbits/sec  1698    458 KBytes",
        "[  5]   0.0.0-1.00   sec  1.65 GBytes  14.2 Gbits/sec  1698    458 KBytes",
        "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  0.1 ms  1/2 (1.2.3%)  ",
        "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec" + " " * 5000,
        "[" + "x" * 5000,
    ],
)
def test_malformed_interval_lines_raise_parse_error(line: str) -> None:
    parser = Iperf3TextParser()
    for pre in PREAMBLE:
        parser.feed(pre)
    with pytest.raises(ParseError) as info:
        parser.feed(line)
    message = str(info.value)
    assert line[:20] in message
    assert len(message) < 300  # the line is quoted truncated to 200 characters
    # The parser is still usable afterwards and its state was not disturbed.
    out = feed_samples(
        parser, "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  1698    458 KBytes  "
    )
    assert [s.stream for s in out] == ["5", "5", "5", "sum", "sum", "sum"]


@pytest.mark.parametrize(
    "line",
    [
        "",
        "\r",
        "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd",
        "[ ID][Role] Interval           Transfer     Bitrate         Retr",
        "[  5] local 10.0.0.2 port 41706 connected to 10.0.0.1 port 5201",
        "[  5] something else entirely",
        "[SUM]",
        "[",
        "- - - - - - - - - - - - - - - - - - - - - - - - -",
        "-----------------------------------------------------------",
        "iperf Done.",
        "warning: UDP block size 8000 exceeds TCP MSS 1448, may result in fragmentation / drops",
        "Reverse mode, remote host 10.200.0.2 is sending",
        "Server listening on 5201 (test #1)",
        "  -B, --bind <host>[%<dev>] bind to the interface associated with the address <host>",
        "x" * 100_000,
        "\x00\x01\x02\xff\ufffd",
    ],
)
def test_chatter_is_ignored(line: str) -> None:
    assert Iperf3TextParser().feed(line) == []


def test_long_lines_do_not_backtrack() -> None:
    parser = Iperf3TextParser()
    nasty = [
        "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec" + " " * 4000 + "x",
        "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  " + "1" * 4000 + "x",
        "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  1 " + " 1" * 1990 + "x",
        "[  5]   " + "1." * 2000 + "-1.00 sec",
        "[" + " " * 4090 + "5]",
    ]
    # Only records or ParseError here; the time they take is bench/parser_worst.py's.
    for _ in range(20):
        for line in nasty:
            feed_or_parse_error(parser, line)


# --------------------------------------------------------------------------- fuzzing


_PREFIXES = [
    "[  5]",
    "[SUM]",
    "[  5][TX-C]",
    "[SUM][RX-S]",
    "[  5]   0.00-1.00   sec",
    "[  5]   0.00-1.00   sec  1.65 GBytes",
    "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec",
    "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  0.023 ms",
]
_TOKENS = st.sampled_from(
    [" ", "  ", "0", "1.5", "12", "-", ".", "/", "%", "(", ")", "e+02", "nan", "ms", "sec",
     "KBytes", "Gbits/sec", "MBytes/sec", "sender", "receiver", "(omitted)", "\r", "\t", "x"]
)  # fmt: skip


@FUZZ
@given(
    st.sampled_from(_PREFIXES),
    st.one_of(st.text(max_size=200), st.lists(_TOKENS, max_size=20).map("".join)),
)
def test_fuzz_interval_like_lines(prefix: str, rest: str) -> None:
    parser = Iperf3TextParser()
    for line in PREAMBLE:
        parser.feed(line)
    feed_or_parse_error(parser, prefix + rest)
    feed_or_parse_error(parser, prefix + " " + rest)
    parser.close()


def headline_receiver_line(name: str) -> int | None:
    """Index of the receiver summary line that makes a run complete (forward aggregate)."""
    lines = read_text(name).split("\n")
    has_sum = any(line.startswith("[SUM]") for line in lines)
    for i, line in enumerate(lines):
        if (
            line.endswith("receiver")
            and "[RX-C]" not in line
            and (line.startswith("[SUM]") or not has_sum)
        ):
            return i
    return None


def check_truncated(name: str, cut: int) -> None:
    data = (IPERF3 / name).read_bytes()
    full_samples, full_summary = parse_text(data.decode("utf-8"))
    lines, rest = split_lines(data[:cut])
    samples, summary = feed_all(lines)
    # Complete lines only: the samples are a prefix of the whole output's.
    assert samples == full_samples[: len(samples)]
    receiver = headline_receiver_line(name)
    if name == "server_session_multi.out":
        pass  # several tests: "complete" is about the last test that began
    elif name == "tcp_interrupted_sigint.out" or receiver is None:
        assert summary.complete is False
    elif name == "server_oneoff_tcp.out":  # a receiving server: its form has no retransmits
        assert summary.complete is False
        assert summary.reason == (
            iperf3_text_summary.REASON_SERVER_TCP if len(lines) > receiver else None
        )
    else:
        assert summary.complete is (len(lines) > receiver), (cut, len(lines), receiver)
    if cut == len(data):
        assert (samples, summary) == (full_samples, full_summary)
    # The unterminated rest (what a killed tool leaves): samples or ParseError, nothing else.
    if rest is not None:
        parser = Iperf3TextParser()
        for line in lines:
            parser.feed(line)
        feed_or_parse_error(parser, rest)
        parser.close()


@pytest.mark.parametrize("name", TEXT_FIXTURES)
def test_truncated_at_every_line_end(name: str) -> None:
    data = (IPERF3 / name).read_bytes()
    for cut in [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]:
        check_truncated(name, cut)


# --------------------------------------------------------------------------- records


def test_one_record_per_stream_per_line() -> None:
    parser = Iperf3TextParser()
    lines = read_text("tcp_t5_P2.out").split("\n")
    out = [parser.feed(line) for line in lines]
    by_line = {line: records for line, records in zip(lines, out, strict=True) if records}
    stream = "[  5]   0.00-1.00   sec  1.23 GBytes  10.6 Gbits/sec  2808    298 KBytes       "
    total = "[SUM]   0.00-1.00   sec  2.48 GBytes  21.3 Gbits/sec  6315             "
    assert by_line[stream] == [
        Record("5", 1.0, ("throughput_bps", "retransmits", "cwnd_bytes"), (10.6e9, 2808, 298 * KB))
    ]
    assert by_line[total] == [Record("sum", 1.0, ("throughput_bps", "retransmits"), (21.3e9, 6315))]
    assert all(len(records) == 1 for records in by_line.values())
    assert len(by_line) == 3 * 5  # two streams and [SUM], five intervals
    # Every record of a kind shares one metrics tuple.
    assert len({id(r.metrics) for records in out for r in records}) == 2


def test_single_stream_sum_is_a_second_record_with_the_same_values() -> None:
    parser = Iperf3TextParser()
    for line in PREAMBLE:
        parser.feed(line)
    [own, total] = parser.feed(
        "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  1698    458 KBytes       "
    )
    assert own == Record(
        "5", 1.0, ("throughput_bps", "retransmits", "cwnd_bytes"), (14.2e9, 1698, 458 * KB)
    )
    assert total == own._replace(stream="sum")
    assert total.metrics is own.metrics and total.values is own.values
    assert own.samples() == [
        Sample("5", "throughput_bps", 1.0, 14.2e9),
        Sample("5", "retransmits", 1.0, 1698),
        Sample("5", "cwnd_bytes", 1.0, 458 * KB),
    ]


def test_udp_receiver_line_is_one_record_of_five_metrics() -> None:
    records = parse_text_output(read_text("server_oneoff_udp.out"))[0]
    first = records[0]
    assert first == Record(
        "5",
        1.0,
        ("throughput_bps", "jitter_ms", "lost_packets", "packets", "lost_percent"),
        (1.78e9, 0.023, 3407, 31230, 11),
    )
    assert records[1] == first._replace(stream="sum")


def test_the_fast_path_takes_the_usual_sender_lines() -> None:
    fast = iperf3_text_grammar.FAST_MATCH
    assert fast("[  5]   0.00-1.00   sec   675 MBytes  5.66 Gbits/sec    0    856 KBytes       ")
    assert fast("[SUM]   0.00-1.00   sec  3.91 GBytes  33.6 Gbits/sec  2227             ")
    assert fast("[  5]   0.00-1.00   sec  5.96 MBytes  50.0 Mbits/sec  4461  ")
    assert not fast("[  5]   0.00-5.00   sec  1012 MBytes  1.70 Gbits/sec    0             sender")
    assert not fast("[  5][TX-C]   0.00-1.00   sec   233 MBytes  1.96 Gbits/sec    0    404 KBytes")


def _without_fast_path(lines: list[str]) -> tuple[list[object], Summary]:
    """What the general path alone makes of ``lines``: records or ParseError text per line."""
    parser = Iperf3TextParser()
    out: list[object] = []
    for line in lines:
        try:
            out.append(parser._feed_general(line))
        except ParseError as exc:
            out.append(str(exc))
    return out, parser.close()


def _with_fast_path(lines: list[str]) -> tuple[list[object], Summary]:
    parser = Iperf3TextParser()
    out: list[object] = []
    for line in lines:
        try:
            out.append(parser.feed(line))
        except ParseError as exc:
            out.append(str(exc))
    return out, parser.close()


@pytest.mark.parametrize("name", TEXT_FIXTURES)
def test_fast_path_gives_what_the_general_path_gives(name: str) -> None:
    lines = read_text(name).split("\n")
    assert _with_fast_path(lines) == _without_fast_path(lines)


def _long_tcp_client_output(intervals: int, streams: int) -> list[str]:
    """An ``iperf3 -c -P <streams>`` text output with made-up figures, in the 3.12 format."""
    rng = random.Random(streams)
    ids = [5 + 2 * i for i in range(streams)]
    lines = ["Connecting to host 10.0.0.1, port 5201"]
    lines += [f"[{i:3d}] local 10.0.0.2 port {i} connected to 10.0.0.1 port 5201" for i in ids]
    lines.append("[ ID] Interval           Transfer     Bitrate         Retr  Cwnd")
    for k in range(intervals):
        span = f"{k:6.2f}-{k + 1:<6.2f} sec"
        for i in ids:
            rate, retr, cwnd = rng.uniform(1, 9.9), rng.choice((0, 7, 1234)), rng.randint(100, 999)
            lines.append(
                f"[{i:3d}] {span}   675 MBytes  {rate:.2f} Gbits/sec  {retr:3d}   {cwnd} KBytes  "
            )
        if streams > 1:
            lines.append(f"[SUM] {span}  2.64 GBytes  22.6 Gbits/sec  {rng.randint(0, 99):3d}   ")
        lines.append("- - - - - - - - - - - - - - - - - - - - - - - - -")
    return lines


def test_fast_path_on_a_long_synthetic_run() -> None:
    for streams in (1, 4):
        lines = _long_tcp_client_output(200, streams)
        out, summary = _with_fast_path(lines)
        assert (out, summary) == _without_fast_path(lines)
        records = [r for item in out if isinstance(item, list) for r in item]
        assert len(records) == 200 * (streams + 1)
        assert summary.values["retransmits"] > 0


_SENDER_LINES = [
    "[  5]   0.00-1.00   sec   675 MBytes  5.66 Gbits/sec    0    856 KBytes       ",
    "[  7]   0.00-1.00   sec   675 MBytes  5.66 Gbits/sec    12    1.76 MBytes       ",
    "[SUM]   0.00-1.00   sec  3.91 GBytes  33.6 Gbits/sec  2227             ",
    "[SUM]   1.00-2.00   sec  3.91 GBytes  33.6 Gbits/sec  2227  12 KBytes",
    "[  5]   1.00-2.00   sec  5.96 MBytes  50.0 Mbits/sec  4461  ",
    "[  5]   1.00-1.00   sec  5.96 MBytes  50.0 Mbits/sec  4461  ",
    "[ 11]   0.50-1.00   sec  5.96 MBytes  50.0 bits/sec  4461  ",
]
_HEADERS = [
    "[  5] local 10.0.0.2 port 1 connected to 10.0.0.1 port 5201",
    "[  7] local 10.0.0.2 port 2 connected to 10.0.0.1 port 5201",
    "[ ID] Interval           Transfer     Bitrate         Total Datagrams",
    "Accepted connection from 10.0.0.2, port 3",
]
_EDITS = st.sampled_from([*"0123456789. -[]SUMKGTBbitsyec/x\r\t", "", "1.2.3", "١"])


@st.composite
def _mutated_sender_line(draw: st.DrawFn) -> str:
    line = list(draw(st.sampled_from(_SENDER_LINES)))
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(line) - 1))
        line[i] = draw(_EDITS)
    return "".join(line)


@FUZZ
@given(st.lists(st.one_of(_mutated_sender_line(), st.sampled_from(_HEADERS)), max_size=25))
def test_fuzz_fast_path_gives_what_the_general_path_gives(lines: list[str]) -> None:
    assert _with_fast_path(lines) == _without_fast_path(lines)


@FUZZ
@given(st.lists(_mutated_sender_line(), max_size=12))
def test_fuzz_fast_path_without_headers(lines: list[str]) -> None:
    # No "connected" lines: whether a stream is copied to "sum" hangs on [SUM] lines seen.
    assert _with_fast_path(lines) == _without_fast_path(lines)


def test_a_sum_line_stops_the_copy_to_sum_without_connected_lines() -> None:
    lines = [
        "[  5]   0.00-1.00   sec   675 MBytes  5.66 Gbits/sec    0    856 KBytes       ",
        "[SUM]   0.00-1.00   sec  3.91 GBytes  33.6 Gbits/sec  2227             ",
        "[  5]   1.00-2.00   sec   675 MBytes  5.67 Gbits/sec    0    856 KBytes       ",
        "[SUM]   1.00-2.00   sec  3.91 GBytes  33.7 Gbits/sec  2228             ",
    ]
    samples, _ = feed_all(lines)
    assert series(samples)[("sum", "throughput_bps")] == [(1.0, 5.66e9), (2.0, 33.7e9)]
    assert _with_fast_path(lines) == _without_fast_path(lines)


# --------------------------------------------------------------------------- a real cancelled run


def _started_line(proc: subprocess.Popen[bytes], deadline_s: float = 30.0) -> bytes:
    """Read the run's stderr until its first interval line (the run is measuring), or EOF;
    what was read, for the caller's diagnosis. Bounded by ``deadline_s``."""
    assert proc.stderr is not None
    seen = b""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        ready, _, _ = select.select([proc.stderr], [], [], 0.2)
        if not ready:
            continue
        line = proc.stderr.readline()
        if not line:
            break
        seen += line
        if b"bit/s" in line:  # "    1.0 s   47.5 Gbit/s  retransmits 0 ..."
            break
    return seen


def test_real_single_stream_run_cancelled_stores_no_zero(tmp_path: Path) -> None:
    """``pairbench run --pair local --tool iperf3`` (one stream) given SIGINT while it
    measures (0 to 0.3 s after its first interval), several times: every stored summary
    figure is a measured one (> 0), or absent with the reason (the run says it was
    cancelled, its summary that it is incomplete)."""
    require_program("iperf3")
    library = tmp_path / "library.sqlite"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    argv = [sys.executable, "-m", "pairbench", "--library", str(library), "run"]
    argv += ["--pair", "local", "--tool", "iperf3", "--set", "duration=10", "--json"]
    cancelled = 0
    for trial in range(4):
        for _ in range(60):  # another test's run may hold this computer for a moment
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            seen = _started_line(proc)
            time.sleep(0.1 * trial)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=30)
            if b"is busy" not in seen + err:
                break
            time.sleep(1.0)
        assert proc.returncode == 130, (seen + err).decode(errors="replace")
        cancelled += 1
        run_id = json.loads(out)["id"]
        shown = subprocess.run(
            [*argv[:5], "runs", "show", str(run_id), "--json"], capture_output=True, check=True
        )
        run = json.loads(shown.stdout)
        assert run["status"] == "cancelled" and run["error"] == "cancelled by the user", run
        values = run["summary"]
        measured = {k: v for k, v in values.items() if k != "retransmits"}
        assert all(math.isfinite(v) and v > 0 for v in measured.values()), values
        if "throughput_bps" not in values:
            assert run["summary_complete"] is False, run
    assert cancelled == 4
