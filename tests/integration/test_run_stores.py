"""The run-store contract (``library.run_store.RunStore``) checked on both stores: this
computer's SQLite library and the team library on a real PostgreSQL server.

One set of runs (varied pairs, tools, statuses, labels, tags, notes, start times, summaries
and series, with hostile texts) is recorded in a local library and published to a fresh
team database. Each test computes what a store must answer from the inputs themselves and
checks the store; a run is known by its summary's ``i`` (ids are each store's own).
"""

from __future__ import annotations

import dataclasses
import string
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import pytest

from pairbench.domain import Record, Run, RunSpec, RunStatus
from pairbench.library import Library, Recorder
from pairbench.library.run_filter import SORT_KEYS, IdRange, RunFilter
from pairbench.library.run_store import LocalRunStore, RunStore, TeamRunStore
from pairbench.library.runs import create_run, finish_run, update_run_notes
from pairbench.library.team import filter as team_filter
from pairbench.library.team.store import TeamStore
from pairbench.services.run_browser import RunQuery, browse_store, query_filter
from pairbench.tools.registry import TOOLS as TOOL_NAMES
from teamkit import TeamServer

BASE = 1_700_000_000.0
RLO = "\u202e"
PAIRS = ("zeta", "alpha", "Émile", "o'b%_\\r")
TOOLS = ("iperf3", "fio", "ping")
STATUSES = (RunStatus.COMPLETED, RunStatus.FAILED, RunStatus.CANCELLED)
LABELS = (
    "",
    "batch 1",
    "Batch 1",
    'say "hi"',
    "50% off",
    "a_b",
    "a\\b",
    "Zürich",
    f"{RLO}txt.exe",
    "it's",
    "ÉTÉ été",
    "%",
    "_",
)
TAGS: tuple[dict[str, str], ...] = (
    {},
    {"zone": "EU-a"},
    {"zone": "eu-b", "big": "yes"},
    {"big": ""},
    {"city": "ZÜRICH", "q": 'a"b'},
    {"k%": "50%_x\\"},
    {"k_": f"{RLO}abc", "kx": "v"},
)
NOTES = ("", "note 50% of", "back\\slash", "O'Neil", "ünïcode")
METRICS = ("throughput_bps", "rtt_us")
STREAMS = ("sum", "1")


@dataclass(frozen=True)
class Given:
    """One run the test records, and what every store must say of it."""

    i: int
    pair: str
    tool: str
    status: RunStatus
    label: str
    tags: dict[str, str]
    notes: str
    started_at: float
    records: tuple[Record, ...] = ()


def _records(i: int) -> tuple[Record, ...]:
    values = (1 / 3, -0.0, 1e-300, 2.0**60 + i, float(i) * 0.1)
    return tuple(
        Record(stream, (n + 1) * 0.25 + i, METRICS, (values[n % 5] * (k + 1), n / 7 + k))
        for n in range(40 + i)
        for k, stream in enumerate(STREAMS)
    )


