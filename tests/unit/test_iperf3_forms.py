"""Golden tests: every iperf3 output form recorded in tests/data/captures/iperf3 (3.0.11 to 3.21).

Each capture is read by the tool's file parser (which detects the form) and, line by line, by
the live parser the engine makes for the parameters the capture's command corresponds to; the
expected figures are iperf3's own, copied from the capture's lines (each names its line),
in base units: rates in bit/s (bits 1000-based, bytes 1024-based), times in seconds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import Record, Summary
from pairbench.tools import iperf3, iperf3_metrics, iperf3_text_summary
from pairbench.tools.base import Capabilities, ParseError
from pairbench.tools.feed import feed_text
from pairbench.tools.iperf3_auto import Iperf3AutoParser, output_kind
from pairbench.tools.iperf3_json import Iperf3JsonParser
from pairbench.tools.iperf3_text import Iperf3TextParser
from pairbench.tools.iperf3_text_forms import UnitForm, body_offset
from pairbench.tools.registry import TOOLS
from parser_contract import Goldens, VersionCheck

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures" / "iperf3"
TOOL = TOOLS["iperf3"]

KiB, MiB, GiB, TiB = 1024.0, 1024.0**2, 1024.0**3, 1024.0**4
THR, SND, RETR, REV = (
    "throughput_bps",
    "sender_throughput_bps",
    "retransmits",
    "throughput_reverse_bps",
)
JIT, LOST, PKTS, PCT = "jitter_ms", "lost_packets", "packets", "lost_percent"
V312 = Capabilities("iperf 3.12 (cJSON 1.7.15)", (3, 12))
V321 = Capabilities("iperf 3.21 (cJSON 1.7.15)", (3, 21))


@dataclass(frozen=True)
class Golden:
    """What a capture holds, as iperf3 printed it."""

    form: str
    summary: Mapping[str, float]
    sums: list[float] = field(default_factory=list)  # the aggregate's interval rates, in order
    times: list[float] = field(default_factory=list)  # their end times (default 1.0, 2.0, 3.0)
    complete: bool = True
    reason: str | None = None
    error: str | None = None
    params: Mapping[str, str] = field(default_factory=dict)  # the live run's parameters
    streams: set[str] | None = None  # every stream the records name, when it matters


T123 = [1.0, 2.0, 3.0]
SERVER_TCP = iperf3_text_summary.REASON_SERVER_TCP
OLD_UDP = iperf3_text_summary.REASON_OLD_UDP_CLIENT

GOLDEN: dict[str, Golden] = {
    # ------------------------------------------------------------------ 3.12: --timestamps
    "v312_tcp_timestamps": Golden(
        "text --timestamps",
        {
            THR: 29.8e9,  # "... [  5]   0.00-3.00   sec  10.4 GBytes  29.8 Gbits/sec  receiver"
            SND: 29.8e9,  # "... [  5]   0.00-3.00   sec  10.4 GBytes  29.8 Gbits/sec    1  sender"
            RETR: 1,
        },
        sums=[25.5e9, 29.1e9, 34.8e9],  # "Tue Nov 24 17:34:02 2026 [  5]   0.00-1.00 ..." and on
    ),
    "v312_tcp_timestamps_server": Golden(
        "text --timestamps",
        {THR: 29.8e9},  # "... [  5]   0.00-3.00   sec  10.4 GBytes  29.8 Gbits/sec  receiver"
        sums=[25.5e9, 29.1e9, 34.8e9],  # the server's "[  5]" lines ("3.00-3.00" has no record)
        complete=False,
        reason=SERVER_TCP,
    ),
    "v312_tcp_P2_ts_hms": Golden(
        "text --timestamps",
        {
            # "17:34:08 [SUM]   0.00-3.00   sec  8.36 GBytes  23.9 Gbits/sec  receiver"
            THR: 23.9e9,
            # "17:34:08 [SUM]   0.00-3.00   sec  8.37 GBytes  24.0 Gbits/sec    0  sender"
            SND: 24.0e9,
            RETR: 0,
        },
        sums=[30.0e9, 19.0e9, 22.8e9],  # "17:34:06 [SUM]   0.00-1.00 ... 30.0 Gbits/sec" and on
        params={"streams": "2"},
        streams={"5", "7", "sum"},
    ),
    "v312_udp_ts_epoch": Golden(
        "text --timestamps",
        {
            # "1795541651 [ 5] 0.00-3.00 sec 7.09 MBytes 19.8 Mbits/sec 2.568 ms 2/229 (0.87%)
            # receiver"
            THR: 19.8e6,
            JIT: 2.568,
            LOST: 2,
            PKTS: 229,
            PCT: 0.87,
            # "1795541651 [  5] 0.00-3.00 sec 7.16 MBytes 20.0 Mbits/sec 0.000 ms 0/229 (0%) sender"
            SND: 20.0e6,
        },
        sums=[20.2e6, 19.9e6, 19.9e6],  # "1795541649 [  5]   0.00-1.00 ... 20.2 Mbits/sec  77" ...
        params={"udp": "true", "bitrate": "20M"},
    ),
    "v312_udp_ts_epoch_server": Golden(
        "text --timestamps",
        {THR: 19.8e6, JIT: 2.568, LOST: 2, PKTS: 229, PCT: 0.87},  # its "receiver" line
        sums=[
            20.2e6,
            19.4e6,
            19.9e6,
        ],  # "1795541650 [  5] 1.00-2.00 ... 19.4 Mbits/sec 0.050 ms 2/76"
        params={"udp": "true", "bitrate": "20M"},
    ),
    "v312_tcp_R_ts_bracket": Golden(
        "text --timestamps",
        {
            THR: 14.1e9,  # "[16] [  5]   0.00-3.64   sec  5.97 GBytes  14.1 Gbits/sec  receiver"
            SND: 14.1e9,  # "[16] [  5]   0.00-3.64   sec  5.97 GBytes  14.1 Gbits/sec    5  sender"
            RETR: 5,
        },
        sums=[19.4e9, 19.5e9, 7.51e9],  # "[13] [  5]   0.00-1.00 ... 19.4 Gbits/sec" .. "2.00-3.64"
        times=[1.0, 2.0, 3.64],
        params={"reverse": "true"},
    ),
    "v312_bidir_ts_fm": Golden(
        "text --timestamps -f m",
        {
            # "... [  5][TX-C]   0.00-3.00   sec  3.22 GBytes  9216 Mbits/sec  receiver"
            THR: 9216e6,
            # "... [  5][TX-C]   0.00-3.00   sec  3.22 GBytes  9227 Mbits/sec    7  sender"
            SND: 9227e6,
            RETR: 7,
            # "... [  7][RX-C]   0.00-3.00   sec  2.10 GBytes  5997 Mbits/sec  receiver"
            REV: 5997e6,
        },
        sums=[7620e6, 12811e6, 7231e6],  # the "[  5][TX-C]" interval lines
        params={"bidir": "true"},
        streams={"5", "7", "sum", "sum-reverse"},
    ),
    # ------------------------------------------------------------------ 3.12: -f k M g T
    "v312_tcp_fk": Golden(
        "text -f k",
        {
            THR: 24725618e3,  # "[  5]   0.00-3.00   sec  8.64 GBytes  24725618 Kbits/sec  receiver"
            # "[  5]   0.00-3.00   sec  8.65 GBytes  24727354 Kbits/sec   14  sender"
            SND: 24727354e3,
            RETR: 14,
        },
        sums=[31665727e3, 17824545e3, 24692105e3],  # "[  5]   0.00-1.00 ... 31665727 Kbits/sec"
    ),
    "v312_tcp_P2_fM": Golden(
        "text -f M",
        {
            THR: 3629
            * MiB
            * 8,  # "[SUM]   0.00-3.00   sec  10.6 GBytes  3629 MBytes/sec  receiver"
            SND: 3629
            * MiB
            * 8,  # "[SUM]   0.00-3.00   sec  10.6 GBytes  3629 MBytes/sec    0  sender"
            RETR: 0,
        },
        sums=[3549 * MiB * 8, 3794 * MiB * 8, 3545 * MiB * 8],  # the "[SUM]" interval lines
        params={"streams": "2"},
    ),
    "v312_udp_fg": Golden(
        "text -f g",
        {
            # "[  5] 0.00-3.00 sec 15.4 MBytes 0.04 Gbits/sec 0.008 ms 79/573 (14%) receiver":
            # a rate of one digit; the transfer over the interval has three.
            THR: 15.4 * MiB * 8 / 3.00,
            JIT: 0.008,
            LOST: 79,
            PKTS: 573,
            PCT: 14,
            SND: 17.9
            * MiB
            * 8
            / 3.00,  # "[  5] 0.00-3.00 sec 17.9 MBytes 0.05 Gbits/sec ... sender"
        },
        # "[  5]   0.00-1.00   sec  5.84 MBytes  0.05 Gbits/sec  187" and on
        sums=[5.84 * MiB * 8, 6.09 * MiB * 8, 5.97 * MiB * 8],
        params={"udp": "true", "bitrate": "50M"},
    ),
    "v312_udp_fg_server": Golden(
        "text -f g",
        {THR: 15.4 * MiB * 8 / 3.00, JIT: 0.008, LOST: 79, PKTS: 573, PCT: 14},  # "receiver"
        sums=[5.84 * MiB * 8, 3.62 * MiB * 8, 5.94 * MiB * 8],  # "... 3.62 MBytes  0.03 Gbits/sec"
        params={"udp": "true", "bitrate": "50M"},
    ),
    "v312_tcp_R_fT": Golden(
        "text -f T",
        {
            THR: 5.15
            * GiB
            * 8
            / 3.05,  # "[  5]   0.00-3.05   sec  5.15 GBytes  0.00 TBytes/sec  receiver"
            SND: 5.16
            * GiB
            * 8
            / 3.06,  # "[  5]   0.00-3.06   sec  5.16 GBytes  0.00 TBytes/sec  5  sender"
            RETR: 5,
        },
        # "[  5]   0.00-1.00   sec  3.00 GBytes  0.00 TBytes/sec", "1.00-2.00 ... 833 MBytes",
        # "2.00-3.05 ... 1.34 GBytes"
        sums=[3.00 * GiB * 8, 833 * MiB * 8, 1.34 * GiB * 8 / (3.05 - 2.00)],
        times=[1.0, 2.0, 3.05],
        params={"reverse": "true"},
    ),
    # ------------------------------------------------------------------ 3.12: --logfile, -V
    "v312_tcp_logfile": Golden(
        "text",
        {
            THR: 18.9e9,  # "[  6]   0.00-3.13   sec  6.88 GBytes  18.9 Gbits/sec  receiver"
            SND: 19.7e9,  # "[  6]   0.00-3.00   sec  6.88 GBytes  19.7 Gbits/sec   10  sender"
            RETR: 10,
        },
        sums=[27.9e9, 27.1e9, 4.06e9],
    ),
    "v312_udp_server_logfile": Golden(
        "text",
        {
            # "[  6] 0.00-3.01 sec 3.53 MBytes 9.84 Mbits/sec 0.665 ms 0/113 (0%) receiver"
            THR: 9.84e6,
            JIT: 0.665,
            LOST: 0,
            PKTS: 113,
            PCT: 0,
        },
        sums=[10.2e6, 9.96e6, 9.38e6],
        times=[1.0, 2.0, 3.01],
        params={"udp": "true", "bitrate": "10M"},
    ),
    "v312_udp_server_logfile_client": Golden(
        "text",
        {THR: 9.84e6, JIT: 0.665, LOST: 0, PKTS: 113, PCT: 0, SND: 9.85e6},  # its two lines
        sums=[10.2e6, 9.96e6, 9.38e6],
        times=[1.0, 2.0, 3.01],
        params={"reverse": "true"},  # (a client's own sender lines: any non-UDP-forward live run)
    ),
    "v312_tcp_V": Golden(
        "text -V",
        {THR: 22.7e9, SND: 22.7e9, RETR: 9},  # "[  5]   0.00-3.00 ... 22.7 Gbits/sec    9  sender"
        sums=[17.4e9, 23.1e9, 27.6e9],
    ),
    # ------------------------------------------------------------------ 3.12: --get-server-output
    "v312_tcp_gso": Golden(
        "text --get-server-output",
        {THR: 21.0e9, SND: 21.0e9, RETR: 2},  # the client's lines, before "Server output:"
        sums=[21.7e9, 19.0e9, 22.4e9],
        streams={"5", "sum", "server-5", "server-sum"},
    ),
    "v312_udp_gso": Golden(
        "text --get-server-output",
        {THR: 20.0e6, JIT: 0.018, LOST: 0, PKTS: 229, PCT: 0, SND: 20.0e6},
        sums=[20.2e6, 19.9e6, 19.9e6],
        params={"reverse": "true"},  # the client's own text (UDP forward parses the server's)
        streams={"5", "sum", "server-5", "server-sum"},
    ),
    # ------------------------------------------------------------------ 3.21
    "v321_tcp": Golden("text", {THR: 23.0e9, SND: 23.0e9, RETR: 10}, sums=[25.2e9, 22.9e9, 20.8e9]),
    "v321_tcp_server": Golden(
        "text",
        {THR: 23.0e9},  # "[  5]   0.00-3.00   sec  8.02 GBytes  23.0 Gbits/sec  receiver"
        sums=[25.2e9, 22.9e9, 20.8e9],  # "[  5]   1.00-2.01 ... 22.9", "2.01-3.00 ... 20.8"
        times=[1.0, 2.01, 3.0],
        complete=False,
        reason=SERVER_TCP,
    ),
    "v321_tcp_timestamps": Golden(
        "text --timestamps",
        {THR: 28.2e9, SND: 28.2e9, RETR: 0},  # "Tue Nov 24 17:35:05 2026 [  5]   0.00-3.00 ..."
    ),
    "v321_tcp_timestamps_server": Golden(
        "text --timestamps", {THR: 28.2e9}, complete=False, reason=SERVER_TCP
    ),
    "v321_udp_ts_epoch_nospace": Golden(
        "text --timestamps",
        {
            # "1795541709[ 5] 0.00-3.00 sec 7.16 MBytes 20.0 Mbits/sec 0.275 ms 0/229 (0%) receiver"
            THR: 20.0e6,
            JIT: 0.275,
            LOST: 0,
            PKTS: 229,
            PCT: 0,
            SND: 20.0e6,
        },
        sums=[20.2e6, 19.9e6, 19.9e6],  # "1795541707[  5]   0.00-1.00 ... 20.2 Mbits/sec  77" ...
        params={"udp": "true", "bitrate": "20M"},
    ),
    "v321_tcp_P2_ts_bracket": Golden(
        "text --timestamps",
        {THR: 43.8e9, SND: 43.8e9, RETR: 1},  # "[24] 17:35:12 [SUM]   0.00-3.00 ... 43.8 Gbits/sec"
        sums=[21.9e9, 54.7e9, 54.8e9],  # "[24] 17:35:10 [SUM]   0.00-1.00 ... 21.9 Gbits/sec" ...
        params={"streams": "2"},
        streams={"5", "7", "sum"},
    ),
    "v321_bidir_fK": Golden(
        "text -f K",
        {
            THR: 2755681
            * KiB
            * 8,  # "[  5][TX-C] 0.00-3.00 sec 7.89 GBytes 2755681 KBytes/sec receiver"
            SND: 2756795
            * KiB
            * 8,  # "[  5][TX-C] 0.00-3.00 sec 7.89 GBytes 2756795 KBytes/sec 4 sender"
            RETR: 4,
            REV: 3303347
            * KiB
            * 8,  # "[  7][RX-C] 0.00-3.00 sec 9.46 GBytes 3303347 KBytes/sec receiver"
        },
        sums=[2002832 * KiB * 8, 2861444 * KiB * 8, 3405204 * KiB * 8],  # "[  5][TX-C]" lines
        params={"bidir": "true"},
    ),
    "v321_tcp_fm": Golden(
        "text -f m",
        {THR: 29219e6, SND: 29230e6, RETR: 13},  # "... 10.2 GBytes  29219 Mbits/sec  receiver"
    ),
    "v321_udp_fG": Golden(
        "text -f G",
        {
            # "[  5] 0.00-3.00 sec 17.9 MBytes 0.01 GBytes/sec 0.145 ms 0/573 (0%) receiver"
            THR: 17.9 * MiB * 8 / 3.00,
            JIT: 0.145,
            LOST: 0,
            PKTS: 573,
            PCT: 0,
            SND: 17.9 * MiB * 8 / 3.00,
        },
        sums=[5.97 * MiB * 8] * 3,  # "[  5]   0.00-1.00   sec  5.97 MBytes  0.01 GBytes/sec  191"
        params={"udp": "true", "bitrate": "50M"},
    ),
    "v321_udp_fG_server": Golden(
        "text -f G",
        {THR: 17.9 * MiB * 8 / 3.00, JIT: 0.145, LOST: 0, PKTS: 573, PCT: 0},
        params={"udp": "true", "bitrate": "50M"},
    ),
    "v321_tcp_P4_ff": Golden(
        "text",
        {
            THR: 11.9e9,  # "[SUM]   0.00-3.03   sec  4.20 GBytes  11.9 Gbits/sec  receiver"
            SND: 11.9e9,  # "[SUM]   0.00-3.02   sec  4.20 GBytes  11.9 Gbits/sec   94  sender"
            RETR: 94,
        },
        sums=[8.12e9, 18.6e9, 9.26e9],  # "[SUM]   0.00-1.01   sec   982 MBytes  8.12 Gbits/sec"
        times=[1.01, 2.00, 3.02],
        params={"streams": "4"},
        streams={"5", "7", "9", "12", "sum"},
    ),
    "v321_tcp_P2_ft": Golden(
        "text -f t",
        {
            THR: 6.00
            * GiB
            * 8
            / 3.00,  # "[SUM]   0.00-3.00   sec  6.00 GBytes  0.02 Tbits/sec  receiver"
            SND: 6.00
            * GiB
            * 8
            / 3.00,  # "[SUM]   0.00-3.00   sec  6.00 GBytes  0.02 Tbits/sec   62  sender"
            RETR: 62,
        },
        sums=[
            1.34 * GiB * 8,
            1.78 * GiB * 8,
            2.88 * GiB * 8,
        ],  # "[SUM] 0.00-1.00 sec 1.34 GBytes 0.01 Tbits/sec 24"
        params={"streams": "2"},
    ),
    "v321_tcp_logfile": Golden("text", {THR: 15.1e9, SND: 15.1e9, RETR: 17}),
    "v321_tcp_R_server_logfile_client": Golden(
        "text", {THR: 34.7e9, SND: 34.7e9, RETR: 2}, params={"reverse": "true"}
    ),
    "v321_tcp_R_server_logfile_ts": Golden(
        "text --timestamps",
        # a sending server: its own "sender" line, retransmits included
        {
            THR: 34.7e9,
            SND: 34.7e9,
            RETR: 2,
        },  # "... [  6]   0.00-3.00 ... 34.7 Gbits/sec    2  sender"
        sums=[
            33.5e9,
            37.8e9,
            32.8e9,
        ],  # "Tue Nov 24 17:35:33 2026 [  6]   0.00-1.00 ... 33.5 Gbits/sec"
    ),
    "v321_tcp_V": Golden("text -V", {THR: 27.2e9, SND: 27.2e9, RETR: 5}),
    "v321_udp_R_V": Golden(
        "text -V",
        {THR: 20.0e6, JIT: 0.027, LOST: 0, PKTS: 229, PCT: 0, SND: 20.0e6},
        sums=[
            20.2e6,
            19.9e6,
            19.9e6,
        ],  # "[  5]   0.00-1.00 ... 20.2 Mbits/sec  0.014 ms  0/77 (0%)"
        params={"udp": "true", "reverse": "true", "bitrate": "20M"},
    ),
    "v321_udp_R_client": Golden(
        "text",
        {THR: 20.0e6, JIT: 0.019, LOST: 0, PKTS: 229, PCT: 0, SND: 20.0e6},
        params={"udp": "true", "reverse": "true", "bitrate": "20M"},
    ),
    "v321_udp_R_server": Golden(
        "text",
        {
            THR: 20.0e6,
            SND: 20.0e6,
        },  # "[  5] 0.00-3.00 sec 7.16 MBytes 20.0 Mbits/sec 0.000 ms 0/229 (0%) sender"
        sums=[20.2e6, 19.9e6, 19.9e6],
        complete=False,
        reason=iperf3_text_summary.REASON_SERVER_UDP_SENDER,
    ),
    "v321_tcp_P2_gso": Golden(
        "text --get-server-output",
        {THR: 52.7e9, SND: 52.7e9, RETR: 8},  # the client's "[SUM] ... 52.7 Gbits/sec" lines
        sums=[53.9e9, 51.1e9, 53.0e9],
        params={"streams": "2"},
        streams={"5", "7", "sum", "server-5", "server-8", "server-sum"},
    ),
    "v321_udp_gso_ts": Golden(
        "text --timestamps --get-server-output",
        {THR: 20.0e6, JIT: 0.018, LOST: 0, PKTS: 229, PCT: 0, SND: 20.0e6},
        sums=[20.2e6, 19.9e6, 19.9e6],
        params={"reverse": "true"},
        streams={"5", "sum", "server-5", "server-sum"},
    ),
    # ------------------------------------------------------------------ JSON
    "v312_tcp_json_gso": Golden(
        "json --get-server-output",
        {
            THR: 26243846037.031483,  # end.sum_received "bits_per_second":	26243846037.031483
            SND: 26256027967.664387,  # end.sum_sent "bits_per_second":	26256027967.664387
            RETR: 0,
        },
        sums=[24875097062.2131, 27113322695.43257, 26782184281.330727],
        streams={"5", "sum", "server-5", "server-sum"},
    ),
    "v321_tcp_json_gso": Golden(
        "json --get-server-output",
        {THR: 38277411343.625732, SND: 38286285130.387314, RETR: 6},
        sums=[37947616092.13561, 38065529646.08594, 38848698716.65918],
        streams={"5", "sum", "server-5", "server-sum"},
    ),
    "v321_tcp_json_gso_server_json": Golden(
        "json --get-server-output",
        {THR: 36211810788.974541, SND: 36222836938.3306, RETR: 2},
        sums=[31710080812.654984, 36246306667.81019, 40321259928.0691],
        streams={"5", "sum", "server-5", "server-sum"},
    ),
    "v321_tcp_P2_json": Golden(
        "json",
        {THR: 47766726923.166634, SND: 47787644332.5162, RETR: 0},
        sums=[48573314345.8337, 46582172567.11909, 48199457676.9618],
        streams={"5", "7", "sum"},
    ),
    "v321_tcp_R_json_stream": Golden(
        "json-stream",
        {THR: 37880051181.4382, SND: 37882177338.97922, RETR: 0},  # the "end" event's sums
        params={"reverse": "true"},
    ),
    "v321_udp_json_stream_gso": Golden(
        "json-stream --get-server-output",
        {
            THR: 20000678.33948092,  # "sum_received":{..."bits_per_second":20000678.33948092
            JIT: 0.024723233618532507,
            LOST: 0,
            PKTS: 229,
            PCT: 0,
            SND: 20000625.03019369,
        },
        streams={"5", "sum", "server-5", "server-sum"},
    ),
    "v37_udp_json": Golden(
        "json",
        {
            SND: 20009691.693096384,  # end.sum "bits_per_second": 20009691.693096384 (sent)
            JIT: 0.015146938684154706,
            LOST: 0,
            PKTS: 229,
            PCT: 0,
        },
        sums=[20183252.198228449, 19923262.255083822, 19922545.007990677],
        complete=False,
        reason=iperf3_metrics.REASON_OLD_UDP_JSON,
    ),
    "v3011_udp_json": Golden(
        "json",
        {SND: 1.93537e7, JIT: 0.0165379, LOST: 174, PKTS: 867, PCT: 20.0692},  # end.sum
        sums=[18019100.0, 19988200.0, 20053900.0],
        complete=False,
        reason=iperf3_metrics.REASON_OLD_UDP_JSON,
    ),
    # ------------------------------------------------------------------ older versions' text
    "v3011_tcp": Golden(
        "text",
        {THR: 36.5e9, SND: 36.5e9, RETR: 3},  # "[  4]   0.00-3.00 ... 36.5 Gbits/sec    3  sender"
        sums=[33.1e9, 39.1e9, 37.4e9],
        streams={"4", "sum"},
    ),
    "v3011_tcp_server": Golden(
        # 3.0's server prints the sender line too, retransmits included: complete.
        "text",
        {THR: 36.1e9, SND: 36.1e9, RETR: 3},  # "[  5]   0.00-3.04 ... 36.1 Gbits/sec    3  sender"
        sums=[31.4e9, 39.1e9, 38.2e9, 23.3e9],  # ... "[  5]   3.00-3.04 ... 23.3 Gbits/sec"
        times=[1.0, 2.0, 3.0, 3.04],
    ),
    "v3011_udp": Golden(
        # "[  4]   0.00-3.00   sec  6.92 MBytes  19.4 Mbits/sec  0.005 ms  163/886 (18%)  "
        # (no "sender"/"receiver": the sender's rate, the receiver's jitter and loss)
        "text",
        {SND: 19.4e6, JIT: 0.005, LOST: 163, PKTS: 886, PCT: 18},
        sums=[18.0e6, 20.1e6, 20.0e6],
        complete=False,
        reason=OLD_UDP,
        params={"reverse": "true"},
    ),
    "v3011_udp_server": Golden(
        "text",
        {THR: 19.1e6, JIT: 0.005, LOST: 163, PKTS: 886, PCT: 18},  # its side-less summary line
        sums=[18.0e6, 14.0e6, 15.3e6, 0.0],  # ... "3.00-3.04 sec 0.00 Bytes 0.00 bits/sec ..."
        times=[1.0, 2.0, 3.0, 3.04],
        params={"udp": "true", "bitrate": "20M"},
    ),
    "v3011_tcp_P2_R": Golden(
        "text",
        {THR: 25.1e9, SND: 25.1e9, RETR: 2},  # "[SUM]   0.00-3.00 ... 25.1 Gbits/sec    2  sender"
        sums=[23.9e9, 27.3e9, 24.2e9],
        params={"streams": "2", "reverse": "true"},
        streams={"4", "6", "sum"},
    ),
    "v313_tcp": Golden("text", {THR: 42.8e9, SND: 42.8e9, RETR: 0}, sums=[38.1e9, 43.9e9, 46.3e9]),
    "v313_tcp_server": Golden(
        # "[  5]   0.00-3.04   sec  0.00 Bytes  0.00 bits/sec  sender" is 3.1's server knowing
        # nothing of the sender: left out.
        "text",
        {THR: 42.3e9},  # "[  5]   0.00-3.04   sec  14.9 GBytes  42.3 Gbits/sec  receiver"
        sums=[36.6e9, 43.8e9, 46.2e9, 47.2e9],
        times=[1.0, 2.0, 3.0, 3.04],
        complete=False,
        reason=SERVER_TCP,
    ),
    "v313_udp": Golden(
        "text",
        {
            SND: 19.4e6,
            JIT: 0.003,
            LOST: 188,
            PKTS: 886,
            PCT: 21,
        },  # "... 19.4 Mbits/sec 0.003 ms 188/886 (21%)"
        sums=[18.1e6, 20.0e6, 20.1e6],
        complete=False,
        reason=OLD_UDP,
        params={"reverse": "true"},
    ),
    "v313_udp_R": Golden(
        "text",
        {
            SND: 20.0e6,
            JIT: 0.005,
            LOST: 229,
            PKTS: 916,
            PCT: 25,
        },  # "... 20.0 Mbits/sec 0.005 ms 229/916 (25%)"
        sums=[14.0e6, 15.0e6, 16.0e6],
        complete=False,
        reason=OLD_UDP,
        params={"udp": "true", "reverse": "true"},
    ),
    "v313_udp_server": Golden(
        # "[  5]   0.00-3.04   sec  0.00 Bytes  0.00 bits/sec  0.003 ms  188/886 (21%)": 698
        # datagrams arrived, so the zero is 3.1's; the throughput is the intervals' mean
        "text",
        {
            THR: (15.7e6 + 14.2e6 + 15.9e6 + 0.0 * 0.04) / 3.04,
            JIT: 0.003,
            LOST: 188,
            PKTS: 886,
            PCT: 21,
        },
        sums=[15.7e6, 14.2e6, 15.9e6, 0.0],
        times=[1.0, 2.0, 3.0, 3.04],
        complete=False,
        reason=iperf3_text_summary.REASON_ZERO_UDP_SUMMARY,
        params={"udp": "true", "bitrate": "20M"},
    ),
    "v33_tcp": Golden("text", {THR: 27.0e9, SND: 27.3e9, RETR: 1}),
    "v33_tcp_P2": Golden("text", {THR: 17.1e9, SND: 17.3e9, RETR: 0}, params={"streams": "2"}),
    "v33_tcp_server": Golden(
        "text",
        {THR: 27.0e9},
        complete=False,
        reason=SERVER_TCP,
        error="the client has unexpectedly closed the connection",  # its last line
    ),
    "v33_udp": Golden(
        "text",
        {THR: 19.7e6, JIT: 0.010, LOST: 0, PKTS: 229, PCT: 0, SND: 20.0e6},
        params={"reverse": "true"},
    ),
    "v33_udp_server": Golden(
        "text",
        {THR: 19.7e6, JIT: 0.010, LOST: 0, PKTS: 229, PCT: 0},
        error="the client has unexpectedly closed the connection",
        params={"udp": "true"},
    ),
    "v35_tcp": Golden("text", {THR: 27.2e9, SND: 27.6e9, RETR: 9}),
    "v35_tcp_server": Golden("text", {THR: 27.2e9}, complete=False, reason=SERVER_TCP),
    "v35_udp": Golden(
        "text",
        {THR: 19.7e6, JIT: 0.008, LOST: 0, PKTS: 229, PCT: 0, SND: 20.0e6},
        params={"reverse": "true"},
    ),
    "v35_udp_server": Golden(
        "text", {THR: 19.7e6, JIT: 0.008, LOST: 0, PKTS: 229, PCT: 0}, params={"udp": "true"}
    ),
    "v37_tcp": Golden("text", {THR: 23.5e9, SND: 23.8e9, RETR: 0}),
    "v37_tcp_server": Golden("text", {THR: 23.5e9}, complete=False, reason=SERVER_TCP),
    "v37_udp": Golden(
        "text",
        {THR: 19.8e6, JIT: 0.008, LOST: 0, PKTS: 229, PCT: 0, SND: 20.0e6},
        params={"reverse": "true"},
    ),
    "v37_udp_server": Golden(
        "text", {THR: 19.8e6, JIT: 0.008, LOST: 0, PKTS: 229, PCT: 0}, params={"udp": "true"}
    ),
    "v37_bidir": Golden(
        "text",
        {
            THR: 12.9e9,
            SND: 13.1e9,
            RETR: 16,
            REV: 9.08e9,
        },  # "[  5][TX-C] ..." and "[  7][RX-C] ... receiver"
        sums=[12.7e9, 12.7e9, 13.7e9],
        params={"bidir": "true"},
        streams={"5", "7", "sum", "sum-reverse"},
    ),
    "v39_tcp": Golden("text", {THR: 25.0e9, SND: 25.4e9, RETR: 0}),
    "v39_tcp_server": Golden("text", {THR: 25.0e9}, complete=False, reason=SERVER_TCP),
    "v39_udp": Golden(
        "text",
        {THR: 19.7e6, JIT: 0.009, LOST: 0, PKTS: 229, PCT: 0, SND: 20.0e6},
        params={"reverse": "true"},
    ),
    "v39_udp_server": Golden(
        "text", {THR: 19.7e6, JIT: 0.009, LOST: 0, PKTS: 229, PCT: 0}, params={"udp": "true"}
    ),
    "v39_udp_bidir": Golden(
        "text",
        {
            # "[  5][TX-C] 0.00-3.05 sec 7.16 MBytes 19.7 Mbits/sec 0.012 ms 0/229 (0%) receiver"
            THR: 19.7e6,
            JIT: 0.012,
            LOST: 0,
            PKTS: 229,
            PCT: 0,
            SND: 20.0e6,
            # "[  7][RX-C] 0.00-3.05 sec 7.28 MBytes 20.0 Mbits/sec 0.013 ms 0/233 (0%) receiver"
            REV: 20.0e6,
        },
        sums=[20.2e6, 19.9e6, 19.9e6],  # the "[  5][TX-C]" lines (datagrams, no jitter)
        params={"udp": "true", "bidir": "true"},
        streams={"5", "7", "sum", "sum-reverse"},
    ),
    "v316_tcp": Golden("text", {THR: 26.8e9, SND: 26.8e9, RETR: 0}),
    "v316_tcp_server": Golden("text", {THR: 26.8e9}, complete=False, reason=SERVER_TCP),
    "v316_udp": Golden(
        "text",
        {THR: 20.0e6, JIT: 2.201, LOST: 0, PKTS: 229, PCT: 0, SND: 20.0e6},
        params={"reverse": "true"},
    ),
    "v316_udp_server": Golden(
        "text", {THR: 20.0e6, JIT: 2.201, LOST: 0, PKTS: 229, PCT: 0}, params={"udp": "true"}
    ),
    "v3171_tcp": Golden("text", {THR: 27.6e9, SND: 27.6e9, RETR: 4}),
    "v3171_tcp_server": Golden("text", {THR: 27.6e9}, complete=False, reason=SERVER_TCP),
    "v3171_udp": Golden(
        "text",
        {THR: 20.0e6, JIT: 2.197, LOST: 0, PKTS: 229, PCT: 0, SND: 20.0e6},
        params={"reverse": "true"},
    ),
    "v3171_udp_server": Golden(
        "text", {THR: 20.0e6, JIT: 2.197, LOST: 0, PKTS: 229, PCT: 0}, params={"udp": "true"}
    ),
}


# --------------------------------------------------------------------------- helpers


def read(name: str) -> str:
    return (CAPTURES / f"{name}.out").read_bytes().decode("utf-8")


def file_parse(name: str) -> tuple[list[Record], Summary]:
    return feed_text(TOOL.file_parser(), read(name))


def live_parser(name: str) -> Iperf3TextParser | Iperf3JsonParser:
    """The parser the engine makes for the run this capture's command corresponds to."""
    golden = GOLDEN[name]
    params = iperf3.resolve(dict(golden.params))
    if golden.form.startswith("json-stream"):
        parser = iperf3.parser(params, V321)
    elif golden.form.startswith("json"):
        return Iperf3JsonParser()  # -J: the engine never asks for it; its parser reads it
    else:
        parser = iperf3.parser(params, V312)  # text: what the engine parses below 3.17
    assert isinstance(parser, (Iperf3TextParser, Iperf3JsonParser))
    return parser


