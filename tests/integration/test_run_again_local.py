"""Every run is reproducible, for real: a run on this computer stores the exact commands it
ran (the argv of its server and client), and the ``pairbench run`` line it gives runs again
with the same parameters and the same commands (but for the port and work directory)."""

from __future__ import annotations

import json
import shlex
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from local_run_helpers import PAIRBENCH, cli_json
from testkit import require_program


def _run(library: Path, argv: list[str]) -> dict[str, Any]:
    result = subprocess.run(
        [*PAIRBENCH, "--library", str(library), *argv], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    end: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return end


def test_a_run_stores_its_commands_and_its_line_runs_it_again(tmp_path: Path) -> None:
    require_program("iperf3")
    library = tmp_path / "library.sqlite"
    first = _run(
        library,
        [
            "run",
            "--pair",
            "local",
            "--tool",
            "iperf3",
            "--set",
            "duration=1",
            "--set",
            "streams=2",
            "--set",
            "window=256K",
            "--label",
            "o'clock run",
            "--json",
        ],
    )
    shown = cli_json(library, "runs", "show", str(first["id"]), "--json")
    record = shown["analyses"]["commands"]
    client, server = record["main"]["argv"], record["server"]["argv"]
    assert client[:2] == ["iperf3", "-c"] and client[client.index("-P") + 1] == "2"
    assert client[client.index("-w") + 1] == "256K"
    assert server[:2] == ["iperf3", "-s"] and record["tool_version"] == shown["tool_version"]
    assert shlex.split(record["main"]["line"]) == client  # the line is the argv, quoted once
    line = shown["run_again"]
    argv = shlex.split(line)
    assert argv[:2] == ["pairbench", "run"]
    again = _run(library, [*argv[1:], "--json"])
    with sqlite3.connect(library) as conn:  # a repeat is a run of its own, with its own UUID
        keys = dict(conn.execute("SELECT id, uuid FROM runs"))
    assert keys[first["id"]] and keys[again["id"]] and keys[first["id"]] != keys[again["id"]]
    repeated = cli_json(library, "runs", "show", str(again["id"]), "--json")
    assert repeated["params"] == shown["params"] and repeated["label"] == "o'clock run"
    again_client = repeated["analyses"]["commands"]["main"]["argv"]
    port = client.index("-p") + 1  # the port is whichever was free for the server
    assert again_client[:port] + again_client[port + 1 :] == client[:port] + client[port + 1 :]
