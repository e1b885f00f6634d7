"""telemetry: what sampling the hosts costs them (issue 30's targets, ratios in one run).

1. Throughput with the sampler ÷ without it, target ≥ 0.99: one iperf3 transfer on loopback,
   the sampler (1 s, as a run starts it, its start-up included) running in every other 5 s
   block; the 1 s intervals inside on blocks against those inside off blocks (whole runs
   differ by tens of % on a shared machine: one transfer cancels that). Whole ``pairbench
   run`` iperf3 runs with and without it (``PAIRBENCH_TELEMETRY=off``) are printed too.
2. The sampler's own CPU, % of one core, at a 1 s and a 0.1 s interval, beside a bare iperf3
   transfer on loopback so every counter moves: its argv as the engine builds it (ss on the
   transfer's port, ethtool -S on the interface routing off the machine when there is one,
   the disk of /tmp, iperf3's threads); the CPU of the sampler and the programs it started
   (utime + stime + cutime + cstime from /proc/PID/stat) over the steady part, after its
   start-up (ip, ethtool's probe, stat), and over its whole life with the start-up (the
   getrusage of the reaped process). Targets: ≤ 1 % at 1 s, ≤ 5 % at 0.1 s.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import resource
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.common import Out, Verdict, fmt, median, spread
from bench.overhead import AFFINITY, BenchRunError, _free_port, _iperf3, _listening, pairbench_run
from pairbench.tools.host_sampler import SamplerRequest, port_filter, sampler_argv

NAME = "telemetry"
TARGET_RATIO = 0.99
CPU_TARGETS = {1.0: 1.0, 0.1: 5.0}  # interval (s) → at most this % of one core
TICKS = os.sysconf("SC_CLK_TCK")


def _with_and_without(duration: int, pairs: int, out: Out) -> tuple[list[float], list[float]]:
    """Throughputs of runs with the sampler and without, alternating which goes first."""
    on: list[float] = []
    off: list[float] = []
    rng = random.Random(30)
    with tempfile.TemporaryDirectory(prefix="pairbench-bench-") as tmp:
        library = Path(tmp) / "telemetry.sqlite"
        for i in range(pairs):
            order = ["on", "off"] if rng.random() < 0.5 else ["off", "on"]
            got: dict[str, float] = {}
            for mode in order:
                os.environ["PAIRBENCH_TELEMETRY"] = mode
                try:
                    got[mode] = pairbench_run(duration, library)
                except (BenchRunError, subprocess.TimeoutExpired, OSError) as exc:
                    out(f"  pair {i + 1} ({mode}): FAILED: {exc}")
                finally:
                    os.environ.pop("PAIRBENCH_TELEMETRY", None)
            if len(got) == 2:
                on.append(got["on"])
                off.append(got["off"])
                out(
                    f"  pair {i + 1}: with {fmt(got['on'])} bit/s, without {fmt(got['off'])} "
                    f"bit/s, ratio {got['on'] / got['off']:.4f}"
                )
    return on, off


def _cpu_ticks(pid: int) -> int:
    """utime + stime + cutime + cstime of ``pid`` (itself and its reaped children)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15])


def _route_out() -> str:
    """An address off this machine (the default route's gateway), so the sampler reads the
    real interface and its ethtool -S; loopback when there is no default route."""
    for line in Path("/proc/net/route").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) > 2 and fields[1] == "00000000":
            gateway = int(fields[2], 16)
            return ".".join(str((gateway >> (8 * i)) & 0xFF) for i in range(4))
    return "127.0.0.1"


