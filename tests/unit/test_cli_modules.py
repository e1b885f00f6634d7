"""The CLI's modules: one per command (``cli/cmd_*.py``), none importing another, what they
share in modules of their own; the import-linter contract that keeps it so lists them all."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from pairbench.cli.main import COMMANDS
from testkit import REPO

CLI = REPO / "app" / "pairbench" / "cli"
CONTRACT = "no cli command module imports another"


def _command_modules() -> set[str]:
    return {f"pairbench.cli.{path.stem}" for path in CLI.glob("cmd_*.py")}


def _imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or in a function (``from pairbench.cli import
    cmd_x`` counts as ``pairbench.cli.cmd_x``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_every_command_module_is_a_command_and_every_command_has_one() -> None:
    assert _command_modules() == {module for module, _help in COMMANDS.values()}


def test_the_contract_lists_every_command_module() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    contract = next(c for c in contracts if c["name"] == CONTRACT)
    assert contract["type"] == "independence"
    assert set(contract["modules"]) == _command_modules()


def test_no_cli_module_imports_a_command_module() -> None:
    """Neither a command (the contract says so too) nor a shared piece: a piece that imported
    a command would make a cycle the moment that command imports the piece."""
    commands = _command_modules()
    found = {
        (path.name, name)
        for path in CLI.glob("*.py")
        if path.name != "main.py"  # it names each command's module, imported when it runs
        for name in _imported(path) & commands
        if name != f"pairbench.cli.{path.stem}"
    }
    assert found == set()
