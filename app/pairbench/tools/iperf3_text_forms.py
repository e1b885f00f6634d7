"""What tells iperf3's text forms apart: timestamp prefixes, fixed units (-f), verbose lines."""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "BIT_EXP",
    "BYTES",
    "UnitForm",
    "body_offset",
    "form_name",
    "printed_rate",
    "rate_from_transfer",
    "read_quantity",
]

# Rates: bits are 1000-based; the exponent is appended to the printed digits so that the float
# is the correctly rounded value of what iperf3 printed ("14.2 Gbits/sec" == 14.2e9 exactly).
BIT_EXP: Final[dict[str, str]] = {
    "bits": "",
    "Kbits": "e3",
    "Mbits": "e6",
    "Gbits": "e9",
    "Tbits": "e12",
}
# Bytes are 1024-based (powers of two: multiplying is exact).
BYTES: Final[dict[str, float]] = {
    "Bytes": 1.0,
    "KBytes": 1024.0,
    "MBytes": 1024.0**2,
    "GBytes": 1024.0**3,
    "TBytes": 1024.0**4,
}

# Where the text that iperf3 printed begins in a line that carries something before it: the
# time stamp of ``--timestamps[=FORMAT]`` (any strftime text, "%c " by default, which may hold
# digits, spaces and brackets). A candidate is a bracketed stream line ("[  5] 0.00-1.00 sec",
# "[  5] local ...", "[  4] Sent ...", "[  5] (sender statistics ...", "[ ID] ...") or the start
# of a line iperf3 prints; the first candidate after the line's first character is the body
# (a bracketed number in the stamp, "[05] ", is followed by neither a time range nor "local").
_BODY_RE: Final = re.compile(
    r"\[(?:\s{0,8}+(?:\d{1,9}+|SUM)\](?:\[[TR]X-[CS]\])?\s++"
    r"(?:[\d.]{1,32}+-[\d.]{1,32}+\s++sec\s|local\s|Sent\s|\((?:sender|receiver)\s)"
    r"| ID\])"
    r"|Connecting to host |Accepted connection from |Server listening on |Reverse mode, "
    r"|iperf Done\.|iperf3: |- - - - |-{20}|Test Complete\. |CPU Utilization: |Starting Test: "
    r"|Server output:"
)
# A printed transfer, for a rate printed with fewer than 3 digits (-f with a large unit).
_TRANSFER_RE: Final = re.compile(r"sec\s++([\d.]{1,32}+)\s([KMGT]?Bytes)\s")
_BODY_MATCH: Final = _BODY_RE.match
_BODY_SEARCH: Final = _BODY_RE.search


def body_offset(line: str) -> int:
    """Where iperf3's own text begins in ``line``: 0 when the line begins with it, the length of
    the prefix (a time stamp) before it, or -1 when it holds none of the lines looked for."""
    if _BODY_MATCH(line) is not None:
        return 0
    m = _BODY_SEARCH(line, 1)
    return -1 if m is None else m.start()


def rate_from_transfer(number: str, unit: str, seconds: float) -> float | None:
    """Bits per second from a printed transfer ("5.15", "GBytes") over ``seconds``, or None."""
    if seconds <= 0.0:
        return None
    return float(number) * BYTES[unit] * 8.0 / seconds


class UnitForm:
    """Which rate units a text output used, to name its ``-f`` letter.

    iperf3's default (adaptive) rate is in bits and picks the unit that keeps the number in
    [1, 1000) (zero: "0.00 bits/sec"); ``-f k|m|g|t`` prints every rate in one bit unit and
    ``-f K|M|G|T`` in one byte unit, so a rate in bytes, or a number below 1 or from 1000 on
    in a prefixed bit unit, shows a fixed unit. An output whose numbers all fit the adaptive
    rule cannot be told from it (nor need it be: the values read are the same).
    """

    __slots__ = ("fixed", "units")

    def __init__(self) -> None:
        self.units: set[str] = set()
        self.fixed = False

    def note(self, number: str, unit: str) -> None:
        """One printed rate: its number and unit ("Mbits", "KBytes")."""
        if unit not in self.units:
            if len(self.units) > 8:
                return  # not iperf3's: there are 10 units in all
            self.units.add(unit)
        if not self.fixed and unit not in ("bits", "Bytes"):
            if unit.endswith("Bytes"):
                self.fixed = True
            else:
                try:
                    value = float(number)
                except ValueError:
                    return
                self.fixed = value < 1.0 or (value >= 1000.0 and unit != "Tbits")

    def letter(self) -> str | None:
        """The ``-f`` letter when the output shows one fixed unit, else None."""
        if not self.fixed or len(self.units) != 1:
            return None
        unit = next(iter(self.units))
        if unit in ("bits", "Bytes"):
            return None
        return unit[0] if unit.endswith("Bytes") else unit[0].lower()


def form_name(
    *, stamped: bool, letter: str | None, verbose: bool, server_output: bool, base: str = "text"
) -> str:
    """The form's short name: "text" with the options it shows, e.g. "text --timestamps -f M"."""
    parts = [base]
    if stamped:
        parts.append("--timestamps")
    if letter:
        parts.append(f"-f {letter}")
    if verbose:
        parts.append("-V")
    if server_output:
        parts.append("--get-server-output")
    return " ".join(parts)


def printed_rate(number: str, unit: str, line: str, start: str, end: str, units: UnitForm) -> float:
    """A printed rate in bit/s; from the printed transfer when the rate has fewer digits.

    ``-f`` with a unit too large prints "0.05 Gbits/sec" or even "0.00 TBytes/sec"; the
    transfer beside it ("5.84 MBytes", 3 digits) over the interval's length is then the
    better of iperf3's own figures. ``ValueError`` or ``KeyError`` if malformed.
    """
    exp = BIT_EXP.get(unit)
    rate = float(number + exp) if exp is not None else float(number) * BYTES[unit] * 8.0
    units.note(number, unit)
    if number[:2] == "0." and unit not in ("bits", "Bytes"):
        m = _TRANSFER_RE.search(line)
        if m is not None:
            seconds = float(end) - float(start)
            better = rate_from_transfer(m.group(1), m.group(2), seconds)
            if better is not None:
                return better
    return rate


# How many distinct rate and size texts ("14.2 Gbits", "458 KBytes") a parser remembers; iperf3
# prints three significant digits, so a long run repeats a few thousand of them.
_MAX_KNOWN: Final = 8192


def read_quantity(text: str, known: dict[str, float], units: UnitForm) -> float:
    """A rate ("14.2 Gbits": bit/s) or size ("458 KBytes": bytes) as printed, remembered in
    ``known``; a rate's digits tell ``units`` the form (``-f``)."""
    number, _, unit = text.partition(" ")
    exp = BIT_EXP.get(unit)
    if exp is not None:
        value = float(number + exp)
        units.note(number, unit)
    else:
        value = float(number) * BYTES[unit]
    if len(known) >= _MAX_KNOWN:
        known.clear()
    known[text] = value
    return value
