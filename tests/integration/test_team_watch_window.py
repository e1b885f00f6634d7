"""A team run watched live in the window, against a real PostgreSQL server: alice's library
records an iperf3-like run in-process (a sample every 100 ms) while a ``LivePublisher`` sends
it live; bob's Library tab (Team source) marks it running, opens it, stops following when the
detail is closed, opens it again and sees its sample count grow copy after copy, then the final
copy: status completed with every sample, the following over, the list's row the final run."""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QStyleOptionViewItem
from pytestqt.qtbot import QtBot

from pairbench.domain import Record, RunSpec, RunStatus
from pairbench.library import Library, Recorder
from pairbench.library.runs import create_run, finish_run
from pairbench.library.team import local
from pairbench.services import team
from pairbench.services.team_follow import LiveCopy
from pairbench.services.team_live import LivePublisher, LiveTarget
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.library_view import LibraryView
from pairbench.ui.library.live_status import LIVE_TEXT, LiveStatusDelegate
from pairbench.ui.library.runs_model import STATUS
from teamkit import TeamServer

WAIT_MS = 30_000
SAMPLES = 80  # one every STEP_S: the run records for about 8 s
STEP_S = 0.1
SHOTS_ENV = "PAIRBENCH_SHOTS"  # a folder to keep the screenshots in (else the test's own)
FOLLOWER = "pairbench-follow"  # the follower thread's name


# libpq finds each role's password in a ~/.pgpass of the test's own (teamkit).
pytestmark = pytest.mark.usefixtures("team_passwords")


def _value(i: int) -> float:
    return 1e9 + 1e6 * i


def _record(path: Path, run_id: int, started: threading.Event) -> None:
    """alice's run: a sample every STEP_S, stored as it comes, then finished."""
    with Library.open(path) as lib:
        recorder = Recorder(lib, run_id)
        for i in range(SAMPLES):
            recorder.add([Record("sum", (i + 1) * STEP_S, ("throughput_bps",), (_value(i),))])
            recorder.flush()
            started.set()
            time.sleep(STEP_S)
        finish_run(
            lib,
            run_id,
            RunStatus.COMPLETED,
            summary={"throughput_bps": sum(map(_value, range(SAMPLES))) / SAMPLES},
            complete=True,
        )


@pytest.fixture
def alice_runs(team_server: TeamServer, tmp_path: Path) -> Iterator[tuple[Path, str, str]]:
    """bob's library, connected to a fresh team library alice publishes live to; the UUID of
    alice's run, recording in a thread."""
    db = f"t_{uuid.uuid4().hex[:10]}"
    team_server.create_database(db)
    alice_url = team_server.url("alice", dbname=db)
    alice_path, bob_path = tmp_path / "alice.sqlite", tmp_path / "bob.sqlite"
    with Library.open(alice_path) as alice:
        team.connect(alice, alice_url, name="alice")
        run_id = create_run(alice, RunSpec("local", "iperf3", {"time": "8"}, label="live"))
        key = local.run_uuid(alice, run_id)
    with Library.open(bob_path) as bob:
        team.connect(bob, team_server.url("bob", dbname=db), name="bob", auto=False)
    publisher = LivePublisher(
        alice_path, LiveTarget(alice_url, "alice"), outbox_every_s=0.5
    ).start()
    started = threading.Event()
    recording = threading.Thread(target=_record, args=(alice_path, run_id, started))
    recording.start()
    try:
        assert started.wait(10)
        yield bob_path, key, db
    finally:
        recording.join(30)
        publisher.stop()


def _followers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == FOLLOWER and t.is_alive()]


