"""``pairbench lab`` for the multi-pair lab (``--pairs N``): its JSON and its lines of text."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pairbench.domain.host_text import format_tags
from pairbench.lab.info import LabInfo, LabStatus
from pairbench.lab.pair_shaping import check_pair_count


def shape_targets(pairs: int | None) -> int:
    """How many shapings ``lab shape`` needs: N with ``--pairs N``, else one."""
    return check_pair_count(pairs) if pairs is not None else 1


def pairs_json(infos: Sequence[LabInfo]) -> dict[str, Any]:
    """``lab up|shape --pairs N --json``: every pair (name, hosts, data address, shaping, tags)."""
    return {"pairs": [info.to_json() for info in infos]}


def pair_line(info: LabInfo) -> str:
    """One pair for people: ``lab2  lab2-client → lab2-server  data 10.214.2.2  rate … [tags]``."""
    return (
        f"  {info.pair:<5} {info.client.name} → {info.server.name}  data {info.server.data_address}"
        f"  {info.shaping.describe()}  [{format_tags(info.tags)}]"
    )


def pair_lines(infos: Sequence[LabInfo], verb: str) -> list[str]:
    """What ``lab up|shape --pairs N`` prints."""
    lines = [f"lab pairs {verb}: {', '.join(info.pair for info in infos)}"]
    lines += [pair_line(info) for info in infos]
    if infos:
        lines.append(f"  key         {infos[0].client.key_path} (each pair has its own)")
        if infos[0].impairment == "delayline":
            lines.append("  (delay/loss by the lab's delay line: this kernel has no netem)")
        lines.append(f"try: pairbench run --pair {infos[0].pair} --tool iperf3 --set duration=5")
    return lines


def pairs_status_json(single: LabStatus, multi: Sequence[LabStatus]) -> dict[str, Any]:
    """The keys ``lab status --json`` adds beside the single lab's: ``pairs``, every pair up
    (``lab`` first) with its status, and ``multi``, how the multi-pair lab stands."""
    every = [s for s in (single, *multi) if s.info is not None]
    up = [s for s in multi if s.up]
    return {
        "pairs": [{"pair": s.info.pair if s.info else None, **s.to_json()} for s in every],
        "multi": {
            "up": bool(up),
            "healthy": bool(up) and all(s.healthy for s in multi),
            "pairs": [s.info.pair for s in up if s.info is not None],
            "problems": [p for s in multi for p in s.problems],
        },
    }


def print_pairs_status(out: Callable[[str], None], multi: Sequence[LabStatus]) -> None:
    """The multi-pair lab's part of ``lab status``: one block per pair."""
    if not multi:
        return
    up = [s for s in multi if s.up]
    healthy = up and all(s.healthy for s in multi)
    out(f"lab pairs: {len(up)} up, {'healthy' if healthy else 'BROKEN'}")
    for status in multi:
        if status.info is not None:
            out(pair_line(status.info) + f" ({status.info.impairment})")
        for problem in status.problems:
            out(f"  problem: {problem}")
        for process in status.processes:
            state = f"pid {process.pid}" if process.alive else "NOT RUNNING"
            out(f"        {process.name:<11} in {process.namespace}: {state}")
