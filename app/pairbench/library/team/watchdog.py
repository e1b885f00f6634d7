"""A client-side bound on every call to a team server: a call that hears nothing from the
server for its bound has the connection's socket shut, so it ends with an error instead of a
hang. Keepalives and TCP timeouts cannot see a frozen server (a stopped backend or
postmaster, an overloaded host): its kernel still acknowledges everything."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class CallWatchdog:
    """Shuts the socket ``socket_fd()`` names when a call outlasts its bound without
    progress (one thread per connection, started on the first call, ended by ``close``)."""

    def __init__(self, socket_fd: Callable[[], int], quiet_s: float) -> None:
        self._socket_fd = socket_fd
        self.quiet_s = quiet_s
        self.fired_after: float | None = None  # the bound that ran out, once it has
        self._cond = threading.Condition()
        self._depth = 0
        self._bound = quiet_s
        self._deadline: float | None = None
        self._closed = False
        self._thread: threading.Thread | None = None

    @contextmanager
    def call(self, extra_s: float = 0.0) -> Iterator[None]:
        """Bound what runs inside: ``quiet_s`` (plus ``extra_s``, e.g. a wait the caller
        asked the server for) without an answer, and the connection is cut. Nested calls
        share the outermost bound."""
        with self._cond:
            self._depth += 1
            if self._depth == 1:
                self._bound = self.quiet_s + max(0.0, extra_s)
                self._deadline = time.monotonic() + self._bound
                self._start()
                self._cond.notify_all()
        try:
            yield
        finally:
            with self._cond:
                self._depth -= 1
                if self._depth == 0:
                    self._deadline = None

    def progress(self) -> None:
        """The call is moving (the server took a row): its bound starts again from now."""
        with self._cond:
            if self._deadline is not None:
                self._deadline = time.monotonic() + self._bound

    def cut(self) -> None:
        """Shut the socket now (from any thread): the call in progress, if any, fails."""
        with self._cond:
            if not self._closed:
                self._shut()

    def close(self) -> None:
        """End the thread; the socket is never touched again (call before closing it)."""
        with self._cond:
            self._closed = True
            self._deadline = None
            self._cond.notify_all()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(1.0)

    def _start(self) -> None:
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(
                target=self._watch, name="pairbench-team-watchdog", daemon=True
            )
            self._thread.start()

    def _watch(self) -> None:
        with self._cond:
            while not self._closed:
                if self._deadline is None:
                    self._cond.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                self.fired_after = self._bound
                self._deadline = None
                self._shut()

    def _shut(self) -> None:
        """Shut both directions of the connection's socket (under the lock: ``close`` has
        not run, so the descriptor is still the connection's)."""
        try:
            fd = self._socket_fd()
        except Exception:  # the connection is closed already: nothing to cut
            return
        try:
            sock = socket.socket(fileno=os.dup(fd))
        except OSError:
            return
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        finally:
            sock.close()
