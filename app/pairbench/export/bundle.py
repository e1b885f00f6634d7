"""Evidence bundles: one zip with everything behind a result, re-importable without loss.

Layout (``manifest.json`` lists it; ``README.md`` explains it to a human):

```
README.md                       what this is, the runs, how to re-import
manifest.json                   {"format": "pairbench-bundle", "version": 1, "runs": [...], ...}
runs/0012/run.json              the run's fields, parameters, tags, host facts, summary, pair
runs/0012/series/0000.t.f64     each series' times and values: little-endian float64, exact
runs/0012/series/0000.v.f64
runs/0012/series.csv            the same samples as text (for people; import ignores it)
runs/0012/raw/0000.client.stdout.txt   the raw tool output, chunk by chunk, in order
runs/0012/analyses.json         stored analyses (e.g. the burst estimate), when there are any
charts/overlay.png|svg, charts/summary.png|svg   when a chart renderer is available
tables/comparison.md            when the bundle holds more than one run
```

``export.bundle_import.import_bundle`` stores each run again in another library: every field
of the run, every series bit for bit, every raw chunk, the analyses, and the run's pair when
the library lacks it. Floats travel as JSON numbers (Python writes the shortest text that
reads back exactly; NaN and infinities as the strings "NaN", "Infinity", "-Infinity").
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pairbench import __version__
from pairbench.analysis.compare import compare
from pairbench.analysis.compare_runs import RunInput, default_metric
from pairbench.domain import Run, RunStatus
from pairbench.domain.timestamps import time_text
from pairbench.domain.units import format_value
from pairbench.export.charts import ChartKind, ChartRenderer, ChartUnavailable, chart_spec
from pairbench.export.escaping import markdown_row, markdown_text
from pairbench.export.run_json import pair_payload, run_fields
from pairbench.export.runs_csv import runs_csv
from pairbench.export.selection import load_inputs
from pairbench.export.table_render import to_markdown
from pairbench.export.tables import comparison_report
from pairbench.library import Library
from pairbench.library.analyses import get_analyses
from pairbench.library.series import load_raw_output
from pairbench.library.uuids import uuid_of

BUNDLE_FORMAT = "pairbench-bundle"
BUNDLE_VERSION = 1
MAX_MEMBER_BYTES = 4 << 30  # a member larger than this is refused (a zip bomb guard)
MAX_JSON_BYTES = 64 << 20  # the manifest, a run.json, analyses.json
_KEY_METRICS = ("throughput_bps", "latency_avg_us", "rtt_avg_ms", "read_iops", "write_iops")


class BundleError(ValueError):
    """A file that is not a readable Pairbench bundle, or runs that cannot be bundled."""


@dataclass(frozen=True, slots=True)
class BundleWritten:
    """What ``write_bundle`` put in the zip."""

    path: Path
    run_ids: tuple[int, ...]
    charts: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


# --- floats in JSON ----------------------------------------------------------------------


def _float_out(value: float) -> float | str:
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


# --- writing -----------------------------------------------------------------------------


def _run_dir(run_id: int) -> str:
    return f"runs/{run_id:04d}"


def _raw_name(seq: int, source: str) -> str:
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in source) or "output"
    return f"raw/{seq:04d}.{safe}.txt"


def run_record(
    item: RunInput, raw: Sequence[tuple[str, str]], uuid: str | None = None
) -> tuple[dict[str, Any], dict[str, bytes]]:
    """A run's ``run.json`` and its other files (relative to the run's directory); ``uuid``:
    the run's, kept by the library that imports it (the same run, wherever it goes)."""
    run = item.run
    files: dict[str, bytes] = {}
    series_index = []
    for i, s in enumerate(item.series):
        t_name, v_name = f"series/{i:04d}.t.f64", f"series/{i:04d}.v.f64"
        files[t_name] = np.ascontiguousarray(s.t, dtype="<f8").tobytes()
        files[v_name] = np.ascontiguousarray(s.v, dtype="<f8").tobytes()
        series_index.append(
            {
                "stream": s.stream,
                "metric": s.metric,
                "unit": s.unit,
                "n": len(s.t),
                "t": t_name,
                "v": v_name,
            }
        )
    raw_index = []
    for seq, (source, text) in enumerate(raw):
        name = _raw_name(seq, source)
        files[name] = text.encode("utf-8", errors="surrogatepass")
        raw_index.append({"source": source, "file": name})
    record = run_fields(run, number=_float_out)
    if uuid is not None:
        record["uuid"] = uuid
    record["pair_detail"] = pair_payload(item.pair)
    record["series"] = series_index
    record["raw"] = raw_index
    if item.series:
        files["series.csv"] = runs_csv([(run, item.series)]).encode()
    return record, files


