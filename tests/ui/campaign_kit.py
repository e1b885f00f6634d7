"""Helpers for the Campaigns tab's tests: the tab on a real engine bridge, a small ping plan
on the ``local`` pair (loopback only), waiting for a campaign's end."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pytestqt.qtbot import QtBot

from pairbench.ui.bridge import EngineBridge
from pairbench.ui.campaign.campaign_follower import CampaignFollower
from pairbench.ui.campaign.campaign_panel import CampaignPanel
from pairbench.ui.campaign.plan_editor import PlanEditor

WAIT_MS = 20_000
CAMPAIGN_MS = 120_000  # a generous bound for a few 0.4 s pings


@contextmanager
def campaign_tab(qtbot: QtBot, library_path: Path) -> Iterator[CampaignPanel]:
    """The tab at 1280×720 on its own bridge; campaigns cancelled and the bridge shut down."""
    bridge = EngineBridge(library_path)
    panel = CampaignPanel(bridge)
    qtbot.addWidget(panel)
    panel.resize(1280, 720)
    panel.show()
    try:
        qtbot.waitUntil(lambda: panel.editor.form.pairs.list.count() > 0, timeout=WAIT_MS)
        yield panel
    finally:
        bridge.cancel_all()
        bridge.shutdown()


def fill_ping(editor: PlanEditor, *, counts: str = "2, 3", repeats: int = 2) -> None:
    """ping on ``local``, interval 0.2 s, one cell per count, ``repeats`` runs per cell."""
    form = editor.form
    form.name_edit.setText("local ping")
    form.pairs.set_checked(["local"])
    box = form.tests.boxes[0]
    box.tool_combo.setCurrentText("ping")
    box.params_edit.setPlainText(f"count = {counts}\ninterval = 0.2")
    form.min_spin.setValue(repeats)
    form.max_spin.setValue(repeats)
    form.seed_spin.setValue(7)
    # Other Pairbench processes on this computer may hold the local host for a moment
    # (a run there refuses to start): retry soon, and never skip the pair for it.
    form.retries_spin.setValue(20)
    form.delay_spin.setValue(0.5)
    form.skip_spin.setValue(0)


def start(qtbot: QtBot, panel: CampaignPanel) -> CampaignFollower:
    """Wait for the plan's check, then click Start."""
    editor = panel.editor
    qtbot.waitUntil(lambda: editor.start_button.isEnabled(), timeout=WAIT_MS)
    editor.start_button.click()
    follower = panel.follower
    assert follower is not None, panel.error_text()
    return follower


def ended(follower: CampaignFollower) -> bool:
    return follower.outcome is not None or follower.error is not None


PING_PLAN = """
name = "{name}"
pairs = ["local"]
repeats = {repeats}
retry = {{ retries = 20, delay = "0.5s", skip_pair_after = 0 }}
[[tests]]
tool = "ping"
params = {{ count = 2, interval = 0.2 }}
"""


def stored_ping_campaign(library_path: Path, folder: Path, *, repeats: int = 2) -> None:
    """Run a real one-cell ping campaign on ``local`` with the CLI, in this process (about a
    second a run): a campaign with runs in the library, as ``campaign run`` leaves one."""
    import io

    from pairbench.cli.environment import Environment
    from pairbench.cli.main import run_cli

    plan = folder / "plan.toml"
    plan.write_text(PING_PLAN.format(name="loopback pings", repeats=repeats))
    env = Environment(stdout=io.StringIO(), stderr=io.StringIO(), environ={})
    status = run_cli(["--library", str(library_path), "campaign", "run", str(plan)], env)
    assert status == 0, env.stderr.getvalue()  # type: ignore[attr-defined]
