"""THE asyncio↔Qt bridge: an engine thread runs an asyncio loop; results come back as signals.

The GUI thread never awaits and never touches the engine thread's library connection. Work is
submitted as a coroutine function that receives the engine thread's own ``Library``; its
result or error is delivered to callbacks on the GUI thread through queued signals. Run
observers are wrapped so engine callbacks become queued Qt signals too.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Qt, Signal, Slot

from pairbench.domain import HostPair, Line, Record, Run, RunSpec
from pairbench.domain.failures import RunError
from pairbench.services.library import Library
from pairbench.services.running import RunObserver, SecretPrompt, probe_burst_on_pair, run_on_pair
from pairbench.services.tool_install import InstallResult, install_on_host

T = TypeVar("T")
EngineJob = Callable[[Library], Awaitable[T]]
# How a prepared run is executed: plainly, or as a burst probe.
_Execute = Callable[[Library, RunObserver, asyncio.Event], Awaitable[Run]]


class _Callbacks:
    """A job's two callbacks, handed over once: the GUI thread takes the one it calls and
    drops both (``EngineBridge.call``)."""

    __slots__ = ("done", "error")

    def __init__(
        self, done: Callable[[Any], None], error: Callable[[BaseException], None] | None
    ) -> None:
        self.done: Callable[[Any], None] | None = done
        self.error: Callable[[BaseException], None] | None = error

    def take(self, failed: bool) -> Callable[[Any], None] | None:
        chosen = self.error if failed else self.done
        self.done = self.error = None
        return chosen


class _Delivery(QObject):
    """Carries a callback and its argument to the GUI thread."""

    deliver = Signal(object, object)
    deliver_once = Signal(object, bool, object)

    def __init__(self) -> None:
        super().__init__()
        self.deliver.connect(self._call, Qt.ConnectionType.QueuedConnection)
        self.deliver_once.connect(self._call_once, Qt.ConnectionType.QueuedConnection)

    @Slot(object, object)
    def _call(self, callback: Callable[[Any], None], value: Any) -> None:
        callback(value)

    @Slot(object, bool, object)
    def _call_once(self, callbacks: _Callbacks, failed: bool, value: Any) -> None:
        callback = callbacks.take(failed)
        if callback is not None:
            callback(value)


class RunSignals(QObject):
    """What a run tells the GUI, as signals (emitted from the engine thread, queued)."""

    started = Signal(int, object, float)  # run id, RunSpec, expected seconds
    line = Signal(object)  # Line
    records = Signal(object)  # list[Record]
    finished = Signal(object)  # Run
    refused = Signal(object)  # the engine's error when the run could not start (before failed)
    failed = Signal(str)  # the run could not start (nothing stored)
    notice = Signal(str)  # said while the run goes on (e.g. the tool went quiet)
    telemetry = Signal(object)  # list[Record] of host telemetry (streams "client:cpu", ...)
    diagnosis = Signal(object)  # the run's verdict as stored (Diagnosis.payload()), at its end


class _SignalObserver:
    """A RunObserver that re-emits everything as RunSignals."""

    def __init__(self, signals: RunSignals) -> None:
        self._signals = signals

    def on_started(self, run_id: int, spec: RunSpec, expected_s: float) -> None:
        self._signals.started.emit(run_id, spec, expected_s)

    def on_line(self, line: Line) -> None:
        self._signals.line.emit(line)

    def on_records(self, records: list[Record]) -> None:
        self._signals.records.emit(records)

    def on_finished(self, run: Run) -> None:
        self._signals.finished.emit(run)

    def on_notice(self, text: str) -> None:
        self._signals.notice.emit(text)

    def on_telemetry(self, records: list[Record]) -> None:
        self._signals.telemetry.emit(records)

    def on_diagnosis(self, payload: Mapping[str, Any]) -> None:
        self._signals.diagnosis.emit(dict(payload))


class RunHandle:
    """A run in progress: its signals and a thread-safe cancel."""

    def __init__(self, bridge: EngineBridge, signals: RunSignals) -> None:
        self._bridge = bridge
        self.signals = signals
        # asyncio.Event binds no loop when created (3.10+); it is set from the engine thread.
        self.cancel_event = asyncio.Event()
        self.future: concurrent.futures.Future[Run | None] | None = None

    def cancel(self) -> None:
        """Ask the run to stop; it is stored as cancelled (safe from any thread)."""
        self._bridge.loop.call_soon_threadsafe(self.cancel_event.set)

    @property
    def done(self) -> bool:
        return self.future is not None and self.future.done()


class EngineBridge(QObject):
    """Owns the engine thread (an asyncio loop) and its library connection."""

    def __init__(self, library_path: Path, *, secrets: SecretPrompt | None = None) -> None:
        super().__init__()
        self.library_path = library_path
        self._secrets = secrets
        self._delivery = _Delivery()
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._library: Library | None = None
        self._closing = False
        self._thread = threading.Thread(target=self._main, name="pairbench-engine", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        self.runs: list[RunHandle] = []

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self._library = Library.open(self.library_path)
        self._ready.set()
        try:
            self.loop.run_forever()
        finally:
            self._library.close()

    # -- generic work ------------------------------------------------------------------

    def submit(self, job: EngineJob[T]) -> concurrent.futures.Future[T]:
        """Run ``job(library)`` on the engine thread; a future for any thread to wait on."""
        library = self._library
        assert library is not None
        if self._closing:  # after shutdown: nothing runs, the caller sees a cancelled future
            refused: concurrent.futures.Future[T] = concurrent.futures.Future()
            refused.cancel()
            return refused

        async def wrapped() -> T:
            return await job(library)

        return asyncio.run_coroutine_threadsafe(wrapped(), self.loop)

    def call(
        self,
        job: EngineJob[T],
        on_done: Callable[[T], None],
        on_error: Callable[[BaseException], None] | None = None,
    ) -> concurrent.futures.Future[T]:
        """Like ``submit``; ``on_done(result)`` or ``on_error(exc)`` then run on the GUI thread."""
        future = self.submit(job)
        # The callbacks (bound to widgets) travel in a one-shot holder that the GUI thread
        # empties: the engine thread never drops the last reference to a widget, so PySide
        # never has to delete a window from another thread (its deferred deletion once hung
        # the GUI thread in a QObject destructor).
        callbacks = _Callbacks(on_done, on_error)
        del on_done, on_error

        def settle(f: concurrent.futures.Future[T]) -> None:
            if f.cancelled():
                return
            error = f.exception()
            if error is None:
                self._delivery.deliver_once.emit(callbacks, False, f.result())
            else:
                self._delivery.deliver_once.emit(callbacks, True, error)

        future.add_done_callback(settle)
        return future

    # -- tools on hosts ------------------------------------------------------------------

    def install_tool(
        self,
        host_name: str,
        tool_name: str,
        *,
        progress: Callable[[str], None],
        on_done: Callable[[InstallResult], None],
        on_error: Callable[[BaseException], None],
        force: bool = False,
    ) -> concurrent.futures.Future[InstallResult]:
        """Build ``tool_name`` on the host (``engine.tool_install``); ``progress`` is called on
        the engine thread (emit a signal from it). Cancel the future to stop the build."""

        async def job(library: Library) -> InstallResult:
            return await install_on_host(
                library, host_name, tool_name, secrets=self._secrets, progress=progress,
                force=force,
            )  # fmt: skip

        return self.call(job, on_done, on_error)

    # -- runs --------------------------------------------------------------------------

    def start_run(
        self,
        pair: HostPair,
        spec: RunSpec,
        *,
        accept_new_host_key: bool = False,
        signals: RunSignals | None = None,
    ) -> RunHandle:
        """Start a run (``services.running.run_on_pair``); follow it through the handle's
        signals.

        The engine may emit before this returns (a run that fails at once): pass ``signals``
        already connected to miss nothing (a signal emitted with no receiver is lost).
        """

        async def execute(library: Library, observer: RunObserver, cancel: asyncio.Event) -> Run:
            return await run_on_pair(
                library,
                pair,
                spec,
                observer=observer,
                cancel=cancel,
                secrets=self._secrets,
                accept_new_host_key=accept_new_host_key,
            )

        return self._start(execute, signals)

    def start_probe(
        self,
        pair: HostPair,
        spec: RunSpec,
        *,
        after_step_s: float,
        accept_new_host_key: bool = False,
        signals: RunSignals | None = None,
    ) -> RunHandle:
        """Start a burst probe (``spec`` from ``burst_probe_spec``): a run that stops itself
        ``after_step_s`` after the step is confirmed, its analysis stored with it. Followed
        like ``start_run``; ``finished`` carries the probe's run."""

        async def execute(library: Library, observer: RunObserver, cancel: asyncio.Event) -> Run:
            outcome = await probe_burst_on_pair(
                library,
                pair,
                spec,
                after_step_s=after_step_s,
                observer=observer,
                cancel=cancel,
                secrets=self._secrets,
                accept_new_host_key=accept_new_host_key,
            )
            return outcome.run

        return self._start(execute, signals)

    def _start(self, execute: _Execute, signals: RunSignals | None) -> RunHandle:
        signals = signals or RunSignals()
        handle = RunHandle(self, signals)

        async def job(library: Library) -> Run | None:
            try:
                return await execute(library, _SignalObserver(signals), handle.cancel_event)
            except RunError as exc:
                signals.refused.emit(exc)
                signals.failed.emit(str(exc))
                return None
            except Exception as exc:  # never let an engine error vanish silently
                signals.failed.emit(f"{type(exc).__name__}: {exc}")
                return None

        handle.future = self.submit(job)
        self.runs.append(handle)
        return handle

    def active_runs(self) -> list[RunHandle]:
        """Runs still going."""
        return [run for run in self.runs if not run.done]

    def cancel_all(self, timeout_s: float = 15.0) -> None:
        """Cancel every active run and wait (bounded) until each is stored."""
        active = self.active_runs()
        for run in active:
            run.cancel()
        for run in active:
            if run.future is not None:
                # The run stores its own outcome; here only waiting (bounded) matters.
                with contextlib.suppress(Exception):
                    run.future.result(timeout=timeout_s)

    def shutdown(self) -> None:
        """Cancel runs, stop the loop, join the thread (idempotent)."""
        if not self._thread.is_alive():
            return
        self.cancel_all()
        self._closing = True

        async def cancel_pending() -> None:
            me = asyncio.current_task()
            tasks = [task for task in asyncio.all_tasks() if task is not me]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(cancel_pending(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
