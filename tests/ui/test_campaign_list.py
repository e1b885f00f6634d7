"""The Campaigns list: a campaign another process runs (the CLI) is followed read-only by
polling, with its pid; an interrupted campaign is offered for resuming when the tab opens."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from campaign_kit import CAMPAIGN_MS, WAIT_MS, campaign_tab, ended
from pytestqt.qtbot import QtBot

from pairbench.library import Library
from pairbench.library.campaigns import finish_campaign
from pairbench.services.campaign_plan import parse_plan
from pairbench.services.campaigns import create_from_plan, show_campaign
from pairbench.ui.campaign.campaigns_list import CampaignItem
from testkit import REPO

PLAN = """
name = "cli ping"
pairs = ["local"]
repeats = 3
seed = 3
retry = { retries = 20, delay = "0.5s", skip_pair_after = 0 }  # the local host may be busy
[[tests]]
tool = "ping"
params = { count = [2, 3], interval = 0.2 }
"""


def test_a_campaign_run_by_the_cli_is_followed_read_only(
    qtbot: QtBot, library: Library, tmp_path: Path
) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    cli = subprocess.Popen(
        [sys.executable, "-m", "pairbench", "--library", str(library.path), "campaign", "run",
         str(plan)],
        cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        with campaign_tab(qtbot, library.path) as panel:
            listing = panel.campaigns

            def running_elsewhere() -> CampaignItem | None:
                for item in listing.items:
                    if item.status == "running" and item.owner_pid == cli.pid:
                        return item
                listing.refresh()
                return None

            qtbot.waitUntil(lambda: running_elsewhere() is not None, timeout=CAMPAIGN_MS)
            item = running_elsewhere()
            assert item is not None
            assert listing.select(item.id)
            assert f"elsewhere pid {cli.pid}" in listing.table.item(0, 2).text()
            assert not listing.resume_button.isEnabled()  # another process runs it
            listing.open_button.click()
            follower = panel.follower
            assert follower is not None and follower.watching and not follower.active
            assert f"Running in another process (pid {cli.pid})" in panel.live.note_label.text()
            assert not panel.live.cancel_button.isVisible()  # read-only
            qtbot.waitUntil(lambda: not follower.watching, timeout=CAMPAIGN_MS)
            assert cli.wait(timeout=60) == 0, cli.stderr.read() if cli.stderr else ""
            shown = show_campaign(library, item.id)
            assert shown.campaign.status == "completed"
            qtbot.waitUntil(
                lambda: follower.shown is not None and follower.shown.runs_done == shown.runs_done,
                timeout=WAIT_MS,
            )
            assert follower.refreshes >= 2  # read while it ran, and once it ended
            texts = [view.text for view in panel.live.model.views.values()]
            assert len(texts) == 2 and all("n=3" in text for text in texts)
            assert "completed" in panel.live.title_label.text()
    finally:
        if cli.poll() is None:
            cli.terminate()
            cli.wait(timeout=30)


def test_an_interrupted_campaign_is_offered_and_resumed(qtbot: QtBot, library: Library) -> None:
    campaign_id = create_from_plan(library, parse_plan(PLAN.replace("repeats = 3", "repeats = 1")))
    finish_campaign(library, campaign_id, "interrupted", error="the program was killed")
    with campaign_tab(qtbot, library.path) as panel:
        bar = panel.interrupted_bar
        qtbot.waitUntil(lambda: not bar.isHidden(), timeout=WAIT_MS)
        assert f"Campaign #{campaign_id} cli ping was interrupted" in bar.text()
        assert "the program was killed" in bar.text()
        bar.resume_button.click()
        assert bar.isHidden()
        follower = panel.follower
        assert follower is not None and follower.campaign_id == campaign_id
        qtbot.waitUntil(lambda: ended(follower), timeout=CAMPAIGN_MS)
        assert follower.outcome is not None and follower.outcome.status.value == "completed"
        shown = show_campaign(library, campaign_id)
        assert [row.verdict.n for row in shown.rows] == [1, 1]


def test_no_offer_when_nothing_was_interrupted(qtbot: QtBot, library: Library) -> None:
    campaign_id = create_from_plan(library, parse_plan(PLAN))
    finish_campaign(library, campaign_id, "cancelled", error="cancelled by the user")
    with campaign_tab(qtbot, library.path) as panel:
        qtbot.waitUntil(lambda: bool(panel.campaigns.items), timeout=WAIT_MS)
        assert panel.interrupted_bar.isHidden()
        assert panel.campaigns.items[0].resumable
        assert panel.campaigns.resume_button.isEnabled()
