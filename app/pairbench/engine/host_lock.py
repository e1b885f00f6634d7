"""Hosts held by a run, across every Pairbench process of this computer (CLI, windows).

Each host a run uses gets an exclusive ``flock`` on a small file in the lock directory for
the run's whole duration. ``flock`` locks belong to the open file, so two runs in one
process exclude each other too, and the kernel drops a lock when its holder dies: a killed
Pairbench never leaves a host locked. The file holds who took it, for the refusal message.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType

from pairbench.domain import AuthMethod, Host
from pairbench.domain.failures import HostBusyError

LOCK_DIR_ENV = "PAIRBENCH_LOCK_DIR"
# Options of ``pairbench`` itself that take a value (before the command): skipped when the
# command is named.
_GLOBAL_VALUE_OPTIONS = frozenset({"--library"})
_WORD = re.compile(r"[a-z][a-z0-9-]*")  # a subcommand or a tool, not a file or a number


def program_name(argv: Sequence[str] | None = None) -> str:
    """How a user recognises this process in a refusal: "`pairbench run`", "`pairbench
    campaign run`" (the command and its subcommand, never an option's value such as the
    ``--library`` file), or "the Pairbench window" when no command was given."""
    args = list(sys.argv[1:] if argv is None else argv)
    words: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg.startswith("-"):
            if words:
                break  # the command's own options: its name is complete
            skip = arg in _GLOBAL_VALUE_OPTIONS
            continue
        words.append(arg)
        if len(words) == 2:
            break
    if len(words) == 2 and not _WORD.fullmatch(words[1]):
        words = words[:1]  # a file or a number, not a subcommand
    return f"`pairbench {' '.join(words)}`" if words else "the Pairbench window"


def holder_info(pair: str, tool: str, library: Path | str | None) -> dict[str, object]:
    """What a lock file says about the run holding it: enough for another Pairbench (of
    another library, perhaps) to name it: pair, tool, program, pid, library, start time."""
    return {
        "pair": pair,
        "tool": tool,
        "program": program_name(),
        "pid": os.getpid(),
        "library": str(Path(library).resolve()) if library is not None else "",
        "started_at": time.time(),
    }


def host_key(host: Host) -> str:
    """What identifies a host for locking: this computer, or user@address:port."""
    if host.auth is AuthMethod.LOCAL or host.is_local:
        return "this-computer"
    return f"{host.user or 'root'}@{host.address}:{host.port}"


def lock_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$PAIRBENCH_LOCK_DIR``, else ``$XDG_RUNTIME_DIR/pairbench``, else a private folder
    in /tmp for this user."""
    env = os.environ if environ is None else environ
    if env.get(LOCK_DIR_ENV):
        return Path(env[LOCK_DIR_ENV])
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        return Path(runtime) / "pairbench"
    return Path(f"/tmp/pairbench-locks-{os.getuid()}")


class HostLocks:
    """Exclusive locks on the hosts of one run; refuse at once if any is held."""

    def __init__(
        self,
        hosts: Sequence[Host],
        holder: Mapping[str, object],
        directory: Path | None = None,
    ) -> None:
        self._hosts = {host_key(h): h for h in hosts}
        self._holder = dict(holder)
        self._directory = directory or lock_dir()
        self._fds: list[int] = []

    def acquire(self) -> None:
        """Take every lock or none; ``HostBusyError`` names the holder of a held one."""
        self._ensure_directory()
        try:
            for key in sorted(self._hosts):
                self._fds.append(self._take(key))
        except BaseException:
            self.release()
            raise

    def note(self, **fields: object) -> None:
        """Add to what the lock files say about the holder (e.g. the run id once known)."""
        self._holder.update(fields)
        for fd in self._fds:
            self._write_holder(fd)

    def release(self) -> None:
        """Drop every lock (idempotent)."""
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            os.close(fd)  # closing the only descriptor of the open file drops its flock
        self._fds = []

    def __enter__(self) -> HostLocks:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def _ensure_directory(self) -> None:
        self._directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = self._directory.stat()
        if st.st_uid != os.getuid():
            raise PermissionError(
                f"the lock folder {self._directory} belongs to another user; "
                f"set {LOCK_DIR_ENV} to a folder of your own"
            )

    def _take(self, key: str) -> int:
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        path = self._directory / f"host-{digest}.lock"
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            name = self._hosts[key].name
            raise HostBusyError(name, holder) from None
        except BaseException:
            os.close(fd)
            raise
        self._write_holder(fd)
        return fd

    def _write_holder(self, fd: int) -> None:
        data = json.dumps(self._holder).encode()
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, data, 0)


def _read_holder(fd: int) -> dict[str, object]:
    try:
        data = os.pread(fd, 65536, 0)
        holder = json.loads(data.decode()) if data else {}
    except (OSError, ValueError):
        return {}
    return holder if isinstance(holder, dict) else {}
