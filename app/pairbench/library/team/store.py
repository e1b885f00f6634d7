"""The team library: runs published to a PostgreSQL server, in the local library's layout."""

from __future__ import annotations

import dataclasses
import uuid as uuidlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict

from pairbench.domain import Run, RunStatus
from pairbench.library.closing import ClosedOnExit
from pairbench.library.connection import Library
from pairbench.library.run_filter import RunFilter
from pairbench.library.run_rows import COLUMNS, runs_from_rows
from pairbench.library.team.connect import Bounds, bounds, connect_settings, describe
from pairbench.library.team.errors import (
    TeamAuthError,
    TeamError,
    TeamLockedError,
    TeamPermissionError,
    TeamSchemaError,
    TeamTimeoutError,
    TeamUnreachableError,
    connect_error,
    ended_error,
    first_line,
    locked_error,
    schema_version_error,
    silent_error,
)
from pairbench.library.team.filter import order_page, where_clause
from pairbench.library.team.live import notify_live, replace_live_copy
from pairbench.library.team.locks import LockHolder, lock_holders
from pairbench.library.team.publish import LOCAL_RUN, copy_run, local_snapshot
from pairbench.library.team.schema import SCHEMA_VERSION, SchemaVersionError, migrate, read_version
from pairbench.library.team.series import assemble
from pairbench.library.team.watchdog import CallWatchdog

if TYPE_CHECKING:
    from pairbench.library.series import SeriesArrays

_Conn = psycopg.Connection[tuple[Any, ...]]


class TeamRun(NamedTuple):
    """A run of the team library: the run as the local library builds it, and who ran it
    (a tuple: thousands are made per listing)."""

    run: Run
    uuid: str
    ran_by: str
    origin: str
    published_at: float


_TEAM_COLUMNS = COLUMNS + ", uuid::text, ran_by, origin, published_at"


