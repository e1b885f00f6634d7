"""Golden tests of every uperf output form, on captures recorded on loopback (tests/data/captures).

Each capture's ``.cmd`` holds the profile and the exact commands. Expected figures are the ones
uperf printed in that capture (the line is quoted above each), in base units; where uperf
prints no figure for a metric (the raw form's rates, the latency without a Txn table) the
expression computes it from the printed counters, as the parser's documentation defines it.
"""

from __future__ import annotations

import io
import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import Record, Summary
from pairbench.tools.base import Capabilities, Parser
from pairbench.tools.feed import feed_text
from pairbench.tools.registry import TOOLS
from pairbench.tools.uperf_forms import NO_LATENCY_REASON, NO_STATS_REASON, form_name
from pairbench.tools.uperf_text import UperfTextParser
from pairbench.tools.uperf_units import bits, byte_count
from parser_checks import assert_records_well_formed, series_of
from parser_contract import Goldens, VersionCheck
from uperf_final_lines import HEADLINE, assert_figures_are_uperfs

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures" / "uperf"
UPERF = TOOLS["uperf"]
NO_LATENCY = NO_LATENCY_REASON
KB, MB, GB, TB = 1024.0, 1024.0**2, 1024.0**3, 1024.0**4


@dataclass(frozen=True)
class Golden:
    """What a capture must parse to.

    ``values``: the file parser's summary (``pairbench parse``); ``live``: what the live
    parser, told the profile, adds to it (UDP loss; the latency of a throughput profile
    without a Txn table); ``reason``: why the file parser's summary is incomplete.
    """

    form: str
    intervals: int
    values: dict[str, float]
    live: dict[str, float] = field(default_factory=dict)
    reason: str | None = None


def capture_text(name: str) -> str:
    """A capture's exact text ("\\r" kept: uperf rewrites its progress line with it)."""
    return (CAPTURES / name).read_bytes().decode("utf-8", "replace")


def profile_params(name: str) -> dict[str, str]:
    """The run parameters of a capture of a profile of the user's (``profile_*``): its XML
    and variables, as its .cmd wrote and gave them (uperf's $nthr is the threads parameter,
    $dur the duration, the others profile_vars)."""
    cmd = (CAPTURES / name).with_suffix(".cmd").read_text()
    xml = cmd.split("<<'EOF'\n", 1)[1].split("\nEOF\n", 1)[0] + "\n"
    given = dict(
        item.split("=", 1)
        for item in cmd.split("# pairbench params: ", 1)[1].split("\n")[0].split()
    )
    params = {"profile_file": "profile.xml", "profile_xml": xml, "threads": given.pop("nthr")}
    if "dur" in given:
        params["duration"] = given.pop("dur").removesuffix("s")
    params["profile_vars"] = " ".join(f"{k}={v}" for k, v in given.items())
    return params


def live_params(name: str) -> dict[str, str]:
    """The run parameters the capture's profile corresponds to (see its .cmd)."""
    if name.startswith("profile_"):
        return profile_params(name)
    kind, protocol, threads = name.split("_")[:3]
    return {
        "profile": "latency" if kind == "rr" else "throughput",
        "protocol": protocol,
        "threads": threads[1:],
        "count": "10",
        "duration": "3" if "_i2" in name else "2",
    }


def live_parser(name: str) -> Parser:
    """The parser the engine makes for a live run of the capture's profile."""
    return UPERF.parser(UPERF.resolve(live_params(name)), Capabilities("Uperf Version 1.0.8"))


def without(records: list[Record], metric: str) -> list[tuple[str, float, dict[str, float]]]:
    """Records as (stream, t, values) with one metric left out."""
    return [
        (r.stream, r.t, {m: v for m, v in zip(r.metrics, r.values, strict=True) if m != metric})
        for r in records
    ]


def headline(values: Mapping[str, object]) -> set[str]:
    """The summary's own figures among ``values`` (not one line of uperf's, see
    ``uperf_final_lines``)."""
    return {key for key in values if key in HEADLINE}


# --------------------------------------------------------------------------- the golden table

