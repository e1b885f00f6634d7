"""Importing saved tool output into the library: dropped files, the tool guess, the question."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QTimer, Signal
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QInputDialog, QWidget

from pairbench.domain import Run, RunStatus
from pairbench.services.flent_import import FLENT, import_flent, is_flent_file, read_flent_file
from pairbench.services.import_checks import check_text
from pairbench.services.import_guess import ToolGuess, check_readable, guess_tool, read_output_file
from pairbench.services.importing import ParseError, import_output
from pairbench.services.library import Library
from pairbench.tools.registry import TOOLS
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.import_dialog import ImportChoices, ImportDialog
from pairbench.ui.library.jobs import call_for, error_text


@dataclass(frozen=True, slots=True)
class ImportOutcome:
    """An import attempt: the stored run, or the guess when the user must pick the tool."""

    path: Path
    run: Run | None
    guess: ToolGuess | None = None


def imported_text(path: Path, run: Run) -> str:
    """``Imported a.out as iperf3 run 12: completed.`` (with the run's error, if any)."""
    extra = f" ({run.error})" if run.error else ""
    return f"Imported {path.name} as {run.spec.tool} run {run.id}: {run.status.value}{extra}."


def batch_message(outcomes: list[tuple[Path, Run | str]]) -> tuple[str, str]:
    """The banner (kind, text) of one import of several files: how many were imported,
    then each file's run, then each file not imported and why."""
    runs = [(path, o) for path, o in outcomes if not isinstance(o, str)]
    lines = [imported_text(path, run) for path, run in runs]
    for path, outcome in outcomes:
        if isinstance(outcome, str):
            lines.append(f"Import of {path.name} cancelled." if outcome == "cancelled" else outcome)
    whole = len(runs) == len(outcomes) and all(r.status is RunStatus.COMPLETED for _, r in runs)
    kind = "ok" if whole else "info" if runs else "error"
    files = f"{len(outcomes)} file{'s' if len(outcomes) != 1 else ''}"
    return kind, "\n".join([f"Imported {len(runs)} of {files}:", *lines])


def dropped_files(event: QDropEvent | QDragEnterEvent | QDragMoveEvent) -> list[Path]:
    """The local files a drag carries (folders and remote URLs are left out)."""
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return []
    paths = [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]
    return [path for path in paths if not path.is_dir()]


class FileImport(QObject):
    """Imports files as runs through the bridge; asks which tool wrote a file when the guess
    is not conclusive. ``started(path)``, then ``imported(path, run)`` or ``failed(path, message)``
    (message "cancelled" when the user declined to pick a tool)."""

    started = Signal(object)  # Path
    dialog_opened = Signal(object)  # the ImportDialog, before it runs (tests fill it)
    imported = Signal(object, object)  # Path, Run
    failed = Signal(object, str)  # Path, message
    batchDone = Signal(list)  # [(Path, Run | str)]: every file of an import_files, in order

    def __init__(self, bridge: EngineBridge, owner: QWidget) -> None:
        super().__init__(owner)
        self.bridge = bridge
        self.owner = owner
        # The files of the import_files under way and what became of each (a run, or why
        # not), so the view says it once for them all.
        self.batch: dict[Path, Run | str | None] = {}
        self.imported.connect(lambda path, run: self._settled(path, run))
        self.failed.connect(lambda path, message: self._settled(path, message))

    def accept(self, event: QDragEnterEvent | QDragMoveEvent) -> None:
        """Accept a drag that carries files."""
        if dropped_files(event):
            event.acceptProposedAction()

    def drop(self, event: QDropEvent) -> bool:
        """Import every local file a drop carries, after the import dialog (tool, pair,
        label, tags); True when there was one."""
        files = dropped_files(event)
        if not files:
            return False
        event.acceptProposedAction()
        # The dialog opens once the drop is over (a modal loop inside a drop event keeps the
        # file manager's drag waiting on some desktops).
        QTimer.singleShot(0, lambda: self.import_files(files))
        return True

    def import_files(self, files: list[Path]) -> ImportChoices | None:
        """Ask for the tool of each file and the pair, label and tags of the runs, then
        import them all; the choices, or None when the user cancelled (nothing stored)."""
        dialog = ImportDialog(self.bridge, files, self.owner)
        self.dialog_opened.emit(dialog)
        if dialog.exec() != ImportDialog.DialogCode.Accepted:
            return None
        choices = dialog.choices()
        self.batch = dict.fromkeys(files)
        for path in files:
            self.import_file(
                path, choices.tools.get(path), choices.pair, choices.label, choices.tags
            )
        return choices

    def import_file(
        self,
        path: Path | str,
        tool: str | None = None,
        pair: str | None = None,
        label: str = "",
        tags: Mapping[str, str] | None = None,
    ) -> None:
        """Import a saved tool output as a run (the tool guessed when not given: a Flent data
        file by its name or compressed content; the pair named by the output's addresses when
        not given, else local)."""
        path = Path(path)
        self.started.emit(path)

        async def job(lib: Library) -> ImportOutcome:
            if tool == FLENT or (tool is None and is_flent_file(path)):
                try:
                    flent = read_flent_file(path)
                except ParseError as exc:
                    raise ValueError(f"{path.name} is not a Flent data file: {exc}") from None
                run = import_flent(
                    lib, flent, pair=pair, label=label, tags=tags, source_name=path.name
                )
                return ImportOutcome(path, run)
            text = read_output_file(path)
            check_text(text)  # empty or binary: refused before any tool is guessed or asked
            guess = None
            chosen = tool
            if chosen is None:
                guess = guess_tool(text, path.name)
                chosen = guess.tool
                if chosen is None:
                    return ImportOutcome(path, None, guess)
            else:
                check_readable(text, chosen, path.name)
            try:
                run = import_output(
                    lib,
                    chosen,
                    text,
                    pair=pair,
                    label=label,
                    tags=tags,
                    source_name=path.name,
                )
            except ParseError as exc:
                raise ValueError(f"{path.name} is not {chosen} output: {exc}") from None
            return ImportOutcome(path, run, guess)

        def done(outcome: ImportOutcome) -> None:
            if outcome.run is not None:
                self.imported.emit(path, outcome.run)
                return
            chosen = self.ask_tool(path, outcome.guess or ToolGuess())
            if chosen is None:
                self.failed.emit(path, "cancelled")
            else:
                self.import_file(path, chosen, pair, label, tags)

        def failed(error: BaseException) -> None:
            self.failed.emit(path, f"Cannot import {path.name}: {error_text(error)}")

        call_for(self.owner, self.bridge, job, done, failed)

    def in_batch(self, path: Path) -> bool:
        """True while ``path`` is one of the files of an ``import_files`` under way."""
        return path in self.batch

    def _settled(self, path: Path, outcome: Run | str) -> None:
        if path not in self.batch or self.batch[path] is not None:
            return
        self.batch[path] = outcome
        if all(value is not None for value in self.batch.values()):
            # Told once this file's own signals have reached everyone (the view keeps quiet
            # about the files of a batch while it lasts).
            QTimer.singleShot(0, self._batch_done)

    def _batch_done(self) -> None:
        done = [(p, v) for p, v in self.batch.items() if v is not None]
        if done and len(done) == len(self.batch):
            self.batch = {}
            self.batchDone.emit(done)

    def ask_tool(self, path: Path, guess: ToolGuess) -> str | None:
        """Ask which tool wrote ``path``; None when the user cancels."""
        if guess.sure:
            why = f"it reads as the output of {' or '.join(guess.sure)}"
        elif guess.weak:
            why = f"it looks like an error message of {' or '.join(guess.weak)}"
        else:
            why = "no tool's parser recognised it"
        name, ok = QInputDialog.getItem(
            self.owner,
            "Which tool wrote this file?",
            f"Pairbench cannot tell which tool wrote {path.name} ({why}).\n"
            "Import it as the output of:",
            guess.candidates,
            0,
            False,
        )
        return name if ok and (name in TOOLS or name == FLENT) else None


class DropFilter(QObject):
    """Lets another widget (the main window) take file drops for the import."""

    def __init__(self, files: FileImport) -> None:
        super().__init__(files)
        self._files = files

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            if isinstance(event, QDragMoveEvent) and dropped_files(event):
                event.acceptProposedAction()
                return True
        elif kind == QEvent.Type.Drop and isinstance(event, QDropEvent):
            return self._files.drop(event)
        return False
