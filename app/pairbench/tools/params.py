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
_OPTIONAL_NAME = re.compile(r"^[A-Za-z0-9._-]{0,64}$")
# An IPv4/IPv6 address or a host name, optionally %interface (iperf3 -B host%dev); "" = none.
_ADDRESS = re.compile(r"^([A-Za-z0-9.:_-]{1,253}(%[A-Za-z0-9._-]{1,15})?)?$")
# iperf3 --dscp: 0-63, or a symbolic class (EF, AF11..AF43, CS0..CS7, LE, VA); "" = none.
_DSCP = re.compile(r"^((6[0-3]|[1-5]?\d)|(?i:ef|af[1-4][1-3]|cs[0-7]|le|va))?$")


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
    "optname": _check_pattern(_OPTIONAL_NAME, "empty, or letters, digits, '.', '_' or '-'"),
    "address": _check_pattern(_ADDRESS, "empty, or an address or host name (host%device)"),
    "dscp": _check_pattern(_DSCP, "empty, 0-63, or a class such as EF, AF11, CS1"),
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


_RATE_FACTOR = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}


def rate_bits(value: str) -> float:
    """A checked ``rate`` value ("50M", "1.5G", "800K", "0") in bit/s (1000-based)."""
    suffix = value[-1:].lower() if value[-1:].isalpha() else ""
    return float(value[: len(value) - len(suffix)]) * _RATE_FACTOR[suffix]


def is_true(value: str) -> bool:
    """A canonical boolean parameter value as a bool."""
    return value == "true"
