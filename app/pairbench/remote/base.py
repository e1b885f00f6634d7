"""The transport contract: start an argv on a host, stream its lines, end it for sure."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from pairbench.domain import Line, LineSource
from pairbench.domain.failures import TransportError

# Where a user's own programs live on a host (``pairbench hosts install-tool`` puts its builds
# there): searched before the host's PATH, for every command Pairbench runs on a host.
USER_BIN = ".local/bin"
# The shell words that put it first on PATH (expanded on the host, by its shell).
USER_PATH_SETUP = f'[ -n "$HOME" ] && PATH="$HOME/{USER_BIN}:$PATH"; export PATH'


@dataclass(frozen=True, slots=True)
class CommandResult:
    """What a short command printed, and how it exited."""

    exit_status: int
    stdout: str
    stderr: str


class RemoteProcess(Protocol):
    """A started process whose output is read line by line."""

    @property
    def pid(self) -> int | None: ...

    def lines(self) -> AsyncIterator[Line]:
        """Lines of stdout and stderr as they arrive, until both pipes close."""
        ...

    async def wait(self) -> int:
        """Wait for the process to exit; return its exit status."""
        ...

    async def stop(self, grace_s: float = 2.0, *, interrupt: bool = True) -> None:
        """End the process: interrupt (SIGINT; skipped with ``interrupt=False``, for a program
        that ends on SIGTERM, as a bash script started in the background must), terminate,
        then kill after ``grace_s``; idempotent."""
        ...


class Transport(Protocol):
    """A host Pairbench can start programs on."""

    @property
    def host_name(self) -> str: ...

    @property
    def is_lost(self) -> bool:
        """True once the connection to the host dropped (never for this computer)."""
        ...

    async def start(
        self,
        argv: Sequence[str],
        *,
        stdout: LineSource,
        stderr: LineSource,
        env: Mapping[str, str] | None = None,
        tag: str = "",
        cleanup: str = "",
    ) -> RemoteProcess:
        """Start ``argv`` under the watchdog (``remote/launcher.py``) with the run's ``tag``;
        the watchdog removes ``cleanup`` (a work directory) when it has to stop the tool."""
        ...

    async def run(self, argv: Sequence[str], *, timeout_s: float = 10.0) -> CommandResult: ...

    async def make_workdir(self, tag: str = "", parent: str = "") -> str:
        """Create a private (0700) directory ``pairbench.TAG.XXXXXXXX`` on the host, in
        ``parent`` or the temporary directory; return its path."""
        ...

    async def write_bytes(self, path: str, content: bytes) -> None:
        """Write ``content`` (an archive, say) to a new file ``path`` on the host (0600): made
        exclusively, so an existing file or a link planted at ``path`` is refused
        (``TransportError``), never overwritten nor followed."""
        ...

    async def write_file(self, path: str, content: str) -> None:
        """Write a new text file on the host (SFTP for SSH hosts), as ``write_bytes``."""
        ...

    async def remove_workdir(self, path: str) -> None:
        """Remove a directory made by ``make_workdir`` (refuses any other path)."""
        ...

    async def close(self) -> None: ...


WORKDIR_PREFIX = "pairbench."


def make_workdir_argv(tag: str = "", parent: str = "") -> list[str]:
    """``mktemp`` for a work directory named by the run's tag (so leftovers can be found)."""
    template = f"{WORKDIR_PREFIX}{tag}.XXXXXXXX" if tag else f"{WORKDIR_PREFIX}XXXXXXXX"
    if parent:
        return ["mktemp", "-d", "-p", parent, template]
    return ["mktemp", "-d", "-t", template]


def checked_workdir(path: str) -> str:
    """``path`` if it is a directory ``make_workdir`` could have made, else TransportError."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    if not path.startswith("/") or not name.startswith(WORKDIR_PREFIX) or ".." in path:
        raise TransportError(f"refusing to touch {path!r}: not a Pairbench work directory")
    return path


async def make_workdir_with(transport: Transport, tag: str = "", parent: str = "") -> str:
    """``make_workdir`` through a transport's ``run`` (mktemp makes it 0700)."""
    result = await transport.run(make_workdir_argv(tag, parent), timeout_s=10)
    path = result.stdout.strip()
    if result.exit_status != 0 or not path:
        raise TransportError(
            f"host {transport.host_name}: cannot create a work directory: "
            f"{result.stderr.strip() or 'mktemp failed'}"
        )
    return checked_workdir(path)


async def remove_workdir_with(transport: Transport, path: str) -> None:
    """``remove_workdir`` through a transport's ``run``."""
    await transport.run(["rm", "-rf", "--", checked_workdir(path)], timeout_s=10)
