"""kill_loss: what a SIGKILLed ``pairbench run`` loses of what it had received (20 kills).

Each trial runs iperf3 on ``local`` (1 s intervals), reads the live interval lines that the
run prints as it records them, SIGKILLs it at a random moment 1.5–4.5 s in, and then counts
how many of the printed intervals the library holds. An interval printed but not stored is
lost; its "age" is how long before the kill it arrived. The figure is the age of the oldest
lost interval (0 when none was lost): the window of received data a kill can lose. The
verdict compares its maximum over the trials with the figure docs/guide/library.md documents.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import Out, Verdict, fmt, median
from pairbench.library import Library
from pairbench.library.recorder import FLUSH_INTERVAL_S
from pairbench.library.runs import list_runs
from pairbench.library.series import load_series

NAME = "kill_loss"
DOCUMENTED_S = 0.5  # docs/guide/library.md: "a killed Pairbench loses at most the last 0.5 s"
# The window lost may be this many of the recorder's flush periods (the baseline: a run commits
# what it received every FLUSH_INTERVAL_S): 0.5 s documented ÷ 0.2 s.
TARGET_RATIO = DOCUMENTED_S / FLUSH_INTERVAL_S
TRIALS = 20
INTERVAL_PREFIX = " s "


def _trial(library: Path, rng: random.Random) -> tuple[int, int, float]:
    """(intervals printed, intervals stored, age of the oldest lost one in seconds).

    The kill lands ``offset`` (uniform in [0, 1) s, an interval's length) after the arrival
    of the 2nd, 3rd or 4th printed interval, so every moment of the flush cycle is tried.
    """
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "pairbench", "--library", str(library)),
            *("run", "--pair", "local", "--tool", "iperf3", "--set", "duration=30"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    printed: list[float] = []  # arrival time of each printed interval line
    target, offset = rng.choice((2, 3, 4)), rng.uniform(0.0, 1.0)
    killed_at = time.monotonic()
    while True:
        line = proc.stdout.readline()
        if not line:
            break
        if line.lstrip()[:1].isdigit() and INTERVAL_PREFIX in line:
            printed.append(time.monotonic())
            if len(printed) == target:
                time.sleep(offset)
                killed_at = time.monotonic()
                os.kill(proc.pid, signal.SIGKILL)
                break
    proc.wait(10)
    proc.stdout.close()
    with Library.open(library) as lib:
        run = list_runs(lib)[0]
        stored = next(
            (
                len(s.t)
                for s in load_series(lib, run.id)
                if s.stream == "sum" and s.metric == "throughput_bps"
            ),
            0,
        )
    lost = printed[stored:]
    age = killed_at - lost[0] if lost else 0.0
    return len(printed), stored, age


def run(quick: bool, out: Out) -> Verdict:
    trials = 5 if quick else TRIALS
    rng = random.Random(20261124)
    ages: list[float] = []
    lost_counts: list[int] = []
    with tempfile.TemporaryDirectory(prefix="pb-bench-kill-") as tmp:
        library = Path(tmp) / "library.sqlite"
        Library.open(library).close()
        for _ in range(trials):
            printed, stored, age = _trial(library, rng)
            ages.append(age)
            lost_counts.append(max(0, printed - stored))
            time.sleep(0.5)  # the killed run's tools end (watchdog) before the next starts
    out(f"  intervals printed but not stored per kill: {lost_counts}")
    out(
        f"  received-data window lost per kill: median {fmt(median(ages))} s, "
        f"max {fmt(max(ages))} s (n={trials})"
    )
    return Verdict(
        NAME,
        max(ages) / FLUSH_INTERVAL_S,
        TARGET_RATIO,
        f"the flush period ({fmt(FLUSH_INTERVAL_S)} s), worst of {trials} kills",
        info=f"lost window max {fmt(max(ages))} s, median {fmt(median(ages))} s",
    )
