"""Runs as one "long" CSV: fields, parameters, tags, host facts, summary and every sample.

One row per value, so any number of runs, streams and metrics fit one table that pandas,
R or a spreadsheet filter by ``section``:

``run_id, section, stream, key, unit, t, value``

- ``run``: the run's own fields (``key`` = pair, tool, tool_version, status, started_at, ...)
- ``param``, ``tag``: the run's parameters and tags
- ``host_fact``: ``stream`` is the host's role (client, server), ``key`` the fact
- ``summary``: ``key`` is the metric, ``unit`` its unit
- ``sample``: ``stream``, ``key`` = metric, ``unit``, ``t`` (s since the run's start), value

Numbers are written in full precision (``repr``), so they read back exactly. Text fields go
through ``escaping.csv_cell``: a label, note, tag or name that a spreadsheet would run as a
formula (``=…``, ``+…``, ``-…``, ``@…``) is written with a leading ``'``.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import TextIO

from pairbench.analysis.compare_runs import SeriesLike
from pairbench.domain import Run, metric_unit
from pairbench.export.escaping import csv_field, csv_line

HEADER = ("run_id", "section", "stream", "key", "unit", "t", "value")


def _fields(run: Run) -> list[tuple[str, str | float | None]]:
    return [
        ("pair", run.spec.pair),
        ("tool", run.spec.tool),
        ("tool_version", run.tool_version),
        ("status", run.status.value),
        ("started_at", run.started_at),
        ("ended_at", run.ended_at),
        ("label", run.label),
        ("notes", run.notes),
        ("error", run.error or ""),
        ("summary_complete", "true" if run.summary_complete else "false"),
    ]


def write_runs_csv(out: TextIO, runs: Iterable[tuple[Run, Iterable[SeriesLike]]]) -> int:
    """Write the header and every run's rows; return the number of rows after the header."""
    out.write(csv_line(HEADER))
    rows = 0
    for run, series in runs:
        rid = run.id
        for key, value in _fields(run):
            out.write(csv_line((rid, "run", "", key, "", "", value)))
        for key, value in sorted(run.spec.params.items()):
            out.write(csv_line((rid, "param", "", key, "", "", value)))
        for key, value in sorted(run.tags.items()):
            out.write(csv_line((rid, "tag", "", key, "", "", value)))
        for role, facts in sorted(run.host_facts.items()):
            for key, value in sorted(facts.items()):
                out.write(csv_line((rid, "host_fact", role, key, "", "", value)))
        for metric, number in run.summary.items():
            out.write(csv_line((rid, "summary", "", metric, metric_unit(metric), "", number)))
        rows += 10 + len(run.spec.params) + len(run.tags) + len(run.summary)
        rows += sum(len(f) for f in run.host_facts.values())
        for s in series:
            # The text fields once per series; the numbers as repr (a number is never a formula).
            text: tuple[str | int, ...] = (rid, "sample", s.stream, s.metric, metric_unit(s.metric))
            head = ",".join(map(csv_field, text))
            out.writelines(
                f"{head},{t!r},{v!r}\n" for t, v in zip(s.t.tolist(), s.v.tolist(), strict=True)
            )
            rows += len(s.t)
    return rows


def runs_csv(runs: Iterable[tuple[Run, Iterable[SeriesLike]]]) -> str:
    """``write_runs_csv`` into a string."""
    out = io.StringIO()
    write_runs_csv(out, runs)
    return out.getvalue()
