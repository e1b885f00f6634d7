"""Where a saved tool output came from, as far as the output itself says: the reader its
tool's record names (``Tool.provenance``), called so that a damaged output never raises."""

from __future__ import annotations

from pairbench.tools.provenance_readers import Provenance
from pairbench.tools.registry import TOOLS

__all__ = ["Provenance", "provenance"]


def provenance(tool: str, text: str) -> Provenance:
    """What ``text`` (the output of ``tool``) records about its run; never raises."""
    known = TOOLS.get(tool)
    if known is None:
        return Provenance()
    try:
        return known.provenance(text)
    except (
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        IndexError,
        ArithmeticError,  # an int beyond a float: round(float("1e999")), a 400-digit number
        RecursionError,  # JSON nested a thousand deep
    ):
        return Provenance()  # a damaged output records nothing we can trust