def write_bundle(
    lib: Library,
    run_ids: Sequence[int],
    path: Path,
    *,
    chart_renderer: ChartRenderer | None = None,
    metric: str | None = None,
) -> BundleWritten:
    """Write the runs' evidence bundle to ``path`` (atomically: a temp file, then a rename)."""
    if not run_ids:
        raise BundleError("no runs to bundle")
    inputs = load_inputs(lib, run_ids)
    running = [i.run.id for i in inputs if i.run.status is RunStatus.RUNNING]
    if running:
        raise BundleError(f"run(s) {', '.join(map(str, running))} are still running")
    members: dict[str, bytes] = {}
    manifest_runs = []
    for item in inputs:
        directory = _run_dir(item.run.id)
        uuid = uuid_of(lib, "runs", item.run.id, "run")
        record, files = run_record(item, load_raw_output(lib, item.run.id), uuid)
        analyses = get_analyses(lib, item.run.id)
        if analyses:
            files["analyses.json"] = json.dumps(analyses, indent=1, sort_keys=True).encode()
            record["analyses"] = "analyses.json"
        members[f"{directory}/run.json"] = json.dumps(record, indent=1).encode()
        members.update({f"{directory}/{name}": data for name, data in files.items()})
        manifest_runs.append({"id": item.run.id, "dir": directory})
    notes: list[str] = []
    charts = _charts(inputs, chart_renderer, metric, members, notes)
    if len(inputs) > 1:
        try:
            cmp = compare(inputs, metric=metric)
            members["tables/comparison.md"] = to_markdown(comparison_report(cmp)).encode()
        except ValueError as exc:
            notes.append(f"no comparison table: {exc}")
    manifest = {
        "format": BUNDLE_FORMAT,
        "version": BUNDLE_VERSION,
        "pairbench_version": __version__,
        "created_at": time.time(),
        "runs": manifest_runs,
        "charts": charts,
    }
    members["manifest.json"] = json.dumps(manifest, indent=1).encode()
    members["README.md"] = _readme(inputs, charts, notes).encode()
    path = Path(path)
    _write_zip(path, members)
    return BundleWritten(path, tuple(i.run.id for i in inputs), tuple(charts), tuple(notes))


def _charts(
    inputs: Sequence[RunInput],
    renderer: ChartRenderer | None,
    metric: str | None,
    members: dict[str, bytes],
    notes: list[str],
) -> list[str]:
    if renderer is None:
        notes.append("charts: not included (no chart renderer here)")
        return []
    try:
        cmp = compare(inputs, metric=metric or default_metric(inputs))
    except ValueError as exc:
        notes.append(f"charts: not included ({exc})")
        return []
    wanted = [(ChartKind.OVERLAY, "overlay")] if cmp.curves else []
    if len(cmp.groups) > 1:
        wanted.append((ChartKind.SUMMARY, "summary"))
    if not wanted:
        notes.append("charts: nothing to draw (one run without time series)")
    names: list[str] = []
    with tempfile.TemporaryDirectory(prefix="pairbench-charts-") as tmp:
        for kind, stem in wanted:
            spec = chart_spec(cmp, kind)
            for suffix in (".png", ".svg"):
                out = Path(tmp) / f"{stem}{suffix}"
                try:
                    renderer(spec, out)
                except ChartUnavailable as exc:
                    notes.append(f"charts: not included ({exc})")
                    return names
                name = f"charts/{stem}{suffix}"
                members[name] = out.read_bytes()
                names.append(name)
    return names


def _write_zip(path: Path, members: Mapping[str, bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
            for name, data in members.items():
                zf.writestr(name, data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _when(timestamp: float) -> str:
    return time_text(timestamp, "%Y-%m-%d %H:%M UTC", utc=True)


def _key_result(run: Run) -> str:
    for name in _KEY_METRICS:
        if name in run.summary:
            return f"{name} = {format_value(name, run.summary[name])}"
    return ""


def _readme(inputs: Sequence[RunInput], charts: Sequence[str], notes: Sequence[str]) -> str:
    """The bundle's README.md; user text (pairs, tools, labels, notes) escaped for Markdown."""
    lines = [
        "# Pairbench evidence bundle",
        "",
        f"Made by Pairbench {__version__} on {_when(time.time())}: {len(inputs)} run(s) with "
        "their raw tool output, parsed series, parameters, tool versions and host facts.",
        "",
        "| run | started | pair | tool | label | status | result |",
        "|--:|:--|:--|:--|:--|:--|:--|",
    ]
    for item in inputs:
        r = item.run
        tool = f"{r.spec.tool} {r.tool_version}".strip()
        cells = (str(r.id), _when(r.started_at), r.spec.pair, tool, r.label, r.status.value)
        lines.append(markdown_row((*cells, _key_result(r))))
    lines += [
        "",
        "## Contents",
        "",
        "- `runs/NNNN/run.json`: the run's fields, parameters, tags, host facts (kernel, NIC "
        "driver, MTU, socket buffers, congestion control), summary and pair.",
        "- `runs/NNNN/raw/`: the tool's output exactly as received, chunk by chunk.",
        "- `runs/NNNN/series/*.f64`: each series' times (s since the run's start) and values "
        "as little-endian float64 (`numpy.fromfile(path, '<f8')`); `series.csv` has the same "
        "samples as text.",
    ]
    if charts:
        lines.append(f"- `charts/`: {markdown_text(', '.join(Path(c).name for c in charts))}.")
    if len(inputs) > 1:
        lines.append("- `tables/comparison.md`: the runs compared (statistics, what differs).")
    lines += [
        "",
        "Re-import into another library: `pairbench import-bundle THIS.zip`.",
    ]
    if notes:
        lines += ["", "Notes:", "", *[f"- {markdown_text(note)}" for note in notes]]
    return "\n".join(lines) + "\n"


# --- reading -----------------------------------------------------------------------------
