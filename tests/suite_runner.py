"""``make test`` and ``make check``: the checks and the test suite in parts that overlap, each
part's output printed whole, the total time and the slowest tests at the end.

``make test`` (what CI runs: ``.ci/run``):

1. at once: *lint* (ruff, ruff format --check, mypy, lint-imports), *bundle* (the desktop
   bundle built into ``dist/``, unless ``PAIRBENCH_BUNDLE`` names one) and *tests* (every
   test not marked ``serial`` or ``bundle``, on ``PAIRBENCH_TEST_WORKERS`` pytest-xdist
   workers, each with its own lab instance, host locks and folders: ``tests/README.md``);
2. then alone: *serial tests* (marked ``serial``: they measure CPU-sensitive figures or look
   at the whole machine) and the bundle's smoke tests (marked ``bundle``), on one worker.

``make check`` (the quick loop): *lint* and the unit and window tests (``tests/unit``,
``tests/ui``, none marked ``serial``) at once.

The command fails when any part fails; a part's output is printed when it ends (the test
parts' progress as it goes). Run it with the venv's python: ``python tests/suite_runner.py
test|check``. ``PAIRBENCH_SUITE_LOGS=FOLDER`` keeps each part's log and its tests' times
(JUnit XML: ``tests.xml``, ``serial.xml``) in FOLDER instead of a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
WORKERS_ENV = "PAIRBENCH_TEST_WORKERS"
DEFAULT_WORKERS = 4
# make check: the window tests that wait longest on real tools (fio suites, tool builds, a
# soak), handed out first so that they overlap the unit tests instead of ending the run.
CHECK_FIRST = (
    "test_storage_panel.py",
    "test_storage_report_render.py",
    "test_tool_install_ui.py",
    "test_run_panel.py",
    "test_plotting_soak.py",
)
BUNDLE_ENV = "PAIRBENCH_BUNDLE"
LOGS_ENV = "PAIRBENCH_SUITE_LOGS"  # a folder that keeps each part's log and test times
SLOWEST = 25
# --dist loadfile: a file's tests run on one worker, so a module-scoped fixture (a steady
# suite, a multi-pair lab, a database) is made once. (loadgroup's marks are ignored with
# pytest 9.2: pytest-xdist 3.8 renames test ids through an attribute pytest no longer reads.)
# --no-loadscope-reorder: files are handed out in the order given (the slow lab and fault
# files first), not by their number of tests (which would leave the few long ones to the end).
PYTEST = [
    *(str(BIN / "pytest"), "-q", "-p", "no:cacheprovider"),
    *("--dist", "loadfile", "--no-loadscope-reorder"),
]
LINT = [
    [str(BIN / "ruff"), "check", "app", "tests", "bench"],
    [str(BIN / "ruff"), "format", "--check", "app", "tests", "bench"],
    [str(BIN / "mypy")],
    [str(BIN / "lint-imports")],
]


@dataclass
class Part:
    """One part of the run: its commands (run one after the other, stopping at a failure)."""

    name: str
    commands: list[list[str]]
    env: dict[str, str] = field(default_factory=dict)
    live: bool = False  # output straight to the terminal, else kept and printed at the end
    junit: Path | None = None  # where its pytest writes the test times
    returncode: int | None = None
    seconds: float = 0.0
    output: str = ""

    @property
    def passed(self) -> bool:
        """True when every command exited 0."""
        return self.returncode == 0


def run_part(part: Part, log_dir: Path) -> None:
    """Run the part's commands in the repository (blocking); fills in its outcome."""
    started = time.monotonic()
    env = {**os.environ, **part.env}
    log = log_dir / f"{part.name.replace(' ', '-')}.log"
    with log.open("w") as out:
        for argv in part.commands:
            if not part.live:
                out.write(f"$ {' '.join(argv)}\n")
                out.flush()
            sink = None if part.live else out
            try:
                status = subprocess.run(
                    argv, cwd=REPO, env=env, stdout=sink, stderr=subprocess.STDOUT if sink else None
                ).returncode
            except OSError as exc:
                out.write(f"cannot run {argv[0]}: {exc}\n")
                status = 127
            part.returncode = status
            if status != 0:
                break
    part.seconds = time.monotonic() - started
    part.output = log.read_text(errors="replace")


def start(part: Part, log_dir: Path) -> threading.Thread:
    """``run_part`` in a thread of its own."""
    thread = threading.Thread(target=run_part, args=(part, log_dir), name=part.name)
    thread.start()
    return thread


def workers() -> str:
    """How many pytest-xdist workers (``PAIRBENCH_TEST_WORKERS``, default 4 on the 2 cores:
    most lab and fault tests wait on timers, shaped links and real tools rather than the CPU,
    as do ``make check``'s few long files on real fio suites and tool builds; the whole
    ``make test`` used about one core on average with 3 workers)."""
    value = os.environ.get(WORKERS_ENV, "").strip() or str(DEFAULT_WORKERS)
    if not value.isdigit() or int(value) < 1:
        raise SystemExit(f"{WORKERS_ENV} must be a whole number of at least 1, got {value!r}")
    return value


def test_folders() -> list[str]:
    """Every folder of tests/ that holds tests, the slowest kinds first: the lab and fault
    files take longest, the unit files are many and short (tests/bundle's spec checks are
    quick)."""
    first = ["integration", "faults", "ui", "unit", "bundle"]
    tests = REPO / "tests"
    found = {p.relative_to(tests).parts[0] for p in tests.glob("*/**/test_*.py")} - {"data"}
    ordered = [name for name in first if name in found] + sorted(found - set(first))
    return [f"tests/{name}" for name in ordered]