def live_parse(name: str) -> tuple[list[Record], Summary]:
    parser = live_parser(name)
    records: list[Record] = []
    for line in read(name).split("\n"):  # line by line, as they arrive
        records += parser.feed(line)
    return records, parser.close()


def aggregate(records: list[Record], metric: str = THR) -> list[tuple[float, float]]:
    return [(r.t, r.values[r.metrics.index(metric)]) for r in records if r.stream == "sum"]


def approx(values: Mapping[str, float]) -> object:
    return pytest.approx(dict(values), rel=1e-12, abs=0.0)


# --------------------------------------------------------------------------- the captures


def test_every_capture_has_a_golden_test_and_a_command() -> None:
    names = {p.stem for p in CAPTURES.glob("*.out")}
    assert names == set(GOLDEN)
    for name in names:
        cmd = (CAPTURES / f"{name}.cmd").read_text(encoding="utf-8")
        assert cmd.startswith("# ") and "127.0.0.1" in cmd and "timeout 20 " in cmd


def check_golden(file_name: str, records: list[Record], summary: Summary) -> None:
    """The file parser's output of a capture is its golden (run by test_parser_contract)."""
    name = file_name.removesuffix(".out")
    golden = GOLDEN[name]
    assert summary.form == golden.form
    assert summary.values == approx(golden.summary)
    assert summary.complete is golden.complete
    assert summary.reason == golden.reason
    assert summary.error == golden.error
    if golden.sums:
        got = aggregate(records)
        times = golden.times or (T123 if not golden.form.startswith("json") else None)
        assert [v for _, v in got] == pytest.approx(golden.sums, rel=1e-12)
        if times is not None:
            assert [t for t, _ in got] == times
    if golden.streams is not None:
        assert {r.stream for r in records} == golden.streams
    for r in records:
        assert all(math.isfinite(v) for v in r.values) or "nan%" in read(name)


