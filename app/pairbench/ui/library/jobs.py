"""Submitting engine jobs from a widget: callbacks that skip widgets Qt already deleted."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtWidgets import QWidget

from pairbench.domain.failures import ToolInstallError, TransportError
from pairbench.services.library import LibraryError, LibraryFullError
from pairbench.services.ssh_import import SSHConfigError
from pairbench.ui.bridge import EngineBridge, EngineJob


def call_for(
    widget: QWidget,
    bridge: EngineBridge,
    job: EngineJob[Any],
    on_done: Callable[[Any], None],
    on_error: Callable[[BaseException], None],
) -> None:
    """``bridge.call`` whose callbacks run only while ``widget`` still exists."""

    def done(value: Any) -> None:
        if shiboken6.isValid(widget):
            on_done(value)

    def failed(error: BaseException) -> None:
        if shiboken6.isValid(widget):
            on_error(error)

    bridge.call(job, done, failed)


_USER_ERRORS = (
    ValueError,
    OSError,
    LibraryError,
    LibraryFullError,
    TransportError,
    SSHConfigError,
    ToolInstallError,
)


def error_text(error: BaseException) -> str:
    """An engine error as words for the user (never a traceback)."""
    text = str(error).strip()
    if isinstance(error, _USER_ERRORS) and text:
        return text
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
