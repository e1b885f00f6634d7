"""The storage suite's tab: a real short throughput suite on ``local`` started from the form
and followed live (convergence, measurement window, progress), cancelled and resumed, an
interrupted suite offered at start-up, and requests that cannot run refused in words."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from run_kit import isolated_settings, open_window, save_png

from blockkit import loop_device
from busy_host import local_run_holding
from pairbench.domain.storage import (
    JobKey,
    SteadyRule,
    StorageTest,
    SuiteParams,
    block_size_word,
    stages_of,
)
from pairbench.library import Library
from pairbench.library.suites import create_suite, finish_suite, record_job
from pairbench.services.storage import show_suite, storage_suites
from pairbench.ui.storage.storage_panel import StoragePanel
from pairbench.ui.storage.suite_follower import SuiteFollower
from testkit import require_program

SUITE_S = 240_000  # a generous bound for a 21-job suite of 1 s rounds (it takes ~35 s)
PASSES = 1
MAX_ROUNDS = 5


def _fill(panel: StoragePanel, target: Path, *, size: str = "16MiB") -> None:
    form = panel.form
    form.select_host("local")
    form.select_test(StorageTest.THROUGHPUT)
    form.target_edit.setText(str(target))
    form.size_edit.setText(size)
    form.threads_spin.setValue(1)
    form.iodepth_spin.setValue(4)
    form.round_spin.setValue(1)
    form.rounds_spin.setValue(MAX_ROUNDS)
    form.passes_spin.setValue(PASSES)


def _start(qtbot: QtBot, panel: StoragePanel) -> SuiteFollower:
    qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
    follower = panel.follower
    assert follower is not None, panel.error_text()
    return follower


def _ended(follower: SuiteFollower) -> bool:
    return follower.outcome is not None or follower.error is not None


def _tracked(lib: Library, suite_id: int) -> dict[str, list[float]]:
    """Stored write throughput of each stage's tracked job, per round (by block size)."""
    shown = show_suite(lib, suite_id)
    figures = {(j.stage, j.round, j.job): j.figures for j in shown.jobs}
    out: dict[str, list[float]] = {}
    for index, stage in enumerate(stages_of(StorageTest.THROUGHPUT)):
        j = stage.job_index(stage.tracked)
        rounds = len(shown.progress.stages[index].values)
        out[stage.tracked.bs] = [
            figures[(index, r, j)]["write_bytes_per_s"] for r in range(1, rounds + 1)
        ]
    return out


def _planned_jobs(rounds_per_stage: list[int]) -> int:
    """Preconditioning passes before each stage (the 128 KiB stage is preconditioned again,
    as CloudHarmony does), then 2 jobs (a read, a write) per round of each stage."""
    return sum(PASSES + 2 * r for r in rounds_per_stage)


