"""Adding, editing and removing pairs: the rules and messages the CLI and window share.

A pair names two stored hosts (``services.hosts``); form values arrive as typed, and a bad
value raises ``FieldError`` naming its form field (several at once: ``FormErrors``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from pairbench.domain import Host, HostPair
from pairbench.domain.failures import FieldError
from pairbench.domain.host_text import PAIR_TAG_FIELDS, parse_tags, tag_items
from pairbench.domain.validation import (
    check_address,
    check_description,
    check_name,
    check_new_name,
    check_tag,
)
from pairbench.library import Library, LibraryError
from pairbench.library import hosts as stored
from pairbench.library.hosts import add_pair
from pairbench.services.hosts import _Collector, get_host, get_pair, list_pairs


@dataclass(frozen=True, slots=True)
class PairForm:
    """A pair as typed: ``None`` means "not given" (the server's address, no description)."""

    name: str
    client: str
    server: str
    data_address: str | None = None
    description: str | None = None
    tags: Sequence[str] | str = ()  # KEY=VALUE items, or one line for ``split_tags_text``
    # Tags with a field of their own (``PAIR_TAG_FIELDS`` keys); empty values are left out.
    tag_fields: Mapping[str, str] = field(default_factory=dict)


def stored_host(lib: Library, role: str, name: str) -> Host:
    """The stored host a pair refers to; ``ValueError`` naming the role otherwise."""
    check_name(f"{role} host", name)
    try:
        return get_host(lib, name)
    except LibraryError:
        raise ValueError(f"{role} host {name!r} is not a stored host; add it first") from None


def pair_exists(lib: Library, name: str) -> bool:
    """Whether a pair of this name is stored."""
    try:
        get_pair(lib, name)
    except LibraryError:
        return False
    return True


def pair_from_form(lib: Library, form: PairForm) -> HostPair:
    """A validated pair of stored hosts; ``FormErrors`` lists every field that cannot be used."""
    c = _Collector()
    name = c.check("name", lambda: check_name("pair", form.name))
    data_address = (
        None
        if form.data_address is None
        else c.check("data_address", lambda: check_address(form.data_address or ""))
    )
    description = c.check("description", lambda: check_description(form.description or ""))
    own: list[str] = []
    for key, value in form.tag_fields.items():
        if value and c.check(f"tag:{key}", partial(check_tag, key, value)) is not None:
            own.append(f"{key}={value}")
    tags = c.check("tags", lambda: parse_tags(own + tag_items(form.tags)))
    client = c.check("client", lambda: stored_host(lib, "client", form.client))
    server = c.check("server", lambda: stored_host(lib, "server", form.server))
    c.raise_any()
    assert name is not None and description is not None and tags is not None
    assert client is not None and server is not None
    return HostPair(
        name=name,
        client=client,
        server=server,
        data_address=data_address,
        description=description,
        tags=tags,
    )


def store_new_pair(lib: Library, pair: HostPair) -> None:
    """Add a pair whose name is free (and none that means this computer)."""
    try:
        check_new_name("pair", pair.name)
    except ValueError as exc:
        raise FieldError("name", str(exc)) from None
    if pair_exists(lib, pair.name):
        raise FieldError("name", f"a pair named {pair.name!r} already exists")
    add_pair(lib, pair)


def store_edited_pair(lib: Library, pair: HostPair) -> None:
    """Replace the stored pair of ``pair``'s name with it (validated by the caller)."""
    stored.replace_pair(lib, pair)


def check_pair_edit_allowed(name: str) -> None:
    """The built-in pair cannot be edited."""
    if name == "local":
        raise ValueError("the built-in pair 'local' cannot be edited")


def split_pair_tags(tags: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(tags that have a field of their own, the other tags)."""
    own = {key for key, _ in PAIR_TAG_FIELDS}
    return (
        {k: v for k, v in tags.items() if k in own},
        {k: v for k, v in tags.items() if k not in own},
    )


def save_new_pair(lib: Library, form: PairForm) -> HostPair:
    """Validate and add a pair."""
    pair = pair_from_form(lib, form)
    store_new_pair(lib, pair)
    return pair


def save_edited_pair(lib: Library, name: str, form: PairForm) -> HostPair:
    """Validate and replace the pair ``name`` (its name stays)."""
    check_pair_edit_allowed(get_pair(lib, name).name)
    pair = pair_from_form(lib, dataclasses.replace(form, name=name))
    store_edited_pair(lib, pair)
    return pair


def all_pairs(lib: Library) -> list[HostPair]:
    """Every stored pair, by name."""
    return list_pairs(lib)


def delete_pair(lib: Library, name: str) -> None:
    """Remove a pair; its runs stay in the library. The built-in pair ``local`` stays."""
    stored.remove_pair(lib, name)
