"""How a team library connection is opened: libpq defaults for a cut network on both ends,
derived from the URL's own keepalive settings, the server's own bounds on a lock wait, a
statement and an idle transaction, what the URL sets kept as it is, and the bounds the
environment may change."""

from __future__ import annotations

import pytest

from pairbench.library.team.connect import Bounds, bounds, connect_settings, describe


def _options(settings: dict[str, object]) -> dict[str, str]:
    parts = str(settings["options"]).split("-c ")
    found: dict[str, str] = {}
    for part in parts:
        if part.strip():
            key, value = part.strip().split("=", 1)
            found[key] = value  # a later one wins, as on the server
    return found


def test_defaults_make_a_dead_peer_an_error_within_seconds_on_both_ends() -> None:
    settings = connect_settings({}, Bounds(10.0))
    assert settings["keepalives"] == 1 and settings["connect_timeout"] == 10
    idle, every, count = (
        settings[k] for k in ("keepalives_idle", "keepalives_interval", "keepalives_count")
    )
    assert (idle, every, count) == (10, 3, 3) and settings["tcp_user_timeout"] == 30_000
    server = _options(settings)
    # The server ends a session whose client vanished as soon as the client gives up...
    assert server["tcp_keepalives_idle"] == str(idle)
    assert server["tcp_keepalives_interval"] == str(every)
    assert server["tcp_keepalives_count"] == str(count)
    assert server["tcp_user_timeout"] == "30000"
    # ...gives up a lock wait after the answer bound, and ends a statement or an idle
    # transaction (a frozen client's) after the statement bound.
    assert server["lock_timeout"] == "10000"
    assert server["statement_timeout"] == server["idle_in_transaction_session_timeout"]
    assert server["statement_timeout"] == "120000"


def test_the_client_waits_on_a_silent_call_a_little_past_the_servers_lock_wait() -> None:
    for answer in (0.5, 3.0, 10.0, 60.0):
        limits = Bounds(answer)
        assert limits.quiet_s >= answer + 2.0
        lock_ms = int(_options(connect_settings({}, limits))["lock_timeout"])
        assert lock_ms / 1000 < limits.quiet_s
    assert connect_settings({}, Bounds(0.5))["connect_timeout"] == 2  # libpq's least


def test_what_the_url_sets_is_kept_and_drives_the_servers_side() -> None:
    given = {"keepalives_idle": "1", "keepalives_interval": "1", "keepalives_count": "2"}
    settings = connect_settings({**given, "tcp_user_timeout": "3000"}, Bounds(10.0))
    assert not set(given) & set(settings)  # the URL's own values are not overridden
    server = _options(settings)
    assert (server["tcp_keepalives_idle"], server["tcp_user_timeout"]) == ("1", "3000")
    own = connect_settings({"options": "-c statement_timeout=5000"}, Bounds(10.0))
    assert str(own["options"]).endswith("-c statement_timeout=5000")  # after ours: it wins
    assert _options(own)["statement_timeout"] == "5000"
    assert _options(own)["lock_timeout"] == "10000"  # what it does not name keeps its bound


def test_the_environment_changes_the_bounds_and_a_bad_value_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PAIRBENCH_TEAM_TIMEOUT", raising=False)
    monkeypatch.delenv("PAIRBENCH_TEAM_STATEMENT_TIMEOUT", raising=False)
    assert bounds(3.0) == Bounds(3.0, 120.0)
    monkeypatch.setenv("PAIRBENCH_TEAM_TIMEOUT", "1.5")
    monkeypatch.setenv("PAIRBENCH_TEAM_STATEMENT_TIMEOUT", "30")
    assert bounds(3.0) == Bounds(1.5, 30.0)
    for bad in ("abc", "0", "-2", "nan", "inf", "1e9"):
        monkeypatch.setenv("PAIRBENCH_TEAM_TIMEOUT", bad)
        with pytest.raises(ValueError, match=r"PAIRBENCH_TEAM_TIMEOUT=.* is not a number of"):
            bounds(3.0)


def test_an_address_is_described_without_its_password() -> None:
    text = describe("postgresql://alice:s3cret@db.example:5433/pairbench")
    assert text == "alice@db.example:5433/pairbench" and "s3cret" not in text
