"""The kinds of fio's run parameters that ``params.py`` has not: choices, paths, a typed
confirmation, an optional whole number."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Final

from pairbench.tools.base import ParamError
from pairbench.tools.params import Param

_PATH_RE: Final = re.compile(r"/[A-Za-z0-9._+@%=,:/-]*")
_MAX_PATH: Final = 1024


@dataclass(frozen=True, slots=True)
class ChoiceParam(Param):
    """A parameter whose value is one of a fixed list of words."""

    choices: tuple[str, ...] = ()

    def check(self, raw: str) -> str:
        value = raw.strip()
        if value not in self.choices:
            raise ParamError(f"{self.name} must be one of {', '.join(self.choices)}, got {raw!r}")
        return value


@dataclass(frozen=True, slots=True)
class PathParam(Param):
    """An absolute path (empty = not given); ``under`` restricts it to a directory tree."""

    under: str = ""

    def check(self, raw: str) -> str:
        value = raw.strip()
        if not value:
            return ""
        if len(value) > _MAX_PATH or not _PATH_RE.fullmatch(value):
            raise ParamError(
                f"{self.name} must be an absolute path of letters, digits and ._+@%=,:/- "
                f"(no spaces or shell characters), got {raw[:80]!r}"
            )
        if posixpath.normpath(value) != value:
            raise ParamError(
                f"{self.name} must be a normalised path (no '..', '.', '//' or "
                f"trailing '/'), got {value!r}"
            )
        if self.under and (not value.startswith(self.under) or value == self.under):
            raise ParamError(f"{self.name} must be a path under {self.under}, got {value!r}")
        return value


@dataclass(frozen=True, slots=True)
class ConfirmParam(Param):
    """A confirmation typed by the user: any printable text up to 256 characters (it is only
    compared, never passed to a command)."""

    def check(self, raw: str) -> str:
        value = raw.strip()
        if len(value) > 256 or not value.isprintable():
            raise ParamError(f"{self.name} must be printable text, got {raw[:80]!r}")
        return value


@dataclass(frozen=True, slots=True)
class OptionalIntParam(Param):
    """A whole number within bounds, or empty (not given: the tool's rule picks a value)."""

    def check(self, raw: str) -> str:
        value = raw.strip()
        if not value:
            return ""
        if not value.isascii() or not value.isdigit() or len(value) > 9:
            raise ParamError(f"{self.name} must be a whole number, got {raw[:80]!r}")
        number = int(value)
        if self.minimum is not None and number < self.minimum:
            raise ParamError(f"{self.name} must be at least {self.minimum}, got {number}")
        if self.maximum is not None and number > self.maximum:
            raise ParamError(f"{self.name} must be at most {self.maximum}, got {number}")
        return str(number)
