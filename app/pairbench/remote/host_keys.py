"""Host key checking: pinned keys plus known_hosts files; unknown or changed keys refused."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh

LAB_REPIN = "re-pin the lab's keys with `pairbench lab up --repin-keys`"


def changed_key_remedy(tags: Mapping[str, str]) -> str | None:
    """The explicit re-pin step for a lab host (tagged ``lab=true``); None for other hosts."""
    return LAB_REPIN if tags.get("lab") == "true" else None


def default_known_hosts() -> tuple[Path, ...]:
    """``~/.ssh/known_hosts``: where a host added by hand has its keys looked up."""
    return (Path("~/.ssh/known_hosts").expanduser(),)


@dataclass
class HostKeyPolicy:
    """What keys a host may present, and whether a first-seen key may be accepted.

    ``known_hosts`` are the files looked up besides the pinned keys (an imported host's
    UserKnownHostsFile list); ``host_key_alias`` (HostKeyAlias) is the name looked up in them
    instead of the address and port.
    """

    pinned: list[str] = field(default_factory=list)
    accept_new: bool = False
    known_hosts: tuple[Path, ...] = field(default_factory=default_known_hosts)
    host_key_alias: str | None = None
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
        if self.host_key_alias is not None:  # as ssh: the alias alone, no port
            name, addr, looked_up_port = self.host_key_alias, "", None
        else:
            name, addr, looked_up_port = address, address, None if port == 22 else port
        for path in self.known_hosts:
            if not path.is_file():
                continue
            try:
                known = asyncssh.read_known_hosts(str(path))
                match = known.match(name, addr, looked_up_port)
            except (OSError, ValueError, asyncssh.Error):
                continue
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
