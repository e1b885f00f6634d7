"""How a team library connection is opened: libpq defaults for a cut network on both ends,
derived from the URL's own keepalive settings, and what the URL sets kept as it is."""

from __future__ import annotations

from pairbench.library.team_connect import connect_settings, describe


def _options(settings: dict[str, object]) -> dict[str, str]:
    parts = str(settings["options"]).split("-c ")
    return dict(p.strip().split("=", 1) for p in parts if p.strip())


def test_defaults_make_a_dead_peer_an_error_within_seconds_on_both_ends() -> None:
    settings = connect_settings({}, 10.0)
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
    # ...and a publish waits for a row such a session holds a little longer than that.
    assert int(server["lock_timeout"]) == (idle + every * count) * 1000 + 5000


def test_what_the_url_sets_is_kept_and_drives_the_servers_side() -> None:
    given = {"keepalives_idle": "1", "keepalives_interval": "1", "keepalives_count": "2"}
    settings = connect_settings({**given, "tcp_user_timeout": "3000"}, 10.0)
    assert not set(given) & set(settings)  # the URL's own values are not overridden
    server = _options(settings)
    assert (server["tcp_keepalives_idle"], server["tcp_user_timeout"]) == ("1", "3000")
    assert server["lock_timeout"] == str((1 + 1 * 2) * 1000 + 5000)
    own = connect_settings({"options": "-c statement_timeout=5000"}, 10.0)
    assert "options" not in own  # a URL with its own options keeps them alone


def test_an_address_is_described_without_its_password() -> None:
    text = describe("postgresql://alice:s3cret@db.example:5433/pairbench")
    assert text == "alice@db.example:5433/pairbench" and "s3cret" not in text
