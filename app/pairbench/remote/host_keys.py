"""Host key checking: pinned keys plus ~/.ssh/known_hosts; unknown or changed keys refused."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh

LAB_REPIN = "re-pin the lab's keys with `pairbench lab up --repin-keys`"


def changed_key_remedy(tags: Mapping[str, str]) -> str | None:
    """The explicit re-pin step for a lab host (tagged ``lab=true``); None for other hosts."""
    return LAB_REPIN if tags.get("lab") == "true" else None


@dataclass
class HostKeyPolicy:
    """What keys a host may present, and whether a first-seen key may be accepted."""

    pinned: list[str] = field(default_factory=list)
    accept_new: bool = False
    user_known_hosts: Path | None = field(
        default_factory=lambda: Path("~/.ssh/known_hosts").expanduser()
    )
    accepted: str | None = None  # set when a new key was accepted: the caller pins it
    presented: asyncssh.SSHKey | None = None
    has_trusted: bool = False  # whether any key was pinned or known when connecting

    def trusted(
        self, address: str, port: int
    ) -> tuple[list[asyncssh.SSHKey], list[asyncssh.SSHKey], list[asyncssh.SSHKey]]:
        """(trusted host keys, CA keys, revoked keys) for ``asyncssh.connect(known_hosts=)``."""
        keys = [asyncssh.import_public_key(line) for line in self.pinned]
        ca_keys: list[asyncssh.SSHKey] = []
        revoked: list[asyncssh.SSHKey] = []
        path = self.user_known_hosts
        if path is not None and path.is_file():
            try:
                known = asyncssh.read_known_hosts(str(path))
                match = known.match(address, address, None if port == 22 else port)
            except (OSError, ValueError, asyncssh.Error):
                match = ([], [], [])  # type: ignore[assignment]
            keys += list(match[0])
            ca_keys += list(match[1])
            revoked += list(match[2])
        return keys, ca_keys, revoked

    def expected_fingerprints(self, address: str, port: int) -> list[str]:
        """Fingerprints of every key the host may present."""
        return [key.get_fingerprint() for key in self.trusted(address, port)[0]]


def key_line(key: asyncssh.SSHKey) -> str:
    """A public key in OpenSSH one-line form, without a comment."""
    text = key.export_public_key("openssh").decode().strip()
    return " ".join(text.split()[:2])