class TeamStore(ClosedOnExit):
    """One connection to a team library (one per thread, as a ``Library``). Every call on it
    is bounded (``connect.Bounds``): a server that does not answer in time is an error."""

    def __init__(self, conn: _Conn, target: str, limits: Bounds | None = None) -> None:
        self._conn = conn
        self.target = target  # user@host:port/db, never the password
        self.bounds = limits or Bounds(10.0)
        self._watch = CallWatchdog(lambda: conn.pgconn.socket, self.bounds.quiet_s)

    @classmethod
    def connect(
        cls, url: str, *, password: str | None = None, timeout_s: float = 10.0
    ) -> TeamStore:
        """Connect to ``url`` (a libpq URL or conninfo string).

        ``password`` is passed to libpq when given; otherwise libpq's own sources apply
        (PGPASSWORD, ~/.pgpass, PGSERVICE, a client certificate). Nothing is stored.
        ``timeout_s`` bounds the connection and each call's answer (``$PAIRBENCH_TEAM_TIMEOUT``
        replaces it); keepalives, TCP user timeouts and the server's own timeouts make a cut
        network or a frozen peer an error within seconds instead of a hang (``connect``).
        """
        target = describe(url)
        try:
            given = conninfo_to_dict(url)
            limits = bounds(timeout_s)
        except psycopg.ProgrammingError as exc:
            raise TeamError(f"team library URL {target!r} is not valid: {exc}") from exc
        except ValueError as exc:
            raise TeamError(f"cannot connect to team library {target}: {exc}") from exc
        kwargs = connect_settings(given, limits)
        kwargs["autocommit"] = True
        if password is not None:
            kwargs["password"] = password
        try:
            conn = psycopg.connect(url, **kwargs)
        except psycopg.ProgrammingError as exc:
            raise TeamError(f"team library URL {target!r} is not valid: {exc}") from exc
        except psycopg.OperationalError as exc:
            raise connect_error(target, exc, password is not None) from exc
        return cls(conn, target, limits)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._watch.close()
        self._conn.close()

    def abort(self) -> None:
        """Cut the connection now, from any thread: a call in progress fails at once (a
        publisher told to stop does not wait for a server that does not answer)."""
        self._watch.cut()

    def refuse_if_locked(self, doing: str) -> None:
        """``TeamLockedError`` at once when another session holds a table of the team
        library locked (a caller that must not wait on it: the publish after a command)."""
        holders = self.table_locks()
        if holders:
            raise locked_error(doing, self.target, holders, None)

    def schema_version(self) -> int | None:
        """The server's schema version; None when the database has no Pairbench schema."""
        with self._errors("read the schema version"):
            return read_version(self._conn)

    def ensure_schema(self, *, create: bool = True) -> int:
        """Check the server's schema, creating or upgrading it when ``create`` allows.

        Returns the schema version. A newer schema raises ``TeamSchemaError``; a role that may
        not create tables gets ``TeamPermissionError`` (a writer must connect first).
        """
        version = self.schema_version()
        if version is not None and version > SCHEMA_VERSION:
            raise TeamSchemaError(
                f"team library {self.target} has schema version {version}, newer than this "
                f"Pairbench understands ({SCHEMA_VERSION}); update Pairbench"
            )
        if version == SCHEMA_VERSION or not create:
            return version or 0
        role = self.who()[0]
        try:
            with self._errors("create the team library's tables", self.bounds.statement_s):
                version = migrate(self._conn)
        except TeamPermissionError as exc:
            if not version:
                raise TeamPermissionError(
                    f"role {role} may not create the team library's tables in {self.target}: "
                    f"a writer with CREATE rights on the schema must connect first "
                    f"(Pairbench never widens rights)"
                ) from exc
            raise TeamPermissionError(
                f"role {role} may not upgrade the team library in {self.target} from schema "
                f"version {version} to {SCHEMA_VERSION}: only the owner of its tables "
                f"({self._owner()}) may; let that role connect with this Pairbench once "
                f"(Pairbench never widens rights)"
            ) from exc
        if version > SCHEMA_VERSION:
            raise TeamSchemaError(
                f"team library {self.target} was upgraded meanwhile to schema version "
                f"{version}, newer than this Pairbench understands; update Pairbench"
            )
        return version

    def who(self) -> tuple[str, bool]:
        """The role connected, and whether it may publish (INSERT on runs, or create them)."""
        with self._errors("read the role's rights"):
            row = self._conn.execute(
                "SELECT current_user::text, CASE WHEN to_regclass('runs') IS NULL "
                "THEN coalesce(has_schema_privilege(current_schema(), 'CREATE'), false) "
                "ELSE has_table_privilege('runs', 'INSERT') END"
            ).fetchone()
        assert row is not None
        return str(row[0]), bool(row[1])

    def existing(self, uuids: Sequence[str]) -> set[str]:
        """Which of these run UUIDs the team library holds (as given)."""
        wanted = {_uuid(u): u for u in uuids}
        if not wanted:
            return set()
        with self._errors("look up runs"):
            rows = self._conn.execute(
                "SELECT uuid::text FROM runs WHERE uuid = ANY(%s::uuid[])", (list(wanted),)
            ).fetchall()
        return {wanted[str(row[0])] for row in rows}

    def publish(
        self, lib: Library, run_id: int, uuid: str, *, ran_by: str, origin: str, live: bool = False
    ) -> bool:
        """Publish local run ``run_id`` of ``lib`` under ``uuid``, all of it in one transaction.

        Returns True when stored, False when the team library already holds this UUID (a run
        is stored once). A failure midway leaves nothing of the run on the server. ``live``:
        the run may still be running; its copy so far replaces the last one (watchers hear
        of it: ``team_live``), and the finished run's publish replaces the last live copy.
        """
        key = _uuid(uuid)
        with local_snapshot(lib.conn):
            row = lib.conn.execute(
                f"SELECT {LOCAL_RUN} FROM runs WHERE id = ?", (run_id,)
            ).fetchone()
            if row is None:
                raise TeamError(f"there is no run {run_id} in library {lib.path} to publish")
            if row[4] == RunStatus.RUNNING.value and not live:
                raise TeamError(f"run {run_id} is still running; it is published when it ends")
            with self._errors(f"publish run {run_id}"), self._conn.transaction():
                replaced = replace_live_copy(self._conn, key)
                stored = copy_run(
                    self._conn, lib.conn, run_id, row, key, ran_by, origin, self._watch.progress
                )
                if stored and (live or replaced):
                    notify_live(self._conn, key)
                return stored

    def list_runs(self, *, limit: int | None = None, flt: RunFilter | None = None) -> list[TeamRun]:
        """The team's runs matching ``flt`` in its order (newest first: start time, then the
        server's id), at most ``limit`` of them (``flt.limit`` when not given)."""
        flt = flt or RunFilter()
        if limit is not None:
            flt = dataclasses.replace(flt, limit=max(0, limit))
        with self._errors("list runs"):  # binary rows: numbers decode without parsing text
            where, args = where_clause(flt, self._conn)
            sql = f"SELECT {_TEAM_COLUMNS} FROM runs{where}{order_page(flt, args)}"
            rows = self._conn.cursor(binary=True).execute(sql.encode(), args).fetchall()
        runs = runs_from_rows(rows)
        return [TeamRun(run, *r[-4:]) for run, r in zip(runs, rows, strict=True)]

    def runs_by_uuid(self, uuids: Sequence[str]) -> dict[str, TeamRun]:
        """The team's runs of these UUIDs, by UUID as given (a UUID it lacks is left out)."""
        wanted = {_uuid(u): u for u in uuids}
        if not wanted:
            return {}
        sql = f"SELECT {_TEAM_COLUMNS} FROM runs WHERE uuid = ANY(%s::uuid[])"
        with self._errors("read runs"):
            rows = self._conn.cursor(binary=True).execute(sql.encode(), (list(wanted),)).fetchall()
        runs = runs_from_rows(rows)
        found = [TeamRun(run, *r[-4:]) for run, r in zip(runs, rows, strict=True)]
        return {wanted[t.uuid]: t for t in found}

    def count_runs(self, flt: RunFilter | None = None) -> int:
        """How many of the team's runs match ``flt`` (its order, limit and offset aside)."""
        with self._errors("count runs"):
            where, args = where_clause(flt or RunFilter(), self._conn)
            row = self._conn.execute(f"SELECT count(*) FROM runs{where}".encode(), args).fetchone()
        return 0 if row is None else int(row[0])

    def run_choices(self) -> tuple[list[str], list[str]]:
        """The pairs and the tools the team's runs name, sorted (a list's filter choices)."""
        with self._errors("read the pairs and tools"):
            pairs = self._conn.execute("SELECT DISTINCT pair FROM runs ORDER BY 1").fetchall()
            tools = self._conn.execute("SELECT DISTINCT tool FROM runs ORDER BY 1").fetchall()
        return [str(r[0]) for r in pairs], [str(r[0]) for r in tools]

    def load_series(self, uuid: str) -> list[SeriesArrays]:
        """A team run's series as ``library.series.load_series`` gives a local run's."""
        key = _uuid(uuid)
        with self._errors("load series"), self._conn.transaction():
            cur = self._conn.cursor(binary=True)
            found = cur.execute("SELECT id FROM runs WHERE uuid = %s::uuid", (key,)).fetchone()
            if found is None:
                raise TeamError(f"the team library has no run {uuid}")
            run = int(found[0])
            meta = cur.execute(
                "SELECT id, stream, metric, unit FROM series WHERE run_id = %s "
                "ORDER BY stream <> 'sum', stream, metric",
                (run,),
            ).fetchall()
            times: dict[int, bytes] = dict(
                cur.execute("SELECT id, t FROM times WHERE run_id = %s", (run,))
            )
            chunks: dict[int, list[tuple[int, bytes]]] = {}
            for series_id, time_id, v in cur.execute(
                "SELECT c.series_id, c.time_id, c.v FROM chunks c JOIN series s "
                "ON s.id = c.series_id WHERE s.run_id = %s ORDER BY c.series_id, c.seq",
                (run,),
            ):
                chunks.setdefault(series_id, []).append((time_id, v))
        return assemble(meta, times, chunks)

    def table_locks(self) -> list[LockHolder]:
        """Other sessions holding the team library's tables in a mode that holds up a
        publish or a listing (empty when none does)."""
        with self._errors("read the server's locks"):
            return lock_holders(self._conn)

    @contextmanager
    def _errors(self, doing: str, extra_s: float = 0.0) -> Iterator[None]:
        """A call to the server, bounded (``quiet_s``, plus ``extra_s`` the caller lets the
        server take), with psycopg's errors as ``TeamError``s that say what failed and what
        to do."""
        try:
            with self._watch.call(extra_s):
                yield
        except psycopg.Error as exc:
            self._raise(doing, exc)
        except SchemaVersionError as exc:
            raise schema_version_error(self.target, exc.found, SCHEMA_VERSION) from exc

    def _aside(self, sql: str) -> str | None:
        """One text value for a message, bounded; None when the server cannot say."""
        try:
            with self._watch.call():
                row = self._conn.execute(sql.encode()).fetchone()
        except psycopg.Error:
            row = None
        return str(row[0]) if row else None

    def _owner(self) -> str:
        """The role owning the team library's tables (who may upgrade them)."""
        owner = self._aside(
            "SELECT tableowner::text FROM pg_tables "
            "WHERE schemaname = current_schema() AND tablename = 'pb_meta'"
        )
        return owner or "unknown"

    def _role(self) -> str:
        """The connected role's name, for a message (the URL's user if the server cannot say)."""
        return self._aside("SELECT current_user::text") or self.target.partition("@")[0]

    def _raise(self, doing: str, exc: psycopg.Error) -> NoReturn:
        waited = self._watch.fired_after
        if waited is not None:
            raise silent_error(doing, self.target, waited) from exc
        if isinstance(exc, pg_errors.LockNotAvailable):
            try:
                holders = self.table_locks()
            except TeamError:
                holders = []
            raise locked_error(doing, self.target, holders, self.bounds.answer_s) from exc
        if isinstance(exc, pg_errors.InsufficientPrivilege):
            raise TeamPermissionError(
                f"role {self._role()} may not {doing} in team library {self.target} "
                f"({first_line(exc)}): a read-only member, or a role without that right; "
                f"the database's owner may GRANT it (Pairbench never widens rights)"
            ) from exc
        if isinstance(exc, pg_errors.UndefinedTable):
            raise TeamError(
                f"cannot {doing}: team library {self.target} has no Pairbench tables yet; "
                f"a writer must connect first (`pairbench team connect`)"
            ) from exc
        if isinstance(exc, pg_errors.DuplicateTable):
            raise TeamError(
                f"cannot {doing}: database {self.target} already holds tables of another "
                f"program ({first_line(exc)}); give the team library a database of its own"
            ) from exc
        if isinstance(exc, pg_errors.QueryCanceled):
            raise ended_error(doing, self.target, self.bounds.statement_s, exc) from exc
        if isinstance(exc, psycopg.OperationalError) or self._conn.closed:
            raise TeamUnreachableError(
                f"cannot {doing}: team library {self.target} went away "
                f"({first_line(exc)}); the server keeps whole transactions only, so nothing "
                f"half-done stays there; try again when it is back"
            ) from exc
        raise TeamError(f"cannot {doing} in team library {self.target}: {exc}") from exc


def _uuid(text: str) -> str:
    try:
        return str(uuidlib.UUID(str(text)))
    except ValueError as exc:
        raise TeamError(f"{text!r} is not a run UUID") from exc


__all__ = [
    "SCHEMA_VERSION",
    "TeamAuthError",
    "TeamError",
    "TeamLockedError",
    "TeamPermissionError",
    "TeamRun",
    "TeamSchemaError",
    "TeamStore",
    "TeamTimeoutError",
    "TeamUnreachableError",
]
