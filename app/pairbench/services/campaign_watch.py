"""What the window needs to follow a campaign another process runs: that process's pid."""

from __future__ import annotations

import os

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