GOLDEN: dict[str, Golden] = {
    "rr_tcp_t1_R.out": Golden(
        "text -R",
        intervals=2,
        values={
            # first and last Txn2 raw lines
            "throughput_bps": 8 * (16439130 - 0) / (1795541592679.4578 - 1795541590477.9480) * 1e3,
            # the same raw lines
            "ops_per_s": (182657 - 0) / (1795541592679.4578 - 1795541590477.9480) * 1e3,
            # no Txn table: threads * dt * flowops per iteration / ops, from
            # first and last Txn2 raw lines
            "latency_avg_us": 1
            * (1795541592679.4578 - 1795541590477.9480)
            * 2
            / (182657 - 0)
            * 1e3,
            # master             4.30s    15.68MB    30.56Mb/s       182660        0.00
            "total_throughput_bps": 30.56e6,
        },
    ),
    "rr_tcp_t1_R_i1s_a.out": Golden(
        "text -R -a",
        intervals=2,
        values={
            # first and last Txn2 raw lines
            "throughput_bps": 8 * (15400350 - 0) / (1795541661656.9595 - 1795541659453.5222) * 1e3,
            # the same raw lines
            "ops_per_s": (171115 - 0) / (1795541661656.9595 - 1795541659453.5222) * 1e3,
            # Txn1               85558     23.36us      0.00ns      4.30ms     15.99us
            "latency_avg_us": 23.36,
            # write              85558     11.37us      0.00ns      1.70ms      4.05us
            "write_avg_us": 11.37,
            # read               85557     11.89us      0.00ns      4.28ms      1.06us
            "read_avg_us": 11.89,
            # master             4.31s    14.69MB    28.61Mb/s       171118        0.00
            "total_throughput_bps": 28.61e6,
        },
    ),
    "rr_tcp_t1_R_i500m_aep.out": Golden(
        "text -R -a",
        intervals=4,
        values={
            # first and last Txn2 raw lines
            "throughput_bps": 8 * (11996640 - 0) / (1795541680331.5598 - 1795541678129.4883) * 1e3,
            # the same raw lines
            "ops_per_s": (133296 - 0) / (1795541680331.5598 - 1795541678129.4883) * 1e3,
            # Txn1               66648     30.04us      0.00ns    146.34ms     16.79us
            "latency_avg_us": 30.04,
            # write              66648     12.10us      0.00ns      4.50ms      4.46us
            "write_avg_us": 12.10,
            # read               66648     17.84us      0.00ns    146.34ms      1.08us
            "read_avg_us": 17.84,
            # master             3.30s    11.44MB    29.05Mb/s       133299        0.00
            "total_throughput_bps": 29.05e6,
        },
    ),
    "rr_tcp_t1_a.out": Golden(
        "text -a",
        intervals=2,
        values={
            # Txn2      19.22MB /   2.20(s) =    73.24Mb/s      101716op/s
            "throughput_bps": 73.24e6,
            # the same line
            "ops_per_s": 101716.0,
            # Txn1              111965     17.83us      0.00ns      4.67ms     16.66us
            "latency_avg_us": 17.83,
            # write             111965     10.16us      0.00ns      1.35ms      4.26us
            "write_avg_us": 10.16,
            # read              111964      7.56us      0.00ns      4.66ms      1.06us
            "read_avg_us": 7.56,
            # Total     19.22MB /   4.21(s) =    38.32Mb/s       53218op/s
            "total_throughput_bps": 38.32e6,
        },
    ),
    "rr_tcp_t1_aep.out": Golden(
        "text -a",
        intervals=2,
        values={
            # Txn2      18.87MB /   2.20(s) =    71.88Mb/s       99834op/s
            "throughput_bps": 71.88e6,
            # the same line
            "ops_per_s": 99834.0,
            # Txn1              109928     18.17us      0.00ns      3.36ms     16.49us
            "latency_avg_us": 18.17,
            # write             109928      9.55us      0.00ns    314.05us      4.30us
            "write_avg_us": 9.55,
            # read              109927      8.52us      0.00ns      3.35ms      1.06us
            "read_avg_us": 8.52,
            # Total     18.87MB /   4.30(s) =    36.77Mb/s       51070op/s
            "total_throughput_bps": 36.77e6,
        },
    ),
    "rr_tcp_t1_aep_split.stdout": Golden(
        "text -a",
        intervals=2,
        values={
            # Txn2      13.95MB /   2.20(s) =    53.08Mb/s       73718op/s
            "throughput_bps": 53.08e6,
            # the same line
            "ops_per_s": 73718.0,
            # Txn1               81265     24.61us      0.00ns      4.11ms     16.75us
            "latency_avg_us": 24.61,
            # write              81265     12.58us      0.00ns      4.10ms      4.48us
            "write_avg_us": 12.58,
            # read               81264     11.91us      0.00ns      3.21ms      1.06us
            "read_avg_us": 11.91,
            # Total     13.95MB /   4.31(s) =    27.15Mb/s       37706op/s
            "total_throughput_bps": 27.15e6,
        },
    ),
    "rr_tcp_t1_default.out": Golden(
        "text",
        intervals=2,
        values={
            # Txn2      17.23MB /   2.20(s) =    65.58Mb/s       91088op/s
            "throughput_bps": 65.58e6,
            # the same line
            "ops_per_s": 91088.0,
            # no Txn table: threads * dt * flowops per iteration / ops, from
            # Txn2       90.00B /   0.00(s) =     6.68Mb/s        9272op/s
            # Txn2      17.23MB /   2.20(s) =    65.58Mb/s       91088op/s
            "latency_avg_us": 1 * (2.20 - 0.00) * 2 / (91088 * 2.20 - 9272 * 0.00) * 1e6,
            # Total     17.23MB /   4.31(s) =    33.57Mb/s       46627op/s
            "total_throughput_bps": 33.57e6,
        },
    ),
    "rr_tcp_t1_e.out": Golden(
        "text",
        intervals=2,
        values={
            # Txn2      18.08MB /   2.20(s) =    68.90Mb/s       95693op/s
            "throughput_bps": 68.90e6,
            # the same line
            "ops_per_s": 95693.0,
            # no Txn table: threads * dt * flowops per iteration / ops, from
            # Txn2            0 /   0.00(s) =            0           0op/s
            # Txn2      18.08MB /   2.20(s) =    68.90Mb/s       95693op/s
            "latency_avg_us": 1 * (2.20 - 0.00) * 2 / (95693 * 2.20 - 0 * 0.00) * 1e6,
            # Total     18.08MB /   4.30(s) =    35.24Mb/s       48945op/s
            "total_throughput_bps": 35.24e6,
        },
    ),
    "rr_tcp_t1_f.out": Golden(
        "text -f",
        intervals=2,
        values={
            # Txn2      19.33MB /   2.20(s) =    73.65Mb/s      102290op/s
            "throughput_bps": 73.65e6,
            # the same line
            "ops_per_s": 102290.0,
            # no Txn table: threads * dt * flowops per iteration / ops, from
            # Txn2            0 /   0.00(s) =            0           0op/s
            # Txn2      19.33MB /   2.20(s) =    73.65Mb/s      102290op/s
            "latency_avg_us": 1 * (2.20 - 0.00) * 2 / (102290 * 2.20 - 0 * 0.00) * 1e6,
            # write             112600      9.89us      0.00ns      1.58ms      4.39us
            "write_avg_us": 9.89,
            # read              112599      7.81us      0.00ns      3.31ms      1.06us
            "read_avg_us": 7.81,
            # Total     19.33MB /   4.30(s) =    37.67Mb/s       52315op/s
            "total_throughput_bps": 37.67e6,
        },
    ),
    "rr_tcp_t1_i500m.out": Golden(
        "text",
        intervals=3,
        values={
            # Txn2      13.10MB /   1.70(s) =    64.59Mb/s       89715op/s
            "throughput_bps": 64.59e6,
            # the same line
            "ops_per_s": 89715.0,
            # no Txn table: threads * dt * flowops per iteration / ops, from
            # Txn2            0 /   0.00(s) =            0           0op/s
            # Txn2      13.10MB /   1.70(s) =    64.59Mb/s       89715op/s
            "latency_avg_us": 1 * (1.70 - 0.00) * 2 / (89715 * 1.70 - 0 * 0.00) * 1e6,
            # Total     13.10MB /   2.80(s) =    39.21Mb/s       54463op/s
            "total_throughput_bps": 39.21e6,
        },
    ),
    "rr_tcp_t1_k.out": Golden(
        "text",
        intervals=2,
        values={
            # Txn2      19.75MB /   2.20(s) =    75.25Mb/s      104508op/s
            "throughput_bps": 75.25e6,
            # the same line
            "ops_per_s": 104508.0,
            # no Txn table: threads * dt * flowops per iteration / ops, from
            # Txn2            0 /   0.00(s) =            0           0op/s
            # Txn2      19.75MB /   2.20(s) =    75.25Mb/s      104508op/s
            "latency_avg_us": 1 * (2.20 - 0.00) * 2 / (104508 * 2.20 - 0 * 0.00) * 1e6,
            # Total     19.75MB /   4.30(s) =    38.50Mb/s       53469op/s
            "total_throughput_bps": 38.50e6,
        },
    ),
    "rr_tcp_t4_aep_i1.out": Golden(
        "text -a",
        intervals=2,
        values={
            # Txn2      29.39MB /   2.20(s) =   111.92Mb/s      155439op/s
            "throughput_bps": 111.92e6,
            # the same line
            "ops_per_s": 155439.0,
            # Txn1              171212     46.73us      0.00ns     14.82ms     16.65us
            "latency_avg_us": 46.73,
            # write             171212     11.47us      0.00ns     14.81ms      4.38us
            "write_avg_us": 11.47,
            # read              171208     35.15us      0.00ns      8.66ms      1.06us
            "read_avg_us": 35.15,
            # Total     29.39MB /   4.31(s) =    57.24Mb/s       79507op/s
            "total_throughput_bps": 57.24e6,
        },
    ),
    "rr_udp_t1_aep.out": Golden(
        "text -a",
        intervals=2,
        values={
            # Txn2      20.64MB /   2.20(s) =    78.64Mb/s      109226op/s
            "throughput_bps": 78.64e6,
            # the same line
            "ops_per_s": 109226.0,
            # Txn1              120224     16.60us      0.00ns      4.19ms     14.26us
            "latency_avg_us": 16.60,
            # write             120224      7.75us      0.00ns      1.39ms      3.15us
            "write_avg_us": 7.75,
            # read              120223      8.76us      0.00ns      4.17ms      1.23us
            "read_avg_us": 8.76,
            # Total     20.64MB /   4.30(s) =    40.22Mb/s       55868op/s
            "total_throughput_bps": 40.22e6,
        },
        live={
            # Difference(%)     -0.01%      0.00%        0.01%        0.00%       0.00% (bytes)
            "lost_percent": 0.0,
        },
    ),
    "rr_udp_t1_default.out": Golden(
        "text",
        intervals=2,
        values={
            # Txn2      21.52MB /   2.20(s) =    82.00Mb/s      113888op/s
            "throughput_bps": 82.00e6,
            # the same line
            "ops_per_s": 113888.0,
            # no Txn table: threads * dt * flowops per iteration / ops, from
            # Txn2            0 /   0.00(s) =            0           0op/s
            # Txn2      21.52MB /   2.20(s) =    82.00Mb/s      113888op/s
            "latency_avg_us": 1 * (2.20 - 0.00) * 2 / (113888 * 2.20 - 0 * 0.00) * 1e6,
            # Total     21.52MB /   4.30(s) =    41.94Mb/s       58253op/s
            "total_throughput_bps": 41.94e6,
        },
        live={
            # Difference(%)     -0.00%      0.00%        0.00%        0.00%       0.00% (bytes)
            "lost_percent": 0.0,
        },
    ),
    "rr_udp_t1_t.out": Golden(
        "text -t",
        intervals=2,
        values={
            # Txn2      15.45MB /   2.20(s) =    58.83Mb/s       81715op/s
            "throughput_bps": 58.83e6,
            # the same line
            "ops_per_s": 81715.0,
            # Txn1               90015     22.19us      0.00ns      5.30ms     14.21us
            "latency_avg_us": 22.19,
            # uperf's "Nic NAME came online" messages stick to the front of the Total line:
            # Nic pbl-c0 came onlineNic pbl-s0 came onlineTotal     15.45MB /   4.31(s) = ...
            # ... 30.10Mb/s       41808op/s
            "total_throughput_bps": 30.10e6,
        },
        live={
            # Difference(%)      0.01%      0.00%       -0.01%        0.00%       0.00% (bytes)
            "lost_percent": 0.0,
        },
    ),
    "rr_udp_t4_R_i1s_a.out": Golden(
        "text -R -a",
        intervals=2,
        values={
            # first and last Txn2 raw lines
            "throughput_bps": 8 * (23821920 - 0) / (1795541666565.5562 - 1795541664361.4939) * 1e3,
            # the same raw lines
            "ops_per_s": (264688 - 0) / (1795541666565.5562 - 1795541664361.4939) * 1e3,
            # Txn1              132346     60.45us      0.00ns      4.07ms     14.33us
            "latency_avg_us": 60.45,
            # write             132346      8.86us      0.00ns      1.96ms      3.19us
            "write_avg_us": 8.86,
            # read              132342     51.49us      0.00ns      4.07ms      1.23us
            "read_avg_us": 51.49,
            # master             4.31s    22.72MB    44.26Mb/s       264700        0.00
            "total_throughput_bps": 44.26e6,
        },
        live={
            # Difference(%)     -0.01%      0.00%        0.01%        0.00%       0.00% (bytes)
            "lost_percent": 0.0,
        },
    ),
    "stream_tcp_t1_R.out": Golden(
        "text -R",
        intervals=2,
        values={
            # first and last Txn2 raw lines
            "throughput_bps": 8
            * (3209789440 - 0)
            / (1795541597585.0291 - 1795541595383.5781)
            * 1e3,
            # the same raw lines
            "ops_per_s": (391820 - 0) / (1795541597585.0291 - 1795541595383.5781) * 1e3,
            # master             4.31s     2.99GB     5.96Gb/s       391823        0.00
            "total_throughput_bps": 5.96e9,
        },
        live={
            # no Txn table: threads * dt * flowops per iteration / ops, from
            # first and last Txn2 raw lines
            "latency_avg_us": 1
            * (1795541597585.0291 - 1795541595383.5781)
            * 10
            / (391820 - 0)
            * 1e3,
        },
        reason=NO_LATENCY,
    ),
    "stream_tcp_t1_i2.out": Golden(
        "text",
        intervals=1,
        values={
            # Txn2       3.26GB /   3.20(s) =     8.75Gb/s      133506op/s
            "throughput_bps": 8.75e9,
            # the same line
            "ops_per_s": 133506.0,
            # Total      3.26GB /   5.31(s) =     5.28Gb/s       80590op/s
            "total_throughput_bps": 5.28e9,
        },
        live={
            # no Txn table: threads * dt * flowops per iteration / ops, from
            # Txn2       1.11GB /   1.00(s) =     9.51Gb/s      145044op/s
            # Txn2       3.26GB /   3.20(s) =     8.75Gb/s      133506op/s
            "latency_avg_us": 1 * (3.20 - 1.00) * 10 / (133506 * 3.20 - 145044 * 1.00) * 1e6,
        },
        reason=NO_LATENCY,
    ),
    "stream_tcp_t1_p.out": Golden(
        "text -f",
        intervals=2,
        values={
            # Txn2       3.20GB /   2.20(s) =    12.48Gb/s      190481op/s
            "throughput_bps": 12.48e9,
            # the same line
            "ops_per_s": 190481.0,
            # write             419452      4.77us      0.00ns      2.18ms     13.09us
            "write_avg_us": 4.77,
            # Total      3.20GB /   4.30(s) =     6.39Gb/s       97448op/s
            "total_throughput_bps": 6.39e9,
        },
        live={
            # no Txn table: threads * dt * flowops per iteration / ops, from
            # Txn2       1.09MB /   0.00(s) =     9.78Gb/s      149175op/s
            # Txn2       3.20GB /   2.20(s) =    12.48Gb/s      190481op/s
            "latency_avg_us": 1 * (2.20 - 0.00) * 10 / (190481 * 2.20 - 149175 * 0.00) * 1e6,
        },
        reason=NO_LATENCY,
    ),
    "stream_tcp_t4_R_i1s_a.out": Golden(
        "text -R -a",
        intervals=2,
        values={
            # first and last Txn2 raw lines
            "throughput_bps": 8
            * (3829022715 - 0)
            / (1795541671515.5720 - 1795541669266.3074)
            * 1e3,
            # the same raw lines
            "ops_per_s": (467415 - 0) / (1795541671515.5720 - 1795541669266.3074) * 1e3,
            # Txn1               46745    175.29us      0.00ns    207.68ms     13.15us
            "latency_avg_us": 175.29,
            # write             467415     17.50us      0.00ns    207.68ms     13.08us
            "write_avg_us": 17.50,
            # master             4.35s     3.57GB     7.04Gb/s       467427        0.00
            "total_throughput_bps": 7.04e9,
        },
    ),
    "stream_tcp_t4_T.out": Golden(
        "text -T",
        intervals=2,
        values={
            # Txn2       4.71GB /   2.20(s) =    18.34Gb/s      279922op/s
            "throughput_bps": 18.34e9,
            # the same line
            "ops_per_s": 279922.0,
            # Total      4.71GB /   4.31(s) =     9.38Gb/s      143177op/s
            "total_throughput_bps": 9.38e9,
        },
        live={
            # no Txn table: threads * dt * flowops per iteration / ops, from
            # Txn2            0 /   0.00(s) =            0           0op/s
            # Txn2       4.71GB /   2.20(s) =    18.34Gb/s      279922op/s
            "latency_avg_us": 4 * (2.20 - 0.00) * 10 / (279922 * 2.20 - 0 * 0.00) * 1e6,
        },
        reason=NO_LATENCY,
    ),
    "stream_tcp_t4_aep.out": Golden(
        "text -a",
        intervals=2,
        values={
            # Txn2       4.45GB /   2.20(s) =    17.34Gb/s      264612op/s
            "throughput_bps": 17.34e9,
            # the same line
            "ops_per_s": 264612.0,
            # Txn1               58285    137.35us      0.00ns    208.18ms     13.18us
            "latency_avg_us": 137.35,
            # write             582818     13.73us      0.00ns    208.18ms     13.12us
            "write_avg_us": 13.73,
            # Total      4.45GB /   4.30(s) =     8.87Gb/s      135383op/s
            "total_throughput_bps": 8.87e9,
        },
    ),
    "stream_tcp_t4_aep_i1.out": Golden(
        "text -a",
        intervals=2,
        values={
            # Txn2       4.02GB /   2.20(s) =    15.70Gb/s      239498op/s
            "throughput_bps": 15.70e9,
            # the same line
            "ops_per_s": 239498.0,
            # Txn1               52726    151.69us      0.00ns    211.49ms     13.28us
            "latency_avg_us": 151.69,
            # write             527246     15.16us      0.00ns    211.49ms     13.21us
            "write_avg_us": 15.16,
            # Total      4.02GB /   4.20(s) =     8.22Gb/s      125429op/s
            "total_throughput_bps": 8.22e9,
        },
    ),
    "stream_tcp_t4_default.out": Golden(
        "text",
        intervals=2,
        values={
            # Txn2       5.76GB /   2.20(s) =    22.44Gb/s      342448op/s
            "throughput_bps": 22.44e9,
            # the same line
            "ops_per_s": 342448.0,
            # Total      5.76GB /   4.31(s) =    11.49Gb/s      175282op/s
            "total_throughput_bps": 11.49e9,
        },
        live={
            # no Txn table: threads * dt * flowops per iteration / ops, from
            # Txn2       2.19MB /   0.00(s) =    32.72Gb/s      499296op/s
            # Txn2       5.76GB /   2.20(s) =    22.44Gb/s      342448op/s
            "latency_avg_us": 4 * (2.20 - 0.00) * 10 / (342448 * 2.20 - 499296 * 0.00) * 1e6,
        },
        reason=NO_LATENCY,
    ),
    "stream_tcp_t4_g.out": Golden(
        "text -g",
        intervals=2,
        values={
            # Txn2       2.85GB /   2.20(s) =    11.10Gb/s      169415op/s
            "throughput_bps": 11.10e9,
            # the same line
            "ops_per_s": 169415.0,
            # Total      2.85GB /   4.31(s) =     5.68Gb/s       86645op/s
            "total_throughput_bps": 5.68e9,
        },
        live={
            # no Txn table: threads * dt * flowops per iteration / ops, from
            # Txn2            0 /   0.00(s) =            0           0op/s
            # Txn2       2.85GB /   2.20(s) =    11.10Gb/s      169415op/s
            "latency_avg_us": 4 * (2.20 - 0.00) * 10 / (169415 * 2.20 - 0 * 0.00) * 1e6,
        },
        reason=NO_LATENCY,
    ),
    "stream_udp_t1_aep.out": Golden(
        "text -a",
        intervals=2,
        values={
            # Txn2       1.89GB /   2.21(s) =     7.38Gb/s      112586op/s
            "throughput_bps": 7.38e9,
            # the same line
            "ops_per_s": 112586.0,
            # Txn1               24831     80.69us      0.00ns      3.30ms     40.81us
            "latency_avg_us": 80.69,
            # write             248300      8.06us      0.00ns      3.29ms     40.74us
            "write_avg_us": 8.06,
            # Total      1.89GB /   4.31(s) =     3.78Gb/s       57645op/s
            "total_throughput_bps": 3.78e9,
        },
        live={
            # Difference(%)      0.01%     35.51%       35.51%       35.51%       0.00% (bytes)
            "lost_percent": 35.51,
        },
    ),
    "stream_udp_t4_R_i1s_a.out": Golden(
        "text -R -a",
        intervals=2,
        values={
            # first and last Txn2 raw lines
            "throughput_bps": 8
            * (4058398720 - 4177920)
            / (1795541676428.9165 - 1795541674211.4438)
            * 1e3,
            # the same raw lines
            "ops_per_s": (495410 - 510) / (1795541676428.9165 - 1795541674211.4438) * 1e3,
            # Txn1               49545    162.78us      0.00ns     31.95ms      4.40us
            "latency_avg_us": 162.78,
            # write             495410     16.25us      0.00ns     31.95ms     40.69us
            "write_avg_us": 16.25,
            # master             4.32s     3.78GB     7.51Gb/s       495422        0.00
            "total_throughput_bps": 7.51e9,
        },
        live={
            # Difference(%)     -0.01%     54.59%       54.59%       54.58%       0.00% (bytes)
            "lost_percent": 54.59,
        },
    ),
    "stream_udp_t4_a.out": Golden(
        "text -a",
        intervals=2,
        values={
            # Txn2       2.49GB /   2.20(s) =     9.70Gb/s      147988op/s
            "throughput_bps": 9.70e9,
            # the same line
            "ops_per_s": 147988.0,
            # Txn1               32603    244.87us      0.00ns     20.24ms     40.70us
            "latency_avg_us": 244.87,
            # write             325990     24.48us      0.00ns     20.24ms     40.64us
            "write_avg_us": 24.48,
            # Total      2.49GB /   4.21(s) =     5.08Gb/s       77501op/s
            "total_throughput_bps": 5.08e9,
        },
        live={
            # Difference(%)      0.02%     72.29%       72.28%       72.28%       0.00% (bytes)
            "lost_percent": 72.29,
        },
    ),
    # Profiles of the user's (the .cmd holds them): connect and disconnect a given number of
    # times (iterations=$iter: no timed transaction, so no headline throughput, ops or
    # latency), and two groups at once (no run-wide latency: each group has its own row).
    "profile_connect_t2_R_i1s_a.out": Golden(
        "text -R -a",
        intervals=0,
        values={
            # master             1.31s          0            0         6002        0.00
            "total_throughput_bps": 0.0,
        },
    ),
    "profile_connect_t2_a.out": Golden(
        "text -a",
        intervals=0,
        values={
            # Total           0 /   1.62(s) =            0        3593op/s
            "total_throughput_bps": 0.0,
        },
    ),
    "profile_groups_t2_R_i1s_a.out": Golden(
        "text -R -a",
        intervals=2,
        values={
            # first and last Txn2 raw lines
            "throughput_bps": 8
            * (6701851252 - 589824)
            / (1795832560469.2595 - 1795832558066.5422)
            * 1e3,
            # the same raw lines
            "ops_per_s": (154699 - 9) / (1795832560469.2595 - 1795832558066.5422) * 1e3,
            # master             4.51s     6.24GB    11.90Gb/s       154708        0.00
            "total_throughput_bps": 11.90e9,
        },
    ),
    "profile_groups_t2_a.out": Golden(
        "text -a",
        intervals=2,
        values={
            # Txn2       9.54GB /   2.40(s) =    34.12Gb/s       93592op/s
            "throughput_bps": 34.12e9,
            # the same line
            "ops_per_s": 93592.0,
            # Total      9.54GB /   4.50(s) =    18.19Gb/s       49907op/s
            "total_throughput_bps": 18.19e9,
        },
    ),
}

