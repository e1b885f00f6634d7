"""A user's uperf profile for a run: read on this computer, checked before anything starts,
described in a few lines, and the run parameters that carry it (``profile_file`` = its name,
``profile_xml`` = its text, uploaded into the run's work directory by the tool)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pairbench.domain.failures import UserFileError
from pairbench.domain.user_files import read_text
from pairbench.tools.uperf import PROFILES
from pairbench.tools.uperf_custom import MAX_PROFILE_CHARS, ProfileError, parse_profile
from pairbench.tools.uperf_custom_params import profile_file_name
from pairbench.tools.uperf_custom_run import profile_lines

__all__ = [
    "ProfileError",
    "ProfileFile",
    "check_profile_text",
    "profile_file_params",
    "read_profile",
]


@dataclass(frozen=True, slots=True)
class ProfileFile:
    """A checked profile: the name it is stored under, its text, and its lines (groups,
    transactions, flowops: ``uperf_custom_run.profile_lines``)."""

    name: str
    text: str
    lines: list[str]


def check_profile_text(text: str, name: str = "") -> ProfileFile:
    """``text`` as a profile named ``name``; ``ProfileError`` says what to change."""
    text = text.replace("\r\n", "\n")
    return ProfileFile(profile_file_name(name), text, profile_lines(parse_profile(text)))


def read_profile(path: str | Path) -> ProfileFile:
    """The profile at ``path`` on this computer, checked; ``ProfileError`` if it cannot be
    read (``domain.user_files.read_text``: a regular file, not too large, text), or would
    not be run (``tools.uperf_custom.parse_profile``)."""
    file = Path(path).expanduser()
    try:
        text = read_text(file, what="profile", limit=MAX_PROFILE_CHARS * 4, errors="strict")
    except UserFileError as exc:
        raise ProfileError(str(exc)) from None
    try:
        return check_profile_text(text, file.name)
    except ProfileError as exc:
        raise ProfileError(f"{file}: {exc}") from exc


def _is_path(value: str) -> bool:
    """A ``profile`` value that names a file rather than latency/throughput."""
    value = value.strip()
    return value.lower() not in PROFILES and (
        "/" in value or "\\" in value or value.lower().endswith(".xml")
    )


def profile_file_params(params: Mapping[str, str]) -> tuple[dict[str, str], ProfileFile | None]:
    """The run parameters with the user's profile read: ``profile_file=PATH`` (or
    ``profile=PATH``, a path or a ``.xml`` name) becomes its name and ``profile_xml`` its text;
    a ``profile_xml`` given (a stored run's, run again) is checked as it is. None: no profile
    of the user's."""
    out = dict(params)
    if _is_path(out.get("profile", "")):
        if out.get("profile_file", "").strip():
            raise ProfileError("give the profile file once: profile_file=PATH (or profile=PATH)")
        out["profile_file"] = out.pop("profile").strip()
    given_text = out.get("profile_xml", "")
    if given_text.strip():
        profile = check_profile_text(given_text, out.get("profile_file", ""))
    elif out.get("profile_file", "").strip():
        profile = read_profile(out["profile_file"].strip())
    else:
        return out, None
    out["profile_file"], out["profile_xml"] = profile.name, profile.text
    return out, profile
