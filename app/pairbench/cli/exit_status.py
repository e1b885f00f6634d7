"""Exit statuses of the ``pairbench`` command."""

from __future__ import annotations

import enum


class ExitStatus(enum.IntEnum):
    """What the process exit code means."""

    OK = 0
    ERROR = 1
    USAGE = 2
    RUN_FAILED = 3
    RUN_INTERRUPTED = 4
    RUN_STALLED = 5
    CANCELLED = 130
