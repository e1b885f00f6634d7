"""A followed campaign's header in words: its title, why it stopped, its runs done and time left."""

from __future__ import annotations

import time

from pairbench.ui.campaign.campaign_follower import CampaignFollower
from pairbench.ui.campaign.plan_editor import duration_words


def campaign_title(follower: CampaignFollower) -> str:
    """The campaign's number, plan name, status and plan in one line."""
    shown = follower.shown
    number = f"Campaign #{follower.campaign_id}" if follower.campaign_id else "Campaign"
    if shown is None:
        return f"{number}: checking the plan and its pairs…"
    plan = shown.plan
    status = shown.campaign.status
    if follower.active:
        status = "cancelling…" if follower.cancelling else "running"
        if follower.paused:
            status = "paused"
        elif follower.pausing:
            status = "pausing after the run in flight…"
    elif shown.campaign.paused and status == "running":
        status = "paused"
    return (
        f"{number} {plan.name} — {status} · {plan.repeats.describe()}, "
        f"{plan.order.value}, {plan.schedule.describe()}"
    )


def campaign_note(follower: CampaignFollower) -> str:
    """Why the campaign stopped or who runs it, or nothing."""
    if follower.error is not None:
        return f"It stopped: {follower.error}"
    shown = follower.shown
    if follower.watching:
        pid = f" (pid {follower.owner_pid})" if follower.owner_pid else ""
        return (
            f"Running in another process{pid}: shown read-only, read again every 2 s. "
            "Stop it with `pairbench campaign cancel ID`."
        )
    if shown is not None and not follower.own and shown.campaign.status != "completed":
        return "Stopped: its finished runs are kept; resume it from the Campaigns list."
    outcome = follower.outcome
    if outcome is not None and outcome.status.value != "completed":
        return (
            f"{outcome.status.value.capitalize()}: every finished run is kept; resume it "
            "from the Campaigns list."
        )
    return ""


def campaign_eta(follower: CampaignFollower) -> str:
    """Runs done of planned, and the time left (or what it waits for)."""
    shown = follower.shown
    if shown is None:
        return ""
    done = f"{shown.runs_done} of {shown.runs_planned} runs planned (at least)"
    if follower.waiting_until is not None:
        left = max(0.0, follower.waiting_until - time.time())
        return f"{done} · waiting {duration_words(left)} for the {follower.waiting_why}"
    if not (follower.active or follower.watching):
        return f"{shown.runs_done} runs done"
    eta = follower.eta_s()
    if eta is None:
        return f"{done} · time left known after the first runs"
    pace = follower.seconds_per_run() or 0.0
    return f"{done} · about {duration_words(eta)} left ({pace:.1f} s a run)"
