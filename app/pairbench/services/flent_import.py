"""Importing Flent's data files (``.flent.gz``): each file one run of tool ``flent`` with its
series, Flent's metadata (start time, hosts, test, ``-l`` length, step) as start, pair and
parameters, and the file's JSON as the run's raw output (``tools.flent_file`` reads it)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pairbench.domain import Run, RunSpec
from pairbench.domain.user_files import open_regular, read_bytes
from pairbench.library import Library
from pairbench.services.import_checks import check_figures, check_has_series, check_times
from pairbench.services.importing import (
    IMPORT_TAG,
    MAX_IMPORT_BYTES,
    pair_for_addresses,
    store_imported,
)
from pairbench.tools.flent_file import NAME, FlentRun, looks_like_flent, read_flent
from pairbench.tools.provenance import Provenance

FLENT = NAME
_HEAD_BYTES = 4


def is_flent_file(path: Path | str) -> bool:
    """True for a file named as Flent names its data files (``*.flent.gz``, ``.flent.bz2``,
    ``.flent``) or that starts as compressed data; False for anything unreadable (the import
    then says why)."""
    name = os.fspath(path)
    if looks_like_flent(name, b""):
        return True
    try:
        with open_regular(name, what="the file", limit=MAX_IMPORT_BYTES) as handle:
            head = handle.read(_HEAD_BYTES)
    except (OSError, ValueError):
        return False
    return looks_like_flent(name, head)


def read_flent_file(path: Path | str) -> FlentRun:
    """A Flent data file read from ``path`` (a regular file of at most ``MAX_IMPORT_BYTES``,
    inflating to at most ``flent_file.MAX_JSON_BYTES``). ``UserFileError`` (the file),
    ``ParseError`` (its content) say why not."""
    return read_flent(read_bytes(path, what="the Flent file", limit=MAX_IMPORT_BYTES))


def import_flent(
    lib: Library,
    flent: FlentRun,
    *,
    pair: str | None = None,
    label: str = "",
    source_name: str = "",
    tags: Mapping[str, str] | None = None,
) -> Run:
    """Store a Flent data file as one finished run of tool ``flent``.

    ``pair`` None takes the saved pair whose server has the address Flent tested against
    (its first host), else ``local``. A file without any series Pairbench can read is
    refused (``InputRefusedError``), as is a negative or non-finite figure or an implausible
    start time: nothing is stored then.
    """
    check_has_series(flent.records, "the Flent file", "throughput, ping, RTT or VoIP series")
    check_figures(flent.records, flent.summary)
    check_times(flent.started_at, flent.records)
    server = flent.hosts[0] if flent.hosts else ""
    chosen = pair
    if chosen is None:
        chosen = pair_for_addresses(lib, Provenance(server=server)) or "local"
    all_tags = {IMPORT_TAG: source_name or "file", **(tags or {})}
    facts: dict[str, dict[str, str]] = {}
    if flent.local_host:
        facts["client"] = {"name": flent.local_host}
    if server:
        facts["server"] = {"address": server}
    return store_imported(
        lib,
        RunSpec(chosen, FLENT, flent.params, label, all_tags),
        flent.started_at,
        flent.text,
        flent.records,
        flent.summary,
        tool_version=flent.version,
        host_facts=facts,
        notes=[f"output form: {flent.summary.form}", *flent.notes],
    )
