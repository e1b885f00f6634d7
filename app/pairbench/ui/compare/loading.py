"""Loading the runs of a comparison on the engine thread, with progress and cancel."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QWidget

from pairbench.analysis.compare import RunInput
from pairbench.services.compare import iter_compare_inputs
from pairbench.services.library import Library
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.compare.view import CompareView, show_compare

# The progress dialog appears only when loading takes longer than this.
PROGRESS_AFTER_MS = 200


class CompareLoad(QObject):
    """One "Compare" request: the runs load on the engine thread, then the view opens.

    ``progressed(done, total)`` after each run; ``opened(view)`` once the view is shown;
    ``failed(message)`` when a run could not be read. ``cancel()`` (or the dialog's Cancel)
    stops between two runs and opens nothing.
    """

    progressed = Signal(int, int)
    opened = Signal(object)
    failed = Signal(str)

    def __init__(self, bridge: EngineBridge, run_ids: list[int], parent: QWidget) -> None:
        super().__init__(parent)
        self.run_ids = list(run_ids)
        self.view: CompareView | None = None
        self.message: QMessageBox | None = None
        self._parent = parent
        self._stop = threading.Event()
        self.dialog = QProgressDialog(
            f"Loading {len(self.run_ids)} runs to compare…", "Cancel", 0, len(self.run_ids), parent
        )
        self.dialog.setWindowTitle("Compare — Pairbench")
        self.dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.dialog.setMinimumDuration(PROGRESS_AFTER_MS)
        self.dialog.setAutoClose(False)
        self.dialog.setAutoReset(False)
        self.dialog.setValue(0)
        self.dialog.canceled.connect(self.cancel)
        self.progressed.connect(self._progressed)
        self._bridge = bridge
        self.future: concurrent.futures.Future[list[RunInput] | None] | None = None

    def start(self) -> CompareLoad:
        """Begin loading (connect to the signals first: they are emitted from the engine)."""
        self.future = self._bridge.call(self._job, self._loaded, self._error)
        return self

    async def _job(self, library: Library) -> list[RunInput] | None:
        inputs: list[RunInput] = []
        items = iter_compare_inputs(library, self.run_ids)
        while not self._stop.is_set():  # checked before each run is read
            item = next(items, None)
            if item is None:
                return inputs
            inputs.append(item)
            self.progressed.emit(len(inputs), len(self.run_ids))
            await asyncio.sleep(0)  # live runs on the engine loop go on between two loads
        return None

    @property
    def cancelled(self) -> bool:
        """Whether the user stopped the load."""
        return self._stop.is_set()

    def cancel(self) -> None:
        """Stop loading after the run being read; nothing opens."""
        if not self._stop.is_set():
            self._stop.set()
            self._close_dialog()

    def _progressed(self, done: int, total: int) -> None:
        if not self.cancelled:
            self.dialog.setValue(done)
            self.dialog.setLabelText(f"Loading runs to compare: {done} of {total}…")

    def _close_dialog(self) -> None:
        # Closing a QProgressDialog emits canceled(): not the user's cancel, so unhook first.
        self.dialog.canceled.disconnect(self.cancel)
        self.dialog.close()

    def _loaded(self, inputs: list[RunInput] | None) -> None:
        if inputs is None or self.cancelled:
            return
        self._close_dialog()
        self.view = show_compare(inputs, self._parent)
        self.opened.emit(self.view)

    def _error(self, error: BaseException) -> None:
        if self.cancelled:
            return
        self._close_dialog()
        message = f"The runs could not be loaded for comparison: {error}"
        self.failed.emit(message)
        self.message = QMessageBox(
            QMessageBox.Icon.Warning, "Compare — Pairbench", message, parent=self._parent
        )
        self.message.open()


def open_compare(bridge: EngineBridge, run_ids: list[int], parent: QWidget) -> CompareLoad:
    """Load these runs off the GUI thread, then open a compare window of them."""
    return CompareLoad(bridge, run_ids, parent).start()
