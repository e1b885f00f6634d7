"""How a team library connection is opened: libpq's settings for a cut network, on both
ends. The client gives up on a dead server within seconds (keepalives, a TCP user timeout);
the server is asked (per session, ``options``) to end a session whose client vanished just as
soon, so a publish cut mid-transaction does not hold its run's row locked for hours; and a
publish waits at most that long for such a row (``lock_timeout``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import psycopg
from psycopg.conninfo import conninfo_to_dict


def connect_settings(given: Mapping[str, object], timeout_s: float) -> dict[str, Any]:
    """libpq keyword arguments for a connection whose URL says ``given`` (what it sets
    itself is kept: these are defaults only)."""
    defaults: dict[str, Any] = {
        "connect_timeout": max(2, round(timeout_s)),
        "application_name": "pairbench",
        "keepalives": 1,
        "keepalives_idle": max(1, round(timeout_s)),
        "keepalives_interval": max(1, round(timeout_s / 3)),
        "keepalives_count": 3,
        "tcp_user_timeout": max(1000, round(timeout_s * 3000)),
    }
    out = {k: v for k, v in defaults.items() if k not in given}
    if "options" not in given:
        idle, every, count = (
            int(str(given.get(k) or defaults[k]))
            for k in ("keepalives_idle", "keepalives_interval", "keepalives_count")
        )
        user_ms = int(str(given.get("tcp_user_timeout") or defaults["tcp_user_timeout"]))
        gone_ms = (idle + every * count) * 1000  # when the server ends a vanished client
        out["options"] = " ".join(
            (
                f"-c tcp_keepalives_idle={idle}",
                f"-c tcp_keepalives_interval={every}",
                f"-c tcp_keepalives_count={count}",
                f"-c tcp_user_timeout={user_ms}",
                f"-c lock_timeout={gone_ms + 5000}",
            )
        )
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
