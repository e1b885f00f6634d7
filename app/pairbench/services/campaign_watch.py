"""The processes that run campaigns: another process's pid (the window follows it), handing
a campaign to a background process (``--detach``), and asking it to stop (``cancel``)."""

from __future__ import annotations

import os
from pathlib import Path

from pairbench.domain.campaign import CampaignStatus
from pairbench.library import Library, LibraryError
from pairbench.library import campaigns as stored


def other_owner_pid(lib: Library, campaign_id: int) -> int | None:
    """The pid of another live process on this computer running the campaign; None when it
    is not running, runs in this process, or runs on another computer."""
    try:
        pid = stored.live_owner_pid(lib, campaign_id)
    except LibraryError:
        return None
    return None if pid == os.getpid() else pid


def detach_campaign(lib: Library, campaign_id: int, argv: list[str], log: Path) -> int:
    """Hand a campaign this process created (or a stopped one) to a background process that
    runs ``argv`` (``campaign resume ID``) in its own session, its output appended to
    ``log``; its pid. The campaign is released first, so the new process can claim it."""
    import subprocess

    campaign = stored.get_campaign(lib, campaign_id)
    if campaign.status == CampaignStatus.COMPLETED.value:
        raise LibraryError(f"campaign {campaign_id} is completed: nothing to run")
    if campaign.status == CampaignStatus.RUNNING.value:
        if stored.live_owner_pid(lib, campaign_id) != os.getpid():
            raise LibraryError(f"campaign {campaign_id} is running in another Pairbench process")
        stored.finish_campaign(
            lib, campaign_id, CampaignStatus.INTERRUPTED.value, error="starting in the background"
        )
    with open(log, "ab") as out:
        child = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
        )
    return child.pid


def stop_campaign(lib: Library, campaign_id: int) -> int:
    """Ask the process on this computer running the campaign to cancel it (SIGTERM: the run
    in flight is stored cancelled, every finished run kept); its pid."""
    import signal

    pid = stored.live_owner_pid(lib, campaign_id)
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError as exc:
        raise LibraryError(f"cannot signal process {pid}: {exc}") from None
    return pid
