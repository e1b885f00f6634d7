"""Evidence bundles read back: a bundle opened, checked and stored again in another library.

``import_bundle`` stores each run again: every field of the run, every series bit for bit,
every raw chunk, the analyses, and the run's pair when the library lacks it (the layout and
the float encoding are ``export.bundle``'s).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pairbench.domain import Line, LineSource, Record, RunSpec, RunStatus
from pairbench.domain.failures import UserFileError
from pairbench.domain.user_files import open_regular
from pairbench.export.bundle import (
    BUNDLE_FORMAT,
    BUNDLE_VERSION,
    MAX_JSON_BYTES,
    MAX_MEMBER_BYTES,
    BundleError,
)
from pairbench.export.bundle_checks import bundle_problem
from pairbench.export.run_json import pair_from_payload
from pairbench.library import Library, LibraryError, Recorder
from pairbench.library.analyses import store_analysis
from pairbench.library.hosts import add_host, add_pair, get_host, get_pair
from pairbench.library.runs import (
    create_run,
    delete_run,
    finish_run,
    list_runs,
    set_run_facts,
    update_run_notes,
)
from pairbench.library.series import compact_series
from pairbench.library.uuids import normal_uuid, run_by_uuid


@dataclass(frozen=True, slots=True)
class BundleImport:
    """What ``import_bundle`` did: (bundled id, new id) pairs, skipped runs, added pairs."""

    imported: tuple[tuple[int, int], ...]
    skipped: tuple[tuple[int, int], ...] = ()  # (bundled id, id of the run already here)
    pairs_added: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)


def _float_in(value: Any) -> float:
    if isinstance(value, str):
        if value not in ("NaN", "Infinity", "-Infinity"):
            raise BundleError(f"not a number: {value!r}")
        return float(value.replace("Infinity", "inf"))
    return float(value)


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
