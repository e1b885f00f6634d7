"""lab.team_server without a server: what it says is missing, and the addresses it gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from pairbench.lab import team_server
from pairbench.lab.errors import LabError


def _programs(folder: Path, names: tuple[str, ...]) -> Path:
    folder.mkdir()
    for name in names:
        (folder / name).write_text("")
    return folder


def test_no_postgresql_is_said_with_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(team_server, "bindir", lambda: None)
    reason = team_server.missing()
    assert reason is not None and "PostgreSQL is not installed" in reason
    assert team_server.INSTALL_HINT in reason
    with pytest.raises(LabError) as info:
        team_server.TeamServer.create()
    assert str(info.value) == reason


def test_each_missing_program_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    needed = ("postgres", "initdb", "pg_ctl", "pg_isready", "psql")
    for absent in needed[2:]:
        folder = _programs(tmp_path / absent, tuple(n for n in needed if n != absent))
        monkeypatch.setattr(team_server, "bindir", lambda folder=folder: folder)
        reason = team_server.missing()
        assert reason is not None and absent in reason and str(folder) in reason


def test_urls_name_the_role_and_database_and_hide_the_password_unless_asked(
    tmp_path: Path,
) -> None:
    server = team_server.TeamServer(tmp_path / "bin", tmp_path, "postgres")
    secret = server.password("alice")
    plain = server.url("alice")
    assert plain == f"postgresql://alice@127.0.0.1:{server.port}/{team_server.DATABASE}"
    assert secret not in plain
    assert server.url("bob", password=True, dbname="other") == (
        f"postgresql://bob:{server.password('bob')}@127.0.0.1:{server.port}/other"
    )
    assert len({server.password(r) for r in (*team_server.WRITERS, *team_server.READERS)}) == 3
    info = server.admin_conninfo("x")
    assert f"host={tmp_path / 'sockets'}" in info and "user=postgres" in info
    assert info.endswith("dbname=x")
