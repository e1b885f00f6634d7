"""What every command prints the same way: one ``pairbench: ...`` error line, one safe line."""

from __future__ import annotations

from pairbench.cli.environment import Environment
from pairbench.cli.exit_status import ExitStatus
from pairbench.export.escaping import terminal_text


def fail(env: Environment, message: object, status: ExitStatus = ExitStatus.ERROR) -> ExitStatus:
    """Print one ``pairbench: ...`` line on stderr and return ``status``."""
    env.err(terminal_text(f"pairbench: {message}"))
    return status


def say(env: Environment, line: str) -> None:
    """Print one line on stdout; names, tags and descriptions in it may come from an imported
    file, so it goes through ``terminal_text`` (control characters shown as escapes)."""
    env.out(terminal_text(line))
