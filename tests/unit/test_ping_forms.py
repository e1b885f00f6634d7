"""Golden tests: every iputils ping output form, read from captures recorded on this machine.

The captures are ``tests/data/captures/ping/NAME.out`` (their ``NAME.cmd`` holds the command
line and, for the lossy ones, the private namespaces they ran in). Every expected number below is
copied from the capture's own text, the line named in the comment: each reply as ``(t, rtt in
ms)`` with ``t`` = ``icmp_seq`` x the ``-i`` interval (with ``-D``: the first reply's, then the
printed epochs' differences), and the summary ping printed at the end.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import Record, Summary
from pairbench.tools import ping
from pairbench.tools.base import Capabilities, Parser
from pairbench.tools.feed import feed_text
from pairbench.tools.ping_text import RTT, PingTextParser
from parser_checks import feed_all
from parser_contract import Goldens, VersionCheck

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures" / "ping"
CAPS = Capabilities(version="ping from iputils 20221126", version_tuple=(20221126,))

QUIET = (
    "ping -q prints no per-reply lines: no rtt_ms series (the summary has ping's own statistics)"
)
FLOOD = (
    "ping -f prints no per-reply lines: no rtt_ms series (the summary has ping's own statistics)"
)
UNTIMED = "ping printed no times (a payload under 16 bytes, -s): no rtt_ms series or rtt"

# name -> (the form read, the reason or None)
FORMS: dict[str, tuple[str, str | None]] = {
    "c15_i02_D_O_lossy": ("text -D -O", None),
    "c15_i02_O_lossy": ("text -O", None),
    "c15_i02_lossy": ("text", None),
    "c15_i02_q_lossy": ("quiet", QUIET),
    "c3_i02_R": ("text", None),
    "c3_i02_p": ("text", None),
    "c50_f": ("flood", FLOOD),
    "c50_w1_i02": ("text", None),
    "c5_A": ("text", None),
    "c5_i02": ("text", None),
    "c5_i02_D": ("text -D", None),
    "c5_i02_D_ipv6": ("text -D", None),
    "c5_i02_U": ("text", None),
    "c5_i02_a": ("text", None),
    # LC_ALL=de_DE/fr_FR/ru_RU: iputils 20221126 still prints "." (see the .cmd notes).
    "c5_i02_de_DE": ("text", None),
    "c5_i02_fr_FR": ("text", None),
    "c5_i02_ipv6": ("text", None),
    "c5_i02_localhost": ("text", None),
    "c5_i02_n": ("text", None),
    "c5_i02_q": ("quiet", QUIET),
    "c5_i02_ru_RU": ("text", None),
    "c5_i02_s8": ("text", UNTIMED),
    "c5_i02_v": ("text", None),
    "c5_w2_i02": ("text", None),
}

# name -> (the -i interval of the command, replies [(t, rtt_ms)], summary values)
GOLDEN: dict[str, tuple[float, list[tuple[float, float]], dict[str, float]]] = {
    "c15_i02_D_O_lossy": (
        0.2,
        [
            (0.2, 0.038),  # line 2
            (0.4035, 0.061),  # line 3
            (0.607486, 0.048),  # line 4
            (0.968139, 157),  # line 5
            (1.360084, 349),  # line 7
            (1.75206, 536),  # line 10
            (2.14408, 728),  # line 13
            (2.536081, 714),  # line 16
            (2.928234, 704),  # line 19
            (3.320083, 692),  # line 21
            (3.712036, 681),  # line 22
        ],
        # line 25: '15 packets transmitted, 11 received, 26.6667% packet loss, time 2831ms'
        # line 26: 'rtt min/avg/max/mdev = 0.038/414.540/727.748/304.551 ms, pipe 4'
        {
            "packets": 15,
            "lost_packets": 4,
            "lost_percent": 26.6667,
            "rtt_min_ms": 0.038,
            "rtt_avg_ms": 414.540,
            "rtt_max_ms": 727.748,
            "rtt_mdev_ms": 304.551,
        },
    ),
    "c15_i02_O_lossy": (
        0.2,
        [
            (0.2, 0.026),  # line 2
            (0.4, 0.036),  # line 3
            (0.6, 0.038),  # line 4
            (0.8, 159),  # line 5
            (1.0, 351),  # line 7
            (1.2, 539),  # line 10
            (1.4, 730),  # line 13
            (1.8, 718),  # line 16
            (2.2, 706),  # line 19
            (2.6, 694),  # line 21
            (3.0, 682),  # line 22
        ],
        # line 25: '15 packets transmitted, 11 received, 26.6667% packet loss, time 2830ms'
        # line 26: 'rtt min/avg/max/mdev = 0.026/416.116/729.787/305.376 ms, pipe 4'
        {
            "packets": 15,
            "lost_packets": 4,
            "lost_percent": 26.6667,
            "rtt_min_ms": 0.026,
            "rtt_avg_ms": 416.116,
            "rtt_max_ms": 729.787,
            "rtt_mdev_ms": 305.376,
        },
    ),
    "c15_i02_lossy": (
        0.2,
        [
            (0.2, 0.061),  # line 2
            (0.4, 0.041),  # line 3
            (0.6, 0.032),  # line 4
            (0.8, 156),  # line 5
            (1.0, 348),  # line 6
            (1.2, 532),  # line 7
            (1.4, 723),  # line 8
            (1.8, 712),  # line 9
            (2.2, 700),  # line 10
            (2.6, 688),  # line 11
            (3.0, 676),  # line 12
        ],
        # line 15: '15 packets transmitted, 11 received, 26.6667% packet loss, time 2836ms'
        # line 16: 'rtt min/avg/max/mdev = 0.032/412.242/723.236/302.733 ms, pipe 4'
        {
            "packets": 15,
            "lost_packets": 4,
            "lost_percent": 26.6667,
            "rtt_min_ms": 0.032,
            "rtt_avg_ms": 412.242,
            "rtt_max_ms": 723.236,
            "rtt_mdev_ms": 302.733,
        },
    ),
    "c15_i02_q_lossy": (
        0.2,
        [],
        # line 4: '15 packets transmitted, 11 received, 26.6667% packet loss, time 2840ms'
        # line 5: 'rtt min/avg/max/mdev = 0.036/416.119/728.850/306.258 ms, pipe 4'
        {
            "packets": 15,
            "lost_packets": 4,
            "lost_percent": 26.6667,
            "rtt_min_ms": 0.036,
            "rtt_avg_ms": 416.119,
            "rtt_max_ms": 728.850,
            "rtt_mdev_ms": 306.258,
        },
    ),
    "c3_i02_R": (
        0.2,
        [
            (0.2, 0.015),  # line 2
            (0.4, 0.023),  # line 8
            (0.6, 0.024),  # line 9
        ],
        # line 12: '3 packets transmitted, 3 received, 0% packet loss, time 410ms'
        # line 13: 'rtt min/avg/max/mdev = 0.015/0.020/0.024/0.004 ms'
        {
            "packets": 3,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.015,
            "rtt_avg_ms": 0.020,
            "rtt_max_ms": 0.024,
            "rtt_mdev_ms": 0.004,
        },
    ),
    "c3_i02_p": (
        0.2,
        [
            (0.2, 0.020),  # line 3
            (0.4, 0.025),  # line 4
            (0.6, 0.025),  # line 5
        ],
        # line 8: '3 packets transmitted, 3 received, 0% packet loss, time 407ms'
        # line 9: 'rtt min/avg/max/mdev = 0.020/0.023/0.025/0.002 ms'
        {
            "packets": 3,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.020,
            "rtt_avg_ms": 0.023,
            "rtt_max_ms": 0.025,
            "rtt_mdev_ms": 0.002,
        },
    ),
    "c50_f": (
        1.0,
        [],
        # line 4: '50 packets transmitted, 50 received, 0% packet loss, time 1ms'
        # line 5: 'rtt min/avg/max/mdev = 0.003/0.004/0.027/0.003 ms, ipg/ewma 0.011/0.004 ms'
        {
            "packets": 50,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.003,
            "rtt_avg_ms": 0.004,
            "rtt_max_ms": 0.027,
            "rtt_mdev_ms": 0.003,
        },
    ),
    "c50_w1_i02": (
        0.2,
        [
            (0.2, 0.045),  # line 2
            (0.4, 0.039),  # line 3
            (0.6, 0.049),  # line 4
            (0.8, 0.039),  # line 5
            (1.0, 0.043),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 813ms'
        # line 10: 'rtt min/avg/max/mdev = 0.039/0.043/0.049/0.003 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.039,
            "rtt_avg_ms": 0.043,
            "rtt_max_ms": 0.049,
            "rtt_mdev_ms": 0.003,
        },
    ),
    "c5_A": (
        1.0,
        [
            (1.0, 0.028),  # line 2
            (2.0, 0.006),  # line 3
            (3.0, 0.005),  # line 4
            (4.0, 0.005),  # line 5
            (5.0, 0.005),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 0ms'
        # line 10: 'rtt min/avg/max/mdev = 0.005/0.009/0.028/0.009 ms, ipg/ewma 0.034/0.018 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.005,
            "rtt_avg_ms": 0.009,
            "rtt_max_ms": 0.028,
            "rtt_mdev_ms": 0.009,
        },
    ),
    "c5_i02": (
        0.2,
        [
            (0.2, 0.019),  # line 2
            (0.4, 0.042),  # line 3
            (0.6, 0.021),  # line 4
            (0.8, 0.023),  # line 5
            (1.0, 0.037),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 814ms'
        # line 10: 'rtt min/avg/max/mdev = 0.019/0.028/0.042/0.009 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.019,
            "rtt_avg_ms": 0.028,
            "rtt_max_ms": 0.042,
            "rtt_mdev_ms": 0.009,
        },
    ),
    "c5_i02_D": (
        0.2,
        [
            (0.2, 0.017),  # line 2
            (0.401221, 0.023),  # line 3
            (0.605171, 0.022),  # line 4
            (0.809233, 0.028),  # line 5
            (1.013209, 0.022),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 813ms'
        # line 10: 'rtt min/avg/max/mdev = 0.017/0.022/0.028/0.003 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.017,
            "rtt_avg_ms": 0.022,
            "rtt_max_ms": 0.028,
            "rtt_mdev_ms": 0.003,
        },
    ),
    "c5_i02_D_ipv6": (
        0.2,
        [
            (0.2, 0.033),  # line 2
            (0.402762, 0.047),  # line 3
            (0.606785, 0.058),  # line 4
            (0.810744, 0.048),  # line 5
            (1.014753, 0.044),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 815ms'
        # line 10: 'rtt min/avg/max/mdev = 0.033/0.046/0.058/0.008 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.033,
            "rtt_avg_ms": 0.046,
            "rtt_max_ms": 0.058,
            "rtt_mdev_ms": 0.008,
        },
    ),
    "c5_i02_U": (
        0.2,
        [
            (0.2, 0.025),  # line 2
            (0.4, 0.039),  # line 3
            (0.6, 0.092),  # line 4
            (0.8, 0.049),  # line 5
            (1.0, 0.067),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 824ms'
        # line 10: 'rtt min/avg/max/mdev = 0.025/0.054/0.092/0.023 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.025,
            "rtt_avg_ms": 0.054,
            "rtt_max_ms": 0.092,
            "rtt_mdev_ms": 0.023,
        },
    ),
    "c5_i02_a": (
        0.2,
        [
            (0.2, 0.019),  # line 2
            (0.4, 0.023),  # line 3
            (0.6, 0.029),  # line 4
            (0.8, 0.027),  # line 5
            (1.0, 0.027),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 816ms'
        # line 10: 'rtt min/avg/max/mdev = 0.019/0.025/0.029/0.003 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.019,
            "rtt_avg_ms": 0.025,
            "rtt_max_ms": 0.029,
            "rtt_mdev_ms": 0.003,
        },
    ),
    "c5_i02_de_DE": (
        0.2,
        [
            (0.2, 0.034),  # line 2
            (0.4, 0.040),  # line 3
            (0.6, 0.096),  # line 4
            (0.8, 0.043),  # line 5
            (1.0, 0.047),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 809ms'
        # line 10: 'rtt min/avg/max/mdev = 0.034/0.052/0.096/0.022 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.034,
            "rtt_avg_ms": 0.052,
            "rtt_max_ms": 0.096,
            "rtt_mdev_ms": 0.022,
        },
    ),
    "c5_i02_fr_FR": (
        0.2,
        [
            (0.2, 0.028),  # line 2
            (0.4, 0.047),  # line 3
            (0.6, 0.027),  # line 4
            (0.8, 0.027),  # line 5
            (1.0, 0.027),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 816ms'
        # line 10: 'rtt min/avg/max/mdev = 0.027/0.031/0.047/0.007 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.027,
            "rtt_avg_ms": 0.031,
            "rtt_max_ms": 0.047,
            "rtt_mdev_ms": 0.007,
        },
    ),
    "c5_i02_ipv6": (
        0.2,
        [
            (0.2, 0.091),  # line 2
            (0.4, 0.047),  # line 3
            (0.6, 0.048),  # line 4
            (0.8, 0.048),  # line 5
            (1.0, 0.048),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 812ms'
        # line 10: 'rtt min/avg/max/mdev = 0.047/0.056/0.091/0.017 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.047,
            "rtt_avg_ms": 0.056,
            "rtt_max_ms": 0.091,
            "rtt_mdev_ms": 0.017,
        },
    ),
    "c5_i02_localhost": (
        0.2,
        [
            (0.2, 0.015),  # line 2
            (0.4, 0.026),  # line 3
            (0.6, 0.036),  # line 4
            (0.8, 0.039),  # line 5
            (1.0, 0.023),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 819ms'
        # line 10: 'rtt min/avg/max/mdev = 0.015/0.027/0.039/0.008 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.015,
            "rtt_avg_ms": 0.027,
            "rtt_max_ms": 0.039,
            "rtt_mdev_ms": 0.008,
        },
    ),
    "c5_i02_n": (
        0.2,
        [
            (0.2, 0.019),  # line 2
            (0.4, 0.041),  # line 3
            (0.6, 0.035),  # line 4
            (0.8, 0.037),  # line 5
            (1.0, 0.045),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 814ms'
        # line 10: 'rtt min/avg/max/mdev = 0.019/0.035/0.045/0.008 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.019,
            "rtt_avg_ms": 0.035,
            "rtt_max_ms": 0.045,
            "rtt_mdev_ms": 0.008,
        },
    ),
    "c5_i02_q": (
        0.2,
        [],
        # line 4: '5 packets transmitted, 5 received, 0% packet loss, time 815ms'
        # line 5: 'rtt min/avg/max/mdev = 0.015/0.027/0.038/0.008 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.015,
            "rtt_avg_ms": 0.027,
            "rtt_max_ms": 0.038,
            "rtt_mdev_ms": 0.008,
        },
    ),
    "c5_i02_ru_RU": (
        0.2,
        [
            (0.2, 0.024),  # line 2
            (0.4, 0.026),  # line 3
            (0.6, 0.023),  # line 4
            (0.8, 0.024),  # line 5
            (1.0, 0.026),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 815ms'
        # line 10: 'rtt min/avg/max/mdev = 0.023/0.024/0.026/0.001 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.023,
            "rtt_avg_ms": 0.024,
            "rtt_max_ms": 0.026,
            "rtt_mdev_ms": 0.001,
        },
    ),
    "c5_i02_s8": (
        0.2,
        [],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 816ms'
        {"packets": 5, "lost_packets": 0, "lost_percent": 0},
    ),
    "c5_i02_v": (
        0.2,
        [
            (0.2, 0.020),  # line 5
            (0.4, 0.029),  # line 6
            (0.6, 0.023),  # line 7
            (0.8, 0.018),  # line 8
            (1.0, 0.023),  # line 9
        ],
        # line 12: '5 packets transmitted, 5 received, 0% packet loss, time 815ms'
        # line 13: 'rtt min/avg/max/mdev = 0.018/0.022/0.029/0.003 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.018,
            "rtt_avg_ms": 0.022,
            "rtt_max_ms": 0.029,
            "rtt_mdev_ms": 0.003,
        },
    ),
    "c5_w2_i02": (
        0.2,
        [
            (0.2, 0.032),  # line 2
            (0.4, 0.042),  # line 3
            (0.6, 0.041),  # line 4
            (0.8, 0.035),  # line 5
            (1.0, 0.037),  # line 6
        ],
        # line 9: '5 packets transmitted, 5 received, 0% packet loss, time 813ms'
        # line 10: 'rtt min/avg/max/mdev = 0.032/0.037/0.042/0.003 ms'
        {
            "packets": 5,
            "lost_packets": 0,
            "lost_percent": 0,
            "rtt_min_ms": 0.032,
            "rtt_avg_ms": 0.037,
            "rtt_max_ms": 0.042,
            "rtt_mdev_ms": 0.003,
        },
    ),
}

# The error captures: (form, error, summary values), the statistics copied from the capture.
ERRORS: dict[str, tuple[str, str, dict[str, float]]] = {
    # line 2: "ping: Do you want to ping broadcast? Then -b. If not, ..." (exit status 2)
    "err_broadcast": (
        "",
        "Do you want to ping broadcast? Then -b. If not, check your local firewall rules",
        {},
    ),
    # line 7: "From 10.253.78.1 icmp_seq=1 Destination Host Unreachable"
    # line 19: "8 packets transmitted, 0 received, +8 errors, 100% packet loss, time 3596ms"
    "err_unreachable_O": (
        "text -O",
        "Destination Host Unreachable",
        {"packets": 8, "lost_packets": 8, "icmp_errors": 8, "lost_percent": 100},
    ),
}


def text_of(name: str) -> str:
    return (CAPTURES / f"{name}.out").read_bytes().decode("utf-8", errors="replace")


def file_parse(name: str) -> tuple[list[Record], Summary]:
    return feed_text(ping.TOOL.file_parser(), text_of(name))


def live_parse(name: str, interval: float) -> tuple[list[Record], Summary]:
    live = ping.TOOL.parser(ping.resolve({"interval": format(interval, "g")}), CAPS)
    return feed_all(live, text_of(name).split("\n"))


def test_every_capture_has_its_command_and_a_golden_case() -> None:
    names = sorted(p.stem for p in CAPTURES.glob("*.out"))
    assert names == sorted([*FORMS, *ERRORS])
    assert sorted(GOLDEN) == sorted(FORMS)
    for name in names:
        cmd = (CAPTURES / f"{name}.cmd").read_text()
        assert cmd.startswith("# ") and " ping " in cmd.splitlines()[-1], name


@pytest.mark.parametrize("name", sorted(FORMS))
def test_live_parser_reads_the_form_and_the_printed_figures(name: str) -> None:
    form, reason = FORMS[name]
    interval, replies, expected_summary = GOLDEN[name]
    records, summary = live_parse(name, interval)
    assert records == [Record("sum", t, RTT, (rtt,)) for t, rtt in replies]
    assert summary == Summary(
        values=expected_summary,
        complete=reason is None,
        error=None,
        form=form,
        reason=reason,
    )


@pytest.mark.parametrize("name", sorted(FORMS))
def test_file_parser_detects_the_same(name: str) -> None:
    """A saved file's -i is unknown: the file parser counts 1 s (ping's default) per probe,
    and otherwise reads what the live parser made with -i 1 reads (its golden:
    test_parser_contract with check_golden)."""
    assert file_parse(name) == live_parse(name, 1.0)


def check_golden(file_name: str, records: list[Record], summary: Summary) -> None:
    """The file parser's output of a capture is its golden (run by test_parser_contract)."""
    name = file_name.removesuffix(".out")
    if name in ERRORS:
        form, error, values = ERRORS[name]
        assert records == []
        assert summary.form == form
        assert summary.error == error
        assert summary.values == values
        assert summary.reason is None
        return
    form, reason = FORMS[name]
    _, replies, expected_summary = GOLDEN[name]
    assert all(r.stream == "sum" and r.metrics == RTT for r in records)
    assert [r.values[0] for r in records] == [rtt for _, rtt in replies]
    assert summary == Summary(
        values=expected_summary,
        complete=reason is None,
        error=None,
        form=form,
        reason=reason,
    )


