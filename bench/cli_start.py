"""cli_start: ``pairbench --version`` (the console script) vs ``python -c pass``, medians.

Both are fresh interpreters started the same way, alternately, so load on the machine weighs
on both alike; what ``--version`` costs beyond the interpreter is the imports of the entry
point and its parser (every command module is imported only when its command runs). The
package is compiled to bytecode first, as an installed one is.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench.common import Out, Verdict, fmt, median, spread

NAME = "cli_start"
# `pairbench --version` may take this many times as long as `python -c pass`.
TARGET_RATIO = 8.0


def time_process(argv: Sequence[str], env: dict[str, str] | None = None) -> float:
    """Seconds from starting ``argv`` to its exit (output discarded; it must exit 0)."""
    start = time.perf_counter()
    subprocess.run(list(argv), stdout=subprocess.DEVNULL, check=True, env=env)
    return time.perf_counter() - start


def alternate(
    measured: Sequence[str], baseline: Sequence[str], repeats: int
) -> tuple[list[float], list[float]]:
    """Time both commands ``repeats`` times each, one after the other (after one warm-up)."""
    time_process(measured)
    time_process(baseline)
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(repeats):
        ours.append(time_process(measured))
        theirs.append(time_process(baseline))
    return ours, theirs


def compile_pairbench() -> None:
    """Compile pairbench's modules to bytecode, as installing it does. With
    PYTHONDONTWRITEBYTECODE set (a development shell), a module edited since it was last
    compiled would otherwise be compiled again by every timed start."""
    import compileall

    import pairbench

    compileall.compile_dir(Path(pairbench.__file__).parent, quiet=2)


def console_script() -> list[str]:
    """The ``pairbench`` script next to this Python, else ``python -m pairbench``."""
    script = Path(sys.executable).with_name("pairbench")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "pairbench"]


def run(quick: bool, out: Out) -> Verdict:
    repeats = 5 if quick else 15
    compile_pairbench()
    script = console_script()
    versions, passes = alternate([*script, "--version"], [sys.executable, "-c", "pass"], repeats)
    modules, _ = alternate(
        [sys.executable, "-m", "pairbench", "--version"], [sys.executable, "-c", "pass"], 3
    )
    ratio = median(versions) / median(passes)
    out(f"  python -c pass (baseline): {spread(passes, 1e3, 'ms')}")
    out(f"  {' '.join(Path(a).name for a in script)} --version: {spread(versions, 1e3, 'ms')}")
    out(f"  python -m pairbench --version: {spread(modules, 1e3, 'ms')}")
    return Verdict(
        NAME,
        ratio,
        TARGET_RATIO,
        "python -c pass",
        info=f"--version {fmt(median(versions) * 1e3)} ms, pass {fmt(median(passes) * 1e3)} ms",
    )