def test_a_running_team_run_is_watched_live_in_the_detail(
    qtbot: QtBot, alice_runs: tuple[Path, str, str], tmp_path: Path
) -> None:
    bob_path, key, _db = alice_runs
    bridge = EngineBridge(bob_path)
    view = LibraryView(bridge)
    qtbot.addWidget(view)
    view.resize(1280, 720)
    view.show()
    copies: list[LiveCopy] = []
    try:
        qtbot.waitUntil(lambda: not view.filters.source_combo.isHidden(), timeout=WAIT_MS)
        with qtbot.waitSignal(view.refreshed, timeout=WAIT_MS):
            view.filters.source_combo.setCurrentIndex(1)

        def listed() -> bool:
            if view.model.rowCount():
                return True
            view.refresh()  # until alice's first live copy is on the server
            return False

        qtbot.waitUntil(listed, timeout=WAIT_MS)
        listed_run = view.model.run_at(0)
        origin = view.model.origin_of(listed_run.id)
        assert origin is not None and origin.uuid == key and origin.ran_by == "alice"
        assert listed_run.status is RunStatus.RUNNING
        # The Status cell of a running team run is marked live.
        delegate = view.table.itemDelegateForColumn(STATUS)
        assert isinstance(delegate, LiveStatusDelegate)
        option = QStyleOptionViewItem()
        delegate.initStyleOption(option, view.model.index(0, STATUS))
        assert option.text == LIVE_TEXT

        shots = Path(os.environ.get(SHOTS_ENV) or tmp_path)
        shots.mkdir(parents=True, exist_ok=True)
        view.select_run(listed_run.id)
        qtbot.wait(50)
        assert view.grab().save(str(shots / "team-live-list.png"))

        live = view.team.live
        live.updated.connect(copies.append)
        view.select_run(listed_run.id)
        view.open_selected()
        qtbot.waitUntil(lambda: len(copies) >= 1, timeout=WAIT_MS)
        assert view.stack.currentWidget() is view.detail and live.following
        assert _followers()
        # Closing the detail stops following: the thread ends, no copy is shown after.
        view.detail.back_button.click()
        assert not live.following
        qtbot.waitUntil(lambda: not _followers(), timeout=WAIT_MS)
        copies.clear()

        # Opened again: each new copy redraws the detail while the run records.
        view.open_selected()
        running = lambda: [c.samples for c in copies if c.running]  # noqa: E731
        qtbot.waitUntil(lambda: len(set(running())) >= 3, timeout=WAIT_MS)
        counts = running()
        assert counts == sorted(counts) and 0 < counts[0] < counts[-1] <= SAMPLES
        detail = view.detail
        assert detail.detail is not None and detail.detail.run.status is RunStatus.RUNNING
        assert detail.title.text().startswith(f"Team run {listed_run.id}")
        line = detail.live_label.text()
        assert line.startswith("live: updated ") and line.endswith(
            f", {copies[-1].samples} samples"
        )
        assert detail.live_label.isVisible()
        [plot] = detail.plots
        [curve] = plot.curves.values()
        assert len(curve.getOriginalDataset()[0]) == copies[-1].samples
        qtbot.wait(200)  # the plot lays out and paints
        shot = shots / "team-live-detail.png"
        assert view.grab().save(str(shot))

        # The final copy: completed with every sample, shown, and the following ends.
        qtbot.waitUntil(lambda: bool(copies) and not copies[-1].running, timeout=WAIT_MS)
        final = copies[-1]
        assert final.detail.run.status is RunStatus.COMPLETED and final.samples == SAMPLES
        shown = detail.detail
        assert shown is not None and shown.run.status is RunStatus.COMPLETED
        [plot] = detail.plots
        t, v = next(iter(plot.curves.values())).getOriginalDataset()
        assert len(t) == SAMPLES
        assert v[-1] == pytest.approx(_value(SAMPLES - 1) * plot.factor)
        assert "completed" in detail.subtitle.text() and "published" in detail.subtitle.text()
        assert detail.live_label.text().startswith("final copy received")
        assert not live.following
        qtbot.waitUntil(lambda: not _followers(), timeout=WAIT_MS)
        # The Team list's row is now the final run (a new id on the server), no longer live.
        row = view.model.run_at(0)
        assert view.model.rowCount() == 1 and row.status is RunStatus.COMPLETED
        assert row.id == final.detail.run.id
        option = QStyleOptionViewItem()
        delegate.initStyleOption(option, view.model.index(0, STATUS))
        assert option.text == RunStatus.COMPLETED.value
        qtbot.wait(100)
        assert view.grab().save(str(shot.with_name("team-live-final.png")))
    finally:
        view.team.live.stop()
        bridge.shutdown()
