"""The multi-pair lab (``lab up --pairs N``): pairs ``lab1`` … ``labN``, each built, shaped,
checked and removed exactly like the single lab (``manager``), with its own names, addresses
(``topology.pair_topology``) and state directory (``/run/pairbench-lab-pairs/labK``; another
lab instance's: ``instance.LabInstance.multi_root``). ``root`` defaults to the current one's.

It lives beside the single lab: ``lab up`` and ``lab up --pairs 3`` can both be up; ``lab
down`` (``down_all``) removes both and anything else carrying the lab's name prefix.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from pairbench.lab import manager, vendor
from pairbench.lab.errors import LabError
from pairbench.lab.info import LabInfo, LabStatus, LabUp
from pairbench.lab.instance import current
from pairbench.lab.netns import lab_namespaces, lab_root_links
from pairbench.lab.pair_shaping import check_pair_count
from pairbench.lab.shaping import Shaping
from pairbench.lab.state import LabPaths, exclusive, load_state
from pairbench.lab.topology import (
    MAX_PAIRS,
    PAIR_NAME,
    multi_index,
    pair_name,
    pair_topology,
    single,
)

NOT_UP = "the multi-pair lab is not up: run `pairbench lab up --pairs N` first"


def multi_root() -> Path:
    """The current lab instance's multi-pair state directory (``/run/pairbench-lab-pairs``)."""
    return current().multi_root


def pair_paths(index: int, root: Path | None = None) -> LabPaths:
    """The state directory of pair ``index``."""
    return LabPaths((root or multi_root()) / pair_name(index))


def up(
    shapings: Sequence[Shaping], tools: vendor.LabTools | None = None, root: Path | None = None
) -> tuple[LabUp, ...]:
    """Bring pairs 1 … len(shapings) up, pair K shaped by ``shapings[K-1]``; pairs above are
    removed. Healthy pairs only get the new shaping (``manager.up_pair``); a failure removes
    the whole multi-pair lab. Pinning the host keys is the caller's.
    """
    count = check_pair_count(len(shapings))
    tools = tools or vendor.LabTools()
    manager.require_root()
    manager.require_tools()
    session = manager.session_paths(tools)
    root = root or multi_root()
    with exclusive():
        for index in present(root):
            if index > count:
                manager.teardown_pair(pair_topology(index), pair_paths(index, root), False)
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(root, 0o700)
        results = []
        try:
            for index, shaping in enumerate(shapings, start=1):
                topo = pair_topology(index)
                paths = pair_paths(index, root)
                results.append(manager.up_pair(topo, shaping, paths, tools, session))
        except BaseException:
            _down(root)
            raise
        return tuple(results)


def shape(shapings: Sequence[Shaping], root: Path | None = None) -> tuple[LabInfo, ...]:
    """Reshape every pair (one shaping per pair, as many as the pairs up)."""
    manager.require_root()
    root = root or multi_root()
    with exclusive():
        running = pairs_up(root)
        if not running:
            raise LabError(NOT_UP)
        if len(shapings) != len(running):
            raise LabError(
                f"--pairs {len(shapings)}: the multi-pair lab has {len(running)} pairs "
                f"(lab1 … {pair_name(len(running))})"
            )
        return tuple(
            manager.shape_pair(pair_topology(index), shaping, pair_paths(index, root))
            for index, shaping in zip(running, shapings, strict=True)
        )


def shape_one(pair: str, shaping: Shaping, root: Path | None = None) -> LabInfo:
    """Reshape one pair by name: ``labK`` of the multi-pair lab, or ``lab`` (the single lab)."""
    manager.require_root()
    root = root or multi_root()
    with exclusive():
        if pair == PAIR_NAME:
            return manager.shape_pair(single(), shaping, LabPaths())
        index = index_of(pair)
        if index not in pairs_up(root):
            raise LabError(f"--pair: lab pair {pair} is not up ({_up_text(root)})")
        return manager.shape_pair(pair_topology(index), shaping, pair_paths(index, root))


def index_of(pair: str) -> int:
    """The index of a multi-pair lab pair name (``lab3`` → 3); ``LabError`` for other names."""
    suffix = pair.removeprefix(PAIR_NAME)
    if suffix == pair or not suffix.isdigit() or not 1 <= int(suffix) <= MAX_PAIRS:
        raise LabError(f"--pair: {pair!r} is not a lab pair (lab, or lab1 … lab{MAX_PAIRS})")
    return int(suffix)


def _up_text(root: Path | None) -> str:
    running = pairs_up(root)
    return f"pairs up: {', '.join(map(pair_name, running))}" if running else NOT_UP


def status(root: Path | None = None) -> tuple[LabStatus, ...]:
    """How each pair of the multi-pair lab stands (a pair known only by leftover names too)."""
    manager.require_root()
    return tuple(
        manager.status_pair(pair_topology(index), pair_paths(index, root))
        for index in present(root)
    )


def pairs_up(root: Path | None = None) -> list[int]:
    """The indices of the pairs with a saved state, in order."""
    return [index for index in range(1, MAX_PAIRS + 1) if load_state(pair_paths(index, root))]


def present(root: Path | None = None) -> list[int]:
    """The indices of the pairs with a state directory or a namespace or link left, in order."""
    found = {index for index in range(1, MAX_PAIRS + 1) if pair_paths(index, root).root.exists()}
    for name in lab_namespaces() + lab_root_links():
        index = multi_index(name)
        if index is not None and index <= MAX_PAIRS:
            found.add(index)
    return sorted(found)


def down(root: Path | None = None) -> None:
    """Remove the multi-pair lab entirely (the single lab stays)."""
    manager.require_root()
    with exclusive():
        _down(root or multi_root())


def down_all(root: Path | None = None, single_paths: LabPaths | None = None) -> None:
    """Remove both labs and whatever else carries the lab's name prefix (``lab down``)."""
    manager.require_root()
    with exclusive():
        _down(root or multi_root())
        manager.teardown_pair(single(), single_paths or LabPaths(), keep_keys=False)
        manager.sweep()
        run_dir = current().run_dir
        if run_dir is not None and root is None and single_paths is None:
            with contextlib.suppress(OSError):  # only when empty
                run_dir.rmdir()


def _down(root: Path) -> None:
    for index in present(root):
        manager.teardown_pair(pair_topology(index), pair_paths(index, root), keep_keys=False)
    manager.sweep(lambda name: multi_index(name) is not None)
    shutil.rmtree(root, ignore_errors=True)
