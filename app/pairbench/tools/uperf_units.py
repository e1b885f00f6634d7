"""Numbers as uperf 1.0.8 prints them: bit rates, byte counts (truncated ones too) and times."""

from __future__ import annotations

import math
from typing import Final

__all__ = ["S_EXP", "US_EXP", "bits", "byte_count"]

# uperf's decimal_to_string(): bytes 1024-based ("90.00B", "9.50MB", "1.12GB"), bits
# 1000-based ("612.79b/s", "9.93Kb/s", "79.63Mb/s", "9.59Gb/s"), "0" for zero, suffixes up to Z.
_BYTE_POW: Final[dict[str, int]] = {c: i for i, c in enumerate(" KMGTPEZ")}
_BIT_EXP: Final[dict[str | None, str]] = {
    None: "",
    "b/s": "",
    "Kb/s": "e3",
    "Mb/s": "e6",
    "Gb/s": "e9",
    "Tb/s": "e12",
    "Pb/s": "e15",
    "Eb/s": "e18",
    "Zb/s": "e21",
}
# adaptive_print_time(): "861.00ns", "17.65us", "10.90ms", "4.30s" (seconds from 1000 ms up).
# A time in microseconds (US_EXP) or in seconds (S_EXP): its digits with this exponent appended.
US_EXP: Final[dict[str, str]] = {"ns": "e-3", "us": "", "ms": "e3", "s": "e6"}
S_EXP: Final[dict[str, str]] = {"ns": "e-9", "us": "e-6", "ms": "e-3", "s": ""}


def bits(num: str, unit: str | None) -> float:
    """A printed bit rate ("83.70Mb/s", "612.79b/s", bare "0") in bit/s (1000-based).

    Raises ``ValueError`` or ``KeyError`` on what uperf never prints.
    """
    if unit is None and float(num) != 0.0:
        raise ValueError(f"bit rate without a unit: {num!r}")
    return float(num + _BIT_EXP[unit])


def byte_count(num: str, unit: str, estimate: float) -> float:
    """A printed byte count in bytes (1024-based), coping with uperf's truncation bug.

    The progress and Group/Strand lines keep 7 characters of the byte string: ``107.21M``
    lost its "B"; ``1011.02`` (from ``1011.02MB``) lost its whole unit: that unit is then the
    power of 1024 that brings the number closest to ``estimate`` (bytes from the printed rate
    and time), or bytes when there is no estimate.
    """
    value = float(num)
    if unit:
        letter = unit[0]
        return value if letter == "B" else value * float(1024 ** _BYTE_POW[letter])
    if value == 0.0:
        return 0.0
    if not estimate > 0.0 or not math.isfinite(estimate):
        return value
    best, best_err = value, math.inf
    for power in range(len(_BYTE_POW)):
        candidate = value * float(1024**power)
        err = abs(math.log(candidate / estimate))
        if err < best_err:
            best, best_err = candidate, err
    return best
