"""parsers: lines/s and samples/s of every tool's parser on real recorded outputs."""

from __future__ import annotations

import time
from pathlib import Path

from bench.common import Out, Verdict, fmt, median
from pairbench.domain import Record
from pairbench.tools.registry import get_tool

NAME = "parsers"
REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO.parent / "shared" / "fixtures"
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
# The live target: well above what any tool prints (about one line per stream per second).
TARGET_SAMPLES_PER_S = 10_000.0


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


def measure(tool_name: str, path: Path, seconds: float, reps: int) -> tuple[float, float]:
    """Median lines/s and samples/s over ``reps`` timings of about ``seconds`` each."""
    lines = path.read_bytes().decode("utf-8", "replace").split("\n")
    line_rates: list[float] = []
    sample_rates: list[float] = []
    for _ in range(reps):
        done_lines = done_samples = 0
        start = time.perf_counter()
        while True:
            done_samples += _parse_once(tool_name, lines)
            done_lines += len(lines)
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        line_rates.append(done_lines / elapsed)
        sample_rates.append(done_samples / elapsed)
    return median(line_rates), median(sample_rates)


def run(quick: bool, out: Out = print) -> Verdict:
    """Print each parser's rate; the verdict is the slowest samples/s."""
    seconds, reps = (0.1, 3) if quick else (0.5, 5)
    out(f"{NAME}: real captures parsed repeatedly, {reps} timings of ~{seconds} s each")
    slowest = float("inf")
    for tool_name, path in CASES:
        if not path.is_file():
            out(f"  {tool_name:7} {path.name}: missing, skipped")
            continue
        lines_per_s, samples_per_s = measure(tool_name, path, seconds, reps)
        slowest = min(slowest, samples_per_s)
        out(
            f"  {tool_name:7} {path.name:44} {fmt(lines_per_s):>8} lines/s "
            f"{fmt(samples_per_s):>8} samples/s"
        )
    return Verdict(NAME + " (slowest)", slowest, "samples/s", TARGET_SAMPLES_PER_S)