# Runs with uperf -n (with or without -R): "Starting ..." and uperf's end-of-run log only.
NO_STATS = ("rr_tcp_t1_n.out", "stream_tcp_t1_n_R.out")


def test_every_capture_has_a_golden_test() -> None:
    names = {p.name for p in CAPTURES.iterdir() if p.suffix in (".out", ".stdout")}
    assert names == set(GOLDEN) | set(NO_STATS)
    for name in names:
        assert (CAPTURES / name).with_suffix(".cmd").is_file(), name


# --------------------------------------------------------------------------- file parser


def check_golden(name: str, records: list[Record], summary: Summary) -> None:
    """The file parser's output of a capture is its golden (run by test_parser_contract)."""
    if name in NO_STATS:
        assert records == []
        assert summary.values == {}
        assert summary.form == "text -n"
        assert summary.complete is False
        assert summary.reason == NO_STATS_REASON
        assert summary.error is None
        return
    golden = GOLDEN[name]
    assert_records_well_formed(records)
    assert summary.form == golden.form
    assert summary.error is None
    assert summary.reason == golden.reason
    assert summary.complete is (golden.reason is None)
    assert headline(summary.values) == golden.values.keys() & HEADLINE
    for key, value in golden.values.items():
        # Raw timestamps have 17 digits: a double keeps ~16, hence 1e-9 rather than 1e-12.
        assert summary.values[key] == pytest.approx(value, rel=1e-9), key
    # Every other figure is one of uperf's final lines, and every one of those is stored.
    assert_figures_are_uperfs(summary.values, capture_text(name))
    ser = series_of(records)
    assert {stream for stream, _ in ser} <= {"sum", "txn1", "txn2", "txn3"}
    if not golden.intervals:  # no timed transaction (Txn2): no "sum"
        assert "throughput_bps" not in summary.values
        assert not any(stream == "sum" for stream, _ in ser)
        return
    assert len(ser[("sum", "throughput_bps")]) == golden.intervals
    assert ser[("sum", "throughput_bps")] == ser[("txn2", "throughput_bps")]


