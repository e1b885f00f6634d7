"""bundle_start: seconds from launching the bundle to its main window shown (cold page cache).

Each launch runs ``pairbench --library LIB`` offscreen with ``PAIRBENCH_REPORT_STARTUP=1``;
the app prints ``time.monotonic()`` once the window is first exposed and painted
(``pairbench.ui.desktop``), and the launch time is subtracted from it (CLOCK_MONOTONIC is one
clock for all processes). The window is then closed with SIGTERM, which must end it (exit 0).

Headline: launches with a cold page cache (``/proc/sys/vm/drop_caches`` written before each;
needs root), as after a reboot. Without root it falls back to warm launches and says so.
Also shown: warm launches, and the baseline: the same app from the venv's Python.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from bench.bundle_build import get_bundle
from bench.common import Out, Verdict, fmt, median, ratio, spread

NAME = "bundle_start"
# A launch of the bundle may take this many times as long as the same app launched from the
# venv's Python with a warm page cache (the baseline, measured in the same run).
TARGET_RATIO = 2.0
MARKER = "pairbench-startup:"
LAUNCH_TIMEOUT_S = 60.0
DROP_CACHES = Path("/proc/sys/vm/drop_caches")


class LaunchError(Exception):
    """A launch did not show its window, or did not end on SIGTERM."""


def time_to_window(argv: Sequence[str], env: dict[str, str]) -> float:
    """Seconds from starting ``argv`` to its window-shown marker; the process is then ended."""
    start = time.monotonic()
    proc = subprocess.Popen(
        list(argv), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    shown: queue.Queue[float] = queue.Queue()
    reader = threading.Thread(target=_read_marker, args=(proc, shown), daemon=True)
    reader.start()
    try:
        try:
            at = shown.get(timeout=LAUNCH_TIMEOUT_S)
        except queue.Empty:
            raise LaunchError(
                f"no '{MARKER}' line from {argv[0]} within {LAUNCH_TIMEOUT_S:.0f} s "
                f"(exit {proc.poll()})"
            ) from None
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(timeout=5)
    if code != 0:
        raise LaunchError(f"{argv[0]} exited {code} on SIGTERM")
    return at - start


def _read_marker(proc: subprocess.Popen[str], shown: queue.Queue[float]) -> None:
    """Put the marker's time into ``shown``; keep draining stderr until it closes."""
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.startswith(MARKER):
            shown.put(float(line.split("monotonic=")[1].split()[0]))


def can_drop_caches() -> bool:
    """True when this process may write /proc/sys/vm/drop_caches (root)."""
    return os.geteuid() == 0 and os.access(DROP_CACHES, os.W_OK)


def drop_caches() -> None:
    """Flush dirty pages, then drop the page cache, dentries and inodes."""
    os.sync()
    DROP_CACHES.write_text("3\n")


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    env["PAIRBENCH_REPORT_STARTUP"] = "1"
    env["PAIRBENCH_SETTINGS"] = str(tmp / "settings.ini")
    env.pop("PAIRBENCH_LIBRARY", None)
    return env


def run(quick: bool, out: Out = print) -> Verdict:
    """Measure and print; return the headline verdict (cold launches when possible)."""
    bundle = get_bundle(out)
    reps = 5 if quick else 9
    cold_ok = can_drop_caches()
    with tempfile.TemporaryDirectory(prefix="pairbench-bench-start-") as tmp_name:
        tmp = Path(tmp_name)
        env = _env(tmp)
        library = ["--library", str(tmp / "library.sqlite")]
        bundled = [str(bundle.executable), *library]
        from_venv = [sys.executable, "-m", "pairbench", *library]
        out(
            f"{NAME}: launch to main window shown ({env['QT_QPA_PLATFORM']}), "
            f"{reps} launches each, page cache {'dropped' if cold_ok else 'NOT dropped (not root)'}"
            " before each cold launch"
        )
        first = time_to_window(bundled, env)  # also creates the library
        warm = [time_to_window(bundled, env) for _ in range(reps)]
        venv = [time_to_window(from_venv, env) for _ in range(reps)]
        cold: list[float] = []
        if cold_ok:
            for _ in range(reps):
                drop_caches()
                cold.append(time_to_window(bundled, env))
    out(f"  info: first launch after the build      {first:.3f} s")
    out(f"  baseline: venv Python, warm              {spread(venv, 1.0, 's')}")
    out(f"  bundle, warm page cache                  {spread(warm, 1.0, 's')}")
    if cold:
        out(f"  bundle, cold page cache                  {spread(cold, 1.0, 's')}")
        out(f"  ratio bundle cold / venv warm: {median(cold) / median(venv):.2f}x; "
            f"bundle warm / venv warm: {median(warm) / median(venv):.2f}x")  # fmt: skip
        return Verdict(NAME, ratio(cold, venv), TARGET_RATIO, "the venv's launch, warm",
                       info=f"cold launch {fmt(median(cold))} s",
                       note="cold page cache")  # fmt: skip
    out(f"  ratio bundle warm / venv warm: {median(warm) / median(venv):.2f}x")
    return Verdict(
        NAME, ratio(warm, venv), TARGET_RATIO, "the venv's launch, warm",
        info=f"warm launch {fmt(median(warm))} s",
        note="warm page cache only: run as root for cold launches",
    )  # fmt: skip
