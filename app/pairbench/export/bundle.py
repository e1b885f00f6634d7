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

``import_bundle`` stores each run again in another library: every field of the run, every
series bit for bit, every raw chunk, the analyses, and the run's pair when the library lacks
it. Floats travel as JSON numbers (Python writes the shortest text that reads back exactly;
NaN and infinities as the strings "NaN", "Infinity", "-Infinity").
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pairbench import __version__
from pairbench.analysis.compare import RunInput, compare, default_metric
from pairbench.domain import Line, LineSource, Record, Run, RunSpec, RunStatus
from pairbench.domain.failures import UserFileError
from pairbench.domain.timestamps import time_text
from pairbench.domain.units import format_value
from pairbench.domain.user_files import open_regular
from pairbench.export.bundle_checks import bundle_problem
from pairbench.export.charts import ChartKind, ChartRenderer, ChartUnavailable, chart_spec
from pairbench.export.escaping import markdown_row, markdown_text
from pairbench.export.run_json import pair_from_payload, pair_payload, run_fields
from pairbench.export.runs_csv import runs_csv
from pairbench.export.selection import load_inputs
from pairbench.export.tables import comparison_report, to_markdown
from pairbench.library import Library, LibraryError, Recorder
from pairbench.library.analyses import get_analyses, store_analysis
from pairbench.library.hosts import add_host, add_pair, get_host, get_pair
from pairbench.library.runs import (
    create_run,
    delete_run,
    finish_run,
    list_runs,
    set_run_facts,
    update_run_notes,
)
from pairbench.library.series import compact_series, load_raw_output
from pairbench.library.uuids import normal_uuid, run_by_uuid, uuid_of

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


@dataclass(frozen=True, slots=True)
class BundleImport:
    """What ``import_bundle`` did: (bundled id, new id) pairs, skipped runs, added pairs."""

    imported: tuple[tuple[int, int], ...]
    skipped: tuple[tuple[int, int], ...] = ()  # (bundled id, id of the run already here)
    pairs_added: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)


# --- floats in JSON ----------------------------------------------------------------------


def _float_out(value: float) -> float | str:
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _float_in(value: Any) -> float:
    if isinstance(value, str):
        if value not in ("NaN", "Infinity", "-Infinity"):
            raise BundleError(f"not a number: {value!r}")
        return float(value.replace("Infinity", "inf"))
    return float(value)


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


def _read(zf: zipfile.ZipFile, name: str, limit: int = MAX_MEMBER_BYTES) -> bytes:
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise BundleError(f"the bundle lacks {name}") from None
    if info.file_size > limit:
        raise BundleError(f"{name} is too large ({info.file_size} bytes)")
    return zf.read(info)


def _json(zf: zipfile.ZipFile, name: str) -> Any:
    try:
        return json.loads(_read(zf, name, MAX_JSON_BYTES))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BundleError(f"{name} is not valid JSON: {exc}") from exc


def read_manifest(zf: zipfile.ZipFile) -> dict[str, Any]:
    """The manifest, checked for format and version."""
    manifest = _json(zf, "manifest.json")
    if not isinstance(manifest, dict) or manifest.get("format") != BUNDLE_FORMAT:
        raise BundleError("not a Pairbench evidence bundle (no pairbench-bundle manifest)")
    version = manifest.get("version")
    if not isinstance(version, int) or version > BUNDLE_VERSION:
        raise BundleError(
            f"bundle format version {version} is newer than this Pairbench reads "
            f"({BUNDLE_VERSION}); upgrade Pairbench"
        )
    return manifest


@contextmanager
def open_bundle(path: Path) -> Iterator[zipfile.ZipFile]:
    """The bundle's zip (a regular file: a FIFO or a device is refused without blocking), or
    ``BundleError`` saying why not."""
    try:
        handle = open_regular(path, what="the bundle")
    except UserFileError as exc:
        if isinstance(exc.os_error, FileNotFoundError):
            raise BundleError(f"no such file: {path}") from None
        raise BundleError(str(exc)) from None
    with handle:
        try:
            zf = zipfile.ZipFile(handle)
        except (zipfile.BadZipFile, OSError) as exc:
            raise BundleError(f"{path} is not a zip file: {exc}") from exc
        with zf:
            yield zf