GOLDENS = Goldens(
    folder=CAPTURES,
    names=tuple(f"{name}.out" for name in sorted(GOLDEN)),
    check=check_golden,
    live_parser=lambda file_name: live_parser(file_name.removesuffix(".out")),
    parts=(Iperf3TextParser, Iperf3JsonParser, Iperf3AutoParser),
    # "iperf 3.12" (-V), "version": "iperf 3.21" (-J, --json-stream): read as before.
    versions=(VersionCheck(banner=r"iperf 3\.\d+(?:\.\d+)?", future="iperf 99.1"),),
)


def same(a: object, b: object) -> bool:
    """Equal, NaN equal to NaN (3.0's "0/0 (-nan%)" is one)."""
    return repr(a) == repr(b)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_live_parser_gives_the_same_records(name: str) -> None:
    records, summary = live_parse(name)
    assert same((records, summary), file_parse(name))


@pytest.mark.parametrize(
    ("name", "form"),
    [
        ("v312_tcp_R_ts_bracket", "text --timestamps"),
        ("v321_bidir_fK", "text -f K"),
        ("v321_udp_json_stream_gso", "json-stream --get-server-output"),
        ("v313_udp_server", "text"),
    ],
)
def test_pairbench_parse_prints_form_and_reason(tmp_path: Path, name: str, form: str) -> None:
    import io

    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(tmp_path / "l")})
    status = run_cli(["parse", "iperf3", str(CAPTURES / f"{name}.out")], env)
    assert status == 0, err.getvalue()
    payload = json.loads(out.getvalue())
    golden = GOLDEN[name]
    assert payload["form"] == form
    assert payload.get("reason") == golden.reason
    assert payload["complete"] is golden.complete
    assert payload["summary"] == approx(golden.summary)


