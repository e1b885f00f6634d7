"""The transport contract: start an argv on a host, stream its lines, end it for sure."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from pairbench.domain import Line, LineSource


class TransportError(Exception):
    """A host could not run what was asked; the message names the host and what to do."""


class ToolMissingError(TransportError):
    """The program is not installed on the host."""


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

    async def stop(self, grace_s: float = 2.0) -> None:
        """End the process: interrupt, then kill after ``grace_s``; idempotent."""
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
    ) -> RemoteProcess: ...

    async def run(self, argv: Sequence[str], *, timeout_s: float = 10.0) -> CommandResult: ...

    async def close(self) -> None: ...
