"""A fio parser for every output form (normal, terse v2-v5, json, json+, several at once)."""

from __future__ import annotations

from dataclasses import replace
from typing import Final, Literal

from pairbench.domain import Record, Summary
from pairbench.tools.fio_json import FioJsonParser
from pairbench.tools.fio_terse import FioTerseParser
from pairbench.tools.fio_text import FioTextParser

__all__ = ["NO_HISTOGRAMS_REASON", "NO_INTERVALS_REASON", "FioAutoParser"]

NO_INTERVALS_REASON: Final = (
    "fio printed one report, at the end (no --status-interval): no per-interval figures, "
    "only the whole run's"
)
NO_HISTOGRAMS_REASON: Final = (
    "fio {form} output has no latency histograms: no per-interval lat_p99_us (json+ has them)"
)

Owner = Literal["json", "normal", "terse"]


class FioAutoParser:
    """Parser for fio output in any form, line by line as it arrives (a live run) or from a
    saved file: ``--output-format=normal``, ``terse`` (``--minimal``, ``--terse-version``
    2-5), ``json``, ``json+``, or several of them (``normal,json``: fio prints each report in
    every form asked for, terse first, then JSON, then the normal text), with or without
    ``--status-interval``.

    Lines inside a JSON document go to ``FioJsonParser`` only; every other line also goes to
    ``FioTextParser`` (with its intervals) and ``FioTerseParser``, which ignore what is not
    theirs. Records and the summary come from the richest form seen so far (JSON, else normal
    text, else terse): in a mix, the others' records would repeat the same intervals. Output
    with none of them (an error message alone) gets the text parser's summary and an empty
    ``form``.

    ``form`` names what was read, in fio's order: ``"terse v3"``, ``"json"``, ``"json+"``,
    ``"normal"``, joined by "," when several (``"json,normal"``), and `` --status-interval``
    when the form's reports came more than once. ``complete`` is False with a ``reason`` when
    the run ended normally but the form cannot carry a metric: one report only
    (``NO_INTERVALS_REASON``), or intervals without latency histograms (every form but json+:
    ``NO_HISTOGRAMS_REASON``).
    """

    __slots__ = ("_json", "_terse", "_text")

    def __init__(self, interval_s: float | None = None) -> None:
        self._json = FioJsonParser(interval_s=interval_s)
        self._text = FioTextParser(intervals=True)
        self._terse = FioTerseParser()

    def _owner(self) -> Owner | None:
        if self._json.documents or self._json.in_document:
            return "json"
        if self._text.seen:
            return "normal"
        if self._terse.version is not None:
            return "terse"
        return None

    def feed(self, line: str) -> list[Record]:
        """Parse one line; returns the records it completes (in the richest form seen)."""
        json = self._json
        was_in, documents = json.in_document, json.documents
        records = json.feed(line)
        if was_in or json.in_document or json.documents != documents:
            return records
        text_records = self._text.feed(line)
        terse_records = self._terse.feed(line)
        owner = self._owner()
        if owner == "normal":
            return text_records
        if owner == "terse":
            return terse_records
        return records

    @property
    def form(self) -> str:
        """The form(s) read so far ("" before any)."""
        forms: list[str] = []
        if self._terse.version is not None:
            forms.append(f"terse v{self._terse.version}")
        if self._json.documents or self._json.in_document:
            forms.append("json+" if self._json.has_bins else "json")
        if self._text.seen:
            forms.append("normal")
        return ",".join(forms)

    def final_bins(self) -> dict[str, dict[int, float]]:
        """The final json+ latency histograms per direction (``FioJsonParser.final_bins``);
        empty for the other forms."""
        return self._json.final_bins() if self._owner() == "json" else {}

    def close(self) -> Summary:
        """The summary of the richest form read, with its ``form`` and any ``reason``."""
        owner = self._owner()
        if owner is None:
            return self._text.close()
        if owner == "json":
            summary, reports = self._json.close(), self._json.documents
        elif owner == "normal":
            summary, reports = self._text.close(), self._text.dumps
        else:
            summary, reports = self._terse.close(), self._terse.reports
        form = self.form + (" --status-interval" if reports > 1 else "")
        reason: str | None = None
        if summary.complete and summary.values:
            if reports == 1:
                reason = NO_INTERVALS_REASON
            elif not (owner == "json" and self._json.has_bins):
                reason = NO_HISTOGRAMS_REASON.format(form=owner)
        return replace(
            summary, form=form, complete=summary.complete and reason is None, reason=reason
        )
