"""How a team library connection is opened, and how long anything on it may wait: libpq's
settings for a cut network on both ends, and the bounds of every call. The client gives up on
a dead server within seconds (keepalives, a TCP user timeout) and on a silent one after its
answer bound (``watchdog``); the server is asked (per session, ``options``) to end a
session whose client vanished just as soon, to give up a lock wait after the answer bound
(``lock_timeout``), and to end a statement or a transaction left idle after the statement
bound, so a frozen client never holds the team's tables for long."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict

ANSWER_ENV = "PAIRBENCH_TEAM_TIMEOUT"  # replaces every call's answer bound (seconds)
STATEMENT_ENV = "PAIRBENCH_TEAM_STATEMENT_TIMEOUT"  # the server's bound on one statement
STATEMENT_S = 120.0  # the COPY of a big run over a slow link fits in it
_MAX_S = 86_400.0


@dataclass(frozen=True, slots=True)
class Bounds:
    """How long a connection's calls may wait: ``answer_s`` for the server to answer (the
    connection, each statement; a lock wait included), ``statement_s`` for the server to
    run one statement (or leave a transaction idle) before it ends it."""

    answer_s: float
    statement_s: float = STATEMENT_S

    @property
    def quiet_s(self) -> float:
        """The client's own bound on a call that hears nothing: a little past the server's
        lock wait, so a locked table is said by the server before the client gives up."""
        return self.answer_s + max(2.0, self.answer_s / 2)


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 0 < value <= _MAX_S:
        raise ValueError(f"{name}={raw[:40]!r} is not a number of seconds (e.g. 10)")
    return value


def bounds(answer_s: float) -> Bounds:
    """The bounds of a connection whose caller allows ``answer_s`` (``$PAIRBENCH_TEAM_TIMEOUT``
    replaces it, ``$PAIRBENCH_TEAM_STATEMENT_TIMEOUT`` the statement bound); ``ValueError``
    names a variable that is not a number of seconds."""
    return Bounds(_seconds(ANSWER_ENV, answer_s), _seconds(STATEMENT_ENV, STATEMENT_S))


def connect_settings(given: Mapping[str, object], limits: Bounds) -> dict[str, Any]:
    """libpq keyword arguments for a connection whose URL says ``given`` (what it sets
    itself is kept: these are defaults only; its own ``options`` come after these, so a
    setting it names wins)."""
    timeout_s = limits.answer_s
    defaults: dict[str, Any] = {
        "connect_timeout": max(2, math.ceil(timeout_s)),
        "application_name": "pairbench",
        "keepalives": 1,
        "keepalives_idle": max(1, round(timeout_s)),
        "keepalives_interval": max(1, round(timeout_s / 3)),
        "keepalives_count": 3,
        "tcp_user_timeout": max(1000, round(timeout_s * 3000)),
    }
    out = {k: v for k, v in defaults.items() if k not in given}
    idle, every, count = (
        int(str(given.get(k) or defaults[k]))
        for k in ("keepalives_idle", "keepalives_interval", "keepalives_count")
    )
    user_ms = int(str(given.get("tcp_user_timeout") or defaults["tcp_user_timeout"]))
    statement_ms = max(1, round(limits.statement_s * 1000))
    ours = " ".join(
        (
            f"-c tcp_keepalives_idle={idle}",
            f"-c tcp_keepalives_interval={every}",
            f"-c tcp_keepalives_count={count}",
            f"-c tcp_user_timeout={user_ms}",
            f"-c lock_timeout={max(1, round(timeout_s * 1000))}",
            f"-c statement_timeout={statement_ms}",
            f"-c idle_in_transaction_session_timeout={statement_ms}",
        )
    )
    own = str(given.get("options") or "").strip()
    out["options"] = f"{ours} {own}" if own else ours
    return out


def describe(url: str) -> str:
    """``user@host:port/dbname`` of a libpq URL or conninfo string, without its password."""
    try:
        info = conninfo_to_dict(url)
    except psycopg.Error:
        return "(an invalid URL)"
    user = info.get("user") or ""
    host = info.get("host") or "localhost"
    port = info.get("port") or ""
    dbname = info.get("dbname") or ""
    return f"{user}{'@' if user else ''}{host}{':' if port else ''}{port}/{dbname}"
