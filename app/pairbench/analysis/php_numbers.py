"""PHP's own number arithmetic where a reference written in PHP rounds or prints a float:
``round()`` (half away from zero, after PHP's pre-rounding to 15 significant digits) and a
float as a string (``precision`` = 14), so its figures can be reproduced to the last bit.

Written from PHP's documented algorithm (the "rounding" RFC, PHP 5.3 to 8.3) and checked
against Debian's ``php-cli`` by the differential tests (``tests/reference``)."""

from __future__ import annotations

import math
from typing import Final

_POWERS: Final = tuple(10.0**i for i in range(23))
PRECISION: Final = 14  # PHP's ``precision`` ini setting: digits of a float printed as text


def _pow10(power: int) -> float:
    """10**power as PHP computes it (a table of exact powers, else ``pow``)."""
    return _POWERS[power] if 0 <= power <= 22 else math.pow(10.0, power)


def _half_up(value: float) -> float:
    """To the nearest integer, halves away from zero (keeping the sign of a zero)."""
    whole = math.floor(value + 0.5) if value >= 0.0 else math.ceil(value - 0.5)
    return math.copysign(float(whole), value)


def php_round(value: float, places: int = 0) -> float:
    """PHP's ``round(value, places)``: ``value`` is first rounded to the 15 significant
    digits a double holds, then to ``places`` decimals, halves away from zero (so
    ``php_round(1.955, 2) == 1.96`` where Python's ``round`` gives 1.95)."""
    if not math.isfinite(value) or value == 0.0:
        return value
    precision = 14 - math.floor(math.log10(abs(value)))
    f1 = _pow10(abs(places))
    if places < precision < places + 15:
        f2 = _pow10(abs(precision))
        tmp = value * f2 if precision >= 0 else value / f2
        tmp = _half_up(tmp) / _pow10(abs(places - precision))
    else:
        tmp = value * f1 if places >= 0 else value / f1
        if abs(tmp) >= 1e15:
            return value  # beyond a double's precision: nothing to round
    tmp = _half_up(tmp)
    return tmp / f1 if places > 0 else tmp * f1


def _digits(value: float) -> tuple[str, int]:
    """The significant digits of a positive ``value`` at PHP's precision, and how many come
    before the decimal point: C's ``%.14e`` (halves to even) without trailing zeros — but
    a whole number of 15 digits whose 15th is a 5 and 14th even keeps the trailing zeros of
    its 14 digits (PHP's dtoa takes its exact small-integer path for that tie)."""
    whole = str(int(value)) if value.is_integer() and 1e14 <= value < 1e15 else ""
    if whole and whole[PRECISION] == "5" and int(whole[PRECISION - 1]) % 2 == 0:
        return whole[:PRECISION], len(whole)
    mantissa, exponent = f"{value:.{PRECISION - 1}e}".split("e")
    return mantissa.replace(".", "").rstrip("0") or "0", int(exponent) + 1


def php_text(value: float) -> str:
    """A float as PHP prints it (``"%s"``, ``echo``): 14 significant digits, no trailing
    zeros, ``1.0E+25`` and ``1.5E-5`` outside 1e-4 ≤ |value| < 1e15, ``-0`` kept."""
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INF" if value > 0 else "-INF"
    if value == 0.0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    digits, point = _digits(abs(value))
    if point < -3 or point > PRECISION:
        head, tail = digits[0], digits[1:] or "0"
        power = point - 1
        return f"{sign}{head}.{tail}E{'+' if power >= 0 else '-'}{abs(power)}"
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if len(digits) <= point:
        return f"{sign}{digits}{'0' * (point - len(digits))}"
    return f"{sign}{digits[:point]}.{digits[point:]}"
