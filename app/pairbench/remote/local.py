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
from pairbench.domain.failures import ToolMissingError, TransportError
from pairbench.domain.processes import RunTag
from pairbench.remote.base import USER_BIN, CommandResult, make_workdir_with, remove_workdir_with
from pairbench.remote.launcher import HEARTBEAT, HEARTBEAT_PERIOD_S, parse_pid_line, watchdog_argv

_EOF = None
# A file Pairbench writes on a host is always new: made exclusively, a link never followed.
NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
# A line longer than this is split: a tool gone mad must not exhaust memory.
_LINE_LIMIT = 1 << 20
START_TIMEOUT_S = 10.0
EXIT_POLL_S = 0.02
# How long a stopped process's pipes may stay open (held by what the tool left) before they are
# closed unread.
PIPE_RELEASE_S = 1.0


class LocalProcess:
    """A local tool under the watchdog (``remote/launcher.py``), read line by line.

    ``pid`` is the tool's own pid, the leader of its process group; the watchdog (our child)
    ends the tool if this process dies, since its stdin, our heartbeat pipe, then closes.
    """

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        pid: int,
        stdout: LineSource,
        stderr: LineSource,
    ) -> None:
        self._proc = proc
        self._pid = pid
        self._queue: asyncio.Queue[Line | None] = asyncio.Queue()
        self._readers = [
            asyncio.create_task(self._pump(proc.stdout, stdout)),
            asyncio.create_task(self._pump(proc.stderr, stderr)),
        ]
        self._heartbeat = asyncio.create_task(self._beat())

    @property
    def pid(self) -> int | None:
        return self._pid

    async def _beat(self) -> None:
        """Tell the watchdog we are alive; closing stdin (or dying) tells it we are gone."""
        stdin = self._proc.stdin
        if stdin is None:
            return
        with contextlib.suppress(OSError, RuntimeError):
            while self._proc.returncode is None:
                stdin.write(HEARTBEAT.encode())
                await stdin.drain()
                await asyncio.sleep(HEARTBEAT_PERIOD_S)

    async def _pump(self, stream: asyncio.StreamReader | None, source: LineSource) -> None:
        """Lines of ``stream``; a line longer than ``_LINE_LIMIT`` bytes comes in pieces of at
        most that many, cut between characters and never between ``\\r`` and ``\\n``."""
        try:
            if stream is None:
                return
            carry = b""  # the start of the next piece, held back from the last cut
            split = False  # whether a long line's first pieces went out already
            while True:
                try:
                    raw = carry + await stream.readuntil(b"\n")
                except asyncio.IncompleteReadError as exc:
                    raw = carry + exc.partial
                    if raw and not (split and not raw.rstrip(b"\r\n")):
                        self._put(source, raw)
                    return
                except asyncio.LimitOverrunError as exc:
                    # exc.consumed (> the limit) bytes hold no "\n", or reach just up to it:
                    # take a limit's worth, keep the separator and a cut character for later.
                    take = min(exc.consumed, _LINE_LIMIT) - len(carry)
                    raw, carry = cut_line_piece(carry + await stream.readexactly(take))
                    self._put(source, raw)
                    split = True
                    continue
                carry = b""
                if not (split and not raw.rstrip(b"\r\n")):  # not a long line's empty end
                    self._put(source, raw)
                split = False
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
        status = await self._proc.wait()
        self._heartbeat.cancel()
        return status

    async def stop(self, grace_s: float = 2.0, *, interrupt: bool = True) -> None:
        """SIGINT (a tool prints what it measured; not with ``interrupt=False``), then
        SIGTERM (a server that ignores SIGINT, such as nuttcp -S), each with half of
        ``grace_s``, then SIGKILL; then the process's pipes are released (``_release_pipes``),
        so nothing of it outlives the stop.

        Each wait is for the watchdog's exit, not for ``Process.wait``, which also waits for
        its pipes to close: what the tool left running (fio's job processes lead sessions of
        their own, out of reach of its group's signals) may hold them open until the engine
        ends it by its run tag."""
        if self._proc.returncode is None:
            for signum in (signal.SIGINT, signal.SIGTERM)[0 if interrupt else 1 :]:
                self._signal(signum)
                if await self._exited(grace_s / 2):
                    break
            else:
                self._signal(signal.SIGKILL)
                with contextlib.suppress(ProcessLookupError):
                    self._proc.kill()
                await self._exited(grace_s)
        self._heartbeat.cancel()
        await self._release_pipes()

    async def _exited(self, timeout_s: float) -> bool:
        """Whether the watchdog has exited within ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while self._proc.returncode is None:
            if time.monotonic() >= deadline:
                return False
            await asyncio.sleep(EXIT_POLL_S)
        return True

    async def _release_pipes(self) -> None:
        """Close the process's subprocess transport once its output is read: at once when
        every writer is gone (the pipes' end of file closes it), else after
        ``PIPE_RELEASE_S`` (what a stopped tool's leftovers would still print is not read).
        An open transport at the end of the event loop is collected later, when its loop is
        closed: Python then prints "Exception ignored in BaseSubprocessTransport.__del__"
        ("Event loop is closed"), which a stalled fio run used to show."""
        transport: asyncio.SubprocessTransport | None = getattr(self._proc, "_transport", None)
        if transport is None:
            return
        deadline = time.monotonic() + PIPE_RELEASE_S
        while not transport.is_closing() and time.monotonic() < deadline:
            await asyncio.sleep(EXIT_POLL_S)
        if not transport.is_closing():
            transport.close()

    def _signal(self, signum: int) -> None:
        try:
            os.killpg(self._pid, signum)
        except ProcessLookupError:  # not (yet) a group of its own: the tool alone
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(self._pid, signum)
        except PermissionError:
            pass


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
        tag: str = "",
        cleanup: str = "",
    ) -> LocalProcess:
        program = _resolve(argv[0])
        wrapped = watchdog_argv([program, *argv[1:]], tag=tag or str(RunTag.new()), cleanup=cleanup)
        proc = await asyncio.create_subprocess_exec(
            _resolve(wrapped[0]),
            *wrapped[1:],
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, **env} if env else None,
            start_new_session=True,
            limit=_LINE_LIMIT,
        )
        assert proc.stdout is not None
        try:
            first = await asyncio.wait_for(proc.stdout.readline(), START_TIMEOUT_S)
        except TimeoutError:
            first = b""
        pid = parse_pid_line(first.decode("utf-8", errors="replace"))
        if pid is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            raise TransportError(f"this computer: {argv[0]} did not start (got {first[:120]!r})")
        return LocalProcess(proc, pid, stdout, stderr)

    async def run(self, argv: Sequence[str], *, timeout_s: float = 10.0) -> CommandResult:
        program = _resolve(argv[0])
        proc = await asyncio.create_subprocess_exec(
            program,
            *argv[1:],
            env={**os.environ, "PATH": search_path()},  # as the watchdog's (USER_PATH_SETUP)
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

    async def make_workdir(self, tag: str = "", parent: str = "") -> str:
        return await make_workdir_with(self, tag, parent)

    async def write_file(self, path: str, content: str) -> None:
        await self.write_bytes(path, content.encode("utf-8"))

    async def write_bytes(self, path: str, content: bytes) -> None:
        """A new file only (``O_EXCL``: never over an existing file, never through a link)."""
        try:
            fd = os.open(path, NEW_FILE_FLAGS, 0o600)
        except OSError as exc:
            raise TransportError(f"this computer: cannot write {path}: {exc.strerror}") from exc
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)

    async def remove_workdir(self, path: str) -> None:
        await remove_workdir_with(self, path)

    async def close(self) -> None:
        return None


def cut_line_piece(raw: bytes) -> tuple[bytes, bytes]:
    """``raw`` (no "\\n" in it) as the longest head that ends between UTF-8 characters and not
    on a ``\\r`` (which may precede a "\\n"), and the rest."""
    end = len(raw)
    start = end - 1  # the first byte of the last character
    while start > 0 and end - start < 4 and raw[start] & 0xC0 == 0x80:
        start -= 1
    lead = raw[start] if raw else 0
    size = 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
    if start + size > end:
        end = start  # the last character is incomplete: it starts the next piece
    if end and raw[end - 1] == 0x0D:
        end -= 1
    if end == 0:  # nothing but a cut character or "\\r": pass it on as it is
        end = len(raw)
    return raw[:end], raw[end:]


def search_path() -> str:
    """Where programs are looked for on this computer: the user's own ``~/.local/bin`` first
    (as on SSH hosts, see ``USER_PATH_SETUP``), then ``PATH``."""
    return os.pathsep.join((str(Path.home() / USER_BIN), os.environ.get("PATH", os.defpath)))


def _resolve(program: str) -> str:
    path = shutil.which(program, path=search_path())
    if path is None:
        raise ToolMissingError(
            f"{program} is not installed on this computer", program=program, host="local"
        )
    return path
