"""A long live-plot soak (~25 s) in its own process: catches PySide6 refcount aborts (DESIGN §3)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

SOAK = Path(__file__).with_name("plot_soak.py")
SECONDS = 25


def test_live_plots_survive_a_long_high_rate_stream() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run(
        [sys.executable, "-X", "faulthandler", str(SOAK), "--seconds", str(SECONDS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=SECONDS + 90,
        check=False,
    )
    assert "Fatal Python error" not in proc.stderr, proc.stderr[-4000:]
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "Traceback" not in proc.stderr, proc.stderr[-4000:]
    match = re.search(r"OK records=(\d+) actions=(\d+) replaced=(\d+) redraws=(\d+)", proc.stdout)
    assert match, proc.stdout
    records, actions, replaced, redraws = map(int, match.groups())
    # Thousands of records a second from two threads into 18 plots on screen at once: the
    # GUI thread is saturated on purpose (2 CPUs here), so only sanity floors are checked.
    assert records > 2_500 * SECONDS
    assert actions > SECONDS * 2
    assert replaced >= SECONDS // 5 - 1
    assert redraws > SECONDS * 2
