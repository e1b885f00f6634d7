"""Renaming a stored host or pair, and the names reserved for this computer (``local``,
``localhost``) that a library from before they were reserved may give to another host."""

from __future__ import annotations

from pairbench.domain import Host
from pairbench.domain.failures import FieldError
from pairbench.domain.validation import check_name, check_new_name
from pairbench.library import Library
from pairbench.library import hosts as stored
from pairbench.services.hosts import (
    HostForm,
    check_edit_allowed,
    host_exists,
    host_from_form,
    save_edited_host,
)


def rename_host(lib: Library, old: str, new: str) -> None:
    """Rename the stored host ``old`` to ``new`` (a valid name, free, not reserved); its pinned
    keys, the hosts that jump through it and its suites follow. ``ValueError`` says why not."""
    check_name("host", old)
    _check_new("host", new)
    stored.rename_host(lib, old, new)


def save_renamed_host(
    lib: Library, old: str, form: HostForm, password: str | None
) -> tuple[Host, list[str]]:
    """The window's host dialog when the name changed: every field checked first (``FormErrors``
    / ``FieldError``, nothing changed), then the host renamed and its fields saved."""
    check_edit_allowed(stored.get_host(lib, old))
    host_from_form(form)
    _check_new("host", form.name)
    if host_exists(lib, form.name):
        raise FieldError("name", f"a host named {form.name!r} already exists")
    stored.rename_host(lib, old, form.name)
    return save_edited_host(lib, form.name, form, password)


def rename_pair(lib: Library, old: str, new: str) -> None:
    """Rename the stored pair ``old`` to ``new`` (a valid name, free, not reserved); its runs
    follow. ``ValueError`` says why not."""
    check_name("pair", old)
    _check_new("pair", new)
    stored.rename_pair(lib, old, new)


def reserved_name_problems(lib: Library) -> list[str]:
    """Stored hosts and pairs whose names are reserved for this computer, each with the
    command that renames it (also among the library's warnings when it is opened)."""
    return stored.reserved_name_problems(lib)


def _check_new(kind: str, name: str) -> None:
    try:
        check_new_name(kind, name)
    except ValueError as exc:
        raise FieldError("name", str(exc)) from None
