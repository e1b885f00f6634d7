"""Commands on a library whose disk is full, one free block at a time: for each of the spare
files given (1 KiB each, one disk block), the commands run, then the spare is removed and the
journal committed, so the next round has one block more. SIGBUS struck only at a few exact
amounts of room, so every amount from none to the spares' count is tried.

Each command runs in a child forked from this process (pairbench is imported once, so a
round costs a fork, not an interpreter); a child killed by a signal cannot take this process
with it. One line per command and round on stdout: ``free COMMAND STATUS``, STATUS being the
exit status (70 if it raised), or ``-N`` for a death by signal N.

Usage: full_disk_child.py LIBRARY MOUNT SPARE...
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from contextlib import redirect_stderr, redirect_stdout

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli

COMMANDS = (("runs", "list"), ("library", "check"))


def _status_of(library: str, command: tuple[str, ...]) -> int:
    """The command's exit status in a forked child, or minus the signal that killed it."""
    pid = os.fork()
    if pid == 0:  # the child: the real CLI, its output thrown away
        status = 70
        try:
            sink = io.StringIO()
            with redirect_stdout(sink), redirect_stderr(sink):
                status = run_cli(["--library", library, *command], _quiet())
        finally:
            os._exit(status)
    _, wait_status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(wait_status):
        return -os.WTERMSIG(wait_status)
    return os.WEXITSTATUS(wait_status)


def _quiet() -> Environment:
    sink = io.StringIO()
    return Environment(stdout=sink, stderr=sink)


def main(library: str, mount: str, spares: list[str]) -> None:
    with tempfile.TemporaryDirectory() as scratch:  # the commands' imports, done once here
        for command in COMMANDS:
            run_cli(["--library", os.path.join(scratch, "warm-up.sqlite"), *command], _quiet())
    folder = os.open(mount, os.O_RDONLY)
    for free in range(len(spares) + 1):
        for command in COMMANDS:
            print(f"{free} {'-'.join(command)} {_status_of(library, command)}", flush=True)
        if free < len(spares):
            os.unlink(spares[free])
            os.fsync(folder)  # commits the journal: only then is the block free again


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