# --------------------------------------------------------------------------- --get-server-output


def test_server_output_streams_are_the_servers_figures() -> None:
    records, _ = file_parse("v312_udp_gso")
    server = [r for r in records if r.stream == "server-5"]
    # "Server output:" ... "[ 5] 0.00-1.00 sec 2.41 MBytes 20.2 Mbits/sec 0.061 ms 0/77 (0%)"
    assert [r.values[r.metrics.index(JIT)] for r in server] == [0.061, 0.015, 0.018]
    assert [r.values[r.metrics.index(PKTS)] for r in server] == [77, 76, 76]
    # The client's own "[  5]" records stay the sender's: datagrams, no jitter.
    client = [r for r in records if r.stream == "5"]
    assert [r.metrics for r in client] == [iperf3_metrics.UDP_SEND] * 3


def test_server_output_json_member_gives_server_streams() -> None:
    records, _ = file_parse("v321_tcp_json_gso_server_json")
    server = [r for r in records if r.stream == "server-sum"]
    # server_output_json.intervals[0].sum.bits_per_second: 31688629771.282417 (the fourth,
    # 3.000-3.00x s, is what the text shows as "3.00-3.00": no record)
    assert [r.values[0] for r in server] == [
        31688629771.282417,
        36637428875.91843,
        40324120375.1656,
    ]


