"""What can go wrong with a team library, as typed errors whose message says why and what to
do (never a password), and which of them stop a push (the rest waits in the outbox)."""

from __future__ import annotations

import psycopg

from pairbench.library.connection import LibraryError
from pairbench.library.team.locks import LockHolder, locked_message

PASSWORD_SOURCES = (
    "give it with `pairbench team connect` (kept in the OS keyring), in ~/.pgpass, or in PGPASSWORD"
)


class TeamError(LibraryError):
    """The team library cannot do what was asked; the message says why and what to do."""


class TeamAuthError(TeamError):
    """The server refused the role's password (or found none)."""


class TeamPermissionError(TeamError):
    """The role lacks a right the operation needs (Pairbench never widens rights)."""


class TeamSchemaError(TeamError):
    """The server's schema is newer than this Pairbench understands, or unreadable."""


class TeamUnreachableError(TeamError):
    """The server cannot be reached or went away; nothing half-done is left on it."""


class TeamTimeoutError(TeamUnreachableError):
    """The server (or its session) did not answer within the call's bound: frozen,
    overloaded or paused; the connection was cut, so nothing half-done stays there."""

    def __init__(self, message: str, waited_s: float) -> None:
        super().__init__(message)
        self.waited_s = waited_s


class TeamLockedError(TeamError):
    """The server answered, but what the call needs is locked by another session
    (``holders``: who, when the server says)."""

    def __init__(self, message: str, holders: tuple[LockHolder, ...] = ()) -> None:
        super().__init__(message)
        self.holders = holders


# After one of these the rest of a push waits: the next would fail the same way.
STOPS_A_PUSH: tuple[type[TeamError], ...] = (
    TeamUnreachableError,
    TeamPermissionError,
    TeamLockedError,
)


def connect_error(target: str, exc: psycopg.OperationalError, given: bool) -> TeamError:
    """A failed connection as the error that says why (password, address, network)."""
    text = str(exc)
    if "no password supplied" in text:
        return TeamAuthError(
            f"team library {target} needs a password and none was found: {PASSWORD_SOURCES}"
        )
    if "authentication failed" in text or exc.sqlstate in ("28P01", "28000"):
        source = "the password given" if given else "the password libpq found"
        return TeamAuthError(
            f"team library {target} refused {source} ({one_line(text)}); give the right "
            f"one: {PASSWORD_SOURCES}"
        )
    if "does not exist" in text:
        return TeamError(f"team library {target}: {one_line(text)}; check the URL")
    if "no pg_hba.conf entry" in text:
        return TeamError(
            f"team library {target} refuses connections from this computer "
            f"({one_line(text)}): its administrator adds a line for your network to "
            f"pg_hba.conf (see docs/guide/team-library.md)"
        )
    if "timeout expired" in text:
        return TeamTimeoutError(
            f"cannot reach team library {target}: no answer within the connection's bound "
            f"({one_line(text)}: the server is down, frozen or overloaded, or the network "
            f"drops the packets); runs wait in the outbox until it is back",
            0.0,
        )
    return TeamUnreachableError(
        f"cannot reach team library {target} ({one_line(text)}); runs wait in the outbox "
        f"until it is back"
    )


def silent_error(doing: str, target: str, waited_s: float) -> TeamTimeoutError:
    """A call that heard nothing for ``waited_s``: its connection was cut."""
    return TeamTimeoutError(
        f"cannot {doing}: team library {target} did not answer for {waited_s:g} s (the "
        f"server or its session is frozen, paused or overloaded); the connection was cut, so "
        f"nothing half-done stays there; try again when it answers",
        waited_s,
    )


def ended_error(doing: str, target: str, statement_s: float, exc: BaseException) -> TeamError:
    """A statement the server ended (its statement bound, or an administrator)."""
    return TeamTimeoutError(
        f"cannot {doing}: team library {target} ended it ({first_line(exc)}; the bound is "
        f"{statement_s:g} s); nothing half-done stays there; try again, or give it longer "
        f"with PAIRBENCH_TEAM_STATEMENT_TIMEOUT=SECONDS",
        statement_s,
    )


def locked_error(
    doing: str, target: str, holders: list[LockHolder], waited_s: float | None
) -> TeamLockedError:
    """A lock wait the server gave up after ``waited_s`` (``lock_timeout``), or locks seen
    before waiting (None), with who holds them."""
    return TeamLockedError(
        f"cannot {doing}: {locked_message(target, holders, waited_s)}", tuple(holders)
    )


def schema_version_error(target: str, found: str, known: int) -> TeamSchemaError:
    """``pb_meta.schema_version`` holds no version number."""
    return TeamSchemaError(
        f"team library {target} holds no schema version Pairbench can read: "
        f"pb_meta.schema_version is {found!r}, expected a whole number from 1 to {known}; it "
        f"was changed outside Pairbench: the database's administrator sets it back (or gives "
        f"the team library a database of its own)"
    )


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def one_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return " ".join(lines) if lines else "no reason given"
