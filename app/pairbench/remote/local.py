"""The "This computer" transport: the same interface as SSH, over asyncio subprocesses."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path

from pairbench.domain import Line, LineSource
from pairbench.remote.base import (
    CommandResult,
    ToolMissingError,
    make_workdir_with,
    remove_workdir_with,
)

_EOF = None
# A line longer than this is split: a tool gone mad must not exhaust memory.
_LINE_LIMIT = 1 << 20


class LocalProcess:
    """A local child process in its own process group, read line by line."""

    def __init__(
        self, proc: asyncio.subprocess.Process, stdout: LineSource, stderr: LineSource
    ) -> None:
        self._proc = proc
        self._queue: asyncio.Queue[Line | None] = asyncio.Queue()
        self._readers = [
            asyncio.create_task(self._pump(proc.stdout, stdout)),
            asyncio.create_task(self._pump(proc.stderr, stderr)),
        ]

    @property
    def pid(self) -> int | None:
        return self._proc.pid

    async def _pump(self, stream: asyncio.StreamReader | None, source: LineSource) -> None:
        try:
            if stream is None:
                return
            while True:
                try:
                    raw = await stream.readuntil(b"\n")
                except asyncio.IncompleteReadError as exc:
                    raw = exc.partial
                    if raw:
                        self._put(source, raw)
                    return
                except asyncio.LimitOverrunError as exc:
                    raw = await stream.readexactly(exc.consumed)
                self._put(source, raw)
        finally:
            await self._queue.put(_EOF)

    def _put(self, source: LineSource, raw: bytes) -> None:
        text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        self._queue.put_nowait(Line(source, text, time.monotonic()))

    async def lines(self) -> AsyncIterator[Line]:
        open_pipes = len(self._readers)
        while open_pipes:
            item = await self._queue.get()
            if item is None:
                open_pipes -= 1
                continue
            yield item

    async def wait(self) -> int:
        return await self._proc.wait()

    async def stop(self, grace_s: float = 2.0) -> None:
        if self._proc.returncode is not None:
            return
        self._signal(signal.SIGINT)
        try:
            await asyncio.wait_for(self._proc.wait(), grace_s)
        except TimeoutError:
            self._signal(signal.SIGKILL)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._proc.wait(), grace_s)

    def _signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._proc.pid, signum)


class LocalTransport:
    """Runs programs on this computer."""

    host_name = "localhost"
    is_lost = False

    async def start(
        self,
        argv: Sequence[str],
        *,
        stdout: LineSource,
        stderr: LineSource,
        env: Mapping[str, str] | None = None,
    ) -> LocalProcess:
        program = _resolve(argv[0])
        proc = await asyncio.create_subprocess_exec(
            program,
            *argv[1:],
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, **env} if env else None,
            start_new_session=True,
            limit=_LINE_LIMIT,
        )
        return LocalProcess(proc, stdout, stderr)

    async def run(self, argv: Sequence[str], *, timeout_s: float = 10.0) -> CommandResult:
        program = _resolve(argv[0])
        proc = await asyncio.create_subprocess_exec(
            program,
            *argv[1:],
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout_s)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
            raise
        return CommandResult(
            int(proc.returncode or 0),
            out.decode("utf-8", errors="replace"),
            err.decode("utf-8", errors="replace"),
        )

    async def make_workdir(self) -> str:
        return await make_workdir_with(self)

    async def write_file(self, path: str, content: str) -> None:
        Path(path).write_text(content, encoding="utf-8")

    async def remove_workdir(self, path: str) -> None:
        await remove_workdir_with(self, path)

    async def close(self) -> None:
        return None


def _resolve(program: str) -> str:
    path = shutil.which(program)
    if path is None:
        raise ToolMissingError(f"{program} is not installed on this computer")
    return path
