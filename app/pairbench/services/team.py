"""The team library as the CLI and the window use it: connect this library to a PostgreSQL
server (its address kept without the password), say how it stands, publish finished runs
through the outbox (nothing lost offline, nothing stored twice), list the team's runs."""

from __future__ import annotations

import getpass
import socket
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from pairbench.library import Library, LibraryError
from pairbench.library.run_filter import RunFilter
from pairbench.library.team import local
from pairbench.library.team.entity_local import Kind, forget_entities
from pairbench.library.team.errors import (
    STOPS_A_PUSH,
    TeamLockedError,
    TeamTimeoutError,
    TeamUnreachableError,
)
from pairbench.library.team.locks import locked_message
from pairbench.library.team.store import TeamError, TeamRun, TeamStore
from pairbench.remote.secrets import keyring_status, store_secret, stored_secret
from pairbench.services.team_entities import EntityPush, EntityTally, prepare, publish_entities
from pairbench.services.team_entities import waiting as entities_waiting
from pairbench.services.team_outbox import publishing_due

SCHEMES = ("postgresql", "postgres")
# How long a call waits for the server to answer (a lock wait included); the environment's
# PAIRBENCH_TEAM_TIMEOUT replaces both (library/team/connect.py).
CONNECT_TIMEOUT_S = 10.0
AUTO_TIMEOUT_S = 3.0  # an automatic publish after a command never holds it up longer

OK, LOCKED, SILENT, UNREACHABLE, REFUSED = "ok", "locked", "not answering", "unreachable", "error"


class TeamSetupError(ValueError):
    """A team library that cannot be set up as asked (bad address, no team configured)."""


@dataclass(frozen=True, slots=True)
class TeamStatus:
    """Where this library stands with its team server."""

    url: str
    name: str
    auto: bool
    pending: int
    published: int
    reachable: bool = False
    error: str = ""
    role: str = ""
    can_publish: bool = False
    schema: int | None = None
    team_runs: int | None = None
    last_error: str = ""
    suites_waiting: int = 0
    campaigns_waiting: int = 0
    state: str = ""  # OK, LOCKED (it answered; a table is locked), SILENT, UNREACHABLE, REFUSED


@dataclass(frozen=True, slots=True)
class PushResult:
    """What a push did: runs stored now, runs the server had already (stored once), runs
    still waiting, and why it stopped early (empty when it did not); the same of suites and
    campaigns."""

    pushed: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)
    pending: int = 0
    error: str = ""
    suites: EntityTally = field(default_factory=EntityTally)
    campaigns: EntityTally = field(default_factory=EntityTally)


def split_url(url: str) -> tuple[str, str | None]:
    """``postgresql://user[:password]@host[:port]/db[?…]`` → (the address without the
    password, the password or None); ``TeamSetupError`` for anything else."""
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise TeamSetupError(
            f"a team library is a PostgreSQL address such as postgresql://alice@db.example/"
            f"pairbench, got {url!r}"
        )
    if not parts.path.strip("/"):
        raise TeamSetupError(f"{url!r} names no database: add it, e.g. …/pairbench")
    password = parts.password
    user = parts.username or ""
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc = f"{urllib.parse.quote(urllib.parse.unquote(user), safe='')}@" if user else ""
    netloc += host + (f":{parts.port}" if parts.port else "")
    clean = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, ""))
    return clean, None if password is None else urllib.parse.unquote(password)


def _account(url: str) -> str:
    return f"team:{url}"