def test_server_output_text_in_json_with_timestamps_of_its_own() -> None:
    parser = Iperf3JsonParser()
    event = {
        "event": "server_output_text",
        "data": "Tue Nov 24 17:35:49 2026 [  5]   0.00-1.00   sec  2.41 MBytes  20.2 Mbits/sec"
        "  0.015 ms  0/77 (0%)  \n",
    }
    records = parser.feed(json.dumps(event))
    assert [r.stream for r in records] == ["server-5", "server-sum"]
    assert records[0].values == (20.2e6, 0.015, 0, 77, 0)


# --------------------------------------------------------------------------- composed lines
#
# Lines below are composed from the format strings of iperf3's src/iperf_locale.c (the
# version named), for what no loopback capture shows: a stream id and a time stamp run
# together, reordered datagrams, "Unknown" losses, every -f letter.


def text_of(*lines: str) -> tuple[list[Record], Summary]:
    return feed_text(Iperf3TextParser(), "\n".join(lines))


@pytest.mark.parametrize(
    "stamp",
    ["", "Tue Nov 24 17:34:02 2026 ", "[05] ", "[05]", "5 ", "1795541709", "[ 5] 12 ", "17:34:02 "],
)
def test_time_stamps_of_any_format(stamp: str) -> None:
    # report_bw_retrans_cwnd_format "[%3d]%s %6.2f-%-6.2f sec  %ss  %ss/sec  %3u   %ss       %s"
    lines = [
        stamp + "Connecting to host 127.0.0.1, port 5201",
        stamp + "[  5] local 127.0.0.1 port 38814 connected to 127.0.0.1 port 5201",
        stamp + "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd",
        stamp + "[  5]   0.00-1.00   sec  2.97 GBytes  25.5 Gbits/sec    0   2.00 MBytes       ",
        stamp + "- - - - - - - - - - - - - - - - - - - - - - - - -",
        stamp + "[ ID] Interval           Transfer     Bitrate         Retr",
        stamp + "[  5]   0.00-1.00   sec  2.97 GBytes  25.5 Gbits/sec    3             sender",
        stamp + "[  5]   0.00-1.00   sec  2.97 GBytes  25.4 Gbits/sec                  receiver",
        stamp + "iperf Done.",
    ]
    records, summary = text_of(*lines)
    assert [r.stream for r in records] == ["5", "sum"]
    assert records[0].values == (25.5e9, 0, 2 * MiB)
    assert summary.values == {THR: 25.4e9, SND: 25.5e9, RETR: 3}
    assert summary.form == ("text --timestamps" if stamp else "text")
    auto = Iperf3AutoParser()
    assert feed_text(auto, "\n".join(lines)) == (records, summary)


