"""Renaming a stored host or pair, and the names reserved for this computer (``local``,
``localhost``) that a library from before they were reserved may give to another host."""

from __future__ import annotations

from pairbench.domain.failures import FieldError
from pairbench.domain.validation import check_name, check_new_name
from pairbench.library import Library
from pairbench.library import hosts as stored


def rename_host(lib: Library, old: str, new: str) -> None:
    """Rename the stored host ``old`` to ``new`` (a valid name, free, not reserved); its pinned
    keys, the hosts that jump through it and its suites follow. ``ValueError`` says why not."""
    check_name("host", old)
    _check_new("host", new)
    stored.rename_host(lib, old, new)


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
