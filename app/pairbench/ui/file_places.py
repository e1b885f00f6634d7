"""Where the window's file dialogs open: the folder last used for that kind of file (exports,
imports, plans), else the user's documents, else home; never the working directory (a clone
of the repository, when Pairbench was started from one)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

EXPORTS, IMPORTS, PLANS = "exports", "imports", "plans"


def _key(kind: str) -> str:
    return f"folders/{kind}"


def documents() -> Path:
    """The user's documents folder when it exists, else the home folder."""
    found = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    folder = Path(found) if found else Path.home()
    return folder if folder.is_dir() else Path.home()


def start_folder(settings: QSettings, kind: str) -> Path:
    """The folder a dialog for ``kind`` opens in: the last one used, if it still exists."""
    last = settings.value(_key(kind))
    if isinstance(last, str) and last and Path(last).is_dir():
        return Path(last)
    return documents()


def start_path(settings: QSettings, kind: str, name: str) -> str:
    """A save dialog's suggestion: ``name`` in the start folder of ``kind``."""
    return str(start_folder(settings, kind) / name)


def remember(settings: QSettings, kind: str, path: Path | str) -> None:
    """``path`` (a file) was chosen: its folder is where the next dialog of ``kind`` opens."""
    settings.setValue(_key(kind), str(Path(path).resolve().parent))
