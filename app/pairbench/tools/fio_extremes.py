"""The largest latencies of a fio run, from its last JSON document (``lat_ns.max`` per
direction): what the storage suite's maximum-latency table reports."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

_DIRECTIONS = ("read", "write")


def _last_document(lines: Iterable[str]) -> dict[str, Any] | None:
    """The last whole top-level JSON document among the lines (fio writes each one from a
    line ``{`` to a line ``}``; other lines — errors, a normal-form dump — are skipped)."""
    last: dict[str, Any] | None = None
    block: list[str] | None = None
    for line in lines:
        text = line.rstrip("\r\n")
        if text == "{":
            block = [text]
        elif block is not None:
            block.append(text)
            if text == "}":
                try:
                    value = json.loads("\n".join(block))
                except ValueError:
                    value = None
                if isinstance(value, dict):
                    last = value
                block = None
    return last


def latency_max_us(lines: Iterable[str]) -> dict[str, float]:
    """``{read,write}_lat_max_us``: the largest ``lat_ns.max`` of the directions that did
    I/O, over the jobs of the last document (µs); empty when there is no document."""
    doc = _last_document(lines)
    jobs = doc.get("jobs") if doc is not None else None
    out: dict[str, float] = {}
    if not isinstance(jobs, list):
        return out
    for job in jobs:
        if not isinstance(job, dict):
            continue
        for direction in _DIRECTIONS:
            part = job.get(direction)
            if not isinstance(part, dict) or not part.get("total_ios"):
                continue
            lat = part.get("lat_ns")
            top = lat.get("max") if isinstance(lat, dict) else None
            if isinstance(top, int | float) and top > 0:
                key = f"{direction}_lat_max_us"
                out[key] = max(out.get(key, 0.0), float(top) / 1000.0)
    return out
