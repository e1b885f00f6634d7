"""A process started over SSH: its lines as they come, its exit status, a PID-based stop."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import asyncssh

from pairbench.domain import Line, LineSource
from pairbench.domain.failures import TransportError
from pairbench.remote.launcher import HEARTBEAT, HEARTBEAT_PERIOD_S, parse_pid_line
from pairbench.remote.local import cut_line_piece

if TYPE_CHECKING:
    from pairbench.remote.ssh import SSHTransport


class SSHProcess:
    """A process started over SSH; its pid comes from the launcher's first line."""

    def __init__(
        self,
        transport: SSHTransport,
        process: asyncssh.SSHClientProcess[bytes],
        stdout: LineSource,
        stderr: LineSource,
    ) -> None:
        self._transport = transport
        self._process = process
        self._stdout = stdout
        self._stderr = stderr
        self._pid: int | None = None
        self._stopped = False
        self._heartbeat: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int | None:
        return self._pid

    async def read_pid(self, timeout_s: float) -> None:
        """Wait for the watchdog's pid line; fail if the command could not start. Then keep
        telling the watchdog that we are alive (``remote/launcher.py``)."""
        raw = await asyncio.wait_for(self._process.stdout.readline(), timeout_s)
        line = raw.decode("utf-8", errors="replace")
        pid = parse_pid_line(line)
        if pid is None:
            raise TransportError(
                f"host {self._transport.host_name}: the command did not start "
                f"(got {line.strip()[:120]!r}; Pairbench needs bash on the host)"
            )
        self._pid = pid
        self._heartbeat = asyncio.ensure_future(self._beat())

    async def _beat(self) -> None:
        with contextlib.suppress(asyncssh.Error, OSError, RuntimeError):
            while self._process.exit_status is None and not self._transport.is_lost:
                self._process.stdin.write(HEARTBEAT.encode())
                await asyncio.sleep(HEARTBEAT_PERIOD_S)

    def _stop_heartbeat(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()

    async def lines(self) -> AsyncIterator[Line]:
        queue: asyncio.Queue[Line | None] = asyncio.Queue()

        def put(source: LineSource, raw: bytes) -> None:
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            queue.put_nowait(Line(source, text, time.monotonic()))

        async def pump(reader: asyncssh.SSHReader[bytes], source: LineSource) -> None:
            # Bytes, decoded a line at a time: asyncssh's decoder is one per channel, shared
            # by stdout and stderr, so a character cut between two writes of one stream came
            # out garbled when the other stream wrote in between.
            carry = b""  # the start of the next piece, held back from the last cut
            split = False  # whether a long line's first pieces went out already
            try:
                while True:
                    try:
                        raw = carry + await reader.readuntil(b"\n")
                    except asyncio.IncompleteReadError as exc:
                        raw = carry + bytes(exc.partial)
                        if not reader.at_eof():
                            # The channel's window is full (a line longer than it, or the other
                            # stream's unread lines): asyncssh hands over what it holds. Cut it
                            # between characters, not between "\r" and "\n".
                            if not exc.partial:
                                await asyncio.sleep(0.005)  # let the other stream's pump read
                                continue
                            raw, carry = cut_line_piece(raw)
                            if raw:
                                put(source, raw)
                            split = True
                            continue
                        if raw and not (split and not raw.rstrip(b"\r\n")):
                            put(source, raw)
                        return
                    carry = b""
                    if not (split and not raw.rstrip(b"\r\n")):  # not a long line's empty end
                        put(source, raw)
                    split = False
            except (asyncssh.Error, OSError):
                if carry:
                    put(source, carry)
            finally:
                queue.put_nowait(None)

        tasks = [
            asyncio.ensure_future(pump(self._process.stdout, self._stdout)),
            asyncio.ensure_future(pump(self._process.stderr, self._stderr)),
        ]
        try:
            open_pipes = len(tasks)
            while open_pipes:
                item = await queue.get()
                if item is None:
                    open_pipes -= 1
                    continue
                yield item
        finally:
            for task in tasks:
                task.cancel()

    async def wait(self) -> int:
        try:
            completed = await self._process.wait(check=False)
        except (asyncssh.Error, OSError) as exc:
            raise self._transport.lost_error(exc) from exc
        finally:
            self._stop_heartbeat()
        if completed.exit_status is None or self._transport.is_lost:
            if self._transport.is_lost:
                raise self._transport.lost_error(None)
            return -1 if completed.exit_signal is None else 128
        return int(completed.exit_status)

    async def stop(self, grace_s: float = 2.0, *, interrupt: bool = True) -> None:
        """Interrupt the process group by pid over a second channel (not with
        ``interrupt=False``), then terminate it, then kill it."""
        if self._stopped or self._process.exit_status is not None:
            self._stop_heartbeat()
            return
        self._stopped = True
        if self._transport.is_lost:
            self._stop_heartbeat()
            return
        # SIGINT lets a tool print what it measured; a server that ignores it (nuttcp -S)
        # ends on SIGTERM; SIGKILL after ``grace_s`` in all.
        for signal_name in ("INT", "TERM")[0 if interrupt else 1 :]:
            await self._kill(signal_name)
            try:
                await asyncio.wait_for(self._process.wait(check=False), grace_s / 2)
                break
            except (TimeoutError, asyncssh.Error, OSError):
                continue
        else:
            await self._kill("KILL")
        self._stop_heartbeat()
        with contextlib.suppress(asyncssh.Error, OSError):
            self._process.close()

    async def _kill(self, signal_name: str) -> None:
        if self._pid is None:
            return
        pid = str(self._pid)
        with contextlib.suppress(asyncssh.Error, OSError, TimeoutError, TransportError):
            await self._transport.run(
                [
                    *("sh", "-c", 'kill -s "$1" -- "-$2" 2>/dev/null || kill -s "$1" "$2"'),
                    *("sh", signal_name, pid),
                ],
                timeout_s=5,
            )