def lint_part() -> Part:
    """ruff, ruff format, mypy and the import contracts."""
    return Part("lint", LINT)


def tests_part(name: str, junit: Path, *args: str) -> Part:
    """A pytest run shown live, its times kept in ``junit``."""
    argv = [*PYTEST, f"--junitxml={junit}", "-o", "junit_family=xunit2", *args]
    return Part(name, [argv], live=True, junit=junit)


def slowest(parts: list[Part], count: int = SLOWEST) -> list[tuple[float, str]]:
    """The ``count`` slowest tests of the parts' pytest runs: (seconds, test id)."""
    times: list[tuple[float, str]] = []
    for part in parts:
        if part.junit is None or not part.junit.exists():
            continue
        try:
            root = ET.parse(part.junit).getroot()
        except ET.ParseError:
            continue
        for case in root.iter("testcase"):
            name = f"{case.get('classname', '')}::{case.get('name', '')}"
            times.append((float(case.get("time") or 0.0), name))
    return sorted(times, reverse=True)[:count]


def report(parts: list[Part], started: float) -> int:
    """Print each kept output, the parts' outcomes, the slowest tests and the total time; the
    exit status (0 when every part passed)."""
    for part in parts:
        if not part.live and part.output:
            print(f"\n===== {part.name}: output =====", flush=True)
            print(part.output.rstrip(), flush=True)
    print("\n===== parts =====")
    for part in parts:
        state = "passed" if part.passed else f"FAILED (exit status {part.returncode})"
        print(f"{part.name:<14} {state:<28} {part.seconds:7.1f} s")
    times = slowest(parts)
    if times:
        print(f"\n===== {len(times)} slowest tests (setup + call + teardown) =====")
        for seconds, name in times:
            print(f"{seconds:8.2f} s  {name}")
    total = time.monotonic() - started
    failed = [part.name for part in parts if not part.passed]
    verdict = f"FAILED: {', '.join(failed)}" if failed else "all parts passed"
    minutes, seconds = divmod(round(total), 60)
    print(f"\ntotal time {minutes} min {seconds:02d} s ({total:.0f} s): {verdict}")
    return 1 if failed else 0


def check(log_dir: Path) -> int:
    """``make check``: lint and the unit and window tests, at once."""
    started = time.monotonic()
    lint = lint_part()
    first = [f"tests/ui/{name}" for name in CHECK_FIRST if (REPO / "tests" / "ui" / name).exists()]
    tests = tests_part(
        "tests",
        log_dir / "tests.xml",
        # The files that wait on real tools first, then the rest of tests/ui and tests/unit
        # (pytest collects a file named twice once): they start early rather than trail.
        *("-n", workers(), "-m", "not serial", *first, "tests/ui", "tests/unit"),
    )
    threads = [start(lint, log_dir)]
    run_part(tests, log_dir)
    for thread in threads:
        thread.join()
    return report([lint, tests], started)


def test(log_dir: Path) -> int:
    """``make test``: see the module docstring."""
    started = time.monotonic()
    lint = lint_part()
    given = os.environ.get(BUNDLE_ENV)
    bundle_dir = Path(given) if given else REPO / "dist" / "pairbench"
    parts = [lint]
    threads = [start(lint, log_dir)]
    bundle: Part | None = None
    if not given:
        build = [str(REPO / "packaging" / "build-bundle.sh"), "dist"]
        bundle = Part("bundle", [build], env={"PYTHON": sys.executable})
        parts.append(bundle)
        threads.append(start(bundle, log_dir))
    parallel = tests_part(
        "tests",
        log_dir / "tests.xml",
        *("-n", workers(), "-m", "not serial and not bundle", *test_folders()),
    )
    parts.append(parallel)
    run_part(parallel, log_dir)
    for thread in threads[1:]:
        thread.join()  # the bundle, for its smoke tests
    print(f"\n----- the serial tests and the bundle's smoke tests ({bundle_dir}) -----", flush=True)
    alone = tests_part(
        "serial tests", log_dir / "serial.xml", *("-n", "1", "-m", "serial or bundle", "tests")
    )
    alone.env[BUNDLE_ENV] = str(bundle_dir)
    parts.append(alone)
    run_part(alone, log_dir)
    threads[0].join()
    return report(parts, started)


def write_bytecode() -> None:
    """Let every process of the run keep the bytecode it compiles (``__pycache__``, ignored by
    git), whatever the environment says: with ``PYTHONDONTWRITEBYTECODE=1`` each test
    process and each ``pairbench`` command a test starts compiled every module it imported,
    and each worker rewrote every test file's asserts (about 9 s a worker, 0.2 s a command).
    The app is compiled once here, before the workers start."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    compile_app = [sys.executable, "-m", "compileall", "-q", "-j", "0", str(REPO / "app")]
    subprocess.run(compile_app, cwd=REPO, stdout=subprocess.DEVNULL, check=False)


def main(argv: list[str] | None = None) -> int:
    """Run ``check`` or ``test``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("check", "test"))
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    write_bytecode()
    kept = os.environ.get(LOGS_ENV, "").strip()
    if kept:  # the parts' logs and test times (JUnit XML) kept there, for a later look
        folder = Path(kept).expanduser().resolve()
        folder.mkdir(parents=True, exist_ok=True)
        return check(folder) if args.what == "check" else test(folder)
    with tempfile.TemporaryDirectory(prefix="pairbench-suite-") as temporary:
        return check(Path(temporary)) if args.what == "check" else test(Path(temporary))


if __name__ == "__main__":
    sys.exit(main())