GOLDENS = Goldens(
    folder=CAPTURES,
    names=tuple(sorted([*GOLDEN, *NO_STATS])),
    check=check_golden,
    live_parser=lambda name: live_parser(name),
    parts=(UperfTextParser,),
    # uperf prints no version: it reaches the parser only through Capabilities.
    versions=(
        VersionCheck(
            banner=None,
            future="",
            recorded="Uperf Version 1.0.8",
            future_output="Uperf Version 99.1.0",
        ),
    ),
)


@pytest.mark.parametrize("name", NO_STATS)
def test_no_statistics_form_says_so(name: str) -> None:
    # The file parser's: check_golden (test_parser_contract); the live parser's the same.
    records, summary = feed_text(live_parser(name), capture_text(name))
    check_golden(name, records, summary)


def test_no_statistics_cut_short_is_not_the_n_form() -> None:
    # The same output cut before uperf's end-of-run log: a run that stopped, not -n.
    first_line = capture_text("rr_tcp_t1_n.out").split("\n")[0]
    assert first_line.startswith("Starting 1 threads")
    _, summary = feed_text(UPERF.file_parser(), first_line + "\n")
    assert summary.form == "text"
    assert summary.complete is False and summary.reason is None


# --------------------------------------------------------------------------- live parser


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_live_parser_reads_the_form(name: str) -> None:
    golden = GOLDEN[name]
    text = capture_text(name)
    live_records, summary = feed_text(live_parser(name), text)
    file_records, _ = feed_text(UPERF.file_parser(), text)
    assert summary.form == golden.form
    assert summary.complete is True and summary.reason is None and summary.error is None
    expected = {**golden.values, **golden.live}
    assert headline(summary.values) == expected.keys() & HEADLINE
    for key, value in expected.items():
        assert summary.values[key] == pytest.approx(value, rel=1e-9), key
    assert_figures_are_uperfs(summary.values, text)
    if name.startswith(("rr_", "profile_")):
        # The file parser knows Pairbench's latency profile by its name: the same records; a
        # profile of the user's has no interval latency, as a saved output's.
        assert live_records == file_records
    else:
        # The throughput profile's count is a run parameter: only the live parser has the
        # interval latency; everything else is the same.
        assert without(live_records, "latency_avg_us") == without(file_records, "latency_avg_us")
        for r in live_records:
            if r.stream == "sum":
                assert "latency_avg_us" in r.metrics


