"""A ProxyCommand run as ssh runs it: ``$SHELL -c "exec COMMAND"`` with its tokens expanded.

The command is the one the user wrote in their ssh_config (stored as written); only ssh's
tokens are replaced, by the host's own fields (``%h`` address, ``%p`` port, ``%r`` user,
``%n`` name, ``%k`` HostKeyAlias or name, ``%%``), which Pairbench has validated (no shell
metacharacters). The command's stdin and stdout are one end of a socket pair; the SSH
connection runs over the other end. Its stderr is kept to explain a failure, and the
process (its whole session) is ended when the connection closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket

from pairbench.domain import Host
from pairbench.domain.failures import TransportError

DEFAULT_SHELL = "/bin/sh"
_STDERR_KEPT = 4096


def proxy_command_line(host: Host, user: str) -> str:
    """The shell command ssh runs for the host's ProxyCommand (``exec`` + the expansion)."""
    command = host.ssh.proxy_command
    if command is None:
        raise TransportError(f"host {host.name}: no ProxyCommand")
    tokens = {
        "h": host.address,
        "p": str(host.port),
        "r": user,
        "n": host.name,
        "k": host.ssh.host_key_alias or host.name,
        "%": "%",
    }
    out: list[str] = []
    i = 0
    while i < len(command):
        char = command[i]
        if char != "%":
            out.append(char)
            i += 1
            continue
        token = command[i + 1 : i + 2]
        if token not in tokens:
            raise TransportError(
                f"host {host.name}: ProxyCommand has an unknown token %{token or ''}"
            )
        out.append(tokens[token])
        i += 2
    return "exec " + "".join(out)


class ProxyProcess:
    """A running ProxyCommand and the socket the SSH connection uses."""

    def __init__(self, host_name: str) -> None:
        self.host_name = host_name
        self.sock: socket.socket | None = None
        self._process: asyncio.subprocess.Process | None = None
        self._stderr = bytearray()
        self._reader: asyncio.Task[None] | None = None

    async def start(self, command_line: str) -> socket.socket:
        """Start the command; the socket to run SSH over."""
        shell = os.environ.get("SHELL") or DEFAULT_SHELL
        ours, theirs = socket.socketpair()
        try:
            self._process = await asyncio.create_subprocess_exec(
                shell,
                "-c",
                command_line,
                stdin=theirs.fileno(),
                stdout=theirs.fileno(),
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            ours.close()
            raise TransportError(
                f"host {self.host_name}: cannot run the ProxyCommand with {shell}: "
                f"{exc.strerror or exc}"
            ) from exc
        finally:
            theirs.close()
        self._reader = asyncio.ensure_future(self._keep_stderr())
        self.sock = ours
        return ours

    async def _keep_stderr(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        with contextlib.suppress(OSError, ValueError):
            while chunk := await self._process.stderr.read(1024):
                self._stderr += chunk
                del self._stderr[:-_STDERR_KEPT]

    async def why(self, wait_s: float = 1.0) -> str:
        """The command's last line of stderr and its exit status, for an error message (after
        waiting up to ``wait_s`` for it to end: it usually ends as the connection fails)."""
        if self._process is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._process.wait(), wait_s)
        if self._reader is not None:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(self._reader), 0.2)
        lines = bytes(self._stderr).decode("utf-8", "replace").strip().splitlines()
        said = f": {lines[-1][:200]}" if lines else ""
        code = self._process.returncode if self._process is not None else None
        status = "" if code is None else f" (exit status {code})"
        return f"the ProxyCommand ended{status}{said}" if status or said else ""

    async def close(self) -> None:
        """End the command's session and close the socket."""
        process = self._process
        if process is not None:
            # The whole session: what the command started (an ``ssh -W``'s children) too.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 2)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                await process.wait()
        if self._reader is not None:
            self._reader.cancel()
        if self.sock is not None:
            self.sock.close()
            self.sock = None
