"""Golden tests of the captures recorded on the project's network lab (tests/data/lab-captures).

iperf3 3.21 ``--json-stream`` and uperf 1.0.8 between the lab's namespaces (``pbl-client`` →
``pbl-server``, 10.213.0.1 → 10.213.0.2) with the link shaped by ``pairbench lab shape --rate
200mbit --delay 5ms`` (client → server rate; 5 ms each way, so a ~10 ms round trip). Each
capture's ``.cmd`` has the exact commands; the README lists them.

Every capture is read by the tool's file parser (``Tool.file_parser``, which detects the
form) and, where Pairbench would parse that output live, line by line by the live parser
(``Tool.parser(params, caps)``) for the parameters of the capture's command. The expected
figures are the tools' own, copied literally from the capture (the field or line is named
above each), in the parsers' units: bit/s (uperf's bits 1000-based), µs, ms (iperf3 jitter),
percent. Where uperf prints no figure for a metric (the raw -R form's rates, the latency
without a Txn table) the expression computes it from the printed counters, as the parser's
documentation defines it. Nothing here is derived from the parsers' own output.

Sanity checks of the link itself: a client → server TCP stream's summary throughput must be
within 3 % of the shaped 200 Mbit/s (``SHAPED_RATE_BPS``): the capture is of the shaped link.
uperf's request/response latency (its Txn table's mean round trip) must lie between the 10 ms
round trip the 5 ms each-way delay sets and 10 % above it. Reverse traffic (iperf3 ``-R``,
``--bidir``'s reverse direction) is not rate-shaped by the lab (it shapes client → server
only): those are not checked against the rate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pairbench.domain import Record, Summary
from pairbench.tools.base import Capabilities, Parser
from pairbench.tools.feed import feed_text
from pairbench.tools.iperf3_json import Iperf3JsonParser
from pairbench.tools.registry import get_tool
from pairbench.tools.uperf_forms import NO_LATENCY_REASON
from parser_checks import assert_records_well_formed
from uperf_final_lines import HEADLINE, assert_figures_are_uperfs

LAB_CAPTURES = Path(__file__).resolve().parents[1] / "data" / "lab-captures"
SHAPED_RATE_BPS = 200e6  # lab shape --rate 200mbit (see each capture's .cmd)
SHAPED_TOLERANCE = 0.03
ROUND_TRIP_US = 2 * 5000.0  # lab shape --delay 5ms, each way
V321 = Capabilities("iperf 3.21 (cJSON 1.7.15)", (3, 21))
UPERF108 = Capabilities("Uperf Version 1.0.8", (1, 0, 8))

THR, SND, RETR, REV = (
    "throughput_bps",
    "sender_throughput_bps",
    "retransmits",
    "throughput_reverse_bps",
)
JIT, LOST, PKTS, PCT = "jitter_ms", "lost_packets", "packets", "lost_percent"
OPS, LAT, WRITE, READ, TOTAL = (
    "ops_per_s",
    "latency_avg_us",
    "write_avg_us",
    "read_avg_us",
    "total_throughput_bps",
)


@dataclass(frozen=True)
class Golden:
    """What a capture must parse to.

    ``values``: the file parser's whole summary; ``intervals``: how many interval events
    (iperf3) or interval points after the first of the main transaction (uperf) the capture
    has, i.e. the records of stream "sum"; ``sums``: the aggregate's interval rates in order
    (iperf3: the interval events' ``sum.bits_per_second``), when listed; ``params``: the live
    run's parameters, None when Pairbench never parses this output live; ``live``: what the
    live parser's summary has besides or instead of ``values``; ``shaped``: the summary key
    that is a client → server TCP stream's throughput (checked against the shaped rate).
    """

    tool: str
    form: str
    intervals: int
    values: Mapping[str, float]
    sums: list[float] = field(default_factory=list)
    params: Mapping[str, str] | None = None
    live: Mapping[str, float] = field(default_factory=dict)
    complete: bool = True
    reason: str | None = None
    live_complete: bool = True
    shaped: str | None = None


# uperf's raw (-R) lines: "timestamp_ms:T name:Txn2 nr_bytes:B nr_ops:O", first and last.
def raw_rate(b0: float, b1: float, t0_ms: float, t1_ms: float) -> float:
    """8 * Δbytes / Δt in bit/s, from two raw lines."""
    return 8 * (b1 - b0) / (t1_ms - t0_ms) * 1e3


def raw_ops(o0: float, o1: float, t0_ms: float, t1_ms: float) -> float:
    """Δops / Δt in op/s, from two raw lines."""
    return (o1 - o0) / (t1_ms - t0_ms) * 1e3


GOLDEN: dict[str, Golden] = {
    # ------------------------------------------------------------------ iperf3 3.21
    "iperf3/v321_tcp_json_stream.out": Golden(
        "iperf3",
        "json-stream",
        intervals=4,  # 4 {"event":"interval"} lines
        values={
            THR: 197748121.102446,  # end.sum_received.bits_per_second
            SND: 205685853.43425229,  # end.sum_sent.bits_per_second
            RETR: 0,  # end.sum_sent.retransmits
        },
        # each interval event's sum.bits_per_second
        sums=[213663152.0418981, 207695928.32800624, 194958115.92751792, 206421458.75698957],
        params={"duration": "4"},
        shaped=THR,
    ),
    "iperf3/v321_tcp_P4_json_stream.out": Golden(
        "iperf3",
        "json-stream",
        intervals=4,
        values={
            THR: 198472564.87385356,  # end.sum_received.bits_per_second
            SND: 209839112.48465076,  # end.sum_sent.bits_per_second
            RETR: 0,  # end.sum_sent.retransmits
        },
        sums=[241138243.61082309, 192831345.97209781, 203538948.20623818, 201869280.01423892],
        params={"duration": "4", "streams": "4"},
        shaped=THR,
    ),
    "iperf3/v321_tcp_R_json_stream.out": Golden(
        "iperf3",
        "json-stream",
        intervals=4,
        values={
            # -R: server -> client, which the lab does not rate-shape (2.4 Gbit/s)
            THR: 2429948522.6768208,  # end.sum_received.bits_per_second (the client's)
            SND: 2429827669.7407279,  # end.sum_sent.bits_per_second (the server's)
            RETR: 0,  # end.sum_sent.retransmits
        },
        sums=[2324883795.72744, 2503799210.520082, 2464811775.7518868, 2426341809.1386461],
        params={"duration": "4", "reverse": "true"},
    ),
    "iperf3/v321_tcp_bidir_json_stream.out": Golden(
        "iperf3",
        "json-stream",
        intervals=4,
        values={
            THR: 197760832.00998154,  # end.sum_received.bits_per_second (client -> server)
            SND: 204112253.14655295,  # end.sum_sent.bits_per_second
            RETR: 0,  # end.sum_sent.retransmits
            REV: 1909162695.2826223,  # end.sum_received_bidir_reverse.bits_per_second
        },
        sums=[216803734.11897948, 196133337.99395421, 208699178.01544967, 194807598.26694351],
        params={"duration": "4", "bidir": "true"},
        shaped=THR,
    ),
    "iperf3/v321_udp_b50M_json_stream.out": Golden(
        "iperf3",
        "json-stream",
        intervals=4,
        values={
            THR: 49868417.995230086,  # end.sum_received.bits_per_second
            JIT: 0.012668340660306952,  # end.sum_received.jitter_ms
            LOST: 0,  # end.sum_received.lost_packets
            PKTS: 17267,  # end.sum_received.packets
            PCT: 0,  # end.sum_received.lost_percent
            SND: 49997394.908348121,  # end.sum_sent.bits_per_second
        },
        sums=[50001326.9295451, 50003079.527501449, 50003078.8233739, 49982101.006259061],
        # Client -> server UDP: Pairbench parses the server's text output live, not this.
        params=None,
    ),
    "iperf3/v321_tcp_server_json_stream.out": Golden(
        "iperf3",
        "json-stream",
        intervals=5,  # 5 interval events: the last one 4.000625-4.013893
        values={
            # end.sum_received.bits_per_second (the server's own; its sum_sent is 0)
            THR: 197756151.44698673,
        },
        sums=[
            190711903.9100149,
            200295243.294211,
            200370992.58069375,
            200178125.09656832,
            158060893.08590215,
        ],
        params=None,  # Pairbench's server prints text (-s -1 --forceflush)
        shaped=THR,
    ),
    "iperf3/v321_udp_b50M_server_json_stream.out": Golden(
        "iperf3",
        "json-stream",
        intervals=5,
        values={
            THR: 49866788.041882426,  # end.sum_received.bits_per_second
            JIT: 0.027392584030721208,  # end.sum_received.jitter_ms
            LOST: 0,  # end.sum_received.lost_packets
            PKTS: 17270,  # end.sum_received.packets
            PCT: 0,  # end.sum_received.lost_percent
        },
        sums=[
            49494580.781318918,
            49988860.25485,
            50008727.131235681,
            49995197.0644254,
            48039810.070172332,
        ],
        params=None,
    ),
    # ------------------------------------------------------------------ uperf 1.0.8
    "uperf/rr_tcp_t1_R_i1s_a.out": Golden(
        "uperf",
        "text -R -a",
        intervals=4,  # 5 Txn2 raw lines: the first is the baseline
        values={
            # timestamp_ms:1795546222239.6899 name:Txn2 nr_bytes:0 nr_ops:0
            # timestamp_ms:1795546226444.3621 name:Txn2 nr_bytes:69030 nr_ops:767
            THR: raw_rate(0, 69030, 1795546222239.6899, 1795546226444.3621),
            OPS: raw_ops(0, 767, 1795546222239.6899, 1795546226444.3621),
            # Txn1                 384     10.43ms      0.00ns     13.58ms    334.30us
            LAT: 10.43e3,
            # write                384    230.16us      0.00ns    629.49us     95.35us
            WRITE: 230.16,
            # read                 383     10.22ms      0.00ns     13.31ms     65.68us
            READ: 10.22e3,
            # master             6.31s    67.41KB    87.53Kb/s          770        0.00
            TOTAL: 87.53e3,
        },
        params={"profile": "latency", "protocol": "tcp", "threads": "1", "duration": "4"},
    ),
    "uperf/rr_tcp_t1_default.out": Golden(
        "uperf",
        "text",
        intervals=4,  # Txn2 progress pieces at 0.00, 1.00, 2.00, 3.00, 4.20 s
        values={
            # Txn2      66.36KB /   4.20(s) =   129.30Kb/s         180op/s
            THR: 129.30e3,
            OPS: 180,
            # no Txn table: threads * secs * 2 flowops per iteration / (op/s * secs)
            LAT: 1 * 4.20 * 2 / (180 * 4.20) * 1e6,
            # Total     66.36KB /   6.31(s) =    86.18Kb/s         120op/s
            TOTAL: 86.18e3,
        },
        params={"profile": "latency", "protocol": "tcp", "threads": "1", "duration": "4"},
    ),
    "uperf/rr_udp_t1_R_i1s_a.out": Golden(
        "uperf",
        "text -R -a",
        intervals=4,
        values={
            # timestamp_ms:1795546246730.6736 name:Txn2 nr_bytes:0 nr_ops:0
            # timestamp_ms:1795546250937.7788 name:Txn2 nr_bytes:68310 nr_ops:759
            THR: raw_rate(0, 68310, 1795546246730.6736, 1795546250937.7788),
            OPS: raw_ops(0, 759, 1795546246730.6736, 1795546250937.7788),
            # Txn1                 380     10.54ms      0.00ns     14.24ms      3.75ms
            LAT: 10.54e3,
            # write                380    273.29us      0.00ns      5.15ms     35.40us
            WRITE: 273.29,
            # read                 379     10.30ms      0.00ns     14.04ms      3.36ms
            READ: 10.30e3,
            # master             6.31s    66.71KB    86.61Kb/s          762        0.00
            TOTAL: 86.61e3,
        },
        params={"profile": "latency", "protocol": "udp", "threads": "1", "duration": "4"},
        # Difference(%)     -0.17%     -0.13%        0.03%       -0.13%       0.00%
        # (bytes column -0.13 %: the slave counted more; negative is read as 0)
        live={PCT: 0.0},
    ),
    "uperf/rr_udp_t1_default.out": Golden(
        "uperf",
        "text",
        intervals=4,  # Txn2 progress pieces at 0.00, 1.00, 2.00, 3.00, 4.21 s
        values={
            # Txn2      67.76KB /   4.21(s) =   131.99Kb/s         183op/s
            THR: 131.99e3,
            OPS: 183,
            LAT: 1 * 4.21 * 2 / (183 * 4.21) * 1e6,
            # Total     67.76KB /   6.31(s) =    87.99Kb/s         122op/s
            TOTAL: 87.99e3,
        },
        params={"profile": "latency", "protocol": "udp", "threads": "1", "duration": "4"},
        # Difference(%)     -0.16%     -0.13%        0.03%       -0.13%       0.00%
        live={PCT: 0.0},
    ),
    "uperf/stream_tcp_t8_R_i1s_a.out": Golden(
        "uperf",
        "text -R -a",
        intervals=4,
        values={
            # timestamp_ms:1795546271171.5007 name:Txn2 nr_bytes:0 nr_ops:0
            # timestamp_ms:1795546275377.1638 name:Txn2 nr_bytes:106332122 nr_ops:13018
            THR: raw_rate(0, 106332122, 1795546271171.5007, 1795546275377.1638),
            OPS: raw_ops(0, 13018, 1795546271171.5007, 1795546275377.1638),
            # Txn1                1306     24.52ms      0.00ns    167.09ms     18.71us
            LAT: 24.52e3,
            # write              13018      2.46ms      0.00ns    167.09ms     18.66us
            WRITE: 2.46e3,
            # master             6.21s   101.41MB   136.89Mb/s        13042        0.00
            TOTAL: 136.89e6,
        },
        params={"profile": "throughput", "protocol": "tcp", "threads": "8", "duration": "4"},
        shaped=THR,
    ),
    "uperf/stream_tcp_t8_default.out": Golden(
        "uperf",
        "text",
        intervals=4,
        values={
            # Txn2      100.94M /   4.20(s) =   201.38Mb/s        3081op/s
            THR: 201.38e6,
            OPS: 3081,
            # Total     100.94M /   6.21(s) =   136.29Mb/s        2088op/s
            TOTAL: 136.29e6,
        },
        # A saved file does not tell the throughput profile's writes per iteration.
        complete=False,
        reason=NO_LATENCY_REASON,
        params={"profile": "throughput", "protocol": "tcp", "threads": "8", "duration": "4"},
        # live: count=10 writes per iteration, 8 threads (from "Starting 8 threads")
        live={LAT: 8 * 4.20 * 10 / (3081 * 4.20) * 1e6},
        shaped=THR,
    ),
    "uperf/stream_udp_t1_R_i1s_a.out": Golden(
        "uperf",
        "text -R -a",
        intervals=4,
        values={
            # timestamp_ms:1795546295423.4578 name:Txn2 nr_bytes:0 nr_ops:0
            # timestamp_ms:1795546299629.3835 name:Txn2 nr_bytes:103137280 nr_ops:12590
            THR: raw_rate(0, 103137280, 1795546295423.4578, 1795546299629.3835),
            OPS: raw_ops(0, 12590, 1795546295423.4578, 1795546299629.3835),
            # Txn1                1260      3.18ms      0.00ns     30.61ms     99.08us
            LAT: 3.18e3,
            # write              12590    317.87us      0.00ns     30.61ms     99.01us
            WRITE: 317.87,
            # master             6.31s    98.36MB   130.77Mb/s        12593        0.00
            TOTAL: 130.77e6,
        },
        params={"profile": "throughput", "protocol": "udp", "threads": "1", "duration": "4"},
        # Difference(%)     -0.16%     11.04%       11.19%       10.97%       0.00%
        live={PCT: 11.04},
    ),
    "uperf/stream_udp_t1_default.out": Golden(
        "uperf",
        "text",
        intervals=4,
        values={
            # Txn2      98.12MB /   4.20(s) =   195.84Mb/s        2988op/s
            THR: 195.84e6,
            OPS: 2988,
            # Total     98.12MB /   6.31(s) =   130.53Mb/s        1992op/s
            TOTAL: 130.53e6,
        },
        complete=False,
        reason=NO_LATENCY_REASON,
        params={"profile": "throughput", "protocol": "udp", "threads": "1", "duration": "4"},
        # Difference(%)     -0.16%      2.07%        2.22%        2.05%       0.00%
        live={LAT: 1 * 4.20 * 10 / (2988 * 4.20) * 1e6, PCT: 2.07},
    ),
}

LIVE = sorted(name for name, golden in GOLDEN.items() if golden.params is not None)
SHAPED = sorted(name for name, golden in GOLDEN.items() if golden.shaped is not None)


def capture_text(name: str) -> str:
    """A capture's exact text ("\\r" kept: uperf rewrites its progress line with it)."""
    return (LAB_CAPTURES / name).read_bytes().decode("utf-8", "replace")


def file_parse(name: str) -> tuple[list[Record], Summary]:
    """The capture through its tool's file parser (as ``pairbench parse`` reads it)."""
    return feed_text(get_tool(GOLDEN[name].tool).file_parser(), capture_text(name))


def live_parser(name: str) -> Parser:
    """The parser the engine makes for a live run with the capture's parameters."""
    golden = GOLDEN[name]
    assert golden.params is not None
    tool = get_tool(golden.tool)
    caps = V321 if golden.tool == "iperf3" else UPERF108
    return tool.parser(tool.resolve(golden.params), caps)


def live_parse(name: str) -> tuple[list[Record], Summary]:
    """The capture fed to the live parser one line at a time, as the engine feeds it."""
    parser = live_parser(name)
    records: list[Record] = []
    for line in capture_text(name).splitlines():
        records += parser.feed(line)
    return records, parser.close()


def interval_lines(name: str) -> int:
    """The intervals the capture itself has, counted from its lines (not by a parser):
    iperf3 ``{"event":"interval"`` lines; uperf points of the main transaction (Txn2 raw lines
    or progress pieces) after its first, the baseline."""
    text = capture_text(name)
    if GOLDEN[name].tool == "iperf3":
        return sum(line.startswith('{"event":"interval"') for line in text.splitlines())
    pieces = [p.strip() for line in text.splitlines() for p in line.split("\r")]
    main = [p for p in pieces if " name:Txn2 " in p or (p.startswith("Txn2 ") and "(s) =" in p)]
    return len(main) - 1


def assert_values(
    actual: Mapping[str, float], expected: Mapping[str, float], name: str = ""
) -> None:
    """The same keys, the same values (to float rounding of the expressions). uperf's: the
    expected headline, and every other figure one of uperf's final lines (all of them)."""
    if name.startswith("uperf/"):
        assert_figures_are_uperfs(actual, capture_text(name))
        assert {k for k in actual if k in HEADLINE} == {k for k in expected if k in HEADLINE}
    else:
        assert sorted(actual) == sorted(expected)
    for key, value in expected.items():
        assert actual[key] == pytest.approx(value, rel=1e-12, abs=1e-12), key


def test_every_capture_has_a_golden_and_a_cmd() -> None:
    on_disk = sorted(
        f"{p.parent.name}/{p.name}" for p in LAB_CAPTURES.glob("*/*") if p.suffix == ".out"
    )
    assert on_disk == sorted(GOLDEN)
    for name in GOLDEN:
        cmd = (LAB_CAPTURES / name).with_suffix(".cmd").read_text()
        assert "rate 200mbit, delay 5ms" in cmd, name
        assert "pbl-client" in cmd and "pbl-server" in cmd, name


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_file_parser_summary(name: str) -> None:
    golden = GOLDEN[name]
    records, summary = file_parse(name)
    assert_records_well_formed(records)
    assert summary.form == golden.form
    assert summary.error is None
    assert summary.complete is golden.complete
    assert summary.reason == golden.reason
    assert_values(summary.values, golden.values, name)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_interval_count(name: str) -> None:
    golden = GOLDEN[name]
    records, _ = file_parse(name)
    sums = [r for r in records if r.stream == "sum"]
    assert interval_lines(name) == golden.intervals
    assert len(sums) == golden.intervals
    if golden.sums:
        assert [r.values[0] for r in sums] == golden.sums


def test_bidir_reverse_intervals() -> None:
    """--bidir with one stream each way: "sum-reverse" is a copy of the reverse stream's record
    (socket 7), as the parser documents (the text prints no [SUM] line there); iperf3's own
    ``sum_bidir_reverse`` of each event differs from it by a few ppm (its time span is the
    forward stream's: 1804603062.2560465 in the first event)."""
    records, _ = file_parse("iperf3/v321_tcp_bidir_json_stream.out")
    reverse = [(r.t, r.values[0]) for r in records if r.stream == "sum-reverse"]
    # each interval event's streams[socket 7].end and .bits_per_second
    assert reverse == [
        (1.001168, 1804588665.6663637),
        (2.000912, 1929873891.4781415),
        (3.000757, 1952751133.897944),
        (4.001925, 1972165094.2830894),
    ]
    assert [r.values[0] for r in records if r.stream == "7"] == [v for _, v in reverse]


def test_p4_streams() -> None:
    records, _ = file_parse("iperf3/v321_tcp_P4_json_stream.out")
    # start.connected: sockets 5, 7, 9, 11; one record each per interval event
    assert {r.stream for r in records} == {"sum", "5", "7", "9", "11"}
    assert all(sum(r.stream == s for r in records) == 4 for s in ("5", "7", "9", "11"))


@pytest.mark.parametrize("name", LIVE)
def test_live_parser(name: str) -> None:
    golden = GOLDEN[name]
    records, summary = live_parse(name)
    assert_records_well_formed(records)
    assert summary.form == golden.form
    assert summary.error is None
    assert summary.complete is golden.live_complete
    assert summary.reason is None
    assert_values(summary.values, {**golden.values, **golden.live}, name)
    sums = [r for r in records if r.stream == "sum"]
    assert len(sums) == golden.intervals
    file_records, _ = file_parse(name)
    if golden.tool == "iperf3":
        assert isinstance(live_parser(name), Iperf3JsonParser)
        assert records == file_records
    else:  # the same intervals; the live parser may add the latency the file cannot know
        assert [r.values[:2] for r in sums] == [
            r.values[:2] for r in file_records if r.stream == "sum"
        ]


def test_live_parser_not_json_for_udp_client_to_server() -> None:
    """Pairbench parses a client -> server UDP run from the server's text output, so the UDP
    client capture has no live golden (documented in ``GOLDEN``)."""
    tool = get_tool("iperf3")
    parser = tool.parser(tool.resolve({"udp": "true", "bitrate": "50M"}), V321)
    assert not isinstance(parser, Iperf3JsonParser)


@pytest.mark.parametrize("name", SHAPED)
def test_shaped_link_rate(name: str) -> None:
    """A client -> server TCP stream runs at the shaped 200 Mbit/s, within 3 %: the capture is
    of the shaped lab link (the tool's own figure, not ours: see ``GOLDEN``)."""
    golden = GOLDEN[name]
    assert golden.shaped is not None
    rate = golden.values[golden.shaped]
    assert abs(rate - SHAPED_RATE_BPS) <= SHAPED_TOLERANCE * SHAPED_RATE_BPS
    _, summary = file_parse(name)
    assert abs(summary.values[golden.shaped] - SHAPED_RATE_BPS) <= (
        SHAPED_TOLERANCE * SHAPED_RATE_BPS
    )


@pytest.mark.parametrize("name", ["uperf/rr_tcp_t1_R_i1s_a.out", "uperf/rr_udp_t1_R_i1s_a.out"])
def test_shaped_link_round_trip(name: str) -> None:
    """uperf's measured mean round trip (Txn table) is the lab's 2 x 5 ms, plus < 10 %."""
    _, summary = file_parse(name)
    assert ROUND_TRIP_US <= summary.values[LAT] <= 1.1 * ROUND_TRIP_US