def test_split_stdout_and_stderr() -> None:
    # uperf writes everything to stdout (its log too): stderr stays empty, and the live
    # parser, which reads both, reads stdout then stderr the same as the file alone.
    assert (CAPTURES / "rr_tcp_t1_aep_split.stderr").read_bytes() == b""
    name = "rr_tcp_t1_aep_split.stdout"
    parser = live_parser(name)
    records = []
    for line in capture_text(name).split("\n"):
        records += parser.feed(line)
    summary = parser.close()
    assert summary.form == "text -a"
    assert summary.values["latency_avg_us"] == 24.61  # Txn1  81265  24.61us ...


# --------------------------------------------------------------------------- intervals by hand


def test_progress_intervals_at_500_ms_by_hand() -> None:
    # -i 500m: Txn1 "0 / 0.50(s)" ends at 0.50 s; Txn2's pieces, after its 0 / 0.00(s) one:
    # "4.02MB / 0.50(s) ... 93488op/s", "8.48MB / 1.00(s) ... 98630op/s",
    # "13.10MB / 1.70(s) ... 89715op/s".
    records, _ = feed_text(UPERF.file_parser(), capture_text("rr_tcp_t1_i500m.out"))
    ser = series_of(records)
    assert [t for t, _ in ser[("sum", "throughput_bps")]] == pytest.approx([1.0, 1.5, 2.2])
    thr = [v for _, v in ser[("sum", "throughput_bps")]]
    assert thr == pytest.approx(
        [8 * 4.02 * MB / 0.5, 8 * (8.48 - 4.02) * MB / 0.5, 8 * (13.10 - 8.48) * MB / 0.7]
    )
    ops = [v for _, v in ser[("sum", "ops_per_s")]]
    assert ops == pytest.approx(
        [93488, (98630 * 1.0 - 93488 * 0.5) / 0.5, (89715 * 1.7 - 98630 * 1.0) / 0.7]
    )


