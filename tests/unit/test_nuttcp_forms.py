"""Golden tests: every nuttcp 6.1.2 output form, read from captures recorded on loopback.

The captures are ``tests/data/captures/nuttcp/NAME.out`` (their ``NAME.cmd`` holds the command
line). Every expected number below is copied from the capture's own text, the line named in the
comment: interval reports as ``(t, values)`` with ``t`` the sum of the printed interval lengths
and values in base units (Mbps as printed ``e6``), and the summary the tool printed at the end.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import Record, Summary
from pairbench.tools import nuttcp
from pairbench.tools.base import Capabilities, Parser
from pairbench.tools.feed import feed_text
from pairbench.tools.nuttcp_text import (
    TCP_INTERVAL,
    THROUGHPUT_ONLY,
    UDP_INTERVAL,
    NuttcpTextParser,
)
from parser_checks import feed_all
from parser_contract import Goldens, VersionCheck

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures" / "nuttcp"
CAPS = Capabilities(version="nuttcp-6.1.2", version_tuple=(6, 1, 2))

TCP = {"duration": "3"}
UDP = {"duration": "3", "udp": "true", "rate": "50M", "length": "1400"}

# Why a form cannot carry a metric (Summary.reason), as the parser words it.
NO_INTERVALS = "nuttcp printed no interval reports (only -i makes them): no per-interval series"
NO_RETRANS = "nuttcp printed no retrans count (none with -N > 1 or -f-retrans): no retransmits"
NO_LOSS = (
    "nuttcp printed neither retrans nor loss figures (-N > 1, -f-retrans, -f-drops "
    "-f-percentloss): no retransmits or loss"
)

# name -> (the form read, the run parameters of the live parser, the reason or None)
FORMS: dict[str, tuple[str, dict[str, str], str | None]] = {
    "tcp_T3": ("text", TCP, NO_INTERVALS),
    "tcp_T3_fparse": ("fparse", TCP, NO_INTERVALS),
    "tcp_T3_i1": ("text", TCP, None),
    "tcp_T3_i1_Iid": ("text", TCP, None),
    "tcp_T3_i1_Iid_fparse": ("fparse", TCP, None),
    "tcp_T3_i1_N2": ("text", {**TCP, "streams": "2"}, NO_RETRANS),
    "tcp_T3_i1_N2_fparse": ("fparse", {**TCP, "streams": "2"}, NO_RETRANS),
    "tcp_T3_i1_N2_v": ("text -v", {**TCP, "streams": "2"}, NO_RETRANS),
    "tcp_T3_i1_fnoretrans": ("text", TCP, NO_RETRANS),
    "tcp_T3_i1_fparse": ("fparse", TCP, None),
    "tcp_T3_i1_fparse_frunningtotal": ("fparse -frunningtotal", TCP, None),
    "tcp_T3_i1_frunningtotal": ("text -frunningtotal", TCP, None),
    # -fxmitstats is UDP only (nuttcp -h): TCP output is plain text.
    "tcp_T3_i1_fxmitstats": ("text", TCP, None),
    "tcp_T3_i1_fxmitstats_fparse": ("fparse", TCP, None),
    "tcp_T3_i1_r": ("text", {**TCP, "reverse": "true"}, None),
    "tcp_T3_i1_r_fparse": ("fparse", {**TCP, "reverse": "true"}, None),
    "tcp_T3_i1_r_v": ("text -v", {**TCP, "reverse": "true"}, None),
    "tcp_T3_i1_v": ("text -v", TCP, None),
    "tcp_T3_i1_v_fparse": ("fparse -v", TCP, None),
    "tcp_T3_i1_vv": ("text -v", TCP, None),
    "tcp_T3_i1_vv_fparse": ("fparse -v", TCP, None),
    "udp_R50m_T3": ("text", UDP, NO_INTERVALS),
    "udp_R50m_T3_fparse": ("fparse", UDP, NO_INTERVALS),
    "udp_R50m_T3_i1": ("text", UDP, None),
    "udp_R50m_T3_i1_fnodrops_fnopercentloss": ("text", UDP, NO_LOSS),
    "udp_R50m_T3_i1_fparse": ("fparse", UDP, None),
    "udp_R50m_T3_i1_fparse_frunningtotal": ("fparse -frunningtotal", UDP, None),
    "udp_R50m_T3_i1_fparse_frunningtotal_fxmitstats": (
        "fparse -frunningtotal -fxmitstats",
        UDP,
        None,
    ),
    "udp_R50m_T3_i1_frunningtotal": ("text -frunningtotal", UDP, None),
    "udp_R50m_T3_i1_frunningtotal_fxmitstats": ("text -frunningtotal -fxmitstats", UDP, None),
    "udp_R50m_T3_i1_fxmitstats": ("text -fxmitstats", UDP, None),
    "udp_R50m_T3_i1_fxmitstats_fparse": ("fparse -fxmitstats", UDP, None),
    "udp_R50m_T3_i1_r": ("text", UDP, None),
    "udp_R50m_T3_i1_r_fparse": ("fparse", UDP, None),
    "udp_R50m_T3_i1_v": ("text -v", UDP, None),
    "udp_R50m_T3_i1_v_fparse": ("fparse -v", UDP, None),
    "udp_R50m_T3_i1_vv": ("text -v", UDP, None),
    "udp_R50m_T3_v": ("text -v", UDP, NO_INTERVALS),
}

# name -> (interval records [(t, values)], summary values), from the capture's text.
GOLDEN: dict[str, tuple[list[tuple[float, tuple[float, ...]]], dict[str, float]]] = {
    # tcp_T3
    "tcp_T3": (
        [],
        # line 1: '11074.2500 MB /   3.00 sec = 30966.1880 Mbps 55 %TX 66 %RX 0 retrans 0.06 msRTT'
        {
            "throughput_bps": 30966.1880e6,
            "tx_cpu_percent": 55,
            "rx_cpu_percent": 66,
            "retransmits": 0,
            "rtt_ms": 0.06,
        },
    ),
    # tcp_T3_fparse
    "tcp_T3_fparse": (
        [],
        # line 1: 'megabytes=11292.1250 real_seconds=3.00 rate_Mbps=31581.9654 tx_cpu=47 rx_cpu=66
        #   retrans=0 rtt_ms=0.08'
        {
            "throughput_bps": 31581.9654e6,
            "retransmits": 0,
            "rtt_ms": 0.08,
            "tx_cpu_percent": 47,
            "rx_cpu_percent": 66,
        },
    ),
    # tcp_T3_i1
    "tcp_T3_i1": (
        [
            (
                1.0,
                (
                    29420.8519e6,
                    0,
                ),
            ),  # line 1
            (
                2.0,
                (
                    27732.2692e6,
                    0,
                ),
            ),  # line 2
            (
                3.0,
                (
                    25998.6273e6,
                    0,
                ),
            ),  # line 3
        ],
        # line 5: '9913.7500 MB /   3.00 sec = 27719.6345 Mbps 66 %TX 58 %RX 0 retrans 0.09 msRTT'
        {
            "throughput_bps": 27719.6345e6,
            "tx_cpu_percent": 66,
            "rx_cpu_percent": 58,
            "retransmits": 0,
            "rtt_ms": 0.09,
        },
    ),
    # tcp_T3_i1_Iid
    "tcp_T3_i1_Iid": (
        [
            (
                1.0,
                (
                    27924.1807e6,
                    0,
                ),
            ),  # line 1
            (
                2.0,
                (
                    26313.6443e6,
                    0,
                ),
            ),  # line 2
            (
                3.0,
                (
                    26826.0003e6,
                    0,
                ),
            ),  # line 3
        ],
        # line 5: 'pb:  9663.6875 MB /   3.00 sec = 27021.0253 Mbps 57 %TX 58 %RX 0 retrans 0.17
        #   msRTT'
        {
            "throughput_bps": 27021.0253e6,
            "tx_cpu_percent": 57,
            "rx_cpu_percent": 58,
            "retransmits": 0,
            "rtt_ms": 0.17,
        },
    ),
    # tcp_T3_i1_Iid_fparse
    "tcp_T3_i1_Iid_fparse": (
        [
            (
                1.0,
                (
                    27968.6326e6,
                    0,
                ),
            ),  # line 1
            (
                2.0,
                (
                    28401.7295e6,
                    0,
                ),
            ),  # line 2
        ],
        # line 4: 'pb: megabytes=9910.4375 real_seconds=3.00 rate_Mbps=27717.2738 tx_cpu=96
        #   rx_cpu=51 retrans=0 rtt_ms=0.09'
        {
            "throughput_bps": 27717.2738e6,
            "retransmits": 0,
            "rtt_ms": 0.09,
            "tx_cpu_percent": 96,
            "rx_cpu_percent": 51,
        },
    ),
    # tcp_T3_i1_N2
    "tcp_T3_i1_N2": (
        [
            (1.0, (23672.6130e6,)),  # line 1
            (2.0, (20622.5401e6,)),  # line 2
            (3.0, (21394.9179e6,)),  # line 3
        ],
        # line 5: '7832.2500 MB /   3.00 sec = 21899.8356 Mbps 42 %TX 34 %RX 0.08 msRTT'
        {
            "throughput_bps": 21899.8356e6,
            "tx_cpu_percent": 42,
            "rx_cpu_percent": 34,
            "rtt_ms": 0.08,
        },
    ),
    # tcp_T3_i1_N2_fparse
    "tcp_T3_i1_N2_fparse": (
        [
            (1.0, (32811.8754e6,)),  # line 1
            (2.0, (28284.7567e6,)),  # line 2
        ],
        # line 4: 'megabytes=8868.4375 real_seconds=3.37 rate_Mbps=22082.7166 tx_cpu=55 rx_cpu=43
        #   rtt_ms=0.08'
        {
            "throughput_bps": 22082.7166e6,
            "rtt_ms": 0.08,
            "tx_cpu_percent": 55,
            "rx_cpu_percent": 43,
        },
    ),
    # tcp_T3_i1_N2_v
    "tcp_T3_i1_N2_v": (
        [
            (1.01, (10857.1792e6,)),  # line 13
            (2.0, (10569.1114e6,)),  # line 14
            (3.0, (14733.9563e6,)),  # line 15
        ],
        # line 18: 'nuttcp-t: 0.0user 0.9sys 0:03real 32% 0i+0d 914maxrss 0+0pf 560+7381csw'
        # line 20: 'nuttcp-r: 4310.8750 MB in 3.00 real seconds = 1471369.80 KB/sec = 12053.4614
        #   Mbps'
        # line 22: 'nuttcp-r: 0.0user 0.8sys 0:03real 28% 0i+0d 1010maxrss 0+0pf 10126+551csw'
        {"tx_cpu_percent": 32, "throughput_bps": 12053.4614e6, "rx_cpu_percent": 28},
    ),
    # tcp_T3_i1_fnoretrans
    "tcp_T3_i1_fnoretrans": (
        [
            (1.0, (20084.0431e6,)),  # line 1
            (2.0, (32488.0089e6,)),  # line 2
        ],
        # line 4: '10222.9375 MB /   3.00 sec = 28588.7023 Mbps 48 %TX 46 %RX 0.09 msRTT'
        {
            "throughput_bps": 28588.7023e6,
            "tx_cpu_percent": 48,
            "rx_cpu_percent": 46,
            "rtt_ms": 0.09,
        },
    ),
    # tcp_T3_i1_fparse
    "tcp_T3_i1_fparse": (
        [
            (
                1.0,
                (
                    28093.4106e6,
                    0,
                ),
            ),  # line 1
            (
                2.0,
                (
                    29540.0991e6,
                    0,
                ),
            ),  # line 2
        ],
        # line 4: 'megabytes=10378.0625 real_seconds=3.00 rate_Mbps=29019.3111 tx_cpu=90 rx_cpu=55
        #   retrans=0 rtt_ms=0.06'
        {
            "throughput_bps": 29019.3111e6,
            "retransmits": 0,
            "rtt_ms": 0.06,
            "tx_cpu_percent": 90,
            "rx_cpu_percent": 55,
        },
    ),
    # tcp_T3_i1_fparse_frunningtotal
    "tcp_T3_i1_fparse_frunningtotal": (
        [
            (
                1.0,
                (
                    29242.6854e6,
                    0,
                ),
            ),  # line 1
            (
                2.0,
                (
                    31971.4467e6,
                    0,
                ),
            ),  # line 2
        ],
        # line 4: 'megabytes=11099.4375 real_seconds=3.00 rate_Mbps=31043.1994 tx_cpu=67 rx_cpu=47
        #   retrans=0 rtt_ms=0.08'
        {
            "throughput_bps": 31043.1994e6,
            "retransmits": 0,
            "rtt_ms": 0.08,
            "tx_cpu_percent": 67,
            "rx_cpu_percent": 47,
        },
    ),
    # tcp_T3_i1_frunningtotal
    "tcp_T3_i1_frunningtotal": (
        [
            (
                1.0,
                (
                    28473.6659e6,
                    0,
                ),
            ),  # line 1
            (
                2.0,
                (
                    30399.7065e6,
                    0,
                ),
            ),  # line 2
            (
                3.0,
                (
                    32920.6581e6,
                    0,
                ),
            ),  # line 3
        ],
        # line 5: '10942.7500 MB /   3.00 sec = 30591.9060 Mbps 83 %TX 48 %RX 0 retrans 0.07 msRTT'
        {
            "throughput_bps": 30591.9060e6,
            "tx_cpu_percent": 83,
            "rx_cpu_percent": 48,
            "retransmits": 0,
            "rtt_ms": 0.07,
        },
    ),
    # tcp_T3_i1_fxmitstats
    "tcp_T3_i1_fxmitstats": (
        [
            (
                1.0,
                (
                    29239.3643e6,
                    0,
                ),
            ),  # line 1
            (
                2.0,
                (
                    26072.1876e6,
                    0,
                ),
            ),  # line 2
        ],
        # line 4: '9937.3750 MB /   3.00 sec = 27786.9423 Mbps 77 %TX 47 %RX 0 retrans 0.06 msRTT'
        {
            "throughput_bps": 27786.9423e6,
            "tx_cpu_percent": 77,
            "rx_cpu_percent": 47,
            "retransmits": 0,
            "rtt_ms": 0.06,
        },
    ),
    # tcp_T3_i1_fxmitstats_fparse
    "tcp_T3_i1_fxmitstats_fparse": (
        [
            (
                1.0,
                (
                    27367.1494e6,
                    0,
                ),
            ),  # line 1
            (
                2.0,
                (
                    28519.2271e6,
                    0,
                ),
            ),  # line 2
        ],
        # line 4: 'megabytes=10238.3750 real_seconds=3.00 rate_Mbps=28618.5073 tx_cpu=91 rx_cpu=48
        #   retrans=0 rtt_ms=0.11'
        {
            "throughput_bps": 28618.5073e6,
            "retransmits": 0,
            "rtt_ms": 0.11,
            "tx_cpu_percent": 91,
            "rx_cpu_percent": 48,
        },
    ),
    # tcp_T3_i1_r
    "tcp_T3_i1_r": (
        [
            (
                1.0,
                (
                    28975.1557e6,
                    0,
                ),
            ),  # line 1
            (
                2.0,
                (
                    30024.4309e6,
                    0,
                ),
            ),  # line 2
            (
                3.0,
                (
                    32593.3823e6,
                    0,
                ),
            ),  # line 3
        ],
        # line 5: '10918.9375 MB /   3.00 sec = 30519.9341 Mbps 66 %TX 62 %RX 0 retrans 0.06 msRTT'
        {
            "throughput_bps": 30519.9341e6,
            "tx_cpu_percent": 66,
            "rx_cpu_percent": 62,
            "retransmits": 0,
            "rtt_ms": 0.06,
        },
    ),
    # tcp_T3_i1_r_fparse
    "tcp_T3_i1_r_fparse": (
        [
            (
                1.0,
                (
                    32266.5225e6,
                    0,
                ),
            ),  # line 1
            (
                2.0,
                (
                    25254.4731e6,
                    0,
                ),
            ),  # line 2
            (
                3.0,
                (
                    18193.6321e6,
                    0,
                ),
            ),  # line 3
        ],
        # line 5: 'megabytes=9029.7500 real_seconds=3.00 rate_Mbps=25238.7136 tx_cpu=59 rx_cpu=46
        #   retrans=0'
        {
            "throughput_bps": 25238.7136e6,
            "retransmits": 0,
            "tx_cpu_percent": 59,
            "rx_cpu_percent": 46,
        },
    ),
    # tcp_T3_i1_r_v
    "tcp_T3_i1_r_v": (
        [
            (
                1.0,
                (
                    26925.5896e6,
                    0,
                ),
            ),  # line 7
            (
                2.0,
                (
                    21476.5006e6,
                    0,
                ),
            ),  # line 8
            (
                3.0,
                (
                    19537.2328e6,
                    0,
                ),
            ),  # line 9
        ],
        # line 10: 'nuttcp-r: 8101.2897 MB in 3.00 real seconds = 2764741.65 KB/sec = 22648.7636
        #   Mbps'
        # line 12: 'nuttcp-r: 0.0user 1.5sys 0:03real 52% 0i+0d 890maxrss 0+0pf 83721+1851csw'
        # line 21: 'nuttcp-t: retrans = 0'
        # line 23: 'nuttcp-t: 0.0user 1.9sys 0:03real 65% 0i+0d 1010maxrss 0+0pf 1732+198csw'
        {
            "throughput_bps": 22648.7636e6,
            "rx_cpu_percent": 52,
            "retransmits": 0,
            "tx_cpu_percent": 65,
        },
    ),
    # tcp_T3_i1_v
    "tcp_T3_i1_v": (
        [
            (
                1.0,
                (
                    28101.7428e6,
                    0,
                ),
            ),  # line 13
            (
                2.0,
                (
                    26150.4904e6,
                    0,
                ),
            ),  # line 14
            (
                3.0,
                (
                    29882.0499e6,
                    0,
                ),
            ),  # line 15
        ],
        # line 17: 'nuttcp-t: retrans = 0'
        # line 19: 'nuttcp-t: 0.0user 2.2sys 0:03real 77% 0i+0d 902maxrss 0+0pf 1530+8549csw'
        # line 21: 'nuttcp-r: 10029.7500 MB in 3.00 real seconds = 3422750.97 KB/sec = 28039.1759
        #   Mbps'
        # line 23: 'nuttcp-r: 0.0user 1.3sys 0:03real 46% 0i+0d 1010maxrss 0+0pf 93600+155csw'
        {
            "retransmits": 0,
            "tx_cpu_percent": 77,
            "throughput_bps": 28039.1759e6,
            "rx_cpu_percent": 46,
        },
    ),
    # tcp_T3_i1_v_fparse
    "tcp_T3_i1_v_fparse": (
        [
            (
                1.0,
                (
                    24255.5537e6,
                    0,
                ),
            ),  # line 13
            (
                2.0,
                (
                    18294.9749e6,
                    0,
                ),
            ),  # line 14
            (
                3.0,
                (
                    18136.1705e6,
                    0,
                ),
            ),  # line 15
        ],
        # line 17: 'nuttcp-t: retrans=0'
        # line 19: 'nuttcp-t: stats=cpu user=0.0 system=2.5 elapsed=0:03 cpu=86%
        #   memory=0i+0d-872maxrss io=0+0pf swaps=728+4280csw'
        # line 21: 'nuttcp-r: megabytes=7234.8750 real_seconds=3.00 rate_KBps=2468462.31
        #   rate_Mbps=20221.6432'
        # line 24: 'nuttcp-r: stats=cpu user=0.0 system=1.4 elapsed=0:03 cpu=49%
        #   memory=0i+0d-1010maxrss io=0+0pf swaps=82114+309csw'
        {
            "retransmits": 0,
            "tx_cpu_percent": 86,
            "throughput_bps": 20221.6432e6,
            "rx_cpu_percent": 49,
        },
    ),
    # tcp_T3_i1_vv
    "tcp_T3_i1_vv": (
        [
            (
                1.0,
                (
                    27426.9168e6,
                    0,
                ),
            ),  # line 13
            (
                2.0,
                (
                    31769.4537e6,
                    0,
                ),
            ),  # line 14
        ],
        # line 17: 'nuttcp-t: retrans = 0'
        # line 19: 'nuttcp-t: 0.0user 1.8sys 0:03real 64% 0i+0d 950maxrss 0+0pf 2306+13260csw'
        # line 21: 'nuttcp-r: 10222.0000 MB in 3.00 real seconds = 3489683.97 KB/sec = 28587.4911
        #   Mbps'
        # line 24: 'nuttcp-r: 0.0user 1.3sys 0:03real 45% 0i+0d 1010maxrss 0+0pf 62415+224csw'
        {
            "retransmits": 0,
            "tx_cpu_percent": 64,
            "throughput_bps": 28587.4911e6,
            "rx_cpu_percent": 45,
        },
    ),
    # tcp_T3_i1_vv_fparse
    "tcp_T3_i1_vv_fparse": (
        [
            (
                1.0,
                (
                    20936.5401e6,
                    0,
                ),
            ),  # line 13
            (
                2.0,
                (
                    18426.4582e6,
                    0,
                ),
            ),  # line 14
            (
                3.0,
                (
                    14506.4896e6,
                    0,
                ),
            ),  # line 15
        ],
        # line 18: 'nuttcp-t: retrans=0'
        # line 20: 'nuttcp-t: stats=cpu user=0.0 system=1.2 elapsed=0:03 cpu=44%
        #   memory=0i+0d-866maxrss io=0+0pf swaps=2829+11393csw'
        # line 22: 'nuttcp-r: megabytes=6422.0000 real_seconds=3.00 rate_KBps=2191787.69
        #   rate_Mbps=17955.1247'
        # line 25: 'nuttcp-r: stats=cpu user=0.0 system=1.1 elapsed=0:03 cpu=39%
        #   memory=0i+0d-1010maxrss io=0+0pf swaps=14172+1813csw'
        {
            "retransmits": 0,
            "tx_cpu_percent": 44,
            "throughput_bps": 17955.1247e6,
            "rx_cpu_percent": 39,
        },
    ),
    # udp_R50m_T3
    "udp_R50m_T3": (
        [],
        # line 1: '17.8816 MB /   3.00 sec =   49.9997 Mbps 98 %TX 1 %RX 0 / 13393 drop/pkt 0.00
        #   %loss'
        {
            "throughput_bps": 49.9997e6,
            "tx_cpu_percent": 98,
            "rx_cpu_percent": 1,
            "lost_packets": 0,
            "packets": 13393,
            "lost_percent": 0.00,
        },
    ),
    # udp_R50m_T3_fparse
    "udp_R50m_T3_fparse": (
        [],
        # line 1: 'megabytes=17.8816 real_seconds=2.99 rate_Mbps=50.2448 tx_cpu=94 rx_cpu=2 drop=0
        #   pkt=13393 data_loss=0.00000'
        {
            "throughput_bps": 50.2448e6,
            "lost_packets": 0,
            "packets": 13393,
            "lost_percent": 0.00000,
            "tx_cpu_percent": 94,
            "rx_cpu_percent": 2,
        },
    ),
    # udp_R50m_T3_i1
    "udp_R50m_T3_i1": (
        [
            (
                1.0,
                (
                    49.9956e6,
                    0,
                    4464,
                    0.00,
                ),
            ),  # line 1
            (
                2.0,
                (
                    49.9968e6,
                    0,
                    4464,
                    0.00,
                ),
            ),  # line 2
            (
                3.0,
                (
                    49.9969e6,
                    0,
                    4464,
                    0.00,
                ),
            ),  # line 3
        ],
        # line 5: '17.8816 MB /   3.00 sec =   49.9987 Mbps 98 %TX 1 %RX 0 / 13393 drop/pkt 0.00
        #   %loss'
        {
            "throughput_bps": 49.9987e6,
            "tx_cpu_percent": 98,
            "rx_cpu_percent": 1,
            "lost_packets": 0,
            "packets": 13393,
            "lost_percent": 0.00,
        },
    ),
    # udp_R50m_T3_i1_fnodrops_fnopercentloss
    "udp_R50m_T3_i1_fnodrops_fnopercentloss": (
        [
            (1.0, (50.1628e6,)),  # line 1
            (2.0, (50.0085e6,)),  # line 2
        ],
        # line 4: '17.8816 MB /   3.00 sec =   50.0572 Mbps 98 %TX 2 %RX'
        {"throughput_bps": 50.0572e6, "tx_cpu_percent": 98, "rx_cpu_percent": 2},
    ),
    # udp_R50m_T3_i1_fparse
    "udp_R50m_T3_i1_fparse": (
        [
            (
                1.0,
                (
                    49.0922e6,
                    95,
                    4479,
                    2.12101,
                ),
            ),  # line 1
            (
                2.0,
                (
                    50.0158e6,
                    0,
                    4465,
                    0.00000,
                ),
            ),  # line 2
        ],
        # line 4: 'megabytes=17.7547 real_seconds=3.00 rate_Mbps=49.7034 tx_cpu=85 rx_cpu=3
        #   drop=95 pkt=13393 data_loss=0.70967'
        {
            "throughput_bps": 49.7034e6,
            "lost_packets": 95,
            "packets": 13393,
            "lost_percent": 0.70967,
            "tx_cpu_percent": 85,
            "rx_cpu_percent": 3,
        },
    ),
    # udp_R50m_T3_i1_fparse_frunningtotal
    "udp_R50m_T3_i1_fparse_frunningtotal": (
        [
            (
                1.0,
                (
                    50.1077e6,
                    0,
                    4474,
                    0.00000,
                ),
            ),  # line 1
            (
                2.0,
                (
                    50.0074e6,
                    0,
                    4465,
                    0.00000,
                ),
            ),  # line 2
        ],
        # line 4: 'megabytes=17.8215 real_seconds=3.40 rate_Mbps=43.9067 tx_cpu=86 rx_cpu=1
        #   drop=20 pkt=13368 data_loss=0.14959'
        {
            "throughput_bps": 43.9067e6,
            "lost_packets": 20,
            "packets": 13368,
            "lost_percent": 0.14959,
            "tx_cpu_percent": 86,
            "rx_cpu_percent": 1,
        },
    ),
    # udp_R50m_T3_i1_fparse_frunningtotal_fxmitstats
    "udp_R50m_T3_i1_fparse_frunningtotal_fxmitstats": (
        [
            (
                1.0,
                (
                    47.5078e6,
                    231,
                    4476,
                    5.16086,
                ),
            ),  # line 1
            (
                2.0,
                (
                    50.0787e6,
                    0,
                    4468,
                    0.00000,
                ),
            ),  # line 2
        ],
        # line 4: 'megabytes=17.4223 real_seconds=3.00 rate_Mbps=48.7753 tx_cpu=61 rx_cpu=2
        #   drop=344 pkt=13393 data_loss=2.56856 tx_megabytes=17.8816'
        {
            "throughput_bps": 48.7753e6,
            "lost_packets": 344,
            "packets": 13393,
            "lost_percent": 2.56856,
            "tx_cpu_percent": 61,
            "rx_cpu_percent": 2,
        },
    ),
    # udp_R50m_T3_i1_frunningtotal
    "udp_R50m_T3_i1_frunningtotal": (
        [
            (
                1.0,
                (
                    49.9959e6,
                    0,
                    4464,
                    0.00,
                ),
            ),  # line 1
            (
                2.0,
                (
                    49.9624e6,
                    0,
                    4462,
                    0.00,
                ),
            ),  # line 2
            (
                3.0,
                (
                    50.0425e6,
                    0,
                    4467,
                    0.00,
                ),
            ),  # line 3
        ],
        # line 5: '17.8816 MB /   3.00 sec =   49.9997 Mbps 78 %TX 2 %RX 0 / 13393 drop/pkt 0.00
        #   %loss'
        {
            "throughput_bps": 49.9997e6,
            "tx_cpu_percent": 78,
            "rx_cpu_percent": 2,
            "lost_packets": 0,
            "packets": 13393,
            "lost_percent": 0.00,
        },
    ),
    # udp_R50m_T3_i1_frunningtotal_fxmitstats
    "udp_R50m_T3_i1_frunningtotal_fxmitstats": (
        [
            (
                1.22,
                (
                    21.0678e6,
                    641,
                    2929,
                    21.88,
                ),
            ),  # line 1
            (
                2.25,
                (
                    40.0493e6,
                    1311,
                    4987,
                    26.29,
                ),
            ),  # line 2
        ],
        # line 4: '12.9683 MB /   2.99 sec =   36.3523 Mbps 29 %TX 1 %RX 3680 / 13393 drop/pkt
        #   27.48 %loss Trans: 17.8816 MB'
        {
            "throughput_bps": 36.3523e6,
            "tx_cpu_percent": 29,
            "rx_cpu_percent": 1,
            "lost_packets": 3680,
            "packets": 13393,
            "lost_percent": 27.48,
        },
    ),
    # udp_R50m_T3_i1_fxmitstats
    "udp_R50m_T3_i1_fxmitstats": (
        [
            (
                1.0,
                (
                    49.9277e6,
                    6,
                    4464,
                    0.13,
                ),
            ),  # line 1
            (
                2.0,
                (
                    48.4407e6,
                    139,
                    4464,
                    3.11,
                ),
            ),  # line 2
            (
                3.0,
                (
                    49.9968e6,
                    0,
                    4464,
                    0.00,
                ),
            ),  # line 3
        ],
        # line 5: '17.6880 MB /   3.00 sec =   49.4576 Mbps 75 %TX 2 %RX 145 / 13393 drop/pkt 1.08
        #   %loss Trans: 17.8816 MB'
        {
            "throughput_bps": 49.4576e6,
            "tx_cpu_percent": 75,
            "rx_cpu_percent": 2,
            "lost_packets": 145,
            "packets": 13393,
            "lost_percent": 1.08,
        },
    ),
    # udp_R50m_T3_i1_fxmitstats_fparse
    "udp_R50m_T3_i1_fxmitstats_fparse": (
        [
            (
                1.27,
                (
                    35.9456e6,
                    0,
                    4076,
                    0.00000,
                ),
            ),  # line 1
            (
                2.0,
                (
                    59.3745e6,
                    1000,
                    4870,
                    20.53388,
                ),
            ),  # line 2
        ],
        # line 4: 'megabytes=16.5464 real_seconds=3.00 rate_Mbps=46.3295 tx_cpu=43 rx_cpu=2
        #   drop=1000 pkt=13393 data_loss=7.46689 tx_megabytes=17.8816'
        {
            "throughput_bps": 46.3295e6,
            "lost_packets": 1000,
            "packets": 13393,
            "lost_percent": 7.46689,
            "tx_cpu_percent": 43,
            "rx_cpu_percent": 2,
        },
    ),
    # udp_R50m_T3_i1_r
    "udp_R50m_T3_i1_r": (
        [
            (
                1.0,
                (
                    50.1407e6,
                    0,
                    4477,
                    0.00,
                ),
            ),  # line 1
            (
                2.0,
                (
                    49.7922e6,
                    22,
                    4468,
                    0.49,
                ),
            ),  # line 2
        ],
        # line 4: '17.8509 MB /   3.00 sec =   49.9802 Mbps 65 %TX 3 %RX 22 / 13392 drop/pkt 0.16
        #   %loss'
        {
            "throughput_bps": 49.9802e6,
            "tx_cpu_percent": 65,
            "rx_cpu_percent": 3,
            "lost_packets": 22,
            "packets": 13392,
            "lost_percent": 0.16,
        },
    ),
    # udp_R50m_T3_i1_r_fparse
    "udp_R50m_T3_i1_r_fparse": (
        [
            (
                1.0,
                (
                    50.1974e6,
                    0,
                    4482,
                    0.00000,
                ),
            ),  # line 1
            (
                2.0,
                (
                    49.9934e6,
                    0,
                    4464,
                    0.00000,
                ),
            ),  # line 2
        ],
        # line 4: 'megabytes=17.7347 real_seconds=3.00 rate_Mbps=49.6541 tx_cpu=69 rx_cpu=2
        #   drop=74 pkt=13357 data_loss=0.55401'
        {
            "throughput_bps": 49.6541e6,
            "lost_packets": 74,
            "packets": 13357,
            "lost_percent": 0.55401,
            "tx_cpu_percent": 69,
            "rx_cpu_percent": 2,
        },
    ),
    # udp_R50m_T3_i1_v
    "udp_R50m_T3_i1_v": (
        [
            (
                1.0,
                (
                    50.0508e6,
                    0,
                    4469,
                    0.00,
                ),
            ),  # line 12
            (
                2.0,
                (
                    49.9974e6,
                    0,
                    4464,
                    0.00,
                ),
            ),  # line 13
        ],
        # line 16: 'nuttcp-t: 2.5user 0.3sys 0:03real 97% 0i+0d 950maxrss 0+0pf 0+7180csw'
        # line 18: 'nuttcp-r: 17.8816 MB in 3.00 real seconds = 6105.53 KB/sec = 50.0165 Mbps'
        # line 19: 'nuttcp-r: 0 / 13393 drop/pkt 0.00% data loss'
        # line 21: 'nuttcp-r: 0.1user 0.0sys 0:03real 3% 0i+0d 1010maxrss 0+0pf 13243+2csw'
        {
            "tx_cpu_percent": 97,
            "throughput_bps": 50.0165e6,
            "lost_packets": 0,
            "packets": 13393,
            "lost_percent": 0.00,
            "rx_cpu_percent": 3,
        },
    ),
    # udp_R50m_T3_i1_v_fparse
    "udp_R50m_T3_i1_v_fparse": (
        [
            (
                1.0,
                (
                    48.3490e6,
                    147,
                    4464,
                    3.29301,
                ),
            ),  # line 12
            (
                2.01,
                (
                    49.0675e6,
                    0,
                    4440,
                    0.00000,
                ),
            ),  # line 13
            (
                3.0,
                (
                    50.9521e6,
                    0,
                    4488,
                    0.00000,
                ),
            ),  # line 14
        ],
        # line 17: 'nuttcp-t: stats=cpu user=2.0 system=0.0 elapsed=0:03 cpu=72%
        #   memory=0i+0d-890maxrss io=0+0pf swaps=0+9589csw'
        # line 19: 'nuttcp-r: megabytes=17.6853 real_seconds=3.00 rate_KBps=6036.42
        #   rate_Mbps=49.4504'
        # line 20: 'nuttcp-r: drop=147 pkt=13393 data_loss=1.09778'
        # line 23: 'nuttcp-r: stats=cpu user=0.0 system=0.0 elapsed=0:03 cpu=2%
        #   memory=0i+0d-1010maxrss io=0+0pf swaps=12090+8csw'
        {
            "tx_cpu_percent": 72,
            "throughput_bps": 49.4504e6,
            "lost_packets": 147,
            "packets": 13393,
            "lost_percent": 1.09778,
            "rx_cpu_percent": 2,
        },
    ),
    # udp_R50m_T3_i1_vv
    "udp_R50m_T3_i1_vv": (
        [
            (
                1.0,
                (
                    50.3422e6,
                    0,
                    4495,
                    0.00,
                ),
            ),  # line 12
            (
                2.0,
                (
                    49.5036e6,
                    37,
                    4459,
                    0.83,
                ),
            ),  # line 13
        ],
        # line 17: 'nuttcp-t: 1.7user 0.0sys 0:03real 60% 0i+0d 834maxrss 0+0pf 0+6159csw'
        # line 19: 'nuttcp-r: 17.8322 MB in 2.99 real seconds = 6100.55 KB/sec = 49.9757 Mbps'
        # line 20: 'nuttcp-r: 37 / 13393 drop/pkt 0.28% data loss'
        # line 23: 'nuttcp-r: 0.1user 0.0sys 0:03real 3% 0i+0d 1010maxrss 0+0pf 9808+2csw'
        {
            "tx_cpu_percent": 60,
            "throughput_bps": 49.9757e6,
            "lost_packets": 37,
            "packets": 13393,
            "lost_percent": 0.28,
            "rx_cpu_percent": 3,
        },
    ),
    # udp_R50m_T3_v
    "udp_R50m_T3_v": (
        [],
        # line 9: 'nuttcp-t: 2.1user 0.0sys 0:03real 75% 0i+0d 868maxrss 0+0pf 0+13202csw'
        # line 15: 'nuttcp-r: 17.7280 MB in 2.99 real seconds = 6067.43 KB/sec = 49.7044 Mbps'
        # line 16: 'nuttcp-r: 112 / 13390 drop/pkt 0.84% data loss'
        # line 18: 'nuttcp-r: 0.0user 0.0sys 0:03real 2% 0i+0d 1010maxrss 0+0pf 11641+11csw'
        {
            "tx_cpu_percent": 75,
            "throughput_bps": 49.7044e6,
            "lost_packets": 112,
            "packets": 13390,
            "lost_percent": 0.84,
            "rx_cpu_percent": 2,
        },
    ),
}

# The error captures: no server on the control port.
ERRORS = {
    "err_no_server": "connect failed: Connection refused",  # line 1
    "err_no_server_no_i": "connect: Connection refused",  # line 3, after "Error: "
}


def text_of(name: str) -> str:
    return (CAPTURES / f"{name}.out").read_bytes().decode("utf-8", errors="replace")


def file_parse(name: str) -> tuple[list[Record], Summary]:
    return feed_text(nuttcp.TOOL.file_parser(), text_of(name))


def test_every_capture_has_its_command_and_a_golden_case() -> None:
    names = sorted(p.stem for p in CAPTURES.glob("*.out"))
    assert names == sorted([*FORMS, *ERRORS])
    assert sorted(GOLDEN) == sorted(FORMS)
    for name in names:
        cmd = (CAPTURES / f"{name}.cmd").read_text()
        assert cmd.startswith("# ") and "nuttcp" in cmd.splitlines()[-1], name


def check_golden(file_name: str, records: list[Record], summary: Summary) -> None:
    """The file parser's output of a capture is its golden (run by test_parser_contract)."""
    name = file_name.removesuffix(".out")
    if name in ERRORS:
        assert records == []
        assert summary == Summary(values={}, complete=False, error=ERRORS[name], form="")
        return
    form, _, reason = FORMS[name]
    expected_records, expected_summary = GOLDEN[name]
    assert [(r.stream, r.t, r.values) for r in records] == [
        ("sum", t, values) for t, values in expected_records
    ]
    kinds = {1: THROUGHPUT_ONLY, 2: TCP_INTERVAL, 4: UDP_INTERVAL}
    assert all(r.metrics == kinds[len(r.values)] for r in records)
    assert summary == Summary(
        values=expected_summary,
        complete=reason is None,
        error=None,
        form=form,
        reason=reason,
    )


