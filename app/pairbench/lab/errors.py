"""The one error type of the lab: a message fit to show the user as it is."""

from __future__ import annotations


class LabError(Exception):
    """The lab cannot do what was asked; the message says why (and what to run, if anything)."""