GIVEN = tuple(
    Given(
        i,
        PAIRS[i % 4],
        TOOLS[(i // 2) % 3],
        STATUSES[i % 3],
        LABELS[i % len(LABELS)],
        TAGS[i % len(TAGS)],
        NOTES[i % len(NOTES)],
        BASE + ((i * 7) % 13) * 60,  # i and i + 13 start together: the id breaks the tie
        _records(i) if i % 5 == 0 else (),
    )
    for i in range(26)
)


@dataclass
class Case:
    """A store holding ``GIVEN``, and its id of each input."""

    store: RunStore
    ids: dict[int, int] = field(default_factory=dict)  # input i -> the store's run id


def _record(lib: Library, given: Given) -> int:
    spec = RunSpec(pair=given.pair, tool=given.tool, label=given.label, tags=given.tags)
    run_id = create_run(lib, spec, started_at=given.started_at)
    if given.records:
        recorder = Recorder(lib, run_id)
        half = len(given.records) // 2
        for part in (given.records[:half], given.records[half:]):
            recorder.add(list(part))
            recorder.flush()
    update_run_notes(lib, run_id, notes=given.notes)
    summary = {"i": float(given.i), "x": given.i / 3}
    finish_run(lib, run_id, given.status, summary=summary, complete=bool(given.i % 2))
    return run_id


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, dict[int, int]]]:
    """A local library holding ``GIVEN``, and each input's local run id."""
    lib = Library.open(tmp_path_factory.mktemp("stores") / "runs.sqlite")
    try:
        yield lib, {given.i: _record(lib, given) for given in GIVEN}
    finally:
        lib.close()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def case(
    request: pytest.FixtureRequest, recorded: tuple[Library, dict[int, int]]
) -> Iterator[Case]:
    """Each store holding ``GIVEN``: the local library, or all of it published to a fresh
    team database."""
    lib, local_ids = recorded
    if request.param == "sqlite":
        yield Case(LocalRunStore(lib), dict(local_ids))
        return
    server: TeamServer = request.getfixturevalue("team_server")
    name = f"stores_{uuid.uuid4().hex[:8]}"
    server.create_database(name)
    with TeamStore.connect(
        server.url("alice", dbname=name), password=server.password("alice")
    ) as team:
        team.ensure_schema()
        keys = {given.i: str(uuid.uuid4()) for given in GIVEN}
        for i in sorted(keys, key=lambda i: -i):  # the server's ids: not the local ones
            assert team.publish(lib, local_ids[i], keys[i], ran_by="ann", origin="laptop")
        found = team.runs_by_uuid(list(keys.values()))
        yield Case(TeamRunStore(team), {i: found[key].run.id for i, key in keys.items()})


def _i(run: Run) -> int:
    return int(run.summary["i"])


_ASCII_FOLD = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _found_by_text(given: Given, text: str) -> bool:
    """The text search: label, notes, pair, a tag's key or value holds the text literally,
    ASCII letters in any case (both stores' LIKE folds ASCII letters only)."""
    needle = text.translate(_ASCII_FOLD)
    fields = (given.label, given.notes, given.pair, *given.tags, *given.tags.values())
    return any(needle in f.translate(_ASCII_FOLD) for f in fields)


def _has_tag(given: Given, wanted: str) -> bool:
    key, sep, value = wanted.strip().partition("=")
    key = key.strip()
    if key not in given.tags:
        return False
    return not sep or given.tags[key].casefold() == value.strip().casefold()


def _matches(case: Case, given: Given, flt: RunFilter) -> bool:
    run_id = case.ids[given.i]
    return (
        (not flt.pair or given.pair == flt.pair)
        and (not flt.tool or given.tool == flt.tool)
        and (flt.status is None or given.status is flt.status)
        and (flt.label is None or given.label == flt.label)
        and (flt.since is None or given.started_at >= flt.since)
        and (flt.until is None or given.started_at < flt.until)
        and (not flt.text or _found_by_text(given, flt.text))
        and (not flt.ids or any(r.low <= run_id <= r.high for r in flt.ids))
        and all(_has_tag(given, t) for t in flt.tags if t.strip().partition("=")[0].strip())
    )


def _expected(case: Case, flt: RunFilter) -> list[int]:
    """The inputs ``flt`` selects in its order (ties: start time, then the store's id), its
    page of them."""
    chosen = [g for g in GIVEN if _matches(case, g, flt)]

    def key(g: Given) -> tuple[object, ...]:
        tail = (g.started_at, case.ids[g.i])
        if flt.sort == "id":
            return tail[1:]
        if flt.sort == "started":
            return tail
        column = {"pair": g.pair, "tool": g.tool, "status": g.status.value, "label": g.label}
        return (column[flt.sort], *tail)

    chosen.sort(key=key, reverse=flt.descending)
    end = None if flt.limit is None else flt.offset + flt.limit
    return [g.i for g in chosen[flt.offset : end]]