def import_bundle(lib: Library, path: Path, *, allow_duplicates: bool = False) -> BundleImport:
    """Store the bundle's runs in ``lib``, each under the UUID it was bundled with; a run
    already there (its UUID, or the same start, pair, tool and label) is skipped unless
    ``allow_duplicates`` (a run imported again on purpose is a new run: a new UUID)."""
    with open_bundle(Path(path)) as zf:
        manifest = read_manifest(zf)
        entries = manifest.get("runs")
        if not isinstance(entries, list) or not entries:
            raise BundleError("the bundle's manifest lists no runs")
        records = []
        for entry in entries:
            directory = str(entry["dir"])
            records.append((directory, _json(zf, f"{directory}/run.json")))
        problem = bundle_problem(records)
        if problem is not None:
            raise BundleError(f"{problem}; nothing imported")
        existing = {(r.started_at, r.spec.pair, r.spec.tool, r.label): r.id for r in list_runs(lib)}
        imported: list[tuple[int, int]] = []
        skipped: list[tuple[int, int]] = []
        pairs_added: list[str] = []
        notes: list[str] = []
        for directory, record in records:
            try:
                key = (
                    float(record["started_at"]),
                    str(record["pair"]),
                    str(record["tool"]),
                    str(record["label"]),
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise BundleError(f"{directory}/run.json is incomplete: {exc}") from exc
            bundled = _bundled_uuid(directory, record)
            here = None if bundled is None else run_by_uuid(lib, bundled)
            if (key in existing or here is not None) and not allow_duplicates:
                skipped.append((int(record["id"]), existing[key] if here is None else here))
                continue
            _ensure_pair(lib, record.get("pair_detail"), pairs_added, notes)
            keep = bundled if here is None else None
            new_id = _import_run(lib, zf, directory, record, keep)
            imported.append((int(record["id"]), new_id))
    return BundleImport(tuple(imported), tuple(skipped), tuple(pairs_added), tuple(notes))


def _ensure_pair(
    lib: Library, detail: Mapping[str, Any] | None, added: list[str], notes: list[str]
) -> None:
    """Add the run's pair (and its hosts) when this library has no pair of that name."""
    if not detail:
        return
    pair = pair_from_payload(detail)
    try:
        here = get_pair(lib, pair.name)
    except LibraryError:
        here = None
    if here is not None:
        if here != pair:
            notes.append(f"pair {pair.name!r} exists here with other hosts or tags; kept as is")
        return
    for host in (pair.client, pair.server):
        try:
            existing = get_host(lib, host.name)
        except LibraryError:
            add_host(lib, host)
            continue
        if existing != host:
            notes.append(f"host {host.name!r} exists here with other settings; kept as is")
    add_pair(lib, pair)
    added.append(pair.name)


def _bundled_uuid(directory: str, record: Mapping[str, Any]) -> str | None:
    """The run's UUID in the bundle (None: a bundle of an earlier Pairbench has none)."""
    if record.get("uuid") is None:
        return None
    try:
        return normal_uuid(record["uuid"])
    except ValueError as exc:
        raise BundleError(f"{directory}/run.json: its uuid {exc}") from None


def _import_run(
    lib: Library,
    zf: zipfile.ZipFile,
    directory: str,
    record: Mapping[str, Any],
    uuid: str | None,
) -> int:
    try:
        status = RunStatus(str(record["status"]))
        spec = RunSpec(
            pair=str(record["pair"]),
            tool=str(record["tool"]),
            params={str(k): str(v) for k, v in dict(record["params"]).items()},
            label=str(record["label"]),
            tags={str(k): str(v) for k, v in dict(record["tags"]).items()},
        )
        summary = {str(k): _float_in(v) for k, v in dict(record["summary"]).items()}
        facts = {
            str(role): {str(k): str(v) for k, v in dict(values).items()}
            for role, values in dict(record["host_facts"]).items()
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise BundleError(f"{directory}/run.json is incomplete: {exc}") from exc
    if not status.is_final:
        raise BundleError(f"{directory}: a running run cannot be imported")
    run_id = create_run(lib, spec, started_at=float(record["started_at"]), uuid=uuid)
    try:
        set_run_facts(lib, run_id, tool_version=str(record["tool_version"]), host_facts=facts)
        _import_series(lib, zf, directory, record, run_id)
        ended = record.get("ended_at")
        finish_run(
            lib,
            run_id,
            status,
            summary=summary,
            complete=bool(record["summary_complete"]),
            error=None if record.get("error") is None else str(record["error"]),
            ended_at=None if ended is None else float(ended),
        )
        update_run_notes(lib, run_id, notes=str(record.get("notes") or ""))
        if record.get("analyses"):
            analyses = _json(zf, f"{directory}/{record['analyses']}")
            for kind, payload in dict(analyses).items():
                store_analysis(lib, run_id, str(kind), payload)
        compact_series(lib.conn, run_id)
    except BaseException:
        _discard(lib, run_id)
        raise
    return run_id


def _import_series(
    lib: Library, zf: zipfile.ZipFile, directory: str, record: Mapping[str, Any], run_id: int
) -> None:
    recorder = Recorder(lib, run_id)
    for entry in record.get("series") or []:
        t = _floats(zf, f"{directory}/{entry['t']}", int(entry["n"]))
        v = _floats(zf, f"{directory}/{entry['v']}", int(entry["n"]))
        stream, metrics = str(entry["stream"]), (str(entry["metric"]),)
        recorder.add(
            [Record(stream, a, metrics, (b,)) for a, b in zip(t.tolist(), v.tolist(), strict=True)]
        )
    recorder.flush()
    for entry in record.get("raw") or []:
        text = _read(zf, f"{directory}/{entry['file']}").decode("utf-8", errors="surrogatepass")
        recorder.add_line(Line(_source(str(entry["source"])), text, 0.0))
        recorder.flush()  # one stored chunk per bundled chunk, in order


def _source(name: str) -> LineSource:
    try:
        return LineSource(name)
    except ValueError:
        return name  # type: ignore[return-value]  # a source this version does not name


def _floats(zf: zipfile.ZipFile, name: str, n: int) -> np.ndarray:
    data = _read(zf, name)
    if len(data) != 8 * n:
        raise BundleError(f"{name} holds {len(data)} bytes, not {n} float64 values")
    return np.frombuffer(data, dtype="<f8")


def _discard(lib: Library, run_id: int) -> None:
    """Remove a half-imported run."""
    try:
        finish_run(lib, run_id, RunStatus.FAILED, summary={}, complete=False, error="import failed")
        delete_run(lib, run_id)
    except LibraryError:
        pass