def default_name() -> str:
    """Who publishes, unless told: the user and this computer."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "someone"
    return f"{user}@{socket.gethostname()}"


def _open(url: str, password: str | None = None, timeout_s: float = CONNECT_TIMEOUT_S) -> TeamStore:
    secret = password if password is not None else stored_secret(_account(url))
    return TeamStore.connect(url, password=secret, timeout_s=timeout_s)


def open_store(url: str, *, timeout_s: float = CONNECT_TIMEOUT_S) -> TeamStore:
    """A connection to the team server at ``url`` (the password from the OS keyring or
    libpq's own sources); the caller closes it."""
    return _open(url, timeout_s=timeout_s)


def connect(
    lib: Library,
    url: str,
    *,
    name: str = "",
    auto: bool = True,
    password: str | None = None,
) -> TeamStatus:
    """Connect this library to a team server: check it (creating the tables when the role
    may), then keep its address (never a password: that goes to the OS keyring, or stays in
    libpq's ``~/.pgpass`` / ``PGPASSWORD``). ``TeamError`` says what failed; nothing is kept
    then."""
    clean = check_server(url, password=password)
    keep_connection(lib, clean, name=name, auto=auto)
    return status(lib)


def check_server(url: str, *, password: str | None = None) -> str:
    """The network half of ``connect`` (no library: the window runs it in a thread of its
    own): the password, if any, into the OS keyring; the server reached and its tables made
    when the role may. The address without its password."""
    clean, in_url = split_url(url)
    secret = password if password is not None else in_url
    if secret is not None and not store_secret(_account(clean), secret):
        _, why = keyring_status()
        raise TeamSetupError(
            f"the password cannot be kept ({why}); Pairbench never writes it in the library or "
            f"a config file: put it in ~/.pgpass (host:port:database:user:password) or "
            f"PGPASSWORD, and connect with the address alone"
        )
    with _open(clean, secret) as store:
        store.ensure_schema(create=True)
    return clean


def keep_connection(lib: Library, clean: str, *, name: str = "", auto: bool = True) -> None:
    """The library half of ``connect``: keep the (checked) address and the settings."""
    if local.get_setting(lib, local.URL) != clean:
        local.forget_published(lib)
        forget_entities(lib)
    local.set_setting(lib, local.URL, clean)
    local.set_setting(lib, local.NAME, name.strip() or default_name())
    local.set_setting(lib, local.AUTO, "on" if auto else "off")


def configured_url(lib: Library) -> str:
    """The team server's address; ``TeamSetupError`` when this library has none."""
    url = local.get_setting(lib, local.URL)
    if not url:
        raise TeamSetupError(
            "this library has no team library: `pairbench team connect postgresql://USER@HOST/DB`"
        )
    return url


def status(lib: Library) -> TeamStatus:
    """The settings, the outbox and what the server says (or why it cannot be reached)."""
    return server_status(local_status(lib))


def local_status(lib: Library) -> TeamStatus:
    """The settings and the outbox, from the library alone (no network)."""
    url = configured_url(lib)
    queued = local.outbox(lib)
    entities = entities_waiting(lib)
    return TeamStatus(
        url=url,
        name=local.get_setting(lib, local.NAME) or default_name(),
        auto=local.get_setting(lib, local.AUTO) == "on",
        pending=len(queued),
        published=local.published_count(lib),
        last_error=next((q.last_error for q in reversed(queued) if q.last_error), ""),
        suites_waiting=entities["suite"],
        campaigns_waiting=entities["campaign"],
    )


def server_status(base: TeamStatus) -> TeamStatus:
    """``base`` with what its server says: reachable, the role's rights, the schema, how many
    runs it holds, a table another session holds locked (who; then nothing waits on it), or
    why it cannot be reached or used. Network only: any thread."""
    answered = base
    try:
        with _open(base.url) as store:
            answered = replace(base, reachable=True)
            answered = replace(answered, schema=store.ensure_schema(create=False))
            role, can_publish = store.who()
            answered = replace(answered, role=role, can_publish=can_publish)
            holders = store.table_locks()
            if holders:
                text = locked_message(store.target, holders)
                return replace(answered, state=LOCKED, error=f"{text}; publishing waits for it")
            return replace(answered, state=OK, team_runs=store.count_runs())
    except TeamError as exc:
        return replace(answered, state=state_of(exc), error=str(exc))


def state_of(exc: TeamError) -> str:
    """The server's state an error says (``TeamStatus.state``)."""
    if isinstance(exc, TeamLockedError):
        return LOCKED
    if isinstance(exc, TeamTimeoutError):
        return SILENT
    if isinstance(exc, TeamUnreachableError):
        return UNREACHABLE
    return REFUSED


def push(
    lib: Library,
    run_ids: Sequence[int] = (),
    *,
    every: bool = False,
    timeout_s: float = CONNECT_TIMEOUT_S,
    entities: Sequence[tuple[Kind, int]] = (),
    wait_for_locks: bool = True,
) -> PushResult:
    """Publish the outbox (after queueing ``run_ids`` and ``entities`` (suites, campaigns),
    or every finished run, suite and campaign not yet published with ``every``). Runs go
    one at a time, each in one transaction on the server: a run cut off is not there and
    stays queued; a run the server has is not stored again. Then the suites and campaigns
    waiting whose runs are published (``team_entities``). Without ``wait_for_locks``, a
    table another session holds locked stops it at once (nothing waits on the lock)."""
    url = configured_url(lib)
    skipped = [i for i in dict.fromkeys(run_ids) if local.is_published(lib, i)]
    local.queue_runs(lib, [i for i in run_ids if i not in skipped])
    if every:
        local.queue_unpublished(lib)
    done = prepare(lib, entities, every=every)
    ran_by = local.get_setting(lib, local.NAME) or default_name()
    origin = socket.gethostname()
    pushed: list[int] = []
    error = ""
    try:
        with _open(url, timeout_s=timeout_s) as store:
            store.ensure_schema(create=False)
            if not wait_for_locks:
                store.refuse_if_locked("publish now")
            for queued in local.outbox(lib):
                run_id = queued.run_id
                uuid = local.run_uuid(lib, run_id)
                try:
                    stored = store.publish(lib, run_id, uuid, ran_by=ran_by, origin=origin)
                except STOPS_A_PUSH as exc:
                    local.mark_failed(lib, run_id, str(exc))
                    error = str(exc)
                    break  # gone, silent, locked or refusing every write: the rest waits
                except TeamError as exc:
                    local.mark_failed(lib, run_id, str(exc))
                    error = str(exc)
                    continue
                local.mark_published(lib, run_id, uuid, url)
                (pushed if stored else skipped).append(run_id)
            else:
                done = publish_entities(
                    lib, store, url, ran_by=ran_by, origin=origin, prepared=done
                )
                error = error or done.error
    except TeamError as exc:
        error = str(exc)
    return _pushed(lib, pushed, skipped, error, done)


def _pushed(
    lib: Library, pushed: list[int], skipped: list[int], error: str, done: EntityPush
) -> PushResult:
    waiting = entities_waiting(lib)
    return PushResult(
        pushed,
        skipped,
        len(local.outbox(lib)),
        error,
        replace(done.suites, pending=waiting["suite"]),
        replace(done.campaigns, pending=waiting["campaign"]),
    )


def publish_waiting(lib: Library, *, timeout_s: float = AUTO_TIMEOUT_S) -> PushResult | None:
    """After a command that stored runs: publish the outbox when this library publishes
    automatically (quickly: a server out of reach leaves the runs waiting); None when there
    is nothing to do."""
    if not publishing_due(lib):
        return None
    return push(lib, timeout_s=timeout_s, wait_for_locks=False)


def team_runs(lib: Library, flt: RunFilter | None = None) -> list[TeamRun]:
    """The team library's runs that match ``flt`` (the local list's filter, order and page,
    applied by the server), newest first by default; ``TeamError`` when it cannot be read."""
    with _open(configured_url(lib)) as store:
        store.ensure_schema(create=False)
        return store.list_runs(flt=flt)


def push_file(path: Path, *, every: bool = False) -> PushResult:
    """``push`` on a connection of its own to the library at ``path`` (for a thread other than
    the one holding the library: the window's "Publish now")."""
    with Library.open(path, recover=False, check=False) as lib:
        return push(lib, every=every)


__all__ = [
    "LibraryError",
    "PushResult",
    "TeamError",
    "TeamRun",
    "TeamSetupError",
    "TeamStatus",
    "configured_url",
    "connect",
    "open_store",
    "push",
    "push_file",
    "split_url",
    "status",
    "team_runs",
]
