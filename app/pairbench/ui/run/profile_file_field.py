"""The run form's field for a uperf profile of the user's: its XML (editable), a "Profile
file…" button that reads one from this computer, and its groups, transactions and flowops (or
what is wrong with it), shown before the run starts."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from pairbench.services.uperf_profiles import check_profile_text, read_profile
from pairbench.ui.run.text_file_field import FileKind, TextFileField


def _lines(text: str) -> list[str]:
    return check_profile_text(text).lines


def _read(path: str) -> tuple[str, str]:
    profile = read_profile(path)
    return profile.name, profile.text


PROFILE_FILE = FileKind(
    button="Profile file…",
    tooltip="Read a uperf profile (XML) from this computer",
    dialog="uperf profile",
    file_filter="uperf profiles (*.xml);;All files (*)",
    placeholder='<?xml version="1.0"?>\n<profile name="mine">\n  <group nthreads="$nthr">…',
    accessible="uperf profile text",
    empty="No profile file: the profile chosen above (latency or throughput) runs.",
    check=_lines,
    read=_read,
)


class ProfileTextField(TextFileField):
    """A uperf profile's XML with what it holds listed below (``TextFileField`` for uperf)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(PROFILE_FILE, parent)
