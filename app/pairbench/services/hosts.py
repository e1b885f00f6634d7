"""Adding, editing and removing hosts: the rules and messages the CLI and window share.

Pairs of them are ``services.pairs``'s. Form values arrive as the user typed them (``None``
where the user gave nothing, meaning the default). Validation goes through
``domain.validation``; a bad value raises ``FieldError`` naming its form field, several at
once are gathered in ``FormErrors`` (whose message is the first error, which is what the CLI
prints). Nothing here asks the user anything: passwords are asked by the caller and handed in.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from pairbench.domain import AuthMethod, Host, HostPair
from pairbench.domain.failures import FieldError, FormErrors
from pairbench.domain.host_text import parse_tags, tag_items
from pairbench.domain.validation import (
    check_address,
    check_name,
    check_new_name,
    check_port,
    check_user,
)
from pairbench.library import Library, LibraryError
from pairbench.library import hosts as stored
from pairbench.library.hosts import add_host, remove_host, replace_host
from pairbench.remote import secrets
from pairbench.remote.secrets import (
    forget_password,
    keyring_account,
    store_password,
    stored_password,
)
from pairbench.services.key_paths import check_key_path

T = TypeVar("T")


class _Collector:
    """Runs checks, keeping each ``ValueError`` as a ``FieldError`` of its field."""

    def __init__(self) -> None:
        self.errors: list[FieldError] = []

    def check(self, field: str, check: Callable[[], T]) -> T | None:
        try:
            return check()
        except FieldError as exc:
            self.errors.append(exc)
        except ValueError as exc:
            self.errors.append(FieldError(field, str(exc)))
        return None

    def raise_any(self) -> None:
        if self.errors:
            raise FormErrors(self.errors)


# ---------------------------------------------------------------------------------------------
# Looking up hosts, pairs and pinned host keys


def list_hosts(lib: Library) -> list[Host]:
    """Every stored host, by name (the built-in ``local`` among them)."""
    return stored.list_hosts(lib)


def get_host(lib: Library, name: str) -> Host:
    """The stored host of this name; ``LibraryError`` if there is none."""
    return stored.get_host(lib, name)


def list_pairs(lib: Library) -> list[HostPair]:
    """Every stored pair, by name, with both of its hosts."""
    return stored.list_pairs(lib)


def get_pair(lib: Library, name: str) -> HostPair:
    """The stored pair of this name, with both of its hosts; ``LibraryError`` if none."""
    return stored.get_pair(lib, name)


def pinned_host_keys(lib: Library, host_name: str) -> list[str]:
    """The host key lines pinned for a host (the keys its connections accept)."""
    return stored.pinned_host_keys(lib, host_name)


@dataclass(frozen=True, slots=True)
class HostShown:
    """One host as ``hosts show`` presents it: with its pinned keys and the pairs using it."""

    host: Host
    host_keys: list[str]
    pairs: list[str]  # names of the pairs whose client or server it is


def show_host(lib: Library, name: str) -> HostShown:
    """A host, its pinned host keys and the pairs that use it; ``LibraryError`` if none."""
    host = stored.get_host(lib, name)
    keys = stored.pinned_host_keys(lib, host.name)
    pairs = [p.name for p in stored.list_pairs(lib) if host.name in (p.client.name, p.server.name)]
    return HostShown(host, keys, pairs)


def forget_host_keys(lib: Library, name: str) -> tuple[Host, list[str]]:
    """Unpin every host key of a host (after a legitimate key change): the next connection
    asks to accept the key it is offered. Returns the host and the keys that were pinned;
    ``LibraryError`` if there is no such host."""
    host = stored.get_host(lib, name)
    keys = stored.pinned_host_keys(lib, host.name)
    stored.unpin_host_keys(lib, host.name)
    return host, keys


def keyring_status() -> tuple[bool, str]:
    """Whether the OS keyring can keep passwords, and if not, why (in words for the user)."""
    return secrets.keyring_status()


# ---------------------------------------------------------------------------------------------
# Hosts


@dataclass(frozen=True, slots=True)
class HostForm:
    """A host as typed: ``None`` means "not given" (port 22, user root, no jump host)."""

    name: str
    address: str
    port: str | None = None
    user: str | None = None
    auth: AuthMethod = AuthMethod.AGENT
    key_path: str | None = None
    jump: str | None = None
    tags: Sequence[str] | str = ()  # KEY=VALUE items, or one line for ``split_tags_text``


def host_from_form(form: HostForm) -> Host:
    """A validated host; ``FormErrors`` lists every field that cannot be used."""
    c = _Collector()
    key_path = None
    if form.auth is AuthMethod.KEY:
        key_path = c.check("key_path", lambda: check_key_path(form.key_path or ""))
    elif form.auth not in (AuthMethod.AGENT, AuthMethod.PASSWORD):
        c.errors.append(FieldError("auth", f"a host cannot use {form.auth.value!r} login"))
    name = c.check("name", lambda: check_name("host", form.name))
    address = c.check("address", lambda: check_address(form.address))
    port = 22 if form.port is None else c.check("port", lambda: check_port(form.port or ""))
    user = None if form.user is None else c.check("user", lambda: check_user(form.user or ""))
    jump = (
        None
        if form.jump is None
        else c.check("jump", lambda: check_name("jump host", form.jump or ""))
    )
    tags = c.check("tags", lambda: parse_tags(tag_items(form.tags)))
    c.raise_any()
    assert name is not None and address is not None and port is not None and tags is not None
    return Host(
        name=name,
        address=address,
        port=port,
        user=user,
        auth=form.auth,
        key_path=key_path,
        jump=jump,
        tags=tags,
    )


def host_exists(lib: Library, name: str) -> bool:
    """Whether a host of this name is stored."""
    return any(h.name == name for h in list_hosts(lib))


def check_jump(lib: Library, host: Host) -> None:
    """The jump host must be another stored SSH host, and jumps must not loop."""
    if host.jump is None:
        return
    if host.jump == host.name:
        raise FieldError("jump", f"host {host.name!r} cannot be its own jump host")
    seen = {host.name}
    name: str | None = host.jump
    while name is not None:
        if name in seen:
            raise FieldError("jump", f"jump host {host.jump!r} would make the jump hosts loop")
        seen.add(name)
        try:
            jump = get_host(lib, name)
        except LibraryError:
            raise FieldError(
                "jump", f"jump host {name!r} is not a stored host; add it first"
            ) from None
        if jump.is_local:
            raise FieldError("jump", f"jump host {name!r} is this computer, not an SSH host")
        name = jump.jump


def check_new_host(lib: Library, host: Host) -> None:
    """A new host's name must be free (and none that means this computer) and its jump host
    usable."""
    try:
        check_new_name("host", host.name)
    except ValueError as exc:
        raise FieldError("name", str(exc)) from None
    if host_exists(lib, host.name):
        raise FieldError("name", f"a host named {host.name!r} already exists")
    check_jump(lib, host)


def keep_password(host: Host, password: str) -> str:
    """Store a password in the OS keyring; the note to show the user."""
    if store_password(host, password):
        return f"the password is kept in the OS keyring for {keyring_account(host)}"
    return "the password could not be stored in the OS keyring; it will be asked at each connection"


def store_new_host(lib: Library, host: Host, password: str | None) -> list[str]:
    """Add a checked host (``check_new_host``) and keep its password; notes for the user."""
    add_host(lib, host)
    if host.auth is AuthMethod.PASSWORD and password is not None:
        return [keep_password(host, password)]
    return []


def account_shared(lib: Library, host: Host) -> bool:
    """Whether another stored host uses the same keyring account (user@address:port)."""
    account = keyring_account(host)
    return any(h.name != host.name and keyring_account(h) == account for h in list_hosts(lib))


def check_edit_allowed(old: Host) -> None:
    """The built-in host cannot be edited."""
    if old.is_local:
        raise ValueError(f"the built-in host {old.name!r} cannot be edited")


def store_edited_host(lib: Library, old: Host, new: Host, password: str | None) -> list[str]:
    """Replace a host (checked with ``check_jump``); move or forget its keyring password.

    ``password`` is a newly given password (None: keep the stored one, moved to the new
    keyring account when the login changed). Returns notes for the user.
    """
    notes: list[str] = []
    account_changed = keyring_account(new) != keyring_account(old)
    moved = None
    if (
        password is None
        and old.auth is AuthMethod.PASSWORD
        and new.auth is AuthMethod.PASSWORD
        and account_changed
    ):
        moved = stored_password(old)
    replace_host(lib, new)
    secret = password if password is not None else moved
    if secret is not None:
        notes.append(keep_password(new, secret))
    leaves_old = account_changed or new.auth is not AuthMethod.PASSWORD
    if old.auth is AuthMethod.PASSWORD and leaves_old and not account_shared(lib, old):
        forget_password(old)
    if (new.address, new.port) != (old.address, old.port):
        keys = pinned_host_keys(lib, new.name)
        if keys:
            notes.append(
                f"{len(keys)} pinned host key(s) kept; if {new.address} is another "
                f"machine, run `pairbench hosts forget-key {new.name}`"
            )
    return notes


def delete_host(lib: Library, name: str) -> Host:
    """Remove a host unused by pairs and jumps and forget its keyring password."""
    host = get_host(lib, name)
    jumpers = [h.name for h in list_hosts(lib) if h.jump == host.name]
    if jumpers:
        raise ValueError(
            f"host {host.name!r} is the jump host of {', '.join(jumpers)}; "
            "edit them first (hosts edit NAME --no-jump)"
        )
    remove_host(lib, host.name)
    if not account_shared(lib, host):
        forget_password(host)
    return host


def password_status(host: Host) -> str | None:
    """For a password host: where its password comes from, in words; None for other hosts."""
    if host.auth is not AuthMethod.PASSWORD:
        return None
    available, reason = keyring_status()
    if not available:
        return reason
    if stored_password(host) is None:
        return "none stored in the OS keyring: asked at each connection"
    return "stored in the OS keyring"


# ---------------------------------------------------------------------------------------------
# Whole saves, as the workbench submits them (one engine job each)


def save_new_host(lib: Library, form: HostForm, password: str | None) -> tuple[Host, list[str]]:
    """Validate and add a host; a password host needs its password when a keyring can keep it."""
    host = host_from_form(form)
    check_new_host(lib, host)
    notes: list[str] = []
    if host.auth is AuthMethod.PASSWORD and password is None:
        available, reason = keyring_status()
        if available:
            raise FieldError("password", "no password given: type it to keep it in the OS keyring")
        notes.append(reason)
    return host, notes + store_new_host(lib, host, password)


def save_edited_host(
    lib: Library, name: str, form: HostForm, password: str | None
) -> tuple[Host, list[str]]:
    """Validate and replace the host ``name`` (its name stays); ``password`` None keeps it."""
    old = get_host(lib, name)
    check_edit_allowed(old)
    new = _keeping_config(old, host_from_form(dataclasses.replace(form, name=name)))
    check_jump(lib, new)
    notes = store_edited_host(lib, old, new, password)
    status = password_status(new) if password is None else None
    if status is not None and status != "stored in the OS keyring":
        notes.append(status)
    return new, notes


def _keeping_config(old: Host, new: Host) -> Host:
    """An edited host keeps what its OpenSSH config gave (the form does not show it), unless
    the form chose another jump host: that replaces the config's way there."""
    kept = dataclasses.replace(new, ssh=old.ssh)
    return kept.with_jump(new.jump) if new.jump != old.jump else kept


def hosts_and_pairs(lib: Library) -> tuple[list[Host], list[HostPair]]:
    """Every stored host and pair, for a list of them."""
    return list_hosts(lib), list_pairs(lib)
