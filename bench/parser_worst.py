"""parser_worst: parsers on hostile long lines (no backtracking blow-up), against real output.

For each text parser, lines of thousands of characters built to make a regular expression
backtrack (the ones the unit tests feed for correctness: records or ``ParseError``, nothing
else) are parsed, and so is a real capture of the same tool. The figure is the time per
character on the hostile lines ÷ the time per character on the real capture, both measured
here in the same run: a parser that backtracks on a line of n characters takes time growing
with n², and the ratio shows it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path

from bench.common import Out, Verdict, fmt, median
from pairbench.tools.base import ParseError, Parser
from pairbench.tools.fio_json import FioJsonParser
from pairbench.tools.iperf2_text import Iperf2TextParser
from pairbench.tools.iperf3_json import Iperf3JsonParser
from pairbench.tools.iperf3_text import Iperf3TextParser
from pairbench.tools.nuttcp_text import NuttcpTextParser
from pairbench.tools.ping_text import PingTextParser
from pairbench.tools.uperf_text import UperfTextParser

NAME = "parser_worst"
REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "data" / "fixtures"
# A hostile line may cost this many times as much per character as real output (the baseline).
TARGET_RATIO = 10.0

# (name, parser factory, real capture, hostile lines): the lines of the unit tests.
CASES: tuple[tuple[str, Callable[[], Parser], Path, list[str]], ...] = (
    (
        "iperf3 text",
        Iperf3TextParser,
        FIXTURES / "iperf3" / "tcp_t5_P2.out",
        [
            "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec" + " " * 4000 + "x",
            "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  " + "1" * 4000 + "x",
            "[  5]   0.00-1.00   sec  1.65 GBytes  14.2 Gbits/sec  1 " + " 1" * 1990 + "x",
            "[  5]   " + "1." * 2000 + "-1.00 sec",
            "[" + " " * 4090 + "5]",
        ],
    ),
    (
        "iperf3 json",
        Iperf3JsonParser,
        FIXTURES / "iperf3" / "tcp_t5_json.out",
        ['{"start": "' + "x" * 4000, "[" * 900 + "]" * 900, '"' + "\\" * 4000],
    ),
    (
        "iperf2",
        Iperf2TextParser,
        REPO / "tests" / "data" / "iperf2" / "tcp_t12_P3.out",
        [
            "[  1] 0.0000-1.0000 sec  2.67 GBytes  22.9 Gbits/sec" + " " * 4000 + "x",
            "[  1] 0.0000-1.0000 sec" + " " * 4000 + "x",
            "[" + " " * 4090 + "1]",
            "[  1] local " + "x " * 2000 + " connected wit",
            "write" + " failed: " * 450,
        ],
    ),
    (
        "nuttcp",
        NuttcpTextParser,
        FIXTURES / "nuttcp" / "tcp_T5_i1.out",
        [
            " 1.0000 MB /   1.00 sec = 1.0000 Mbps" + " " * 4000 + "x",
            " 1.0000 MB /   1.00 sec = 1.0000 Mbps " + "1 " * 2000 + "x",
            " " * 4000 + "1.0000 MB",
            "megabytes=1 " * 340,
            "nuttcp-t: " + "1" * 4000 + "user",
        ],
    ),
    (
        "ping",
        lambda: PingTextParser(0.2),
        FIXTURES / "ping" / "c20_s1400_i02.out",
        [
            "64 bytes from " + "a" * 4000 + ": icmp_seq=1",
            "64 bytes from x: icmp_seq=1 ttl=64 time=" + "1" * 3900 + "x",
            "[" + "1" * 4000 + ".1] 64 bytes",
            "From " + " " * 4000 + "x",
            "1 packets transmitted, 1 received" + ", x" * 1300,
        ],
    ),
    (
        "uperf",
        lambda: UperfTextParser(ops_per_iteration=2),
        FIXTURES / "uperf" / "netperf_tcp_aep.out",
        [
            "\r" * 20_000,
            " \r" * 10_000,
            "Txn2 " + "9" * 20_000,
            "timestamp_ms:" + "1" * 20_000,
            "timestamp_ms:1.0 name:" + "T" * 20_000 + " nr_bytes:1 nr_ops:1",
            "Txn2      20.33MB /" + " " * 20_000 + "2.00(s) = 1b/s",
        ],
    ),
    (
        "fio json",
        lambda: FioJsonParser(max_document_chars=150_000),
        FIXTURES / "fio" / "randread4k_qd32_j2_status1_json_stream.out",
        ["{", "  " + "x" * 100_000, "}", "x" * 100_000, "  ["],
    ),
)


def _feed(make: Callable[[], Parser], lines: list[str]) -> None:
    """Feed every line (going on after ParseError, as the unit tests do), then close."""
    parser = make()
    for line in lines:
        with contextlib.suppress(ParseError):
            parser.feed(line)
    with contextlib.suppress(ParseError):
        parser.close()


def _per_char(make: Callable[[], Parser], lines: list[str], seconds: float) -> float:
    """Seconds per character of ``lines``, fed repeatedly for about ``seconds``."""
    chars = sum(len(line) + 1 for line in lines)
    done = 0
    start = time.perf_counter()
    while True:
        _feed(make, lines)
        done += chars
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed / done


def run(quick: bool, out: Out = print) -> Verdict:
    """Per parser: hostile ÷ real time per character; the verdict is the largest ratio."""
    seconds, reps = (0.05, 5) if quick else (0.3, 7)
    out(f"{NAME}: hostile long lines vs a real capture, {reps} timings of ~{seconds} s each")
    worst, worst_case = float("nan"), ""
    for name, make, path, hostile in CASES:
        if not path.is_file():
            out(f"  {name:12} {path.name}: missing, skipped")
            continue
        real = path.read_bytes().decode("utf-8", "replace").split("\n")
        base = [_per_char(make, real, seconds) for _ in range(reps)]
        bad = [_per_char(make, hostile, seconds) for _ in range(reps)]
        ratio = median(bad) / median(base)
        if not ratio <= worst:
            worst, worst_case = ratio, name
        out(
            f"  {name:12} real {fmt(median(base) * 1e9):>6} ns/char, hostile "
            f"{fmt(median(bad) * 1e9):>6} ns/char: {fmt(ratio)}x"
        )
    return Verdict(
        NAME,
        worst,
        TARGET_RATIO,
        f"the time per character of real output ({worst_case})",
    )
