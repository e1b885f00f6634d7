"""services.hosts: looking up hosts and pairs, showing a host, forgetting its pinned keys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import asyncssh
import keyring
import pytest
from keyring.backends import fail

from pairbench.domain import Host, HostPair
from pairbench.library.hosts import pin_host_key
from pairbench.services import hosts as svc
from pairbench.services import pairs as pair_svc
from pairbench.services.library import Library, LibraryError, open_library


def _key_line() -> str:
    """A real public key as a pinned key line: ``ssh-ed25519 AAAA...``."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    return " ".join(key.export_public_key("openssh").decode().split()[:2])


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Library]:
    """A library with hosts a1, b2 (agent login) and pairs p-ab (a1 → b2), p-ba (b2 → a1)."""
    with open_library(tmp_path / "l.sqlite") as library:
        for name, address in (("a1", "10.0.0.1"), ("b2", "10.0.0.2")):
            svc.save_new_host(library, svc.HostForm(name=name, address=address), None)
        pair_svc.save_new_pair(library, pair_svc.PairForm(name="p-ab", client="a1", server="b2"))
        pair_svc.save_new_pair(library, pair_svc.PairForm(name="p-ba", client="b2", server="a1"))
        yield library


def test_lookups_return_what_was_saved(lib: Library) -> None:
    names = [h.name for h in svc.list_hosts(lib)]
    assert {"a1", "b2"} <= set(names) and names == sorted(names)
    a1 = svc.get_host(lib, "a1")
    assert isinstance(a1, Host) and a1.address == "10.0.0.1"
    pair = svc.get_pair(lib, "p-ab")
    assert isinstance(pair, HostPair)
    assert (pair.client.name, pair.server.name) == ("a1", "b2")
    assert {"p-ab", "p-ba"} <= {p.name for p in svc.list_pairs(lib)}
    assert svc.hosts_and_pairs(lib) == (svc.list_hosts(lib), svc.list_pairs(lib))


def test_lookups_of_unknown_names_raise_library_error(lib: Library) -> None:
    with pytest.raises(LibraryError):
        svc.get_host(lib, "nope")
    with pytest.raises(LibraryError):
        svc.get_pair(lib, "nope")
    with pytest.raises(LibraryError):
        svc.show_host(lib, "nope")
    with pytest.raises(LibraryError):
        svc.forget_host_keys(lib, "nope")


def test_show_host_gives_pinned_keys_and_the_pairs_using_it(lib: Library) -> None:
    key = _key_line()
    pin_host_key(lib, "b2", key)
    shown = svc.show_host(lib, "b2")
    assert shown.host == svc.get_host(lib, "b2")
    assert shown.host_keys == [key] == svc.pinned_host_keys(lib, "b2")
    assert sorted(shown.pairs) == ["p-ab", "p-ba"]
    svc.save_new_host(lib, svc.HostForm(name="c3", address="10.0.0.3"), None)
    assert svc.show_host(lib, "c3").pairs == []
    assert svc.show_host(lib, "c3").host_keys == []


def test_forget_host_keys_unpins_and_returns_what_was_pinned(lib: Library) -> None:
    keys = [_key_line(), _key_line()]
    for key in keys:
        pin_host_key(lib, "a1", key)
    pin_host_key(lib, "b2", _key_line())
    host, forgotten = svc.forget_host_keys(lib, "a1")
    assert host.name == "a1"
    assert sorted(forgotten) == sorted(keys)
    assert svc.pinned_host_keys(lib, "a1") == []
    assert len(svc.pinned_host_keys(lib, "b2")) == 1  # another host's pins stay
    assert svc.forget_host_keys(lib, "a1") == (host, [])


def test_store_edited_pair_replaces_the_stored_pair(lib: Library) -> None:
    old = svc.get_pair(lib, "p-ab")
    new = HostPair(
        name=old.name,
        client=old.server,
        server=old.client,
        data_address="10.9.9.9",
        description="swapped",
        tags={"cloud": "aws"},
    )
    pair_svc.store_edited_pair(lib, new)
    assert svc.get_pair(lib, "p-ab") == new


def test_delete_pair_removes_only_that_pair(lib: Library) -> None:
    pair_svc.delete_pair(lib, "p-ab")
    assert [p.name for p in svc.list_pairs(lib) if p.name.startswith("p-")] == ["p-ba"]


@pytest.fixture
def no_keyring() -> Iterator[None]:
    """keyring's ``fail`` backend: what a headless machine has."""
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        yield
    finally:
        keyring.set_keyring(previous)


def test_keyring_status_without_a_backend_says_why(no_keyring: None) -> None:
    available, reason = svc.keyring_status()
    assert available is False
    assert reason