TEXTS = (
    "50%",
    "%",
    "_",
    "a_b",
    "\\",
    'hi"',
    'a"b',
    "'",
    "ZÜRICH",
    "Zürich",
    "zürich",
    RLO,
    "BATCH",
    "eu-",
    "big",
    "Émile",
    "x\\",
    "k%",
    "ünï",
    "nothing like it",
)
FILTERS = (
    RunFilter(),
    *(RunFilter(pair=p) for p in (*PAIRS, "o'b__\\r", "ALPHA")),
    *(RunFilter(tool=t) for t in (*TOOLS, "f%")),
    *(RunFilter(status=s) for s in (*STATUSES, RunStatus.RUNNING)),
    RunFilter(pair="alpha", tool="fio", status=RunStatus.FAILED),
    *(RunFilter(label=label) for label in (*LABELS, "batch _", "%%")),
    *(RunFilter(text=text) for text in TEXTS),
    *(
        RunFilter(tags=(t,))
        for t in (
            "zone",
            "zone=eu-a",
            "zone=EU-B",
            "big=",
            "big",
            "big=YES",
            "city=zürich",
            'q=A"B',
            "k%",
            "k_",
            "k%=50%_X\\",
            f"k_={RLO}ABC",
            "k",
            "z%",
        )
    ),
    RunFilter(tags=("zone", "big=yes")),
    RunFilter(since=BASE + 3 * 60),
    RunFilter(until=BASE + 5 * 60),
    RunFilter(since=BASE + 2 * 60, until=BASE + 9 * 60, text="a"),
    *(RunFilter(sort=s, descending=d) for s in SORT_KEYS for d in (True, False)),
    *(RunFilter(sort=s, limit=5, offset=o) for s in ("started", "label") for o in (0, 3, 24)),
    RunFilter(limit=0),
    RunFilter(offset=20),
    RunFilter(limit=100, offset=0, sort="pair", descending=False, tags=("big",)),
)


@pytest.mark.parametrize("flt", FILTERS, ids=repr)
def test_each_filter_order_and_page_selects_the_runs_the_inputs_say(
    case: Case, flt: RunFilter
) -> None:
    assert [_i(run) for run in case.store.list_runs(flt)] == _expected(case, flt)
    whole = dataclasses.replace(flt, limit=None, offset=0)
    assert case.store.count_runs(flt) == len(_expected(case, whole))


def test_id_ranges_select_by_the_stores_own_ids(case: Case) -> None:
    ids = sorted(case.ids.values())
    ranges = [
        (IdRange(ids[4], ids[4]),),
        (IdRange(ids[2], ids[9]),),
        (IdRange(ids[0], ids[1]), IdRange(ids[7], ids[7]), IdRange(ids[20], ids[25])),
        (IdRange(ids[-1] + 1, ids[-1] + 50),),
    ]
    for spans in ranges:
        for flt in (RunFilter(ids=spans), RunFilter(ids=spans, sort="id", descending=False)):
            assert [_i(r) for r in case.store.list_runs(flt)] == _expected(case, flt)
            assert case.store.count_runs(flt) == len(_expected(case, flt))


def test_runs_are_the_runs_recorded(case: Case) -> None:
    runs = case.store.list_runs()
    assert sorted(_i(r) for r in runs) == [g.i for g in GIVEN]
    for run in runs:
        given = GIVEN[_i(run)]
        assert run.id == case.ids[given.i]
        assert (run.spec.pair, run.spec.tool, run.status) == (given.pair, given.tool, given.status)
        assert (run.label, run.notes, run.started_at) == (
            given.label,
            given.notes,
            given.started_at,
        )
        assert dict(run.tags) == given.tags == dict(run.spec.tags)
        assert dict(run.summary) == {"i": float(given.i), "x": given.i / 3}
        assert run.summary_complete is bool(given.i % 2)


