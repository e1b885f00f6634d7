"""Validating run parameters given as strings (``--set KEY=VALUE``) against a tool's schema."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal

from pairbench.domain.quantities import rate_bps, size_bytes
from pairbench.tools.base import ParamError

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_RATE = re.compile(r"^\d+(\.\d+)?[kKmMgGtT]?$")
_OPTIONAL_RATE = re.compile(r"^(\d+(\.\d+)?[kKmMgGtT]?)?$")
# A count with iperf3's own suffixes (``unit_atoi``: k, m, g, t, either case, 1024-based).
_COUNT = re.compile(r"^([0-9]{1,15}[kKmMgGtT]?)?$")
# Seconds as a decimal number, or with fio's and uperf's own units: "0.1", "0.1s", "100ms".
_SECONDS = re.compile(r"([0-9]{1,6}(?:\.[0-9]{1,6})?)(s|ms)?")
_SIZE = re.compile(r"^\d+[kKmMgG]?$")
_NAME = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_CPUS = re.compile(r"^(\d{1,4}(,\d{1,4})?)?$")
_FILE_NAME = re.compile(r"[A-Za-z0-9._+-]{1,100}")
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


@dataclass(frozen=True, slots=True)
class SecondsParam(Param):
    """A decimal number of seconds within ``[low, high]``, such as ``0.2`` (``kind="seconds"``).

    A decimal kind of its own: it checks its own values and keeps a schema a plain
    ``dict[str, Param]``. ``ms`` and ``s`` units are read too ("100ms" as fio and uperf write
    it is "0.1"); the canonical form is decimal seconds without trailing zeros ("0.20" -> "0.2").
    """

    low: Decimal = Decimal(0)
    high: Decimal = Decimal(0)

    def check(self, raw: str) -> str:
        """The canonical decimal text of ``raw``; ``ParamError`` if it is not valid."""
        value = raw.strip()
        match = _SECONDS.fullmatch(value)
        if match is None:
            raise ParamError(
                f"{self.name} must be a number of seconds such as 0.2 (or 200ms), got {raw!r}"
            )
        number = Decimal(match.group(1))
        if match.group(2) == "ms":
            number /= 1000
        if not self.low <= number <= self.high:
            raise ParamError(
                f"{self.name} must be between {self.low} and {self.high} seconds, got {value}"
            )
        return format(number.normalize(), "f")


def report_interval(
    name: str = "interval", option: str = "-i", *, high: int = 60, note: str = ""
) -> SecondsParam:
    """A tool's interval between reports: 0.1 to ``high`` (60) seconds, 1 by default; ``note``
    ends the help (why a tool's ``high`` is lower)."""
    return SecondsParam(
        name,
        "seconds",
        "1",
        f"seconds between reports ({option}), 0.1 to {high}; 100ms is 0.1{note}",
        low=Decimal("0.1"),
        high=Decimal(high),
    )


def count_value(value: str) -> int:
    """A checked ``count`` parameter value ("1G", "500k", "1000") as a number, 1024-based
    (iperf3's ``unit_atoi``: ``domain/quantities`` with ``bare="iec"``)."""
    return int(size_bytes(value, bare="iec"))


_CHECKERS: dict[str, Callable[[Param, str], str]] = {
    "int": _check_int,
    "bool": _check_bool,
    "rate": _check_pattern(_RATE, "a rate such as 50M, 1.5G or 800K (bits/s)"),
    "optrate": _check_pattern(_OPTIONAL_RATE, "a rate such as 0, 50M or 1.5G (bits/s), or empty"),
    "count": _check_pattern(_COUNT, "empty, or a number with K, M, G or T for 1024, 1024², ..."),
    "size": _check_pattern(_SIZE, "a size such as 1400, 128K or 4M"),
    "name": _check_pattern(_NAME, "letters, digits, '.', '_' or '-'"),
    "cpus": _check_pattern(_CPUS, "empty, a CPU number, or client,server CPU numbers such as 0,1"),
    "optname": _check_pattern(_OPTIONAL_NAME, "empty, or letters, digits, '.', '_' or '-'"),
    "address": _check_pattern(_ADDRESS, "empty, or an address or host name (host%device)"),
    "dscp": _check_pattern(_DSCP, "empty, 0-63, or a class such as EF, AF11, CS1"),
}


def file_name(path_or_name: str, default: str) -> str:
    """The name a file of the user's (a job file, a profile) is stored and uploaded under: its
    base name, characters other than letters, digits and ``._+-`` replaced by ``_``."""
    base = path_or_name.replace("\\", "/").rsplit("/", 1)[-1]
    name = re.sub(r"[^A-Za-z0-9._+-]", "_", base)[:100].lstrip(".")
    return name or default


@dataclass(frozen=True, slots=True)
class FileNameParam(Param):
    """The name of a file of the user's that a run uploads (``file_name``'s form): the CLI's
    ``--set NAME=PATH`` and the window's ``button`` read the file at a path and give its name
    and text, so a path is refused here with where it is read."""

    button: str = ""

    def check(self, raw: str) -> str:
        value = raw.strip()
        if value and not _FILE_NAME.fullmatch(value):
            raise ParamError(
                f"{self.name} must be a file name (letters, digits, ._+-), got {value[:80]!r}: "
                f"a path is read by pairbench run --set {self.name}=PATH and the {self.button} "
                "button"
            )
        return value


def resolve_params(schema: Mapping[str, Param], given: Mapping[str, str]) -> dict[str, str]:
    """Check every given value and fill in defaults; unknown names raise ``ParamError``."""
    unknown = sorted(set(given) - set(schema))
    if unknown:
        raise ParamError(f"unknown parameter {unknown[0]!r}; known: {', '.join(sorted(schema))}")
    resolved = {name: param.default for name, param in schema.items()}
    for name, raw in given.items():
        resolved[name] = schema[name].check(raw)
    return resolved


def rate_bits(value: str) -> float:
    """A checked ``rate`` value ("50M", "1.5G", "800K", "0") in bit/s (1000-based, as iperf3
    and nuttcp read it: ``domain/quantities``)."""
    return float(rate_bps(value))


def is_true(value: str) -> bool:
    """A canonical boolean parameter value as a bool."""
    return value == "true"


def says_true(value: object) -> bool:
    """A boolean parameter value as a user may write it ("1", "yes", "ON"...) as a bool."""
    return str(value).strip().lower() in _TRUE


def tcp_run(params: Mapping[str, str]) -> bool:
    """True unless the parameters ask for UDP (``udp``): iperf3's and nuttcp's
    ``Tool.bulk_transfer`` (a TCP run is a bulk transfer)."""
    return not says_true(params.get("udp", ""))
