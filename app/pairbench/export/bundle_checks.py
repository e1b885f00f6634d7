"""What ``import-bundle`` refuses before it stores any run of a bundle: a start or end time
that is no date between 1990 and 2100 (a run an older or hostile program wrote), and a host
whose name is reserved for this computer (``local``: it would run here)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pairbench.domain.hosts import HostPair, is_builtin_host, is_reserved_name
from pairbench.domain.timestamps import implausible_time
from pairbench.domain.validation import check_address, check_name, check_port, check_user
from pairbench.export.run_json import pair_from_payload


def bundle_problem(records: Sequence[tuple[str, Mapping[str, Any]]]) -> str | None:
    """The first reason no run of the bundle may be stored (naming the run's file), or None.
    ``records``: each run's directory in the bundle and its ``run.json``."""
    for directory, record in records:
        where = f"{directory}/run.json"
        problem = implausible_time(record.get("started_at"), "start time")
        ended = record.get("ended_at")
        if problem is None and ended is not None:
            problem = implausible_time(ended, "end time")
        if problem is not None:
            return f"{where}: {problem}"
        detail = record.get("pair_detail")
        if not detail:
            continue
        try:
            pair = pair_from_payload(detail)
        except (KeyError, TypeError, ValueError) as exc:
            return f"{where}: its pair cannot be read ({exc})"
        problem = _pair_problem(pair)
        if problem is not None:
            return f"{where}: {problem}"
    return None


def _pair_problem(pair: HostPair) -> str | None:
    """Why a bundled pair may not be added here: a host that claims to be this computer
    under another name, a reserved name, or a field ``hosts add`` would refuse."""
    builtin = pair.client.is_local and pair.server.is_local
    if is_reserved_name(pair.name) and not builtin:
        return f"its pair {pair.name!r} has a name reserved for this computer"
    for host in (pair.client, pair.server):
        if is_builtin_host(host):
            continue
        if host.is_local or is_reserved_name(host.name):
            return (
                f"its pair {pair.name!r} has a host {host.name!r} that claims to be this "
                "computer (reserved for the built-in host)"
            )
        try:
            check_name("host", host.name)
            check_address(host.address)
            check_port(host.port)
            if host.user is not None:
                check_user(host.user)
            if host.jump is not None:
                check_name("jump host", host.jump)
        except ValueError as exc:
            return f"its pair {pair.name!r}: host {host.name!r}: {exc}"
    try:
        check_name("pair", pair.name)
        if pair.data_address is not None:
            check_address(pair.data_address)
    except ValueError as exc:
        return f"its pair: {exc}"
    return None
