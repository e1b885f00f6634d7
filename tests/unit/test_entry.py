"""One parser for the program: the window or a command, ``--library`` either way; lazy start."""

from __future__ import annotations

import argparse
import gc
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import pairbench.cli.main
import pairbench.main
from pairbench.cli.environment import Environment
from pairbench.cli.main import COMMANDS, Invocation, build_parser, command_in, parse_command_line
from pairbench.library import Library


def _env() -> Environment:
    return Environment(stdout=io.StringIO(), stderr=io.StringIO(), environ={})


def _parsed(*argv: str) -> Invocation:
    parsed = parse_command_line(list(argv), _env())
    assert isinstance(parsed, Invocation), parsed
    return parsed


@pytest.mark.parametrize(
    "argv",
    [["--library=/x/lib.sqlite"], ["--library", "/x/lib.sqlite"]],
)
def test_library_without_a_command_opens_the_window(argv: list[str]) -> None:
    parsed = _parsed(*argv)
    assert parsed.command is None and parsed.library == Path("/x/lib.sqlite")


def test_no_arguments_open_the_window_on_the_default_library() -> None:
    parsed = _parsed()
    assert parsed.command is None and parsed.library is None


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["runs", "list"], "runs"),
        (["--library", "runs", "parse", "x"], "parse"),  # "runs" is the library's name
        (["--library=l.sqlite", "hosts", "list"], "hosts"),
        (["--version"], None),
        (["--", "lab", "status"], "lab"),
    ],
)
def test_command_word(argv: list[str], command: str | None) -> None:
    assert command_in(argv) == command


def test_a_command_with_library(tmp_path: Path) -> None:
    parsed = _parsed(f"--library={tmp_path / 'l.sqlite'}", "runs", "list", "--json")
    assert parsed.command == "runs" and parsed.library == tmp_path / "l.sqlite"
    assert parsed.args.json is True


def test_main_chooses_the_window(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    opened: list[Path] = []

    def fake_window(path: Path) -> int:
        opened.append(path)
        return 7

    monkeypatch.setattr(pairbench.main, "open_window", fake_window)
    monkeypatch.setenv("PAIRBENCH_LIBRARY", str(tmp_path / "env.sqlite"))
    assert pairbench.main.main([f"--library={tmp_path / 'a.sqlite'}"]) == 7
    assert pairbench.main.main(["--library", str(tmp_path / "b.sqlite")]) == 7
    assert pairbench.main.main([]) == 7
    assert opened == [tmp_path / "a.sqlite", tmp_path / "b.sqlite", tmp_path / "env.sqlite"]


def test_main_runs_a_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(pairbench.main, "open_window", lambda path: pytest.fail("window"))
    library = tmp_path / "l.sqlite"
    assert pairbench.main.main([f"--library={library}", "runs", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert library.exists()
    assert pairbench.main.main(["runs", "frobnicate"]) == 2
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("collecting", [True, False])
def test_main_pauses_the_cycle_collector_only_while_starting(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, collecting: bool
) -> None:
    """Off while the parser and command modules are imported; as the caller had it while
    the window or the command runs, and after (a usage error too)."""
    seen: list[bool] = []

    def fake_window(path: Path) -> int:
        seen.append(gc.isenabled())
        return 0

    monkeypatch.setattr(pairbench.main, "open_window", fake_window)
    real_parse = pairbench.cli.main.parse_command_line

    def watched_parse(argv: list[str], env: Environment) -> Invocation | int:
        seen.append(gc.isenabled())
        return real_parse(argv, env)

    monkeypatch.setattr(pairbench.cli.main, "parse_command_line", watched_parse)
    was = gc.isenabled()
    try:
        (gc.enable if collecting else gc.disable)()
        assert pairbench.main.main([f"--library={tmp_path / 'l.sqlite'}"]) == 0
        assert gc.isenabled() is collecting
        assert pairbench.main.main(["runs", "frobnicate"]) == 2
        assert gc.isenabled() is collecting
    finally:
        (gc.enable if was else gc.disable)()
    assert seen == [False, collecting, False]


def test_help_lists_every_command_with_its_modules_help() -> None:
    out = io.StringIO()
    env = Environment(stdout=out, stderr=io.StringIO(), environ={})
    assert parse_command_line(["--help"], env) == 0
    for name in COMMANDS:
        assert f"\n    {name} " in out.getvalue(), name
    # The help each module registers is the one listed without importing it.
    full = build_parser(every_command=True)
    (sub,) = [a for a in full._actions if isinstance(a, argparse._SubParsersAction)]
    registered = {choice.dest: choice.help for choice in sub._choices_actions}
    assert registered == {name: help_text for name, (_, help_text) in COMMANDS.items()}


_HEAVY = ("numpy", "asyncssh", "PySide6", "pyqtgraph", "pairbench.engine", "pairbench.remote")


def _modules_after(argv: list[str], tmp_path: Path) -> set[str]:
    script = (
        "import sys\n"
        "from pairbench.main import main\n"
        f"status = main({argv!r})\n"
        "sys.stdout.flush()\n"
        "print('\\nMODULES', ' '.join(sorted(sys.modules)))\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={"PAIRBENCH_LIBRARY": str(tmp_path / "l.sqlite"), "PATH": "/usr/bin:/bin"},
    )
    return set(done.stdout.rsplit("MODULES", 1)[1].split())


def test_version_imports_no_command(tmp_path: Path) -> None:
    loaded = _modules_after(["--version"], tmp_path)
    assert "pairbench.cli.main" in loaded
    assert not {m for m in loaded if m.startswith(_HEAVY)}
    assert not {m for m in loaded if m.startswith("pairbench.cli.cmd_")}
    assert "sqlite3" not in loaded


def test_runs_list_imports_only_its_command(tmp_path: Path) -> None:
    loaded = _modules_after(["runs", "list", "--json"], tmp_path)
    assert {m for m in loaded if m.startswith("pairbench.cli.cmd_")} == {"pairbench.cli.cmd_runs"}
    assert not {m for m in loaded if m.startswith(_HEAVY)}


def test_listing_an_existing_library_leaves_out_what_it_does_not_use(tmp_path: Path) -> None:
    Library.open(tmp_path / "l.sqlite").close()  # creating one needs `secrets`; opening not
    loaded = _modules_after(["runs", "list", "--json"], tmp_path)
    # Host names and process tokens only matter for running runs; units for the text list.
    assert not {"socket", "secrets", "pairbench.domain.processes"} & loaded
    assert "pairbench.domain.units" not in loaded