def test_suite_runs_live_to_completion(qtbot: QtBot, library: Library, tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    with open_window(qtbot, library.path, isolated_settings(tmp_path)) as window:
        panel = window.storage_panel
        window.tabs.setCurrentWidget(panel)
        _fill(panel, target)
        assert "20 s of fio jobs (5 rounds)" in panel.form.estimate_label.text()
        follower = _start(qtbot, panel)
        qtbot.waitUntil(lambda: _ended(follower), timeout=SUITE_S)
        assert follower.error is None, follower.error
        assert follower.outcome is not None and follower.outcome.status.value == "completed"
        suite_id = follower.outcome.suite_id

        shown = show_suite(library, suite_id)
        assert shown.suite.status == "completed"
        tracked = _tracked(library, suite_id)
        # A line per block size, a point per complete round, the stored figures drawn.
        assert panel.convergence.point_counts() == {bs: len(v) for bs, v in tracked.items()}
        assert all(len(v) == MAX_ROUNDS for v in tracked.values())  # steady at 5, or out
        for bs, values in tracked.items():
            assert list(panel.convergence.lines[bs].values) == values
        assert panel.convergence.legend_names == [block_size_word(bs) for bs in tracked]
        # The window plot: the last stage's verdict window, its mean and fitted line.
        plot = panel.window_plot
        assert plot.shown is not None and plot.shown.index == 1
        values = tracked["128k"][-5:]
        mean = sum(values) / 5
        slope = sum((i - 2) * (v - mean) for i, v in enumerate(values)) / 10
        assert plot.check is not None
        assert plot.check.mean == pytest.approx(mean, rel=1e-9)
        assert plot.fit == [pytest.approx(mean + slope * (i - 2), rel=1e-9) for i in range(5)]
        assert plot.legend_names[1] == f"mean {plot.scale.format(mean)}"
        assert "±10 % of the mean" in plot.legend_names and "fitted line" in plot.legend_names
        verdict = plot.verdict_label.text()
        assert "Data excursion" in verdict and "Slope excursion" in verdict
        plot.stage_combo.setCurrentIndex(0)  # the first stage's window, chosen
        assert plot.shown is not None and plot.shown.index == 0
        assert plot.check is not None and plot.check.values == tuple(tracked["1m"][-5:])
        # Progress reaches what was planned: every job of the suite.
        planned = _planned_jobs([MAX_ROUNDS, MAX_ROUNDS])
        assert panel.progress.bar.maximum() == planned == panel.progress.bar.value()
        assert len(shown.jobs) == planned
        assert "completed" in panel.progress.where_label.text()
        save_png(panel, "storage_done.png")


def test_cancel_keeps_finished_jobs_and_resume_finishes(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    target = tmp_path / "target"
    target.mkdir()
    with open_window(qtbot, library.path, isolated_settings(tmp_path)) as window:
        panel = window.storage_panel
        _fill(panel, target)
        steady = panel.form.steady_combo  # CloudHarmony's rule, chosen in the form
        steady.setCurrentIndex(steady.findData(SteadyRule.CLOUDHARMONY.value))
        follower = _start(qtbot, panel)
        # Cancel in the middle of round 3 of the first stage (2 rounds complete).
        qtbot.waitUntil(lambda: len(follower.done) >= PASSES + 4, timeout=SUITE_S)
        qtbot.waitUntil(lambda: follower.job_key == JobKey(0, 3, 0), timeout=SUITE_S)
        qtbot.mouseClick(panel.progress.cancel_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: _ended(follower), timeout=SUITE_S)
        assert follower.outcome is not None and follower.outcome.status.value == "cancelled"
        suite_id = follower.outcome.suite_id
        stopped = show_suite(library, suite_id)
        assert stopped.suite.status == "cancelled"
        kept = [j for j in stopped.jobs if j.status == "completed"]
        assert len(kept) >= PASSES + 4
        rounds_kept = len(stopped.progress.stages[0].values)
        assert rounds_kept >= 2

        # Listed as resumable; Resume rebuilds the plots from the stored jobs first.
        qtbot.waitUntil(lambda: panel.suites.select(suite_id), timeout=10_000)
        assert "cancelled" in panel.suites.list.currentItem().text()
        qtbot.mouseClick(panel.suites.resume_button, Qt.MouseButton.LeftButton)
        resumed = panel.follower
        assert resumed is not None and resumed is not follower
        qtbot.waitUntil(lambda: resumed.params is not None, timeout=10_000)
        qtbot.waitUntil(lambda: _ended(resumed), timeout=SUITE_S)
        assert resumed.error is None, resumed.error
        assert resumed.outcome is not None and resumed.outcome.status.value == "completed"
        done = show_suite(library, suite_id)
        assert done.suite.status == "completed"
        tracked = _tracked(library, suite_id)
        assert panel.convergence.point_counts() == {bs: len(v) for bs, v in tracked.items()}
        completed = [j for j in done.jobs if j.status == "completed"]
        planned = _planned_jobs([len(s.values) for s in done.progress.stages])
        assert len(completed) == planned == panel.progress.bar.value()
        # The rule chosen decided every stage, and the window says so.
        assert done.params.steady_state is SteadyRule.CLOUDHARMONY
        assert {s.rule for s in done.progress.stages} == {SteadyRule.CLOUDHARMONY}
        assert "CloudHarmony's arithmetic" in panel.window_plot.verdict_label.text()


def test_resume_rebuilds_plots_from_stored_jobs(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    """An interrupted suite is offered at start-up (a bar, no dialog); resuming it shows its
    stored rounds before its next job runs."""
    target = tmp_path / "target"
    target.mkdir()
    params = SuiteParams(
        StorageTest.THROUGHPUT, str(target), 16 * 2**20, threads=1, iodepth=4,
        round_seconds=1, max_rounds=MAX_ROUNDS, precondition_passes=PASSES, direct=False,
    )  # fmt: skip
    suite_id = create_suite(library, "storage", "local", params.to_json())
    # Stored jobs of two complete rounds of the first stage (figures made up, distinct).
    record_job(library, suite_id, (-1, 1, 0), None, "completed", {"write_iops": 1.0})
    written = {1: 5.0e8, 2: 6.0e8}
    for r, rate in written.items():
        record_job(library, suite_id, (0, r, 0), None, "completed", {"read_iops": 1.0})
        record_job(
            library, suite_id, (0, r, 1), None, "completed",
            {"write_iops": 1.0, "write_bytes_per_s": rate},
        )  # fmt: skip
    finish_suite(library, suite_id, "interrupted", error="the process stopped")
    with open_window(qtbot, library.path, isolated_settings(tmp_path)) as window:
        panel = window.storage_panel
        bar = panel.interrupted_bar
        qtbot.waitUntil(lambda: not bar.isHidden(), timeout=10_000)
        assert f"#{suite_id}" in bar.text() and "interrupted" in bar.text()
        qtbot.mouseClick(bar.resume_button, Qt.MouseButton.LeftButton)
        follower = panel.follower
        assert follower is not None
        qtbot.waitUntil(lambda: follower.params is not None, timeout=10_000)
        # Before any new round: the stored rounds are drawn.
        assert panel.convergence.lines["1m"].values == tuple(written.values())
        assert panel.convergence.lines["1m"].rounds == (1, 2)
        qtbot.waitUntil(lambda: follower.job_key is not None, timeout=SUITE_S)
        assert follower.job_key == JobKey(0, 3, 0)  # the next unfinished job
        panel.cancel()
        qtbot.waitUntil(lambda: _ended(follower), timeout=SUITE_S)
        assert show_suite(library, suite_id).suite.status == "cancelled"


def test_requests_that_cannot_run_are_refused_in_words(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    target = tmp_path / "target"
    target.mkdir()
    with open_window(qtbot, library.path, isolated_settings(tmp_path)) as window:
        panel = window.storage_panel
        # A device: its name must be typed; refusing the dialog starts nothing.
        _fill(panel, target, size="")
        panel.form.target_edit.setText("/dev/pairbench-no-such-device")
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
        dialog = panel.confirm_dialog
        assert dialog is not None and dialog.isVisible()
        dialog.name_edit.setText("/dev/sda")
        assert not dialog.ok_button.isEnabled()  # only the device's own name confirms
        dialog.reject()
        assert "was not confirmed" in panel.error_text()
        assert panel.follower is None
        # A wrong confirmation given anyway is refused by the request check.
        assert panel.launch("/dev/sda") is None
        assert "DESTROYS" in panel.error_text()

        # A directory without a size.
        panel.form.target_edit.setText(str(target))
        qtbot.mouseClick(panel.start_button, Qt.MouseButton.LeftButton)
        assert "needs the size" in panel.error_text()
        assert panel.follower is None

        # A host that is not (or no longer) in the library.
        panel.form.size_edit.setText("16MiB")
        panel.form.set_hosts(["ghost"])
        assert panel.form.select_host("ghost")
        follower = _start(qtbot, panel)
        qtbot.waitUntil(lambda: _ended(follower), timeout=30_000)
        assert follower.outcome is None
        assert "ghost" in panel.error_text() and "could not start" in panel.error_text()
        assert "Traceback" not in panel.error_text()
        assert panel.start_button.isEnabled()
    assert storage_suites(library) == []
    assert library.conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0


def test_a_busy_host_refuses_a_suite_and_stores_nothing(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    """Another run holds this computer: the suite is refused in words, no suite is stored
    (nothing to resume), nothing is written in the target."""
    target = tmp_path / "target"
    target.mkdir()
    with open_window(qtbot, library.path, isolated_settings(tmp_path)) as window:
        panel = window.storage_panel
        _fill(panel, target)
        with local_run_holding(tmp_path):
            follower = _start(qtbot, panel)
            qtbot.waitUntil(lambda: _ended(follower), timeout=30_000)
        assert follower.outcome is None and follower.suite_id is None
        said = panel.error_text()
        assert "could not start" in said and "busy" in said and "ping on pair local" in said
        panel.suites.refresh()
        qtbot.waitUntil(lambda: panel.suites.list.count() == 0 and panel.suites.isHidden())
        assert panel.start_button.isEnabled()
    assert storage_suites(library) == []
    assert list(target.iterdir()) == []


@pytest.fixture
def device() -> Iterator[str]:
    yield from loop_device(32)


def test_resuming_over_a_file_system_made_since_asks_first(
    qtbot: QtBot, library: Library, tmp_path: Path, device: str
) -> None:
    """An interrupted device suite whose device now holds ext4: Resume is refused in words
    (nothing written), a dialog asks for the device's name typed again, and only then does
    the suite go on (with force)."""
    require_program("fio")
    require_program("mkfs.ext4")
    params = SuiteParams(
        StorageTest.THROUGHPUT, device, 16 * 2**20, threads=1, iodepth=4,
        round_seconds=1, max_rounds=MAX_ROUNDS, precondition_passes=0,
    )  # fmt: skip
    suite_id = create_suite(library, "storage", "local", params.to_json())
    finish_suite(library, suite_id, "interrupted", error="the process stopped")
    made = subprocess.run(["mkfs.ext4", "-q", "-F", device], capture_output=True, timeout=60)
    assert made.returncode == 0, made.stderr
    with open_window(qtbot, library.path, isolated_settings(tmp_path)) as window:
        panel = window.storage_panel
        qtbot.waitUntil(lambda: panel.suites.select(suite_id), timeout=10_000)
        qtbot.mouseClick(panel.suites.resume_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.confirm_dialog is not None, timeout=30_000)
        dialog = panel.confirm_dialog
        assert dialog is not None and dialog.isVisible() and dialog.resume_of == suite_id
        assert f"{device} now holds a ext4 file system" in panel.error_text()
        assert show_suite(library, suite_id).suite.status == "interrupted"
        assert _blkid_type(device) == "ext4"  # nothing written yet
        dialog.name_edit.setText(device)
        assert dialog.ok_button.isEnabled() and "resume" in dialog.ok_button.text()
        dialog.accept()
        follower = panel.follower
        assert follower is not None
        qtbot.waitUntil(lambda: follower.job_key is not None, timeout=SUITE_S)
        panel.cancel()
        qtbot.waitUntil(lambda: _ended(follower), timeout=SUITE_S)
        assert follower.error is None, follower.error
    assert show_suite(library, suite_id).suite.status == "cancelled"
    # The job that went on is a stored fio run on the device, cancelled with the suite.
    runs = library.conn.execute("SELECT tool, status, params FROM runs").fetchall()
    assert [(tool, status) for tool, status, _ in runs] == [("fio", "cancelled")]
    assert json.loads(runs[0][2])["device"] == device


def _blkid_type(device: str) -> str:
    done = subprocess.run(
        ["blkid", "-p", "-o", "value", "-s", "TYPE", device], capture_output=True, text=True
    )
    return done.stdout.strip()
