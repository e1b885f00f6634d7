"""Runs as one "long" CSV: fields, parameters, tags, host facts, summary and every sample.

One row per value, so any number of runs, streams and metrics fit one table that pandas,
R or a spreadsheet filter by ``section``:

``run_id, section, stream, key, unit, t, value``

- ``run``: the run's own fields (``key`` = pair, tool, tool_version, status, started_at, ...)
- ``param``, ``tag``: the run's parameters and tags
- ``host_fact``: ``stream`` is the host's role (client, server), ``key`` the fact
- ``summary``: ``key`` is the metric, ``unit`` its unit
- ``sample``: ``stream``, ``key`` = metric, ``unit``, ``t`` (s since the run's start), value

Numbers are written in full precision (``repr``), so they read back exactly.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import TextIO

from pairbench.analysis.compare import SeriesLike
from pairbench.domain import Run, metric_unit

HEADER = ("run_id", "section", "stream", "key", "unit", "t", "value")


def _fields(run: Run) -> list[tuple[str, str]]:
    return [
        ("pair", run.spec.pair),
        ("tool", run.spec.tool),
        ("tool_version", run.tool_version),
        ("status", run.status.value),
        ("started_at", repr(run.started_at)),
        ("ended_at", "" if run.ended_at is None else repr(run.ended_at)),
        ("label", run.label),
        ("notes", run.notes),
        ("error", run.error or ""),
        ("summary_complete", "true" if run.summary_complete else "false"),
    ]


def write_runs_csv(out: TextIO, runs: Iterable[tuple[Run, Iterable[SeriesLike]]]) -> int:
    """Write the header and every run's rows; return the number of rows after the header."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(HEADER)
    rows = 0
    for run, series in runs:
        rid = str(run.id)
        for key, value in _fields(run):
            writer.writerow((rid, "run", "", key, "", "", value))
        for key, value in sorted(run.spec.params.items()):
            writer.writerow((rid, "param", "", key, "", "", value))
        for key, value in sorted(run.tags.items()):
            writer.writerow((rid, "tag", "", key, "", "", value))
        for role, facts in sorted(run.host_facts.items()):
            for key, value in sorted(facts.items()):
                writer.writerow((rid, "host_fact", role, key, "", "", value))
        for metric, number in run.summary.items():
            writer.writerow((rid, "summary", "", metric, metric_unit(metric), "", repr(number)))
        rows += 10 + len(run.spec.params) + len(run.tags) + len(run.summary)
        rows += sum(len(f) for f in run.host_facts.values())
        for s in series:
            unit = metric_unit(s.metric)
            writer.writerows(
                (rid, "sample", s.stream, s.metric, unit, repr(t), repr(v))
                for t, v in zip(s.t.tolist(), s.v.tolist(), strict=True)
            )
            rows += len(s.t)
    return rows


def runs_csv(runs: Iterable[tuple[Run, Iterable[SeriesLike]]]) -> str:
    """``write_runs_csv`` into a string."""
    out = io.StringIO()
    write_runs_csv(out, runs)
    return out.getvalue()
