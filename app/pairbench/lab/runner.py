"""Running the system's own tools (ip, tc, ssh-keygen, sshd) from argv lists, never a shell."""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path

from pairbench.lab.errors import LabError

DEFAULT_TIMEOUT_S = 20.0


def run(
    argv: Sequence[str],
    *,
    ok_errors: Sequence[str] = (),
    timeout: float = DEFAULT_TIMEOUT_S,
    log_file: Path | None = None,
) -> str:
    """Run ``argv`` and return its stdout; ``LabError`` with the command and its stderr if it fails.

    A failure whose stderr contains one of ``ok_errors`` counts as success (e.g. deleting what
    is already gone). ``log_file`` is quoted in the error too (daemons write errors there).
    """
    command = shlex.join(argv)
    try:
        result = subprocess.run(
            list(argv),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError as exc:
        raise LabError(f"`{command}`: {argv[0]} is not installed") from exc
    except subprocess.TimeoutExpired as exc:
        raise LabError(f"`{command}` did not finish within {timeout:g} s") from exc
    if result.returncode == 0:
        return result.stdout
    stderr = result.stderr.strip()
    if any(marker in stderr for marker in ok_errors):
        return result.stdout
    detail = stderr or result.stdout.strip() or "no output"
    if log_file is not None:
        detail += _log_tail(log_file)
    raise LabError(f"`{command}` failed (exit {result.returncode}): {_one_line(detail)}")


def _log_tail(path: Path, lines: int = 5) -> str:
    try:
        tail = path.read_text(errors="replace").strip().splitlines()[-lines:]
    except OSError:
        return ""
    return f" [{path.name}: {' | '.join(tail)}]" if tail else ""


def _one_line(text: str) -> str:
    return " | ".join(line.strip() for line in text.splitlines() if line.strip())
