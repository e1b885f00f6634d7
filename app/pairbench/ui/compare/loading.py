"""Loading the runs of a comparison on the engine thread, with progress and cancel; a team
run's series in a worker thread (the engine's loop never waits on the team server), through
the window's ``TeamSeriesCache`` (fetched once per session)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QWidget

from pairbench.analysis.compare_runs import RunInput
from pairbench.services.compare_refs import (
    RunRef,
    TeamRef,
    local_input,
    local_name,
    team_inputs,
    team_url,
)
from pairbench.services.library import Library
from pairbench.services.team_browser import Published, TeamSeriesCache
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

    def __init__(
        self,
        bridge: EngineBridge,
        run_ids: list[RunRef],
        parent: QWidget,
        team_cache: TeamSeriesCache | None = None,
    ) -> None:
        super().__init__(parent)
        self.run_ids = list(run_ids)
        self.team_cache = team_cache if team_cache is not None else TeamSeriesCache()
        self.view: CompareView | None = None
        self.team: dict[int, Published] = {}  # a team run's id in the comparison (-N) → origin
        self.me = ""  # who runs this computer's runs (named in a comparison with team runs)
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
        url: str | None = None
        mixed = any(isinstance(ref, TeamRef) for ref in self.run_ids)
        me = local_name(library) if mixed else ""  # this computer's runs say who ran them too
        self.me = me
        for ref in self.run_ids:
            if self._stop.is_set():  # checked before each run is read
                return None
            if isinstance(ref, TeamRef):
                url = url or team_url(library)
                loaded = await asyncio.to_thread(team_inputs, url, [ref], self.team_cache)
                item, published = loaded[0]
                self.team[item.run.id] = published
                inputs.append(item)
            else:
                inputs.append(local_input(library, ref, ran_by=me))
            self.progressed.emit(len(inputs), len(self.run_ids))
            await asyncio.sleep(0)  # live runs on the engine loop go on between two loads
        return None if self._stop.is_set() else inputs

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
        team = sum(1 for ref in self.run_ids if isinstance(ref, TeamRef))
        if team:
            self.view.setWindowTitle(
                f"Compare {len(inputs)} runs ({team} from the team library, #-N) — Pairbench"
            )
            self.view.show_origins(origins_text(inputs, self.team, self.me))
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


def origins_text(inputs: list[RunInput], team: dict[int, Published], me: str) -> str:
    """Where the runs of a mixed comparison come from, as ``pairbench compare`` says it: each
    team run's ``#-N``, UUID and who ran it on which computer; this computer's runs."""
    here = [f"#{item.run.id}" for item in inputs if item.run.id not in team]
    lines = [
        f"#{run_id}: team run {p.uuid}, ran by {p.ran_by} on {p.origin}"
        for run_id, p in team.items()
    ]
    if here:
        who = f", ran by {me}" if me else ""
        lines.append(f"{', '.join(here)}: this computer's run{'s' * (len(here) > 1)}{who}")
    return "\n".join(lines)


def open_compare(
    bridge: EngineBridge,
    run_ids: list[RunRef],
    parent: QWidget,
    team_cache: TeamSeriesCache | None = None,
) -> CompareLoad:
    """Load these runs (this computer's ids, ``TeamRef``s) off the GUI thread, then open a
    compare window of them; team runs' series through ``team_cache``."""
    return CompareLoad(bridge, run_ids, parent, team_cache).start()
