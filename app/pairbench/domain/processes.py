"""Who a process is beyond its reusable pid, and the run tags that mark what a run started."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path

# A run tag: pb.<machine>.<pid>.<start token>.<random>, e.g. pb.3f9a21c0.4242.98765.a1b2c3.
# Safe as a file name part and in a shell word; carried by every process of the run
# (PAIRBENCH_RUN_TAG) and in the name of its work directory.
_TAG_RE = re.compile(r"^pb\.([0-9a-f]{8})\.(\d+)\.(\d*)\.([0-9a-f]{6})$")


def process_token(pid: int) -> str:
    """A value that identifies a process beyond its (reusable) pid: its start time on Linux.

    A zombie (exited, not yet reaped by its parent) is dead and has no token.
    """
    try:
        stat_text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    # Field 3 (state) and field 22 (starttime) come after the command name, in parentheses.
    fields = stat_text.rsplit(")", 1)[-1].split()
    if not fields or fields[0] == "Z":
        return ""
    return fields[19] if len(fields) > 19 else ""


def this_machine() -> str:
    """A short, stable id of this computer (from its host name)."""
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def process_alive(pid: int, token: str) -> bool:
    """True if the process ``pid`` started at ``token`` still runs on this computer."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return process_token(pid) == token


@dataclass(frozen=True, slots=True)
class RunTag:
    """The tag of one run: which controller (machine, pid, start token) started it."""

    machine: str
    pid: int
    token: str
    nonce: str

    @classmethod
    def new(cls) -> RunTag:
        """A fresh tag for a run started by this process."""
        pid = os.getpid()
        return cls(this_machine(), pid, process_token(pid), secrets.token_hex(3))

    @classmethod
    def parse(cls, text: str) -> RunTag | None:
        """The tag written as ``text``, or None if it is not one."""
        match = _TAG_RE.match(text)
        if match is None:
            return None
        machine, pid, token, nonce = match.groups()
        return cls(machine, int(pid), token, nonce)

    def __str__(self) -> str:
        return f"pb.{self.machine}.{self.pid}.{self.token}.{self.nonce}"

    def controller_gone(self) -> bool:
        """True when the controller ran on this computer and has ended; a controller on
        another computer cannot be seen from here (False)."""
        return self.machine == this_machine() and not process_alive(self.pid, self.token)

    def controller_here(self) -> bool:
        """True when the controller runs on this computer."""
        return self.machine == this_machine()