def live_parser(file_name: str) -> Parser:
    """The parser the engine makes for the capture's run."""
    _, params, _ = FORMS.get(file_name.removesuffix(".out"), ("", TCP, None))
    return nuttcp.TOOL.parser(nuttcp.resolve(params), CAPS)


GOLDENS = Goldens(
    folder=CAPTURES,
    names=tuple(f"{name}.out" for name in sorted([*FORMS, *ERRORS])),
    check=check_golden,
    live_parser=live_parser,
    parts=(NuttcpTextParser,),
    # "nuttcp-t: v6.1.2: socket" (-v): read as before.
    versions=(VersionCheck(banner=r"v6\.1\.2", future="v99.1.0"),),
)


@pytest.mark.parametrize("name", sorted(FORMS))
def test_live_parser_reads_the_same_line_by_line(name: str) -> None:
    _, params, _ = FORMS[name]
    live = nuttcp.TOOL.parser(nuttcp.resolve(params), CAPS)
    assert feed_all(live, text_of(name).split("\n")) == file_parse(name)


@pytest.mark.parametrize("name", sorted(FORMS))
def test_cli_parse_prints_the_form_reason_and_figures(name: str, library_path: Path) -> None:
    form, _, reason = FORMS[name]
    expected_records, expected_summary = GOLDEN[name]
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library_path)})
    assert run_cli(["parse", "nuttcp", str(CAPTURES / f"{name}.out")], env) == 0, err.getvalue()
    payload = json.loads(out.getvalue())
    assert payload["form"] == form
    assert payload.get("reason") == reason
    assert payload["complete"] is (reason is None)
    assert payload["summary"] == expected_summary
    throughput = [s for s in payload["series"] if s["metric"] == "throughput_bps"]
    if expected_records:
        assert throughput[0]["v"] == [values[0] for _, values in expected_records]
    else:
        assert payload["series"] == []


