"""services.lab_hosts: the lab's hosts and pair registered in a library, host keys pinned."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import pytest

from pairbench.domain.host_text import key_fingerprint
from pairbench.lab import Shaping
from pairbench.lab.info import LabHost, LabInfo
from pairbench.library.hosts import pin_host_key
from pairbench.services import lab_hosts as svc
from pairbench.services.hosts import get_host, get_pair, list_pairs, pinned_host_keys
from pairbench.services.library import Library, LibraryError, open_library


def _key_line() -> str:
    """A real public key as a pinned key line: ``ssh-ed25519 AAAA...``."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    return " ".join(key.export_public_key("openssh").decode().split()[:2])


def _lab_host(role: str, number: int) -> LabHost:
    return LabHost(
        role=role,
        name=f"lab-{role}",
        namespace=f"pb-{role}",
        address=f"10.213.{number}.2",
        port=22,
        user="root",
        key_path="/run/pairbench-lab/user_key",
        host_key=_key_line(),
        data_address=f"10.213.0.{number}",
    )


def _info() -> LabInfo:
    return LabInfo(
        client=_lab_host("client", 1),
        server=_lab_host("server", 2),
        shaping=Shaping(),
        impairment="netem",
        state_dir="/run/pairbench-lab",
    )


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Library]:
    with open_library(tmp_path / "l.sqlite") as library:
        yield library


def test_register_stores_hosts_pair_and_pins_each_key(lib: Library) -> None:
    info = _info()
    assert svc.key_changes(lib, info) == []  # nothing registered yet: no change
    svc.register_lab(lib, info)
    for lab_host in (info.client, info.server):
        assert get_host(lib, lab_host.name) == lab_host.to_host()
        assert pinned_host_keys(lib, lab_host.name) == [lab_host.host_key]
    assert get_pair(lib, "lab") == info.to_pair()
    assert svc.key_changes(lib, info) == []


def test_a_changed_key_is_reported_with_both_fingerprints(lib: Library) -> None:
    info = _info()
    svc.register_lab(lib, info)
    rebuilt = dataclasses.replace(
        info, server=dataclasses.replace(info.server, host_key=_key_line())
    )
    (change,) = svc.key_changes(lib, rebuilt)
    assert change == svc.KeyChange("lab-server", (info.server.host_key,), rebuilt.server.host_key)
    message = str(change.error("refusing to pin it"))
    assert key_fingerprint(info.server.host_key) in message
    assert key_fingerprint(rebuilt.server.host_key) in message
    assert "refusing to pin it" in message and "lab up --repin-keys" in message


def test_a_host_with_nothing_pinned_is_no_change(lib: Library) -> None:
    info = _info()
    svc.register_lab(lib, info)
    from pairbench.services.hosts import forget_host_keys

    forget_host_keys(lib, "lab-client")
    rebuilt = dataclasses.replace(
        info, client=dataclasses.replace(info.client, host_key=_key_line())
    )
    assert svc.key_changes(lib, rebuilt) == []


def test_registering_again_replaces_hosts_and_pins(lib: Library) -> None:
    info = _info()
    svc.register_lab(lib, info)
    pin_host_key(lib, "lab-client", _key_line())  # an extra pin: replaced too
    moved = dataclasses.replace(info.client, address="10.213.9.2", host_key=_key_line())
    again = dataclasses.replace(info, client=moved)
    svc.register_lab(lib, again)
    assert get_host(lib, "lab-client").address == "10.213.9.2"
    assert pinned_host_keys(lib, "lab-client") == [moved.host_key]
    assert get_pair(lib, "lab").client.address == "10.213.9.2"
    assert [p.name for p in list_pairs(lib)].count("lab") == 1


def test_register_is_all_or_nothing(lib: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(lib: Library, pair: object) -> None:
        raise LibraryError("disk full")

    monkeypatch.setattr(svc, "add_pair", broken)
    with pytest.raises(LibraryError, match="disk full"):
        svc.register_lab(lib, _info())
    for name in ("lab-client", "lab-server"):
        with pytest.raises(LibraryError):
            get_host(lib, name)
    assert svc.key_changes(lib, _info()) == []