def live_parser(file_name: str) -> Parser:
    """The parser the engine makes for the capture's run (its -i; 1 s for the errors)."""
    interval = GOLDEN[name][0] if (name := file_name.removesuffix(".out")) in GOLDEN else 1.0
    return ping.TOOL.parser(ping.resolve({"interval": format(interval, "g")}), CAPS)


GOLDENS = Goldens(
    folder=CAPTURES,
    names=tuple(f"{name}.out" for name in sorted([*FORMS, *ERRORS])),
    check=check_golden,
    live_parser=live_parser,
    parts=(PingTextParser,),
    # iputils ping prints no version: it reaches the parser only through Capabilities.
    versions=(
        VersionCheck(
            banner=None,
            future="",
            recorded="ping from iputils 20221126",
            future_output="ping from iputils 29991231",
        ),
    ),
)


@pytest.mark.parametrize("name", sorted(FORMS))
def test_cli_parse_prints_the_form_reason_and_figures(name: str, library_path: Path) -> None:
    form, reason = FORMS[name]
    _, replies, expected_summary = GOLDEN[name]
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library_path)})
    assert run_cli(["parse", "ping", str(CAPTURES / f"{name}.out")], env) == 0, err.getvalue()
    payload = json.loads(out.getvalue())
    assert payload["form"] == form
    assert payload.get("reason") == reason
    assert payload["complete"] is (reason is None)
    assert payload["summary"] == expected_summary
    if replies:
        (series,) = payload["series"]
        assert series["metric"] == "rtt_ms" and series["v"] == [rtt for _, rtt in replies]
    else:
        assert payload["series"] == []


def test_no_answer_yet_lines_give_no_record_and_a_late_reply_still_counts() -> None:
    # c15_i02_O_lossy line 6: "no answer yet for icmp_seq=5", line 7: its reply, 351 ms late.
    records, _ = live_parse("c15_i02_O_lossy", 0.2)
    assert (records[4].t, records[4].values) == (1.0, (351,))
