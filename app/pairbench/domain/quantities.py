"""The one grammar for sizes (bytes) and rates (bit/s) a user writes, everywhere one is read.

A quantity is a decimal number (ASCII digits, at most 15 before the point and 9 after; no
sign, exponent or space) and a unit. Prefixes are ``k``, ``M``, ``G``, ``T`` in either case.

Sizes (``size_bytes``):

- ``KiB``, ``MiB``, ``GiB``, ``TiB``: powers of 1024, always; ``KB`` … ``TB``: powers of 1000,
  except in tc's reading (below); ``B`` or no unit: bytes.
- A bare prefix (``512M``) means what the program that reads the value in that place means:
  the caller says which (``bare``): ``"iec"`` (powers of 1024: fio's sizes, iperf3's
  ``-n``/``-k``, nuttcp's and uperf's sizes, the storage suite's ``--size``), ``"si"``
  (powers of 1000), or ``"tc"`` (tc's own grammar, for the lab's options that become tc
  arguments: ``k``/``kb``, ``m``/``mb``, ``g``/``gb`` all powers of 1024, ``b`` bytes).
- Outside tc's reading a lower-case ``b`` after a prefix (``500Mb``) is refused: bits or
  bytes? ``bit`` units are refused as not a size in bytes.

Rates (``rate_bps``): bit/s with SI prefixes as tc and iperf3 read them: ``200M``,
``200mbit``, ``1.5Gbit/s``, ``800k``; a bare number is bit/s. ``Mb``, ``MB`` and the like are
refused as ambiguous; ``Mbps`` and ``Mb/s`` are bits except where the value goes to tc
(``tc=True``: tc reads ``mbps`` as bytes per second, so they are refused there).

Amounts of data in bits (``amount_bits``, a credit bucket): bits as a rate's units without
``/s`` (``2700G``, ``2700Gbit``), or bytes spelled with ``B`` (SI ``337.5GB``, IEC ``500MiB``).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Final, Literal

Bare = Literal["iec", "si", "tc"]

_QUANTITY: Final = re.compile(r"([0-9]{1,15}(?:\.[0-9]{1,9})?)([A-Za-z/]{0,7})", re.ASCII)
_POWER: Final = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4}
_BIT_WORDS: Final = ("bit", "bits", "bit/s", "bits/s")
SIZE_EXAMPLES: Final = "4GiB, 512MB, 64k or 1400"
RATE_EXAMPLES: Final = "200M, 200mbit or 1.5Gbit"


class QuantityError(ValueError):
    """A size or rate that is not one: ``kind`` says why ("malformed", "unit": an unknown or
    wrong unit, "ambiguous": bits or bytes), the message says what to write."""

    def __init__(self, message: str, kind: Literal["malformed", "unit", "ambiguous"]) -> None:
        super().__init__(message)
        self.kind = kind


def _split(text: object, examples: str) -> tuple[Decimal, int, str]:
    """(number, the prefix's power, the unit after the prefix) of ``text``."""
    if not isinstance(text, str):
        raise QuantityError(f"expected text such as {examples}, got {text!r}", "malformed")
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise QuantityError(
            f"{text!r} is not a valid value: a number and a unit (e.g. {examples})", "malformed"
        )
    unit = match.group(2)
    first = unit[:1].lower()
    if first in _POWER and first:
        return Decimal(match.group(1)), _POWER[first], unit[1:]
    return Decimal(match.group(1)), 0, unit


def size_bytes(text: object, *, bare: Bare) -> Decimal:
    """The bytes of a size (``512MiB``, ``512MB``, ``512M`` as ``bare`` says, ``1400``)."""
    number, power, unit = _split(text, SIZE_EXAMPLES)
    iec, si = Decimal(1024) ** power, Decimal(1000) ** power
    lowered = unit.lower()
    if unit == "":
        return number * (si if bare == "si" else iec)
    if lowered == "ib" and power:
        return number * iec
    if unit == "B" or (bare == "tc" and lowered == "b"):
        return number * (iec if bare == "tc" else si)
    if lowered in _BIT_WORDS or lowered.endswith(("bps", "/s")):
        raise QuantityError(f"{text!r} is not a size in bytes (e.g. {SIZE_EXAMPLES})", "unit")
    if unit == "b" and power:
        stem = str(text)[:-1]
        raise QuantityError(
            f"{text!r} is ambiguous (bits or bytes?): write {stem}B, {stem}iB or {stem}bit",
            "ambiguous",
        )
    raise QuantityError(f"unknown unit {unit!r} in {text!r} (e.g. {SIZE_EXAMPLES})", "unit")


def rate_bps(text: object, *, tc: bool = False) -> Decimal:
    """The bit/s of a rate (``200M``, ``200mbit``, ``1.5Gbit/s``, ``10Gbps``; powers of 1000).

    ``tc``: the value becomes a tc argument, and tc reads ``bps`` and ``b/s`` as bytes per
    second: those are refused as ambiguous there (elsewhere they mean bits, as networks
    write them). ``b``, ``Mb``, ``MB`` are refused everywhere (bytes or bits?)."""
    number, power, unit = _split(text, RATE_EXAMPLES)
    lowered = unit.lower()
    if lowered in ("", *_BIT_WORDS) or (not tc and lowered in ("bps", "b/s")):
        return number * Decimal(1000) ** power
    if lowered in ("b", "bps", "b/s"):
        raise QuantityError(
            f"{text!r} is ambiguous (tc reads 'bps' and 'mb' as bytes): write the rate in "
            f"bits, e.g. 200mbit or 200M",
            "ambiguous",
        )
    raise QuantityError(
        f"unknown unit {unit!r} in {text!r} (use bit, kbit, mbit, gbit; e.g. {RATE_EXAMPLES})",
        "unit",
    )


def amount_bits(text: object) -> Decimal:
    """The bits of an amount of data: bits (``2700G``, ``2700Gbit``; powers of 1000) or bytes
    spelled with ``B`` (``337.5GB`` powers of 1000, ``500MiB`` powers of 1024)."""
    number, power, unit = _split(text, "2700G, 2700Gbit, 337.5GB or 500MiB")
    lowered = unit.lower()
    if lowered in ("", "bit", "bits"):
        return number * Decimal(1000) ** power
    return size_bytes(text, bare="si") * 8