def test_raw_intervals_at_500_ms_by_hand() -> None:
    # -R -i 500m: the Txn2 raw lines, t from the first raw line (Txn1's, 1795541677628.8347).
    t0 = 1795541677628.8347
    points = [
        (1795541678129.4883, 0, 0),
        (1795541678629.8027, 1587870, 17643),
        (1795541679130.3564, 5568390, 61871),
        (1795541679630.9133, 9403110, 104479),
        (1795541680331.5598, 11996640, 133296),
    ]
    records, _ = feed_text(UPERF.file_parser(), capture_text("rr_tcp_t1_R_i500m_aep.out"))
    ser = series_of(records)
    expected_t = [(ts - t0) / 1e3 for ts, _, _ in points[1:]]
    assert [t for t, _ in ser[("sum", "throughput_bps")]] == pytest.approx(expected_t, rel=1e-9)
    for ((ta, ba, oa), (tb, bb, ob)), (_, thr), (_, ops), (_, lat) in zip(
        itertools.pairwise(points),
        ser[("sum", "throughput_bps")],
        ser[("sum", "ops_per_s")],
        ser[("sum", "latency_avg_us")],
        strict=True,
    ):
        dt = (tb - ta) / 1e3
        assert thr == pytest.approx(8 * (bb - ba) / dt, rel=1e-9)
        assert ops == pytest.approx((ob - oa) / dt, rel=1e-9)
        assert lat == pytest.approx(1 * dt * 2 / (ob - oa) * 1e6, rel=1e-9)  # write + read


