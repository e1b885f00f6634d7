"""Before an import stores anything: the files, the tool of each (guessed from the content
unless chosen), and the pair, label and tags every run gets."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from pairbench.domain.host_text import parse_tags, split_tags_text
from pairbench.services.flent_import import FLENT, is_flent_file, read_flent_file
from pairbench.services.hosts import list_pairs
from pairbench.services.import_checks import check_text
from pairbench.services.import_guess import guess_tool, read_output_file
from pairbench.services.library import Library
from pairbench.tools.registry import TOOLS
from pairbench.ui.bridge import EngineBridge
from pairbench.ui.library.jobs import call_for

GUESS = "guess from the content"
FROM_OUTPUT = "from the output's addresses (else local)"


def guess_text(path: Path) -> tuple[str, str]:
    """What the guess box says of a file before its import (read on the engine thread):
    the tool its content reads as, else why the import will ask or refuse; and a tooltip.
    A Flent data file is told as the import tells it (``is_flent_file``), then read whole."""
    if is_flent_file(path):
        try:
            read_flent_file(path)
        except (OSError, ValueError) as exc:
            return "cannot be read", f"{path.name}: {exc}"
        return f"{FLENT} (guessed)", f"{path.name} reads as a Flent data file"
    try:
        text = read_output_file(path)
        check_text(text)
    except (OSError, ValueError) as exc:
        return "cannot be read", f"{path.name}: {exc}"
    guess = guess_tool(text, path.name)
    if guess.tool is not None:
        return f"{guess.tool} (guessed)", f"{path.name} reads as {guess.tool} output"
    likely = list(dict.fromkeys([*guess.sure, *guess.weak]))
    if likely:
        shown = " or ".join(likely[:3])
        return f"ask: {shown}?", f"{path.name} may be {shown}: the import will ask"
    return "ask: no tool reads it", f"No tool's parser recognised {path.name}: the import will ask"


@dataclass(frozen=True, slots=True)
class ImportChoices:
    """What the user chose: a tool per file (None: guess), the pair (None: from the
    output), the label and the tags of every run."""

    tools: dict[Path, str | None]
    pair: str | None = None
    label: str = ""
    tags: dict[str, str] = field(default_factory=dict)


def tags_of(text: str) -> dict[str, str]:
    """``zone=a "site=Paris 2"`` into tags; ``ValueError`` naming a bad one."""
    return parse_tags(split_tags_text(text))


class ImportDialog(QDialog):
    """Lists the files to import with a tool box each (saying the tool each file's content
    reads as, once read), and the pair, label and tags."""

    guessed = Signal()  # every file's guess is shown

    def __init__(self, bridge: EngineBridge, files: list[Path], parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"Import {len(files)} file{'s' if len(files) != 1 else ''}")
        self.files = list(files)
        self.table = QTableWidget(len(files), 2)
        self.table.setHorizontalHeaderLabels(["File", "Tool"])
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(
            1, QHeaderView.ResizeMode.ResizeToContents
        )
        self.tool_boxes: list[QComboBox] = []
        for row, path in enumerate(files):
            name = QTableWidgetItem(path.name)
            name.setToolTip(str(path))
            self.table.setItem(row, 0, name)
            box = QComboBox()
            box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
            box.addItem(GUESS, None)
            for tool in sorted([*TOOLS, FLENT]):
                box.addItem(tool, tool)
            box.setAccessibleName(f"Tool of {path.name}")
            self.table.setCellWidget(row, 1, box)
            self.tool_boxes.append(box)
        self.pair_box = QComboBox()
        self.pair_box.addItem(FROM_OUTPUT, None)
        self.pair_box.setAccessibleName("Pair of the imported runs")
        self.label_edit = QLineEdit()
        self.label_edit.setPlaceholderText("optional, e.g. colleague's OCI tests")
        self.tags_edit = QLineEdit()
        self.tags_edit.setPlaceholderText('optional, e.g. zone=a cloud=oci "site=Paris 2"')
        self.error = QLabel()
        self.error.setStyleSheet("color: #b3261e;")
        form = QFormLayout()
        form.addRow("Pair", self.pair_box)
        form.addRow("Label", self.label_edit)
        form.addRow("Tags", self.tags_edit)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText(f"Import {len(files)}")
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        self.tags_edit.textChanged.connect(self._check_tags)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.resize(640, 200 + 30 * min(len(files), 12))
        self.guesses: dict[Path, str] = {}  # what each file's guess box says, once read
        self._load_pairs(bridge)
        self._load_guesses(bridge)

    def _load_pairs(self, bridge: EngineBridge) -> None:
        async def job(lib: Library) -> list[str]:
            return [pair.name for pair in list_pairs(lib)]

        def done(names: list[str]) -> None:
            for name in names:
                self.pair_box.addItem(name, name)

        call_for(self, bridge, job, done, lambda _error: None)

    def _load_guesses(self, bridge: EngineBridge) -> None:
        """Read each file on the engine thread and name the tool its content reads as."""
        files = list(self.files)

        async def job(_lib: Library) -> list[tuple[str, str]]:
            return [guess_text(path) for path in files]

        def done(found: list[tuple[str, str]]) -> None:
            for path, box, (text, tip) in zip(files, self.tool_boxes, found, strict=True):
                box.setItemText(0, text)
                box.setItemData(0, tip, Qt.ItemDataRole.ToolTipRole)
                box.setToolTip(tip)
                self.guesses[path] = text
            self.table.resizeColumnToContents(1)
            self.guessed.emit()

        call_for(self, bridge, job, done, lambda _error: None)

    def _check_tags(self) -> bool:
        try:
            tags_of(self.tags_edit.text())
        except ValueError as exc:
            self.error.setText(f"Tags: {exc}")
            self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)
            return False
        self.error.setText("")
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(True)
        return True

    def _accept(self) -> None:
        if self._check_tags():
            self.accept()

    def choices(self) -> ImportChoices:
        """What the form says (the tags already checked)."""
        return ImportChoices(
            tools={
                path: box.currentData()
                for path, box in zip(self.files, self.tool_boxes, strict=True)
            },
            pair=self.pair_box.currentData(),
            label=self.label_edit.text().strip(),
            tags=tags_of(self.tags_edit.text()),
        )
