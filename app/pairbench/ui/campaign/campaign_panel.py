"""The Campaigns tab: the matrix editor and the campaigns list on the left, the campaign
under way (or opened) on the right; interrupted campaigns offered for resuming at start-up.
One campaign runs from the window at a time; any other can be watched."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QSplitter, QTabWidget, QVBoxLayout, QWidget

from pairbench.domain.campaign import Plan
from pairbench.services.running import SecretPrompt
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.campaign.campaign_follower import CampaignFollower
from pairbench.ui.campaign.campaigns_list import CampaignItem, CampaignsList, InterruptedBar
from pairbench.ui.campaign.live_view import CampaignLiveView
from pairbench.ui.campaign.plan_editor import PlanEditor
from pairbench.ui.run.error_line import ErrorLine


class CampaignPanel(QWidget):
    """Build, start, follow, pause, cancel and resume campaigns."""

    campaignFinished = Signal(object)  # CampaignOutcome: its runs are in the library

    def __init__(
        self,
        bridge: EngineBridge,
        *,
        secrets: SecretPrompt | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("campaign_panel")
        self.bridge = bridge
        self.secrets = secrets
        self.follower: CampaignFollower | None = None
        self._offered = False  # interrupted campaigns are offered once, at start-up
        self._open_when_listed: int | None = None  # a campaign to open once the list has it

        self.interrupted_bar = InterruptedBar()
        self.error_line = ErrorLine()
        self.error_line.setObjectName("campaign_error")
        self.editor = PlanEditor(bridge)
        self.campaigns = CampaignsList(bridge)
        self.live = CampaignLiveView()
        self.side = QTabWidget()
        self.side.addTab(self.editor, "Plan")
        self.side.addTab(self.campaigns, "Campaigns")
        self.side.setMinimumWidth(380)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("campaign_split")
        split.addWidget(self.side)
        split.addWidget(self.live)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 1)
        split.setSizes([430, 850])
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.interrupted_bar)
        layout.addWidget(self.error_line)
        layout.addWidget(split, 1)

        self.editor.startRequested.connect(self.start)
        self.campaigns.openRequested.connect(self.open_campaign)
        self.campaigns.resumeRequested.connect(self.resume)
        self.campaigns.loaded.connect(self._campaigns_loaded)
        self.campaigns.failed.connect(self.error_line.show_error)
        self.interrupted_bar.resumeRequested.connect(self.resume)
        self.editor.start_editing()
        self.campaigns.refresh()

    @property
    def busy(self) -> bool:
        return self.follower is not None and self.follower.active

    # -- starting, resuming, opening ---------------------------------------------------------

    def start(self, plan: Plan, text: str) -> CampaignFollower | None:
        if self._refuse_when_busy():
            return None
        follower = self._follow(CampaignFollower(self.bridge, self.secrets, self))
        follower.start(plan, text)
        return follower

    def resume(self, campaign_id: int) -> CampaignFollower | None:
        if self._refuse_when_busy():
            return None
        self.interrupted_bar.hide()
        follower = self._follow(CampaignFollower(self.bridge, self.secrets, self))
        follower.resume(campaign_id)
        return follower

    def open_campaign(self, item: CampaignItem) -> CampaignFollower | None:
        """Show a campaign's grid: followed live when it is this window's or another
        process's running campaign, else as stored."""
        if self.follower is not None and self.follower.campaign_id == item.id:
            self.follower.refresh()
            return self.follower
        if self._refuse_when_busy():
            return None
        follower = self._follow(CampaignFollower(self.bridge, self.secrets, self))
        if item.status == "running":
            follower.watch(item.id, item.owner_pid)
        else:
            follower.load(item.id)
        return follower

    def open_campaign_id(self, campaign_id: int) -> CampaignFollower | None:
        """Open a campaign by its id (the Library's "Open"): at once when the list has it,
        else once the list is read again."""
        item = next((i for i in self.campaigns.items if i.id == campaign_id), None)
        if item is None:
            self._open_when_listed = campaign_id
            self.campaigns.refresh()
            return None
        self.side.setCurrentWidget(self.campaigns)
        self.campaigns.select(campaign_id)
        return self.open_campaign(item)

    def _refuse_when_busy(self) -> bool:
        if self.busy:
            self.error_line.show_error(
                "A campaign is running from this window: wait for it, or cancel it first."
            )
        return self.busy

    def _follow(self, follower: CampaignFollower) -> CampaignFollower:
        self.error_line.clear_error()
        old = self.follower
        if old is not None:
            old.stop_watching()
            old.changed.disconnect(self._update_busy)
        self.follower = follower
        follower.changed.connect(self._update_busy)
        follower.finished.connect(self._finished)
        follower.failed.connect(self._failed)
        self.live.bind(follower)
        self._update_busy()
        return follower

    def _update_busy(self) -> None:
        follower = self.follower
        own = follower.campaign_id if follower is not None and follower.active else None
        if own is not None and self.campaigns.own_id != own:
            self.campaigns.own_id = own
            self.campaigns.refresh()  # the new campaign appears in the list
        self.editor.set_busy(self.busy)
        self.campaigns.set_busy(self.busy, own)

    def _finished(self, outcome: object) -> None:
        self.campaigns.refresh()
        self.campaignFinished.emit(outcome)

    def _failed(self, message: str) -> None:
        self.error_line.show_error(f"The campaign stopped: {message}")
        self.campaigns.refresh()

    def _campaigns_loaded(self, items: list[CampaignItem]) -> None:
        """At the first load (the window's start), offer to resume interrupted campaigns."""
        if not self._offered and not self.busy:
            self.interrupted_bar.offer([item for item in items if item.interrupted])
        self._offered = True
        wanted, self._open_when_listed = self._open_when_listed, None
        if wanted is not None:
            if any(item.id == wanted for item in items):
                self.open_campaign_id(wanted)
            else:
                self.error_line.show_error(f"Campaign #{wanted} is not in this library.")

    def error_text(self) -> str:
        return "" if self.error_line.isHidden() else self.error_line.text()