# --------------------------------------------------------------------------- pairbench parse


def _parse_cli(path: Path, library_path: Path) -> dict[str, object]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library_path)})
    assert run_cli(["parse", "uperf", str(path)], env) == 0, err.getvalue()
    payload: dict[str, object] = json.loads(out.getvalue())
    return payload


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_pairbench_parse_detects_the_form(name: str, library_path: Path) -> None:
    golden = GOLDEN[name]
    payload = _parse_cli(CAPTURES / name, library_path)
    assert payload["form"] == golden.form
    assert payload.get("reason") == golden.reason
    assert payload["complete"] is (golden.reason is None)
    summary = payload["summary"]
    assert isinstance(summary, dict)
    assert headline(summary) == golden.values.keys() & HEADLINE
    for key, value in golden.values.items():
        assert summary[key] == pytest.approx(value, rel=1e-9), key
    assert_figures_are_uperfs(summary, capture_text(name))
    assert not library_path.exists()


def test_pairbench_parse_no_statistics(library_path: Path) -> None:
    payload = _parse_cli(CAPTURES / "stream_tcp_t1_n_R.out", library_path)
    assert payload["form"] == "text -n"
    assert payload["reason"] == NO_STATS_REASON
    assert payload["complete"] is False and payload["summary"] == {}