def test_errors_printed_without_the_nuttcp_prefix() -> None:
    # err_no_server.out line 2; nuttcp 6.1.2 here printed the others for -l0 and -N 0 (exit 1).
    for line in (
        "interval option only supported for client/server mode",
        "invalid buflen = 0",
        "invalid nstream = 0",
    ):
        assert feed_all(nuttcp.TOOL.file_parser(), [line])[1].error == line


def test_verbose_output_cut_between_the_two_sides_is_not_complete() -> None:
    # -r -v: the receiver's (client's) summary comes first, the transmitter's after it.
    lines = text_of("tcp_T3_i1_r_v").split("\n")
    cut = lines.index(
        "nuttcp-r: 8101.2897 MB in 3.00 real seconds = 2764741.65 KB/sec = 22648.7636 Mbps"
    )
    summary = feed_all(nuttcp.TOOL.file_parser(), lines[: cut + 1])[1]
    assert (summary.complete, summary.reason) == (False, None)  # cut short: no reason


def test_running_totals_keep_the_interval_figures() -> None:
    # line 2: "... 50.0787 ... drop=0 pkt=4468 ... total_rate_Mbps=48.7923 drop=231 pkt=8944 ..."
    records, _ = file_parse("udp_R50m_T3_i1_fparse_frunningtotal_fxmitstats")
    assert records[1].values == (50.0787e6, 0, 4468, 0.00000)
