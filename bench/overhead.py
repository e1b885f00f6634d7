"""overhead: ``pairbench run`` iperf3 throughput ÷ a bare iperf3's, on loopback (ratio)."""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import Out, Verdict, fmt, median, spread

NAME = "overhead"
TARGET_RATIO = 0.99
REPO = Path(__file__).resolve().parent.parent
_LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp*


# Both sides pinned the same way (client on CPU 0, server on CPU 1) when there are two CPUs:
# loopback throughput then varies far less from run to run, for bare and pairbench alike.
AFFINITY = "0,1" if (os.cpu_count() or 1) >= 2 else ""


def _affinity_args() -> list[str]:
    return ["-A", AFFINITY] if AFFINITY else []


class BenchRunError(Exception):
    """One measurement failed; the message says which and why."""


def _pairbench_argv() -> list[str]:
    candidates = (REPO / ".venv" / "bin" / "pairbench", Path(sys.executable).parent / "pairbench")
    for candidate in candidates:
        if candidate.exists():
            return [str(candidate)]
    return [sys.executable, "-m", "pairbench"]


def _iperf3() -> str:
    return shutil.which("iperf3") or "/usr/bin/iperf3"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _listening(port: int) -> bool:
    """True once something listens on ``port`` (read from /proc: no probe connection, which
    a one-off ``iperf3 -s -1`` would take for its test)."""
    hex_port = f":{port:04X}"
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if len(fields) > 3 and fields[1].endswith(hex_port) and fields[3] == _LISTEN:
                return True
    return False


def bare_iperf3(duration: int) -> float:
    """``iperf3 -c 127.0.0.1 -t D -J`` against ``iperf3 -s -1``: end.sum_received bits/s."""
    port = _free_port()
    server = subprocess.Popen(
        [_iperf3(), "-s", "-1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10.0
        while not _listening(port):
            if server.poll() is not None or time.monotonic() > deadline:
                raise BenchRunError(f"bare iperf3 server on port {port} did not start")
            time.sleep(0.01)
        client = subprocess.run(
            [
                _iperf3(),
                "-c",
                "127.0.0.1",
                "-p",
                str(port),
                "-t",
                str(duration),
                "-J",
                *_affinity_args(),
            ],
            capture_output=True,
            text=True,
            timeout=duration + 30,
            check=False,
        )
        try:
            report = json.loads(client.stdout)
        except json.JSONDecodeError as exc:
            raise BenchRunError(f"bare iperf3 client: no JSON ({client.stderr.strip()})") from exc
        if "error" in report:
            raise BenchRunError(f"bare iperf3 client: {report['error']}")
        return float(report["end"]["sum_received"]["bits_per_second"])
    finally:
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def pairbench_run(duration: int, library: Path) -> float:
    """``pairbench run --pair local --tool iperf3 --set duration=D --json``: summary bits/s."""
    argv = [
        *_pairbench_argv(),
        "--library",
        str(library),
        "run",
        "--pair",
        "local",
        "--tool",
        "iperf3",
        "--set",
        f"duration={duration}",
        *(["--set", f"affinity={AFFINITY}"] if AFFINITY else []),
        "--json",
    ]
    proc = subprocess.run(
        argv, capture_output=True, text=True, timeout=duration + 60, check=False, cwd=REPO
    )
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    try:
        result = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError) as exc:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        raise BenchRunError(f"pairbench run exited {proc.returncode}: {tail[0]}") from exc
    if result.get("status") != "completed" or "throughput_bps" not in result.get("summary", {}):
        raise BenchRunError(f"pairbench run: {result}")
    return float(result["summary"]["throughput_bps"])


def bootstrap_median_ci(values: list[float], rounds: int = 2000) -> tuple[float, float]:
    """A 95% percentile-bootstrap interval for the median of ``values`` (fixed seed)."""
    rng = random.Random(0)
    medians = sorted(median(rng.choices(values, k=len(values))) for _ in range(rounds))
    return medians[int(0.025 * rounds)], medians[int(0.975 * rounds) - 1]


def run(quick: bool, out: Out = print) -> Verdict:
    """Measure and print; return the headline verdict (median of per-pair ratios)."""
    duration, pairs = (2, 5) if quick else (5, 7)
    out(
        f"{NAME}: loopback, {pairs} pairs of bare iperf3 (-J) and pairbench run "
        f"(duration={duration}), alternating which goes first"
    )
    ratios: list[float] = []
    bare_rates: list[float] = []
    pb_rates: list[float] = []
    errors: list[str] = []
    with tempfile.TemporaryDirectory(prefix="pairbench-bench-") as tmp:
        library = Path(tmp) / "overhead.sqlite"
        for i in range(pairs):
            try:
                if i % 2 == 0:
                    bare = bare_iperf3(duration)
                    pb = pairbench_run(duration, library)
                else:
                    pb = pairbench_run(duration, library)
                    bare = bare_iperf3(duration)
            except (BenchRunError, subprocess.TimeoutExpired, OSError) as exc:
                errors.append(str(exc))
                out(f"  pair {i + 1}: FAILED: {exc}")
                continue
            bare_rates.append(bare)
            pb_rates.append(pb)
            ratios.append(pb / bare)
            out(
                f"  pair {i + 1}: bare {fmt(bare)} bit/s, pairbench {fmt(pb)} bit/s, "
                f"ratio {pb / bare:.4f}"
            )
    out(f"  baseline: bare iperf3        {spread(bare_rates, unit='bit/s')}")
    out(f"  pairbench run                {spread(pb_rates, unit='bit/s')}")
    out(f"  ratio pairbench / bare       {spread(ratios)}")
    notes = [f"{len(errors)} of {pairs} pairs failed"] if errors else []
    if len(ratios) >= 3:
        low, high = bootstrap_median_ci(ratios)
        out(
            f"  median ratio 95% CI (bootstrap) {low:.3f} .. {high:.3f}; ratio of medians "
            f"{median(pb_rates) / median(bare_rates):.3f}"
        )
        if low < TARGET_RATIO <= high:
            notes.append("the CI straddles the target: too noisy to decide")
    out(
        "  note: pairbench's figure is iperf3's text summary (3 significant digits, up to "
        "±0.5% rounding); loopback throughput varies by several % from run to run"
    )
    note = "; ".join(notes)
    return Verdict(
        NAME,
        median(ratios),
        TARGET_RATIO,
        "a bare iperf3 -c (throughput, each pair run back to back)",
        higher_is_better=True,
        info=f"pairbench {fmt(median(pb_rates))} bit/s" if pb_rates else "",
        note=note,
    )