# --------------------------------------------------------------------------- saved files


def test_file_parser_knows_uperfs_own_profiles() -> None:
    # tests/data/fixtures/uperf/iperf_tcp_nthr1_default.out ran uperf's own iperf.xml
    # ("profile:iperf", write count=10) without -t: the latency comes from its pieces
    # "Txn2 0 / 0.00(s) ..." and "Txn2 11.61GB / 10.21(s) = 9.77Gb/s 149007op/s".
    fixture = CAPTURES.parents[1] / "fixtures" / "uperf" / "iperf_tcp_nthr1_default.out"
    _, summary = feed_text(UPERF.file_parser(), fixture.read_bytes().decode())
    assert summary.complete is True and summary.form == "text"
    assert summary.values["latency_avg_us"] == pytest.approx(
        1 * 10.21 * 10 / (149007 * 10.21) * 1e6
    )


def test_file_parser_of_an_unknown_profile_without_txn_table() -> None:
    text = capture_text("stream_tcp_t4_default.out").replace(
        "profile:pairbench-throughput", "profile:mine"
    )
    records, summary = feed_text(UPERF.file_parser(), text)
    assert summary.reason == NO_LATENCY_REASON and summary.complete is False
    assert "latency_avg_us" not in summary.values
    assert all("latency_avg_us" not in r.metrics for r in records)


# --------------------------------------------------------------------------- names and units


@pytest.mark.parametrize(
    ("seen", "no_stats", "name"),
    [
        (0, False, ""),
        (1, False, "text"),
        (1 | 2, False, "text -R"),
        (1 | 4 | 8 | 16 | 32 | 64, False, "text -a"),
        (1 | 2 | 8 | 16 | 32 | 64, False, "text -R -a"),
        (1 | 4 | 8 | 32, False, "text -g -t"),
        (1 | 4 | 16 | 64, False, "text -T -f"),
        (1 | 128, True, "text -n"),
    ],
)
def test_form_names(seen: int, no_stats: bool, name: str) -> None:
    assert form_name(seen, no_stats=no_stats) == name


@pytest.mark.parametrize(
    ("num", "unit", "value"),
    [
        ("0", None, 0.0),  # "Txn1            0 /   0.00(s) =            0"
        ("612.79", "b/s", 612.79),  # "pbs-s0 ... 612.79b/s    755.78b/s" (Netstat)
        ("9.93", "Kb/s", 9.93e3),  # "pbl-c0           6           5     9.93Kb/s"
        ("79.63", "Mb/s", 79.63e6),  # "Txn2       9.50MB /   1.00(s) =    79.63Mb/s"
        ("9.59", "Gb/s", 9.59e9),
        ("1.02", "Tb/s", 1.02e12),
    ],
)
def test_bit_rates(num: str, unit: str | None, value: float) -> None:
    assert bits(num, unit) == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize(
    ("num", "unit", "estimate", "value"),
    [
        ("0", "", 0.0, 0.0),  # "Txn1            0 /"
        ("90.00", "B", 0.0, 90.0),  # "Txn2       90.00B /   0.00(s)" (rr_udp_t1_t.out)
        ("500.00", "KB", 0.0, 500 * KB),
        ("9.50", "MB", 0.0, 9.5 * MB),  # "Txn2       9.50MB /   1.00(s)"
        ("1.12", "GB", 0.0, 1.12 * GB),
        ("2.00", "TB", 0.0, 2.0 * TB),
        ("291.45", "M", 0.0, 291.45 * MB),  # "Group0    291.45M /" (its "B" cut off)
        # "Txn2      1011.02 /   1.00(s) =     8.48Gb/s" (stream_udp_t1_aep.out): the whole
        # unit cut off; 8.48 Gb/s for 1 s is ~1011 MB.
        ("1011.02", "", 8.48e9 * 1.00 / 8, 1011.02 * MB),
    ],
)
def test_byte_counts(num: str, unit: str, estimate: float, value: float) -> None:
    assert byte_count(num, unit, estimate) == pytest.approx(value, rel=1e-12)
