"""Importing a saved tool output as a run: parsed, stored with its raw text, like a live run."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from pairbench.domain import Line, LineSource, Record, Run, RunSpec, RunStatus, Summary
from pairbench.domain.failures import InputRefusedError, LibraryFullError
from pairbench.library import Library, Recorder
from pairbench.library.analyses import store_analysis
from pairbench.library.hosts import get_pair, list_pairs
from pairbench.library.runs import (
    create_run,
    discard_run,
    finish_run,
    get_run,
    set_run_facts,
    update_run_notes,
)
from pairbench.library.series import compact_series
from pairbench.services.import_checks import (
    check_figures,
    check_has_result,
    check_text,
    check_times,
    checked_params,
)
from pairbench.tools.base import ParseError
from pairbench.tools.feed import feed_text
from pairbench.tools.provenance import Provenance, provenance
from pairbench.tools.registry import get_tool

IMPORT_TAG = "imported"
MAX_IMPORT_BYTES = 512 * 1024 * 1024


def import_output(
    lib: Library,
    tool_name: str,
    text: str,
    *,
    pair: str | None = None,
    label: str = "",
    source_name: str = "",
    tags: Mapping[str, str] | None = None,
) -> Run:
    """Parse ``text`` as ``tool_name`` output and store it as a finished run.

    The run keeps what the output records about itself (``tools.provenance``): its start
    time (else the import's), the parameters it ran with, the tool's version, and the
    addresses of its client and server (as host facts). ``pair`` None takes the saved pair
    whose client and server have those addresses, else ``local``.

    The run is ``completed`` when the tool's summary was found, ``failed`` when the tool
    reported an error before measuring anything (its own words are kept), ``interrupted``
    when the output stops early or the tool stopped mid-run with a message.
    ``ParseError`` propagates and nothing is stored; so does ``InputRefusedError`` for an
    output that holds no result of the tool, an implausible start or end time, or a figure
    that is negative or not finite (``services.import_checks``). Parameters that ``--set``
    would refuse are left out, each with a note on the run.
    """
    tool = get_tool(tool_name)
    check_text(text, tool.name)
    parser = tool.file_parser()
    records, summary = feed_text(parser, text)
    check_has_result(records, summary, tool.name)
    check_figures(records, summary)
    source = provenance(tool.name, text)
    check_times(source.started_at, records)
    params, param_notes = checked_params(tool, source.params)
    chosen = pair if pair is not None else (pair_for_addresses(lib, source) or "local")
    notes = [f"output form: {summary.form}"] if summary.form else []
    return store_imported(
        lib,
        RunSpec(
            chosen, tool.name, params, label, {IMPORT_TAG: source_name or "file", **(tags or {})}
        ),
        source.started_at,
        text,
        records,
        summary,
        tool_version=source.version or _version_hint(text, tool.name),
        host_facts=_host_facts(source),
        notes=notes + param_notes,
        analyses=tool.analyses_of(parser),  # fio json+: latency histogram
    )


def store_imported(
    lib: Library,
    spec: RunSpec,
    started_at: float | None,
    text: str,
    records: list[Record],
    summary: Summary,
    *,
    tool_version: str,
    host_facts: Mapping[str, Mapping[str, str]],
    notes: list[str],
    analyses: Mapping[str, Mapping[str, Any]] | None = None,
) -> Run:
    """Store a read output as a finished run: its start (else now), the output's lines as
    raw output, its records, a status from its summary, ``notes`` and the summary's reason,
    and ``analyses`` (kind → payload).

    ``completed`` when the summary was found, ``failed`` when the tool reported an error
    before measuring anything (its own words are kept), ``interrupted`` when the output stops
    early or the tool stopped mid-run with a message. A full disk (``LibraryFullError``)
    stores nothing, or deletes the run it had begun (``_forget`` says what was kept).
    """
    get_pair(lib, spec.pair)  # the pair must exist
    now = time.time()
    started = started_at if started_at is not None else now
    ended = started + max((r.t for r in records), default=0.0) if started_at else now
    with lib.disk_errors("nothing was imported"):
        run_id = create_run(lib, spec, started_at=started)
    try:
        with lib.disk_errors():
            set_run_facts(lib, run_id, tool_version=tool_version, host_facts=dict(host_facts))
            recorder = Recorder(lib, run_id)
            for line in text.split("\n"):
                recorder.add_line(Line(LineSource.CLIENT_OUT, line, 0.0))
            recorder.add(records)
            recorder.flush()
            if summary.error and (summary.complete or not records):
                status, error = RunStatus.FAILED, summary.error
            elif summary.error:  # it measured, then stopped with a message (e.g. interrupted)
                status, error = RunStatus.INTERRUPTED, summary.error
            elif not summary.complete and summary.reason is None:
                status, error = RunStatus.INTERRUPTED, "the output ends before the tool's summary"
            else:
                status, error = RunStatus.COMPLETED, None
            finish_run(
                lib,
                run_id,
                status,
                summary=dict(summary.values),
                complete=summary.complete,
                error=error,
                ended_at=ended,
            )
            if summary.reason:  # ended normally, but the output's form cannot carry every metric
                notes = [*notes, f"summary incomplete: {summary.reason}"]
            if notes:
                update_run_notes(lib, run_id, notes="\n".join(notes))
            for kind, payload in (analyses or {}).items():
                store_analysis(lib, run_id, kind, payload)
            compact_series(lib.conn, run_id)
    except LibraryFullError as exc:
        raise exc.keeping(_forget(lib, run_id)) from exc
    return get_run(lib, run_id)


def _forget(lib: Library, run_id: int) -> str:
    """Delete a run the disk had no room to import whole; what was kept, said."""
    try:
        with lib.disk_errors():
            discard_run(lib, run_id)
    except LibraryFullError:
        return f"run {run_id} is left incomplete (it shows as interrupted): delete it"
    return "nothing was imported"


def pair_for_addresses(lib: Library, source: Provenance) -> str | None:
    """The saved pair whose client has the output's client address and whose server (or
    data address) has its server address; None when the output names no address or no
    single pair matches."""
    if not source.server:
        return None
    found = [
        p.name
        for p in list_pairs(lib)
        if source.server in (p.server.address, p.data_address)
        and (not source.client or source.client == p.client.address)
        and not p.client.is_local
    ]
    return found[0] if len(found) == 1 else None


def _host_facts(source: Provenance) -> dict[str, dict[str, str]]:
    """The addresses and system the output names, as the run's host facts."""
    facts: dict[str, dict[str, str]] = {}
    if source.client or source.system:
        client = {"address": source.client} if source.client else {}
        if source.system:
            client["system"] = source.system
        facts["client"] = client
    if source.server:
        facts["server"] = {"address": source.server}
    return facts


def _version_hint(text: str, tool_name: str) -> str:
    """The tool version if the output names it (iperf3 -J does), else empty."""
    marker = '"version":'
    index = text.find(marker)
    if index >= 0:
        rest = text[index + len(marker) :].strip().lstrip('"')
        return rest.split('"', 1)[0][:60]
    return ""


__all__ = ["InputRefusedError", "ParseError", "import_output"]
