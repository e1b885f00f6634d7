"""What the storage suite keeps of a fio run's last JSON document beyond its summary: the
largest latencies (``lat_ns.max`` per direction, its peak-latency table), and fio's own
figures of the first ``jobs[]`` entry as fio printed them (CloudHarmony's columns)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from pairbench.domain.storage import fio_figure_key

_DIRECTIONS = ("read", "write")


def last_document(lines: Iterable[str]) -> dict[str, Any] | None:
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
    doc = last_document(lines)
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


def first_job_figures(lines: Iterable[str]) -> dict[str, float]:
    """fio's own figures of the last document's first job, per direction fio printed:
    ``{dir}_fio_iops``, ``{dir}_fio_bw`` (KiB/s), ``{dir}_fio_lat_ns_mean`` and
    ``{dir}_fio_lat_ns_max`` (``domain.storage.FIO_FIGURES``); empty without a document."""
    doc = last_document(lines)
    jobs = doc.get("jobs") if doc is not None else None
    out: dict[str, float] = {}
    if not isinstance(jobs, list) or not jobs or not isinstance(jobs[0], dict):
        return out
    for direction in _DIRECTIONS:
        part = jobs[0].get(direction)
        if not isinstance(part, dict):
            continue
        found_lat = part.get("lat_ns")
        lat: dict[str, Any] = found_lat if isinstance(found_lat, dict) else {}
        found = {
            "iops": part.get("iops"),
            "bw": part.get("bw"),
            "lat_ns_mean": lat.get("mean"),
            "lat_ns_max": lat.get("max"),
        }
        for name, value in found.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                out[fio_figure_key(direction, name)] = float(value)
    return out
