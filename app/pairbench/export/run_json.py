"""The JSON shape of a parsed or stored run (DESIGN §4: ``parse`` and ``runs show --json``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pairbench.domain import AuthMethod, Host, HostPair, Run, Series
from pairbench.domain.ssh_options_json import ssh_options_from_json, ssh_options_json


def _number(value: float) -> float | None:
    """JSON has no NaN or infinity: those become null."""
    return value if math.isfinite(value) else None


def series_payload(series: Iterable[Series]) -> list[dict[str, Any]]:
    """Series as ``{"stream", "metric", "unit", "t": [...], "v": [...]}`` objects."""
    return [
        {
            "stream": s.stream,
            "metric": s.metric,
            "unit": s.unit,
            "t": [_number(x) for x in s.t],
            "v": [_number(x) for x in s.v],
        }
        for s in series
    ]


def parse_payload(
    tool: str,
    summary: Mapping[str, float],
    series: Iterable[Series],
    *,
    complete: bool = True,
    error: str | None = None,
    form: str = "",
    reason: str | None = None,
) -> dict[str, Any]:
    """What ``pairbench parse`` prints (``form``: the output form read; ``reason``: why the
    summary is incomplete when the form cannot carry a metric)."""
    payload: dict[str, Any] = {
        "tool": tool,
        "summary": {k: _number(v) for k, v in summary.items()},
        "series": series_payload(series),
        "complete": complete,
    }
    if form:
        payload["form"] = form
    if reason:
        payload["reason"] = reason
    if error:
        payload["error"] = error
    return payload


def run_fields(run: Run, *, number: Callable[[float], Any] = _number) -> dict[str, Any]:
    """A stored run's own fields (without series), the one place that names them.

    ``number`` writes a summary value: by default NaN and infinities become null; the evidence
    bundle (``export/bundle.py``) keeps them, as strings. A start or end time that is no
    finite number (a library written by an older or hostile program) is null.
    """
    return {
        "id": run.id,
        "pair": run.spec.pair,
        "tool": run.spec.tool,
        "tool_version": run.tool_version,
        "params": dict(run.spec.params),
        "status": run.status.value,
        "started_at": _number(run.started_at),
        "ended_at": None if run.ended_at is None else _number(run.ended_at),
        "label": run.label,
        "tags": dict(run.tags),
        "notes": run.notes,
        "error": run.error,
        "summary": {k: number(v) for k, v in run.summary.items()},
        "summary_complete": run.summary_complete,
        "host_facts": {k: dict(v) for k, v in run.host_facts.items()},
    }


def run_payload(run: Run, series: Iterable[Series]) -> dict[str, Any]:
    """What ``pairbench runs show ID --json`` prints: the run's fields plus its series."""
    payload = run_fields(run)
    payload["series"] = series_payload(series)
    return payload


def host_payload(host: Host) -> dict[str, Any]:
    """A host's stored fields (no secrets: keys are paths, passwords live in the keyring);
    ``ssh`` only for a host with OpenSSH options (so older files read back the same)."""
    payload: dict[str, Any] = {
        "name": host.name,
        "address": host.address,
        "port": host.port,
        "user": host.user,
        "auth": host.auth.value,
        "key_path": host.key_path,
        "jump": host.jump,
        "tags": dict(host.tags),
    }
    if not host.ssh.empty:
        payload["ssh"] = ssh_options_json(host.ssh)
    return payload


def pair_payload(pair: HostPair | None) -> dict[str, Any] | None:
    """A pair with both hosts, or None (a run whose pair was removed)."""
    if pair is None:
        return None
    return {
        "name": pair.name,
        "description": pair.description,
        "data_address": pair.data_address,
        "tags": dict(pair.tags),
        "client": host_payload(pair.client),
        "server": host_payload(pair.server),
    }


def host_from_payload(data: Mapping[str, Any]) -> Host:
    """The inverse of ``host_payload``."""
    return Host(
        name=str(data["name"]),
        address=str(data["address"]),
        port=int(data["port"]),
        user=None if data.get("user") is None else str(data["user"]),
        auth=AuthMethod(str(data["auth"])),
        key_path=None if data.get("key_path") is None else str(data["key_path"]),
        jump=None if data.get("jump") is None else str(data["jump"]),
        tags={str(k): str(v) for k, v in dict(data.get("tags") or {}).items()},
        ssh=ssh_options_from_json(data.get("ssh")),
    )


def pair_from_payload(data: Mapping[str, Any]) -> HostPair:
    """The inverse of ``pair_payload``."""
    return HostPair(
        name=str(data["name"]),
        client=host_from_payload(data["client"]),
        server=host_from_payload(data["server"]),
        data_address=None if data.get("data_address") is None else str(data["data_address"]),
        description=str(data.get("description") or ""),
        tags={str(k): str(v) for k, v in dict(data.get("tags") or {}).items()},
    )


def runs_document(
    runs: Iterable[tuple[Run, HostPair | None, Iterable[Series]]], *, pairbench_version: str
) -> dict[str, Any]:
    """``pairbench export --format json``: every run as ``runs show --json`` plus its pair."""
    items = []
    for run, pair, series in runs:
        payload = run_payload(run, series)
        payload["pair_detail"] = pair_payload(pair)
        items.append(payload)
    return {
        "format": "pairbench-runs",
        "version": 1,
        "pairbench_version": pairbench_version,
        "runs": items,
    }
