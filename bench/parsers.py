"""parsers: lines/s and samples/s of every tool's parser on real recorded outputs."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from bench.common import Out, Verdict, fmt, median
from pairbench.domain import Record
from pairbench.tools.registry import get_tool

NAME = "parsers"
REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "data" / "fixtures"  # real captures (its README says whence)
# (tool, output file): a representative real capture per tool and format.
CASES: tuple[tuple[str, Path], ...] = (
    ("iperf3", FIXTURES / "iperf3" / "tcp_t5_P2.out"),
    ("iperf3", FIXTURES / "iperf3" / "tcp_t5_P2_json.out"),
    ("uperf", FIXTURES / "uperf" / "iperf_tcp_nthr2_a_raw.out"),
    ("uperf", FIXTURES / "uperf" / "netperf_tcp_aep_i1.out"),
    ("nuttcp", FIXTURES / "nuttcp" / "udp_R100m_l1400_i1.out"),
    ("ping", FIXTURES / "ping" / "c20_s1400_i02_D.out"),
    ("iperf2", REPO / "tests" / "data" / "iperf2" / "tcp_t12_P3.out"),
    ("fio", FIXTURES / "fio" / "randread4k_qd32_j2_status1_json_stream.out"),
)
# A parser may take this many times as long per line as str.split() of the same lines (the
# baseline, measured in the same run): the slowest case's ratio is the verdict.
TARGET_RATIO = 30.0


def _split_once(lines: list[str]) -> int:
    """The baseline: str.split() of every line (reading the words of the output at all)."""
    words = 0
    for line in lines:
        words += len(line.split())
    return words


def _parse_once(tool_name: str, lines: list[str]) -> int:
    """Feed every line to a fresh live parser (as the engine does); return the samples."""
    tool = get_tool(tool_name)
    parser = tool.file_parser()
    samples = 0
    for line in lines:
        records: list[Record] = parser.feed(line)
        for record in records:
            samples += len(record.values)
    parser.close()
    return samples


def _rate(work: Callable[[], int], n_lines: int, seconds: float) -> tuple[float, float]:
    """(lines/s, results/s) of ``work`` repeated for about ``seconds``."""
    done_lines = done = 0
    start = time.perf_counter()
    while True:
        done += work()
        done_lines += n_lines
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done_lines / elapsed, done / elapsed


def measure(tool_name: str, path: Path, seconds: float, reps: int) -> tuple[float, float, float]:
    """Median lines/s and samples/s of the parser, and lines/s of the baseline, over ``reps``
    alternating timings of about ``seconds`` each."""
    lines = path.read_bytes().decode("utf-8", "replace").split("\n")
    line_rates: list[float] = []
    sample_rates: list[float] = []
    base_rates: list[float] = []
    for _ in range(reps):
        base_rates.append(_rate(lambda: _split_once(lines), len(lines), seconds)[0])
        lines_per_s, samples_per_s = _rate(
            lambda: _parse_once(tool_name, lines), len(lines), seconds
        )
        line_rates.append(lines_per_s)
        sample_rates.append(samples_per_s)
    return median(line_rates), median(sample_rates), median(base_rates)


def run(quick: bool, out: Out = print) -> Verdict:
    """Print each parser's rate and its time per line ÷ str.split()'s; the verdict is the
    largest ratio."""
    seconds, reps = (0.05, 5) if quick else (0.5, 5)
    out(f"{NAME}: real captures parsed repeatedly, {reps} timings of ~{seconds} s each")
    worst, worst_case, slowest = float("nan"), "", float("inf")
    for tool_name, path in CASES:
        if not path.is_file():
            out(f"  {tool_name:7} {path.name}: missing, skipped")
            continue
        lines_per_s, samples_per_s, base_per_s = measure(tool_name, path, seconds, reps)
        ratio = base_per_s / lines_per_s
        slowest = min(slowest, samples_per_s)
        if not ratio <= worst:  # also replaces the first NaN
            worst, worst_case = ratio, f"{tool_name} {path.name}"
        out(
            f"  {tool_name:7} {path.name:44} {fmt(lines_per_s):>8} lines/s "
            f"{fmt(samples_per_s):>8} samples/s  {fmt(ratio):>6}x str.split()"
        )
    return Verdict(
        NAME,
        worst,
        TARGET_RATIO,
        f"str.split() of the same lines ({worst_case})",
        info=f"slowest {fmt(slowest)} samples/s",
    )
