"""Exporting runs, for the CLI (`pairbench export`) and the window (File ▸ Export): JSON as
`runs show --json`, one long CSV, or an evidence bundle; written whole or not at all."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pairbench import __version__
from pairbench.analysis.compare_runs import SeriesLike
from pairbench.domain import Series
from pairbench.export.bundle import BundleError as BundleError
from pairbench.export.bundle import write_bundle
from pairbench.export.charts import ChartRenderer
from pairbench.export.run_json import runs_document
from pairbench.export.runs_csv import write_runs_csv
from pairbench.library import Library
from pairbench.services.compare import compare_inputs

FORMATS = ("json", "csv", "bundle")
SUFFIXES = {".json": "json", ".csv": "csv", ".zip": "bundle"}


def format_of(path: Path) -> str:
    """The export format a file name asks for (``.json``, ``.csv``, ``.zip``)."""
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(f"cannot tell the export format of {path.name!r}: .json, .csv or .zip")
    return fmt


def export_runs(
    lib: Library,
    ids: Sequence[int],
    out: Path,
    fmt: str,
    *,
    chart_renderer: ChartRenderer | None = None,
    metric: str | None = None,
) -> list[str]:
    """Write the runs ``ids`` to ``out``; the notes the export made (a bundle's, e.g. a chart
    it could not draw). ``BundleError``/``OSError`` when it cannot; nothing half-written."""
    if fmt not in FORMATS:
        raise ValueError(f"export format: one of {', '.join(FORMATS)}, got {fmt!r}")
    if fmt == "bundle":
        written = write_bundle(lib, list(ids), out, chart_renderer=chart_renderer, metric=metric)
        return list(written.notes)
    _write_text(lib, list(ids), out, fmt)
    return []


def _series(s: SeriesLike) -> Series:
    return Series(s.stream, s.metric, s.unit, tuple(s.t.tolist()), tuple(s.v.tolist()))


def _write_text(lib: Library, ids: list[int], out: Path, fmt: str) -> None:
    """JSON or CSV, written to a temp file beside ``out`` and renamed into place."""
    inputs = compare_inputs(lib, ids)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{out.name}.", suffix=".part", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            if fmt == "json":
                document = runs_document(
                    ((i.run, i.pair, [_series(s) for s in i.series]) for i in inputs),
                    pairbench_version=__version__,
                )
                json.dump(document, handle)
            else:
                write_runs_csv(handle, ((i.run, i.series) for i in inputs))
        os.replace(tmp_name, out)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
