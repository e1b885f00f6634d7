"""Validating run parameters given as strings (``--set KEY=VALUE``) against a tool's schema."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pairbench.tools.base import ParamError

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_RATE = re.compile(r"^\d+(\.\d+)?[kKmMgGtT]?$")
_SIZE = re.compile(r"^\d+[kKmMgG]?$")
_NAME = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_CPUS = re.compile(r"^\d{1,4}(,\d{1,4})?$")


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter: its name, how a string value is checked, default and help."""

    name: str
    kind: str
    default: str
    help: str
    minimum: int | None = None
    maximum: int | None = None

    def check(self, raw: str) -> str:
        """The canonical string form of ``raw``; ``ParamError`` if it is not valid."""
        value = raw.strip()
        checker = _CHECKERS[self.kind]
        try:
            return checker(self, value)
        except ParamError:
            raise
        except ValueError as exc:
            raise ParamError(f"{self.name}: {exc}") from exc


def _check_int(param: Param, value: str) -> str:
    if not value.isdigit():
        raise ParamError(f"{param.name} must be a whole number, got {value!r}")
    number = int(value)
    if param.minimum is not None and number < param.minimum:
        raise ParamError(f"{param.name} must be at least {param.minimum}, got {number}")
    if param.maximum is not None and number > param.maximum:
        raise ParamError(f"{param.name} must be at most {param.maximum}, got {number}")
    return str(number)


def _check_bool(param: Param, value: str) -> str:
    lowered = value.lower()
    if lowered in _TRUE:
        return "true"
    if lowered in _FALSE:
        return "false"
    raise ParamError(f"{param.name} must be true or false, got {value!r}")


def _check_pattern(pattern: re.Pattern[str], what: str) -> Callable[[Param, str], str]:
    def check(param: Param, value: str) -> str:
        if not pattern.fullmatch(value):
            raise ParamError(f"{param.name} must be {what}, got {value!r}")
        return value

    return check


_CHECKERS: dict[str, Callable[[Param, str], str]] = {
    "int": _check_int,
    "bool": _check_bool,
    "rate": _check_pattern(_RATE, "a rate such as 50M, 1.5G or 800K (bits/s)"),
    "size": _check_pattern(_SIZE, "a size such as 1400, 128K or 4M"),
    "name": _check_pattern(_NAME, "letters, digits, '.', '_' or '-'"),
    "cpus": _check_pattern(_CPUS, "a CPU number, or client,server CPU numbers such as 0,1"),
}


def resolve_params(schema: Mapping[str, Param], given: Mapping[str, str]) -> dict[str, str]:
    """Check every given value and fill in defaults; unknown names raise ``ParamError``."""
    unknown = sorted(set(given) - set(schema))
    if unknown:
        raise ParamError(f"unknown parameter {unknown[0]!r}; known: {', '.join(sorted(schema))}")
    resolved = {name: param.default for name, param in schema.items()}
    for name, raw in given.items():
        resolved[name] = schema[name].check(raw)
    return resolved


def is_true(value: str) -> bool:
    """A canonical boolean parameter value as a bool."""
    return value == "true"