def test_choices_are_the_pairs_and_tools_recorded(case: Case) -> None:
    pairs, tools = case.store.run_choices()
    assert pairs == sorted({g.pair for g in GIVEN})
    assert tools == sorted({g.tool for g in GIVEN})


def _check_series(store: RunStore, run: Run) -> None:
    """The store's series of ``run`` are its input's records, byte for byte."""
    given = GIVEN[_i(run)]
    loaded = store.load_series(run)
    expected = sorted(
        {(rec.stream, m) for rec in given.records for m in rec.metrics},
        key=lambda sm: (sm[0] != "sum", sm[0], sm[1]),
    )
    assert [(s.stream, s.metric) for s in loaded] == expected
    for one in loaded:
        mine = [rec for rec in given.records if rec.stream == one.stream]
        k = METRICS.index(one.metric)
        assert one.t.tobytes() == np.array([r.t for r in mine], dtype="<f8").tobytes()
        assert one.v.tobytes() == np.array([r.values[k] for r in mine], "<f8").tobytes()


def test_series_are_the_values_recorded_byte_for_byte(case: Case) -> None:
    for run in case.store.list_runs():
        _check_series(case.store, run)
    assert sum(bool(g.records) for g in GIVEN) > 1


def test_a_run_loads_from_a_store_that_did_not_list_it(case: Case) -> None:
    listed = [run for run in case.store.list_runs() if GIVEN[_i(run)].records]
    assert len(listed) > 1
    store = case.store
    again: RunStore
    if isinstance(store, TeamRunStore):
        again = TeamRunStore(store.store)
    else:
        assert isinstance(store, LocalRunStore)
        again = LocalRunStore(store.lib)
    for run in listed:
        _check_series(again, run)


def test_a_page_of_a_query_is_browsed_alike(case: Case) -> None:
    query = RunQuery(text="a", tag="zone")
    every = _expected(case, query_filter(query, sort="label", descending=False))
    assert len(every) > 2
    for offset in (0, 1, len(every) - 1):
        page = browse_store(
            case.store, query, sort="label", descending=False, offset=offset, limit=2
        )
        assert [_i(r) for r in page.runs] == every[offset : offset + 2]
        assert (page.total, page.offset) == (len(every), offset)
        assert page.pairs == sorted({g.pair for g in GIVEN})
    whole = browse_store(case.store, query, limit=len(every) + 1, known_pairs=["own pair"])
    assert [_i(r) for r in whole.runs] == _expected(case, query_filter(query))
    assert whole.total == len(every)
    assert whole.pairs == sorted({g.pair for g in GIVEN} | {"own pair"})
    assert whole.tools == sorted({g.tool for g in GIVEN} | set(TOOL_NAMES))
    assert browse_store(case.store, query, choices=False).pairs == []


def test_a_server_without_icu_still_filters_tags_by_value(case: Case) -> None:
    """A PostgreSQL built without ICU has no "und-x-icu" collation: tag values are then
    compared in the database's own (ASCII letters in any case, as here and locally)."""
    conn = case.store.store._conn if isinstance(case.store, TeamRunStore) else None
    if conn is not None:
        assert team_filter.dialect_of(conn) is team_filter.POSTGRES  # the test server has ICU
        team_filter._HAS_ICU[conn] = False
    try:
        if conn is not None:
            assert team_filter.dialect_of(conn) is team_filter.POSTGRES_NO_ICU
        for wanted in ("zone=eu-a", "zone=EU-B", "big=YES", "k%=50%_X\\"):
            flt = RunFilter(tags=(wanted,))
            expected = _expected(case, flt)
            assert expected  # each names runs of the inputs
            assert [_i(run) for run in case.store.list_runs(flt)] == expected
            assert case.store.count_runs(flt) == len(expected)
    finally:
        if conn is not None:
            team_filter._HAS_ICU[conn] = True
