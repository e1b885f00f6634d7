"""What a run ran, exactly: each host's argv (as one shell-quoted line too), its
environment, the files uploaded for it (uperf's profile) and the tool's version; stored with
the run as its ``commands`` analysis, so the run can be read, repeated and audited."""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from pairbench.tools.base import Commands

COMMANDS_KIND = "commands"


def _one(host: str, argv: Sequence[str], env: Mapping[str, str]) -> dict[str, Any]:
    return {"host": host, "argv": list(argv), "line": shlex.join(argv), "env": dict(env)}


def command_record(
    commands: Commands,
    *,
    client_host: str,
    server_host: str,
    tool_version: str,
    workdir: str = "",
) -> dict[str, Any]:
    """The record of a run's commands: ``main`` (the command whose exit ends the run, on
    the client host or, for fio, the server host), ``server`` (or None), ``files`` (name →
    content, uploaded into ``workdir``), ``tool_version``."""
    main_host = server_host if commands.run_on == "server" else client_host
    return {
        "tool_version": tool_version,
        "main": _one(main_host, commands.client, commands.env),
        "server": None if commands.server is None else _one(server_host, commands.server, {}),
        "files": dict(commands.files),
        "workdir": workdir,
    }
