"""Smoke test of the PyInstaller bundle: the window, the CLI, a real run, a chart.

Everything runs the bundled ``pairbench`` unpacked from the tarball, in a minimal environment
(no venv, PYTHONPATH/PYTHONHOME pointing nowhere); the results are checked with this checkout's
own code (the library opened by the venv's ``pairbench.library``).
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from bundle_kit import BundleUnderTest

from pairbench import __version__
from pairbench.domain import RunStatus
from pairbench.library import Library
from pairbench.library.runs import get_run
from pairbench.library.series import load_series
from testkit import REPO, require, require_program

# make test runs these once the bundle is built (tests/suite_runner.py).
pytestmark = pytest.mark.bundle

MARKER = "pairbench-startup:"
ICON_SIZES = {16, 24, 32, 48, 64, 128, 256, 512}


@contextmanager
def window(
    bundle: BundleUnderTest, home: Path, **env: str
) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """Start the workbench; yield (process, marker line) once its window is shown; then end it
    with SIGTERM, which must close it cleanly (exit 0)."""
    proc = subprocess.Popen(
        [str(bundle.executable), "--library", str(home / "library.sqlite")],
        env=bundle.env(home, PAIRBENCH_REPORT_STARTUP="1", **env),
        cwd=home,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    stderr: list[str] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            stderr.append(line)
            if line.startswith(MARKER):
                lines.put(line.strip())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        try:
            marker = lines.get(timeout=60)
        except queue.Empty:
            pytest.fail(f"no window within 60 s (exit {proc.poll()}):\n{''.join(stderr)}")
        yield proc, marker
        assert proc.poll() is None, f"the window died (exit {proc.returncode}):\n{''.join(stderr)}"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0, "".join(stderr)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(timeout=5)


def _icon_sizes(marker: str) -> set[int]:
    found = re.search(r"icon-sizes=([\d,]+)", marker)
    return {int(s) for s in found.group(1).split(",")} if found else set()


def _mapped_files(pid: int) -> set[str]:
    return {
        line.split(maxsplit=5)[5]
        for line in Path(f"/proc/{pid}/maps").read_text().splitlines()
        if len(line.split(maxsplit=5)) == 6
    }


def test_version(bundle: BundleUnderTest, home: Path) -> None:
    done = bundle.run("--version", home=home)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"pairbench {__version__}"


def test_window_offscreen_stays_up_and_ends_on_sigterm(bundle: BundleUnderTest, home: Path) -> None:
    with window(bundle, home, QT_QPA_PLATFORM="offscreen") as (proc, marker):
        assert _icon_sizes(marker) == ICON_SIZES, marker  # the icons came from the bundle
        guide = Path(marker.split(" guide=", 1)[1])  # Help ▸ User guide's pages: the bundle's
        assert bundle.directory in guide.parents and (guide / "index.md").is_file(), marker
        assert (guide.parent / "images" / "run-live.png").is_file()  # the pages' pictures
        time.sleep(3)
        assert proc.poll() is None
        mapped = _mapped_files(proc.pid)
        inside = str(bundle.directory) + os.sep
        outside = [p for p in mapped if p.startswith(str(REPO)) and not p.startswith(inside)]
        assert not outside, f"the bundle loaded files from the source tree: {outside[:5]}"
        assert any("libQt6Gui" in p and p.startswith(str(bundle.directory)) for p in mapped)
    assert (home / "library.sqlite").is_file()


def _free_display() -> int:
    for number in range(90, 200):
        if (
            not Path(f"/tmp/.X11-unix/X{number}").exists()
            and not Path(f"/tmp/.X{number}-lock").exists()
        ):
            return number
    raise RuntimeError("no free X display number")


@contextmanager
def xvfb() -> Iterator[str]:
    """A private Xvfb; yields its DISPLAY."""
    server = require_program("Xvfb")
    display = f":{_free_display()}"
    proc = subprocess.Popen(
        [server, display, "-screen", "0", "1600x1000x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        socket = Path(f"/tmp/.X11-unix/X{display[1:]}")
        deadline = time.monotonic() + 15
        while not socket.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert socket.exists(), "Xvfb did not start"
        yield display
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _pairbench_x_window(display: str) -> str:
    """The id of the window whose WM_CLASS is ("pairbench", "Pairbench")."""
    tree = subprocess.run(
        ["xwininfo", "-root", "-tree", "-display", display],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in tree.splitlines():
        if '("pairbench" "Pairbench")' in line and "Pairbench —" in line:
            return line.split()[0]
    raise AssertionError(f"no Pairbench window on {display}:\n{tree}")


def test_window_on_x11_shows_the_icon(bundle: BundleUnderTest, home: Path) -> None:
    """The real xcb platform plugin and its bundled libraries; the icon reaches the WM."""
    require_program("xwininfo")
    require_program("xprop")
    with xvfb() as display, window(bundle, home, DISPLAY=display, QT_QPA_PLATFORM="xcb"):
        window_id = _pairbench_x_window(display)
        props = subprocess.run(
            ["xprop", "-display", display, "-id", window_id, "-notype", "_NET_WM_ICON"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        sizes = {int(w) for w, h in re.findall(r"Icon \((\d+) x (\d+)\)", props) if w == h}
        # Qt puts a selection of the icon's sizes on the window (here 16, 24 and 128).
        assert 16 in sizes, props[:300]


@pytest.fixture(scope="module")
def library_with_runs(
    bundle: BundleUnderTest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, Path, list[dict[str, object]]]:
    """(home, library, results): two local iperf3 runs made by the bundle (3 s and 1 s)."""
    require_program("iperf3")
    home = tmp_path_factory.mktemp("bundle-runs")
    library = home / "library.sqlite"
    results = []
    for duration in (3, 1):
        done = bundle.run(
            *("--library", str(library), "run", "--pair", "local", "--tool", "iperf3"),
            *("--set", f"duration={duration}", "--json"),
            home=home,
        )
        assert done.returncode == 0, done.stderr
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return home, library, results


def test_local_iperf3_run_is_stored(
    library_with_runs: tuple[Path, Path, list[dict[str, object]]],
) -> None:
    _home, library, results = library_with_runs
    first = results[0]
    assert first["status"] == "completed"
    with Library.open(library) as lib:
        run = get_run(lib, int(str(first["id"])))
        series = {(s.stream, s.metric): s for s in load_series(lib, run.id)}
    assert run.status is RunStatus.COMPLETED
    assert run.spec.tool == "iperf3" and run.spec.pair == "local"
    assert run.spec.params["duration"] == "3"
    assert run.tool_version.startswith("iperf")
    assert run.summary["throughput_bps"] > 1e6
    throughput = series[("sum", "throughput_bps")]
    assert len(throughput.t) >= 3 and (throughput.v > 0).all()


@pytest.mark.parametrize("suffix", ["png", "svg", "pdf"])
def test_compare_exports_a_chart_headless(
    bundle: BundleUnderTest,
    library_with_runs: tuple[Path, Path, list[dict[str, object]]],
    suffix: str,
) -> None:
    """No DISPLAY, no QT_QPA_PLATFORM: the chart is drawn headless by the bundled Qt."""
    home, library, results = library_with_runs
    chart = home / f"chart.{suffix}"
    ids = [str(r["id"]) for r in results]
    done = bundle.run("--library", str(library), "compare", *ids, "--chart", str(chart), home=home)
    assert done.returncode == 0, done.stderr
    data = chart.read_bytes()
    signature = {"png": b"\x89PNG\r\n\x1a\n", "svg": b"<?xml", "pdf": b"%PDF-"}[suffix]
    assert data.startswith(signature) and len(data) > 5_000
    if suffix == "png":
        out = REPO / "test-output"
        out.mkdir(exist_ok=True)
        shutil.copy(chart, out / "bundle_compare_chart.png")


def test_bundled_modules_run_with_dash_m(bundle: BundleUnderTest, home: Path) -> None:
    """``sys.executable -m pairbench.lab.delayline`` (how the lab starts it) works in the bundle."""
    done = bundle.run("-m", "pairbench.lab.delayline", "--help", home=home)
    assert done.returncode == 0, done.stderr
    assert "--delay-us" in done.stdout


def test_desktop_entry_installs_for_the_user(bundle: BundleUnderTest, home: Path) -> None:
    require(shutil.which("sed") is not None, "sed is missing")
    script = bundle.directory / "install-desktop-entry.sh"
    data = home / "share"
    env = {**bundle.env(home), "XDG_DATA_HOME": str(data)}
    subprocess.run([str(script)], env=env, check=True, capture_output=True)
    entry = (data / "applications" / "pairbench.desktop").read_text()
    assert f'Exec="{bundle.directory}/pairbench"' in entry
    assert (data / "icons" / "hicolor" / "48x48" / "apps" / "pairbench.png").is_file()
    assert (data / "icons" / "hicolor" / "scalable" / "apps" / "pairbench.svg").is_file()
    subprocess.run([str(script), "--remove"], env=env, check=True, capture_output=True)
    assert not (data / "applications" / "pairbench.desktop").exists()
    assert os.listdir(data / "icons" / "hicolor" / "48x48" / "apps") == []