@contextlib.contextmanager
def _transfer(seconds: int, *, report: bool = False) -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """A bare iperf3 transfer on loopback for ``seconds`` (``-J`` when ``report``): its port and
    client process; its server is killed after."""
    port = _free_port()
    server = subprocess.Popen(
        [_iperf3(), "-s", "-1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while not _listening(port) and time.monotonic() < deadline:
        time.sleep(0.01)
    client = subprocess.Popen(
        [_iperf3(), "-c", "127.0.0.1", "-p", str(port), "-t", str(seconds)]
        + (["-J"] if report else [])
        + (["-A", AFFINITY] if AFFINITY else []),
        stdout=subprocess.PIPE if report else subprocess.DEVNULL,
        text=True,
    )
    try:
        yield port, client
    finally:
        client.kill()
        client.wait()
        server.kill()
        server.wait()


def _sampler(interval_s: float, port: int, client: subprocess.Popen[str]) -> subprocess.Popen[str]:
    """The sampler as a run starts it beside the transfer on ``port``."""
    request = SamplerRequest(
        interval_s,
        route_to=_route_out(),
        sockets=port_filter(port, port),
        proto="tcp",
        disks=("/tmp",),
        processes=(("client", client.pid),),
    )
    return subprocess.Popen(sampler_argv(request), stdout=subprocess.DEVNULL, text=True)


def sampler_cpu(interval_s: float, seconds: float) -> tuple[float, float]:
    """(% of one core over the steady part, % over its whole life with its start-up) of the
    sampler beside a loopback transfer."""
    with _transfer(int(seconds + 4)) as (port, client):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        born = time.monotonic()
        sampler = _sampler(interval_s, port, client)
        try:
            time.sleep(1.5)  # past its start-up and first samples
            start_ticks, start = _cpu_ticks(sampler.pid), time.monotonic()
            time.sleep(seconds)
            ticks, elapsed = _cpu_ticks(sampler.pid) - start_ticks, time.monotonic() - start
        finally:
            sampler.send_signal(signal.SIGINT)
            sampler.wait(timeout=10)
            lived = time.monotonic() - born
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
    whole = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return 100 * ticks / TICKS / elapsed, 100 * whole / lived


def alternating_blocks(
    block_s: float, blocks: int, interval_s: float
) -> tuple[list[float], list[float]]:
    """One bare iperf3 transfer on loopback (``-J``, 1 s intervals) while the sampler runs in
    every other block of ``block_s`` seconds (started and stopped each time: its start-up is
    counted); the intervals that lie wholly in an on block and those in an off block."""
    seconds = int(block_s * blocks) + 1
    on_blocks: list[tuple[float, float]] = []
    with _transfer(seconds, report=True) as (port, client):
        start = time.monotonic()
        for block in range(0, blocks, 2):
            begin = start + block * block_s
            time.sleep(max(begin - time.monotonic(), 0))
            sampler = _sampler(interval_s, port, client)
            time.sleep(max(begin + block_s - time.monotonic(), 0))
            sampler.send_signal(signal.SIGINT)
            sampler.wait(timeout=10)
            on_blocks.append((begin - start, begin - start + block_s))
        report, _ = client.communicate(timeout=seconds + 30)
    on: list[float] = []
    off: list[float] = []
    for interval in json.loads(report)["intervals"]:
        first, last = interval["sum"]["start"], interval["sum"]["end"]
        value = float(interval["sum"]["bits_per_second"])
        inside = [a <= first and last <= b for a, b in on_blocks]
        if any(inside):
            on.append(value)
        elif not any(a < last and first < b for a, b in on_blocks):
            off.append(value)
    return on, off


def ratio_ci(on: list[float], off: list[float], rounds: int = 2000) -> tuple[float, float]:
    """A 95 % percentile-bootstrap interval of median(on) / median(off) (fixed seed)."""
    rng = random.Random(0)
    ratios = sorted(
        median(rng.choices(on, k=len(on))) / median(rng.choices(off, k=len(off)))
        for _ in range(rounds)
    )
    return ratios[int(0.025 * rounds)], ratios[int(0.975 * rounds) - 1]


def run(quick: bool, out: Out = print) -> Verdict:
    """Measure and print; the headline is the throughput ratio, the CPU lines follow it."""
    duration, pairs, seconds, blocks = (2, 2, 5.0, 6) if quick else (3, 4, 20.0, 14)
    out(f"{NAME}: one loopback iperf3, the sampler (1 s) on in every other 5 s block")
    on, off = alternating_blocks(5.0, blocks, 1.0)
    ratio = median(on) / median(off) if on and off else float("nan")
    out(f"  intervals with the sampler     {spread(on, unit='bit/s')}")
    out(f"  intervals without (baseline)   {spread(off, unit='bit/s')}")
    notes = []
    if len(on) >= 3 and len(off) >= 3:
        low, high = ratio_ci(on, off)
        out(f"  ratio of medians 95% CI (bootstrap) {low:.3f} .. {high:.3f}")
        if low < TARGET_RATIO <= high:
            notes.append("the CI straddles the target: too noisy to decide")
    out(f"  {pairs} pairs of pairbench run with / without it (whole runs, noisier):")
    with_runs, without_runs = _with_and_without(duration, pairs, out)
    if with_runs and without_runs:
        out(f"  ratio of whole runs' medians {median(with_runs) / median(without_runs):.3f}")
    for interval, target in CPU_TARGETS.items():
        share, whole = sampler_cpu(interval, seconds)
        verdict = "PASS" if share <= target else "MISS"
        out(
            f"  sampler CPU at {interval:g} s: {share:.2f} % of one core (target <= {target:g} %)"
            f" {verdict} [{whole:.2f} % over its {seconds + 1.5:g} s life, start-up included]"
        )
        notes.append(f"sampler {share:.2f} % of a core at {interval:g} s {verdict}")
    return Verdict(
        NAME,
        ratio,
        TARGET_RATIO,
        "the throughput without it",
        higher_is_better=True,
        info=f"medians of {len(on)} and {len(off)} 1 s intervals of one transfer",
        note="; ".join(notes),
    )