@pytest.mark.parametrize(
    ("rate", "bps", "letter"),
    [
        ("25500000 Kbits", 25500000e3, "k"),
        ("25500 Mbits", 25500e6, "m"),
        ("0.03 Gbits", 2.97 * GiB * 8, "g"),  # too few digits: the transfer's figure
        ("0.03 Tbits", 2.97 * GiB * 8, "t"),
        ("3112960 KBytes", 3112960 * KiB * 8, "K"),
        ("3040 MBytes", 3040 * MiB * 8, "M"),
        ("2.97 GBytes", 2.97 * GiB * 8, "G"),
        ("0.00 TBytes", 2.97 * GiB * 8, "T"),
    ],
)
def test_every_fixed_unit_letter(rate: str, bps: float, letter: str) -> None:
    records, summary = text_of(
        f"[  5]   0.00-1.00   sec  2.97 GBytes  {rate}/sec    0   2.00 MBytes       ",
        f"[  5]   0.00-1.00   sec  2.97 GBytes  {rate}/sec                  receiver",
    )
    assert records[0].values[0] == pytest.approx(bps, rel=1e-12)
    assert summary.values[THR] == pytest.approx(bps, rel=1e-12)
    assert summary.form == f"text -f {letter}"


def test_adaptive_units_are_no_fixed_letter() -> None:
    units = UnitForm()
    for number, unit in (("942", "Mbits"), ("1.05", "Gbits"), ("0.00", "bits")):
        units.note(number, unit)
    assert units.letter() is None
    one = UnitForm()
    one.note("942", "Mbits")  # may be adaptive or -f m: the values are the same
    assert one.letter() is None


