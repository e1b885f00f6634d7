"""The network lab in the library: its hosts and pair registered, their host keys pinned.

``pairbench lab up`` builds the lab (``pairbench.lab``) and then registers it here: hosts
``lab-client`` and ``lab-server``, pair ``lab``, each host with the key its sshd offers
pinned (``lab up --pairs N``: hosts ``labK-client``/``labK-server`` and pairs ``labK``).
A lab host offering another key than the one pinned is a ``KeyChange``: the caller decides
whether to re-pin it (``register_lab`` replaces the pins) or refuse.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pairbench.domain.failures import HostKeyChangedError
from pairbench.domain.host_text import key_fingerprint
from pairbench.lab.info import LabInfo
from pairbench.library import Library, LibraryError
from pairbench.library.hosts import (
    add_host,
    add_pair,
    get_host,
    get_pair,
    pin_host_key,
    pinned_host_keys,
    replace_host,
    replace_pair,
    unpin_host_keys,
)
from pairbench.remote.host_keys import LAB_REPIN


@dataclass(frozen=True, slots=True)
class KeyChange:
    """A lab host whose pinned host keys do not include the key it offers now."""

    host: str
    pinned: tuple[str, ...]  # key lines
    offered: str  # key line

    def error(self, refusing: str) -> HostKeyChangedError:
        """The changed-key error every command gives, with both fingerprints."""
        return HostKeyChangedError(
            self.host,
            [key_fingerprint(k) for k in self.pinned],
            key_fingerprint(self.offered),
            refusing=refusing,
            remedy=LAB_REPIN,
        )


def key_changes(lib: Library, info: LabInfo) -> list[KeyChange]:
    """The lab hosts registered in ``lib`` with pinned keys other than the key they offer.

    The key a lab host offers is its sshd's host key file (the only ``HostKey`` of its
    sshd_config). A host with nothing pinned (or not registered) is not a change.
    """
    changes = []
    for lab_host in (info.client, info.server):
        pinned = pinned_host_keys(lib, lab_host.name) if _host_exists(lib, lab_host.name) else []
        if pinned and lab_host.host_key not in pinned:
            changes.append(KeyChange(lab_host.name, tuple(pinned), lab_host.host_key))
    return changes


def register_lab(lib: Library, info: LabInfo) -> None:
    """Store (or update) hosts ``lab-client``, ``lab-server`` and pair ``lab``; pin host keys.

    All of it or nothing, in one transaction. The pins are replaced by the lab's current
    keys: callers check ``key_changes`` first.
    """
    register_labs(lib, [info])


def register_labs(lib: Library, infos: Sequence[LabInfo]) -> None:
    """Store (or update) the hosts and pairs of several lab pairs (the multi-pair lab's
    ``lab1`` … with their zone and shaping tags), pinning host keys; one transaction."""
    lib.conn.execute("BEGIN IMMEDIATE")
    try:
        for info in infos:
            _register(lib, info)
        lib.conn.execute("COMMIT")
    except BaseException:
        lib.conn.execute("ROLLBACK")
        raise


def _register(lib: Library, info: LabInfo) -> None:
    for lab_host in (info.client, info.server):
        host = lab_host.to_host()
        if _host_exists(lib, host.name):
            replace_host(lib, host)
        else:
            add_host(lib, host)
        unpin_host_keys(lib, host.name)
        pin_host_key(lib, host.name, lab_host.host_key)
    pair = info.to_pair()
    if _pair_exists(lib, pair.name):
        replace_pair(lib, pair)
    else:
        add_pair(lib, pair)


def _host_exists(lib: Library, name: str) -> bool:
    try:
        get_host(lib, name)
    except LibraryError:
        return False
    return True


def _pair_exists(lib: Library, name: str) -> bool:
    try:
        get_pair(lib, name)
    except LibraryError:
        return False
    return True
