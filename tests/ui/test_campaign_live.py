"""A real small campaign on ``local`` (ping over loopback) started from the Campaigns tab:
the grid fills as runs finish (n, mean ± CI, CV per cell, as ``show_campaign`` says), pause
then resume, cancel (asked first) keeps every finished run, and resume from the list."""

from __future__ import annotations

from campaign_kit import CAMPAIGN_MS, WAIT_MS, campaign_tab, ended, fill_ping, start
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from pairbench.domain.units import format_value
from pairbench.library import Library
from pairbench.library.runs import get_run
from pairbench.services.campaigns import show_campaign
from pairbench.ui.campaign.cells_model import CellsModel

REPEATS = 2


def _grid_texts(model: CellsModel) -> dict[tuple[str, str], str]:
    return {
        (model.pairs[r], model.columns[c]): str(model.data(model.index(r, c)))
        for r in range(model.rowCount())
        for c in range(model.columnCount())
    }


def test_a_campaign_runs_from_the_tab_and_fills_its_grid(qtbot: QtBot, library: Library) -> None:
    with campaign_tab(qtbot, library.path) as panel:
        fill_ping(panel.editor, counts="2, 3", repeats=REPEATS)
        follower = start(qtbot, panel)
        qtbot.waitUntil(lambda: ended(follower), timeout=CAMPAIGN_MS)
        assert follower.error is None, follower.error
        assert follower.outcome is not None and follower.outcome.status.value == "completed"
        shown = show_campaign(library, follower.outcome.campaign_id)
        qtbot.waitUntil(
            lambda: follower.shown is not None and follower.shown.runs_done == shown.runs_done,
            timeout=WAIT_MS,
        )
        model = panel.live.model
        assert model.pairs == ["local"]
        assert model.columns == [row.cell.column for row in shown.rows]
        texts = _grid_texts(model)
        assert len(shown.rows) == 2
        for row in shown.rows:
            stats = row.verdict.stats
            assert row.verdict.n == REPEATS and stats is not None and stats.ci is not None
            text = texts[(row.cell.pair, row.cell.column)]
            assert f"n={REPEATS}" in text and "done" in text
            assert format_value(row.cell.metric, stats.mean, stats.ci.half_width) in text
            assert stats.cv is not None and f"CV {stats.cv * 100:.1f} %" in text
            view = model.view_at(0, model.columns.index(row.cell.column))
            assert view is not None and view.status == "done"
        bar = panel.live.bar
        assert bar.value() == bar.maximum() == shown.runs_done == 2 * REPEATS
        assert "completed" in panel.live.title_label.text()
        assert not panel.live.cancel_button.isVisible()
        # The list shows it, completed; Start is free again.
        listed = panel.campaigns

        def completed_in_list() -> bool:
            return any(i.id == shown.campaign.id and i.status == "completed" for i in listed.items)

        qtbot.waitUntil(completed_in_list, timeout=WAIT_MS)
        assert panel.editor.start_button.isEnabled()


def test_pause_holds_new_runs_until_resume(qtbot: QtBot, library: Library) -> None:
    with campaign_tab(qtbot, library.path) as panel:
        fill_ping(panel.editor, counts="2, 3", repeats=REPEATS)
        follower = start(qtbot, panel)
        qtbot.waitUntil(lambda: bool(follower.in_flight), timeout=WAIT_MS)
        qtbot.mouseClick(panel.live.pause_button, Qt.MouseButton.LeftButton)
        assert follower.pausing and not panel.live.pause_button.isEnabled()
        qtbot.waitUntil(lambda: follower.paused, timeout=WAIT_MS)  # after the run in flight
        assert follower.campaign_id is not None
        paused_at = show_campaign(library, follower.campaign_id)
        assert paused_at.campaign.paused and paused_at.campaign.status == "running"
        assert not follower.in_flight
        assert "paused" in panel.live.title_label.text()
        assert panel.live.resume_button.isEnabled()
        # Nothing starts while paused: every attempt stored has ended, and still the same
        # ones once the window has served its events again.
        qtbot.wait(300)
        assert len(show_campaign(library, follower.campaign_id).attempts) == len(paused_at.attempts)
        assert paused_at.runs_done < paused_at.runs_planned
        qtbot.mouseClick(panel.live.resume_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: ended(follower), timeout=CAMPAIGN_MS)
        assert follower.outcome is not None and follower.outcome.status.value == "completed"
        done = show_campaign(library, follower.campaign_id)
        assert done.runs_done == 2 * REPEATS and not done.campaign.paused


def test_cancel_asks_keeps_finished_runs_and_resumes_from_the_list(
    qtbot: QtBot, library: Library
) -> None:
    with campaign_tab(qtbot, library.path) as panel:
        fill_ping(panel.editor, counts="2, 3", repeats=3)
        follower = start(qtbot, panel)
        qtbot.waitUntil(
            lambda: follower.shown is not None and follower.shown.runs_done >= 1,
            timeout=CAMPAIGN_MS,
        )
        qtbot.mouseClick(panel.live.cancel_button, Qt.MouseButton.LeftButton)
        box = panel.live.confirm_box
        assert box is not None and box.isVisible() and not follower.cancelling
        yes = box.button(box.StandardButton.Yes)
        assert yes is not None
        yes.click()
        assert follower.cancelling
        qtbot.waitUntil(lambda: ended(follower), timeout=CAMPAIGN_MS)
        assert follower.outcome is not None and follower.outcome.status.value == "cancelled"
        campaign_id = follower.outcome.campaign_id
        shown = show_campaign(library, campaign_id)
        assert shown.campaign.status == "cancelled"
        kept = [a for a in shown.attempts if a.status == "completed"]
        assert len(kept) == shown.runs_done >= 1
        for attempt in kept:  # every finished run is in the library, with its value
            assert attempt.run_id is not None and attempt.value is not None
            assert get_run(library, attempt.run_id).status.value == "completed"
        assert shown.runs_done < shown.runs_planned
        assert "Cancelled" in panel.live.note_label.text()

        # Resume it from the Campaigns list: it goes on to the end, nothing run twice.
        qtbot.waitUntil(lambda: panel.campaigns.select(campaign_id), timeout=WAIT_MS)
        qtbot.waitUntil(lambda: panel.campaigns.resume_button.isEnabled(), timeout=WAIT_MS)
        panel.campaigns.resume_button.click()
        resumed = panel.follower
        assert resumed is not None and resumed is not follower
        qtbot.waitUntil(lambda: ended(resumed), timeout=CAMPAIGN_MS)
        assert resumed.outcome is not None and resumed.outcome.status.value == "completed"
        final = show_campaign(library, campaign_id)
        assert [r.verdict.n for r in final.rows] == [3, 3]
        ids = [a.run_id for a in final.attempts if a.status == "completed"]
        assert len(ids) == len(set(ids)) == final.runs_done == 6
        assert {a.run_id for a in kept} <= set(ids)