def test_out_of_order_lines_are_read_past() -> None:
    # 3.12 report_bw_udp_format's neighbour: "[%3d]%s %4.1f-%4.1f sec  %d datagrams received
    # out-of-order" (until 3.12 an interval-like line our first parser took for malformed).
    records, _ = text_of(
        "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams",
        "[  5]   0.00-1.00   sec  2.41 MBytes  20.2 Mbits/sec  0.014 ms  0/77 (0%)  ",
        "[  5]  0.0- 1.0 sec  2 datagrams received out-of-order",
        "[SUM]  0.0- 1.0 sec  2 datagrams received out-of-order",
    )
    assert [r.stream for r in records] == ["5", "sum"]


def test_unknown_losses_after_omit() -> None:
    # 3.21 report_bw_udp_format_no_omitted_error:
    # "[%3d]%s %6.2f-%-6.2f sec  %ss  %ss/sec  %5.3f ms  Unknown/%" PRId64 "  %s"
    _, summary = text_of(
        "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams",
        "[  5]   0.00-3.00   sec  7.16 MBytes  20.0 Mbits/sec  0.000 ms  0/229 (0%)  sender",
        "[  5]   0.00-3.00   sec  7.16 MBytes  20.0 Mbits/sec  0.027 ms  Unknown/229  receiver",
    )
    assert summary.values == {THR: 20.0e6, JIT: 0.027, PKTS: 229, SND: 20.0e6}
    assert summary.complete is False
    assert summary.reason == iperf3_text_summary.REASON_LOST_UNKNOWN
    with pytest.raises(ParseError):  # never an interval's
        text_of("[  5]   1.00-2.00   sec  2.38 MBytes  19.9 Mbits/sec  0.014 ms  Unknown/76  ")


