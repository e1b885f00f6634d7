"""team_list: the Team tab's list and filters at 10,000 published runs vs the local library's.

The 10,000 varied runs of ``runs_library`` are built in a local library and published, one
``TeamStore.publish`` each (real published runs: a UUID, who ran them, their columns as
stored), to a real PostgreSQL server on loopback. Then, timed alternately on the same data:
``TeamStore.list_runs(flt)`` (one open connection, as the window keeps one; the SQL, the rows
over the wire, one ``Run`` and ``TeamRun`` per row) against the local ``find_runs`` of the
same filter (SQLite, ``Run`` objects). Filters: the first page (100 runs, newest first), one
month of start times (~830 runs) and one pair (~1,670 runs, no limit). Both lists are checked
to hold the same runs in the same order. The verdict is the worst of the three ratios.
"""

from __future__ import annotations

import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from bench import team_setup
from bench.common import Out, Verdict, fmt, median, spread
from bench.runs_library import PAIRS, RUNS, YEAR_START, build
from bench.team_setup import ROLE
from pairbench.lab.team_server import TeamServer
from pairbench.library import Library
from pairbench.library.team.store import TeamStore
from pairbench.services.runs import RunFilter, find_runs

NAME = "team_list"
# The team's list may take this many times as long as the local library's (the target).
TARGET_RATIO = 2.0
MONTH = (YEAR_START + 90 * 86_400.0, YEAR_START + 120 * 86_400.0)
FILTERS: dict[str, RunFilter] = {
    "first page": RunFilter(limit=100),
    "date": RunFilter(since=MONTH[0], until=MONTH[1]),
    "pair": RunFilter(pair=PAIRS[1]),
}


def _alternately(
    ours: Callable[[], object], local: Callable[[], object], repeats: int
) -> tuple[list[float], list[float]]:
    """Times of both, one after the other each round, so a change of load weighs on both."""
    ours()
    local()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for fn, kept in zip((ours, local), times, strict=True):
            start = time.perf_counter()
            fn()
            kept.append(time.perf_counter() - start)
    return times


def _publish_all(lib: Library, team: TeamStore) -> dict[str, int]:
    """Every local run published (oldest id first); the local id of each UUID."""
    local_of: dict[str, int] = {}
    for (run_id,) in lib.conn.execute("SELECT id FROM runs ORDER BY id").fetchall():
        key = str(uuid.uuid4())
        assert team.publish(lib, run_id, key, ran_by="bench", origin="bench")
        local_of[key] = run_id
    return local_of


def _connect_times(server: TeamServer, repeats: int) -> list[float]:
    """Seconds to open the team library afresh (SCRAM authentication, the schema's version)."""
    times = []
    for _ in range(repeats):
        begin = time.perf_counter()
        with TeamStore.connect(server.url(ROLE), password=server.password(ROLE)) as store:
            store.ensure_schema(create=False)
        times.append(time.perf_counter() - begin)
    return times


def run(quick: bool, out: Out) -> Verdict:
    team_setup.check()
    repeats = 9 if quick else 21
    runs = 2_000 if quick else RUNS
    ratios: dict[str, float] = {}
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="pb-bench-team-list-") as tmp:
        path = Path(tmp) / "library.sqlite"
        build(path, runs)
        with Library.open(path) as lib, team_setup.running() as server:
            team = team_setup.store(server)
            try:
                begin = time.perf_counter()
                local_of = _publish_all(lib, team)
                took = time.perf_counter() - begin
                out(f"  published {len(local_of)} runs in {fmt(took)} s")
                for name, flt in FILTERS.items():
                    team_ids = [local_of[r.uuid] for r in team.list_runs(flt=flt)]
                    local_ids = [r.id for r in find_runs(lib, flt)]
                    if team_ids != local_ids:
                        problems.append(f"{name}: the team's list differs from the local one")
                    ours, local = _alternately(
                        lambda flt=flt: team.list_runs(flt=flt),  # type: ignore[misc]
                        lambda flt=flt: find_runs(lib, flt),  # type: ignore[misc]
                        repeats,
                    )
                    ratios[name] = median(ours) / median(local)
                    out(f"  {name} ({len(local_ids)} runs): local {spread(local, 1e3, 'ms')}")
                    out(f"  {name} ({len(team_ids)} runs): team {spread(ours, 1e3, 'ms')}")
                connects = _connect_times(server, repeats)
            finally:
                team.close()
    out(
        f"  a fresh connection (TeamStore.connect + ensure_schema(create=False)): "
        f"{spread(connects, 1e3, 'ms')}"
    )
    out("  ratios: " + ", ".join(f"{name} {fmt(r)}" for name, r in ratios.items()))
    worst = max(ratios, key=lambda name: ratios[name])
    return Verdict(
        NAME,
        ratios[worst],
        TARGET_RATIO,
        f"the local find_runs (the worst: {worst})",
        info=", ".join(f"{name} {fmt(r)}x" for name, r in ratios.items()),
        note=problems[0] if problems else "",
    )