def test_statistics_not_available_lines_are_chatter() -> None:
    # 3.12 report_sender_not_available_format "[%3d] (sender statistics not available)"
    records, summary = text_of(
        "[  5] (sender statistics not available)",
        "[SUM] (receiver statistics not available)",
    )
    assert records == [] and summary.values == {}


def test_what_tells_text_after_a_time_stamp() -> None:
    assert body_offset("[  5]   0.00-1.00   sec  2.97 GBytes  25.5 Gbits/sec") == 0
    assert body_offset("- - - - - - - - - - - - -") == 0
    assert body_offset("[16] [  5]   0.00-1.00   sec  x") == 5
    assert body_offset("[24] 17:35:09 Connecting to host 127.0.0.1, port 44771") == 14
    assert body_offset("Time: Tue, 24 Nov 2026 17:35:35 GMT") == -1
    assert output_kind("Tue Nov 24 17:34:01 2026 Connecting to host 127.0.0.1, port 1") == "text"
    assert output_kind("Tue Nov 24 17:34:01 2026 iperf3: error - unable to connect") is None


def test_nested_server_output_is_read_once() -> None:
    # A server_output_json holding one of its own is not iperf3's: only one level is read.
    inner = {"intervals": [], "server_output_text": "[  5]   0.00-1.00   sec  1 Bytes  8 bits/sec"}
    doc = {"intervals": [], "server_output_json": inner}
    records, summary = feed_text(Iperf3JsonParser(), json.dumps(doc))
    assert records == [] and summary.form == "json --get-server-output"


def test_server_output_inside_server_output_is_not_nested() -> None:
    text = "Server output:\n" * 3000 + "[  5]   0.00-1.00   sec  2.41 MBytes  20.2 Mbits/sec  77"
    records, summary = feed_text(Iperf3TextParser(), text)
    assert [r.stream for r in records] == ["server-5", "server-sum"]
    assert summary.form == "text --get-server-output"
