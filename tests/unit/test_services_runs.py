"""services.runs: filters, sort orders, pages and counts in SQL; show, bulk edit and delete."""

from __future__ import annotations

import dataclasses
import json
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairbench.domain import Record, Run, RunSpec, RunStatus
from pairbench.export.run_json import run_fields
from pairbench.library import Library, LibraryError, Recorder, run_rows
from pairbench.library.analyses import store_analysis
from pairbench.library.codec import dumps
from pairbench.library.run_rows import runs_from_rows
from pairbench.library.runs import (
    create_run,
    finish_run,
    list_run_rows,
    query_plan,
    set_run_facts,
    update_run_notes,
)
from pairbench.services import runs as svc
from pairbench.services import runs_json
from pairbench.services.runs import SORT_KEYS, IdRange, RunFilter


@dataclass(frozen=True)
class Made:
    """What the fixture stored for one run (the expectations are computed from these)."""

    id: int
    pair: str
    tool: str
    status: RunStatus
    started: float
    label: str
    tags: dict[str, str]
    notes: str


PLAN = [
    # pair, tool, status, started, label, tags, notes
    ("local", "iperf3", RunStatus.COMPLETED, 1000.0, "baseline", {"zone": "a"}, ""),
    ("wan", "ping", RunStatus.FAILED, 2000.0, "", {"city": "Straße"}, "50% loss"),
    ("wan", "iperf3", RunStatus.COMPLETED, 2000.0, "baseline", {}, "Berlin outage"),
    ("lab", "fio", RunStatus.CANCELLED, 1500.0, "disk_a", {"zone": "b", "mtu": "9001"}, ""),
    ("local", "uperf", RunStatus.RUNNING, 3000.0, "", {}, ""),
    ("lab", "iperf3", RunStatus.COMPLETED, 500.0, "zeta", {"zone": "A"}, "diskXa"),
    ("local", "ping", RunStatus.STALLED, 2500.0, "alpha", {}, ""),
]


@pytest.fixture
def made(library: Library) -> list[Made]:
    out = []
    for pair, tool, status, started, label, tags, notes in PLAN:
        spec = RunSpec(pair, tool, {"duration": "5"}, label=label, tags=tags)
        run_id = create_run(library, spec, started_at=started)
        if status is not RunStatus.RUNNING:
            finish_run(
                library, run_id, status, summary={"x": 1.0}, complete=True, ended_at=started + 5
            )
        if notes:
            update_run_notes(library, run_id, notes=notes)
        out.append(Made(run_id, pair, tool, status, started, label, tags, notes))
    return out


def _ids(lib: Library, **kw: Any) -> list[int]:
    return [run.id for run in svc.find_runs(lib, RunFilter(**kw))]


def _newest_first(runs: list[Made]) -> list[int]:
    return [m.id for m in sorted(runs, key=lambda m: (m.started, m.id), reverse=True)]


def test_no_filter_lists_every_run_newest_first(library: Library, made: list[Made]) -> None:
    assert _ids(library) == _newest_first(made)
    assert svc.count_runs(library) == len(made)
    assert svc.find_run_ids(library) == _newest_first(made)


@pytest.mark.parametrize(
    ("criteria", "keep"),
    [
        ({"pair": "wan"}, lambda m: m.pair == "wan"),
        ({"tool": "iperf3"}, lambda m: m.tool == "iperf3"),
        ({"status": RunStatus.COMPLETED}, lambda m: m.status is RunStatus.COMPLETED),
        ({"label": "baseline"}, lambda m: m.label == "baseline"),
        ({"label": ""}, lambda m: m.label == ""),
        ({"since": 1500.0}, lambda m: m.started >= 1500.0),
        ({"until": 2000.0}, lambda m: m.started < 2000.0),
        ({"since": 1000.0, "until": 2500.0}, lambda m: 1000.0 <= m.started < 2500.0),
        ({"pair": "local", "since": 1000.0}, lambda m: m.pair == "local" and m.started >= 1000),
        ({"text": "berlin"}, lambda m: "berlin" in m.notes.lower()),
        ({"text": "50%"}, lambda m: "50%" in m.notes),  # % is a character, not a wildcard
        ({"text": "disk_a"}, lambda m: "disk_a" in m.label),  # _ too ("diskXa" stays out)
        ({"tags": ("zone",)}, lambda m: "zone" in m.tags),
        ({"tags": ("zone=a",)}, lambda m: m.tags.get("zone", "").casefold() == "a"),
        ({"tags": (" zone = b ", "mtu")}, lambda m: m.tags.get("zone") == "b"),
        ({"tags": ("city=STRASSE",)}, lambda m: "city" in m.tags),  # casefold, not lower
        ({"tags": ("nope",)}, lambda m: False),
    ],
)
def test_filters(library: Library, made: list[Made], criteria: dict[str, Any], keep: Any) -> None:
    expected = _newest_first([m for m in made if keep(m)])
    assert _ids(library, **criteria) == expected
    assert svc.count_runs(library, RunFilter(**criteria)) == len(expected)


def test_id_ranges_and_lists(library: Library, made: list[Made]) -> None:
    ids = [m.id for m in made]
    lo, hi = ids[1], ids[3]

    def expect(keep: Any) -> list[int]:
        return _newest_first([m for m in made if keep(m.id)])

    assert _ids(library, ids=(IdRange(lo, hi),)) == expect(lambda i: lo <= i <= hi)
    assert _ids(library, ids=(IdRange(ids[0], ids[0]), IdRange(ids[5], ids[5]))) == expect(
        lambda i: i in (ids[0], ids[5])
    )
    mixed = (IdRange(ids[0], ids[0]), IdRange(lo, hi))
    assert _ids(library, ids=mixed) == expect(lambda i: i == ids[0] or lo <= i <= hi)
    assert _ids(library, ids=(IdRange(10_000, 20_000),)) == []
    assert svc.count_runs(library, RunFilter(ids=(IdRange(lo, hi),))) == hi - lo + 1


_SORT_FIELD = {
    "id": lambda m: m.id,
    "started": lambda m: m.started,
    "pair": lambda m: m.pair,
    "tool": lambda m: m.tool,
    "status": lambda m: m.status.value,
    "label": lambda m: m.label,
}


@pytest.mark.parametrize("key", SORT_KEYS)
@pytest.mark.parametrize("descending", [True, False])
def test_sort_orders(library: Library, made: list[Made], key: Any, descending: bool) -> None:
    field = _SORT_FIELD[key]
    expected = [
        m.id for m in sorted(made, key=lambda m: (field(m), m.started, m.id), reverse=descending)
    ]
    assert _ids(library, sort=key, descending=descending) == expected


def test_unknown_sort_key_and_negative_page_are_refused() -> None:
    with pytest.raises(ValueError, match="sort key"):
        RunFilter(sort="summary")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        RunFilter(offset=-1)


def test_pages_cover_the_list_and_count_ignores_them(library: Library, made: list[Made]) -> None:
    whole = _ids(library, sort="pair")
    pages = [_ids(library, sort="pair", limit=3, offset=start) for start in range(0, 9, 3)]
    assert [i for page in pages for i in page] == whole
    assert [len(page) for page in pages] == [3, 3, 1]
    assert _ids(library, offset=5) == whole_by_start(made)[5:]
    assert svc.count_runs(library, RunFilter(tool="iperf3", limit=1, offset=1)) == 3


def whole_by_start(made: list[Made]) -> list[int]:
    return _newest_first(made)


def test_filter_queries_search_an_index(library: Library, made: list[Made]) -> None:
    cases = {
        "runs_started": RunFilter(since=1000.0, until=2000.0),
        "runs_pair": RunFilter(pair="wan", since=1000.0),
        "runs_tool": RunFilter(tool="ping"),
        "runs_status_started": RunFilter(status=RunStatus.FAILED),
        "runs_label": RunFilter(label="baseline"),
        "INTEGER PRIMARY KEY": RunFilter(ids=(IdRange(2, 5),)),
    }
    for index, flt in cases.items():
        plan = " ; ".join(query_plan(library, flt))
        assert "SEARCH runs USING" in plan and index in plan, (flt, plan)
    for key, index in [("pair", "runs_pair"), ("label", "runs_label"), ("started", "runs_started")]:
        plan = " ; ".join(query_plan(library, RunFilter(sort=key, limit=50)))
        assert f"SCAN runs USING INDEX {index}" in plan and "TEMP B-TREE" not in plan, plan


def test_list_json_is_the_run_fields_of_each_run(library: Library, made: list[Made]) -> None:
    odd = create_run(library, RunSpec("ünï", "iperf3", {"p": 'a"b\\c'}, label="日本\x1b[31m"))
    finish_run(
        library,
        odd,
        RunStatus.COMPLETED,
        summary={"retransmits": 5, "nan": math.nan, "inf": math.inf, "bps": 1.5e9},
        complete=False,
        error="bad\nthing",
    )
    runs = svc.find_runs(library)
    assert svc.runs_list_json(library) == json.dumps([run_fields(r) for r in runs])
    page = RunFilter(sort="label", descending=False, limit=3, offset=2)
    expected = json.dumps([run_fields(r) for r in svc.find_runs(library, page)])
    assert svc.runs_list_json(library, page) == expected
    assert svc.runs_list_json(library, RunFilter(pair="nowhere")) == "[]"


def test_find_runs_gives_the_same_runs_as_get_run(library: Library, made: list[Made]) -> None:
    for run in svc.find_runs(library):
        assert run == svc.get_run(library, run.id)


def test_show_run_has_series_and_analyses(library: Library) -> None:
    run_id = create_run(library, RunSpec("local", "iperf3"))
    recorder = Recorder(library, run_id)
    recorder.add([Record("sum", float(t), ("throughput_bps",), (1e9 + t,)) for t in (1, 2)])
    recorder.flush()
    finish_run(library, run_id, RunStatus.COMPLETED, summary={}, complete=True)
    store_analysis(library, run_id, "burst", {"state": "none"})
    shown = svc.show_run(library, run_id)
    assert shown.run.id == run_id
    assert [(s.metric, list(s.t)) for s in shown.series] == [("throughput_bps", [1.0, 2.0])]
    assert shown.analyses == {"burst": {"state": "none"}}
    with pytest.raises(LibraryError, match="no run with id 999"):
        svc.show_run(library, 999)


def _get(lib: Library, run_id: int) -> Run:
    return svc.get_run(lib, run_id)


def test_bulk_label_notes_and_tags(library: Library, made: list[Made]) -> None:
    a, b, c = made[0].id, made[1].id, made[2].id
    assert svc.set_label(library, [a, b, a], "cross zone") == [a, b]
    assert [_get(library, i).label for i in (a, b, c)] == ["cross zone", "cross zone", "baseline"]
    assert _ids(library, label="cross zone") == _newest_first([m for m in made if m.id in (a, b)])
    svc.set_notes(library, [b, c], "checked")
    assert [_get(library, i).notes for i in (a, b, c)] == ["", "checked", "checked"]
    svc.add_tags(library, [a, b], {"zone": "c", "owner": "me"})
    assert dict(_get(library, a).tags) == {"zone": "c", "owner": "me"}
    assert dict(_get(library, b).tags) == {"city": "Straße", "zone": "c", "owner": "me"}
    svc.remove_tags(library, [a, b, c], ["owner"])
    assert dict(_get(library, b).tags) == {"city": "Straße", "zone": "c"}
    svc.set_tags(library, [b], {"only": "this"})
    assert dict(_get(library, b).tags) == {"only": "this"}
    run = svc.edit_run(library, c, label="new", tags={"k": "v"}, notes="n")
    assert (run.label, run.spec.label, dict(run.tags), run.notes) == ("new", "new", {"k": "v"}, "n")


def test_bulk_edit_with_a_missing_run_changes_nothing(library: Library, made: list[Made]) -> None:
    a = made[0].id
    with pytest.raises(LibraryError, match="no run with id 4242"):
        svc.set_label(library, [a, 4242], "x")
    with pytest.raises(LibraryError, match="no runs with ids 4242, 4243"):
        svc.add_tags(library, [4242, a, 4243], {"k": "v"})
    assert (_get(library, a).label, dict(_get(library, a).tags)) == ("baseline", {"zone": "a"})


def test_delete_runs_all_or_none(library: Library, made: list[Made]) -> None:
    running = next(m.id for m in made if m.status is RunStatus.RUNNING)
    done = [m.id for m in made if m.status is not RunStatus.RUNNING]
    with pytest.raises(LibraryError, match=f"run {running} is still running"):
        svc.delete_runs(library, [done[0], running])
    with pytest.raises(LibraryError, match="no run with id 999"):
        svc.delete_runs(library, [done[0], 999])
    assert svc.count_runs(library) == len(made)
    assert svc.delete_runs(library, done[:3]) == done[:3]
    svc.delete_run(library, done[3])
    assert svc.find_run_ids(library) == _newest_first([m for m in made if m.id not in done[:4]])
    with pytest.raises(LibraryError, match="still running"):
        svc.delete_run(library, running)


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_number = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**20), 10**20),
)


@st.composite
def _stored_runs(draw: st.DrawFn) -> list[dict[str, Any]]:
    return draw(
        st.lists(
            st.fixed_dictionaries(
                {
                    "pair": _text,
                    "label": _text,
                    "params": st.dictionaries(_text, _text, max_size=3),
                    "tags": st.dictionaries(_text, _text, max_size=3),
                    "summary": st.dictionaries(_text, _number, max_size=4),
                    "facts": st.dictionaries(
                        _text, st.dictionaries(_text, _text, max_size=2), max_size=2
                    ),
                    "started": st.floats(0, 4e9),
                    "status": st.sampled_from(list(RunStatus)),
                    "error": st.one_of(st.none(), _text),
                    "notes": _text,
                }
            ),
            min_size=1,
            max_size=6,
        )
    )


@settings(max_examples=40, deadline=None)
@given(_stored_runs())
def test_list_json_matches_run_fields_for_any_stored_text(runs: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp, Library.open(Path(tmp) / "l.sqlite") as lib:
        for r in runs:
            spec = RunSpec(r["pair"], "iperf3", r["params"], label=r["label"], tags=r["tags"])
            run_id = create_run(lib, spec, started_at=r["started"])
            set_run_facts(lib, run_id, tool_version=r["label"], host_facts=r["facts"])
            if r["status"] is not RunStatus.RUNNING:
                finish_run(
                    lib, run_id, r["status"], summary=r["summary"], complete=True, error=r["error"]
                )
            update_run_notes(lib, run_id, notes=r["notes"])
        expected = json.dumps([run_fields(run) for run in svc.find_runs(lib)])
        assert svc.runs_list_json(lib) == expected


# ``runs list --json`` rewrites the stored JSON of summaries and mappings as text when it has
# the shape ``codec.dumps`` gives them (``services.runs_json``): the text must be what decoding
# and encoding gives, and that path must be the one taken for what Pairbench stores.
_word = st.text(st.sampled_from("abcxyz_019"), min_size=1, max_size=8)
_stored_number = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**15) + 1, 10**15 - 1),
)


def _reencoded(text: str, decoder: json.JSONDecoder) -> str:
    return json.dumps(decoder.decode(text))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(_word, _stored_number, max_size=5), min_size=1, max_size=5))
def test_stored_summaries_are_rewritten_as_text(summaries: list[dict[str, float]]) -> None:
    texts = [dumps(s) for s in summaries]
    assert runs_json._SUMMARIES.fullmatch("\n".join(texts)) is not None  # the text path
    expected = [_reencoded(t, runs_json._SUMMARY_DECODER) for t in texts]
    assert runs_json._summary_texts(texts) == expected


@pytest.mark.parametrize(
    "text",
    [
        '{"a":1.50}',  # not as repr writes it: decoded and encoded
        '{"a":1e5}',
        '{"a":12345678901234567}',  # too long to stay exact as a float
        '{"a":true}',
        '{"a b":1.0}',
        '{"\\u00e9":1.0}',
        "",
    ],
)
def test_other_summaries_are_decoded_and_encoded(text: str) -> None:
    expected = _reencoded(text or "{}", runs_json._SUMMARY_DECODER)
    assert runs_json._summary_texts([text, '{"b":2}']) == [expected, '{"b": 2.0}']


_plain_text = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=6)
_any_text = st.text(st.sampled_from(' :,{}"\\\n\x7fé日a'), max_size=6)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.one_of(_plain_text, _any_text),
            st.one_of(
                _plain_text, _any_text, st.dictionaries(_plain_text, _plain_text, max_size=2)
            ),
            max_size=4,
        ),
        min_size=1,
        max_size=6,
    )
)
def test_stored_mappings_print_as_json_dumps(mappings: list[dict[str, Any]]) -> None:
    texts = [dumps(m) for m in mappings]
    expected = [_reencoded(t, runs_json._MAP_DECODER) for t in texts]
    assert runs_json._mapping_texts(texts, runs_json._MAP_DECODER, distinct=True) == expected
    plain = runs_json._plain_texts(texts)  # None when a string needs escapes
    assert plain is None or plain == expected


def test_plain_mappings_take_the_text_path() -> None:
    texts = [dumps({":": ",", '",': "{}"}), "{}", dumps({"client": {"cpu": "x: y, z"}})]
    texts[1:1] = [dumps({"zone": "a", "mtu": "9001"})]
    assert runs_json._plain_texts(texts[2:]) == [
        _reencoded(t, runs_json._MAP_DECODER) for t in texts[2:]
    ]
    assert runs_json._plain_texts(texts) is None  # the first holds a quote mark: escaped
    # Flat mappings (spaced by plain replacing), and flat ones whose strings hold the
    # marks that are spaced between items (these must be left as they are).
    for group in (
        [dumps({"zone": "a", "mtu": "9001"}), "{}", dumps({"k": "v"})],
        [dumps({"zone": "a"}), dumps({"note": "x: y"})],
        [dumps({"zone": "a", "b": "c"}), dumps({"list": "1,2"}), "{}"],
        [dumps({"a,b": "c", "d": "e"}), dumps({"f": "g"})],
    ):
        assert runs_json._plain_texts(group) == [
            _reencoded(t, runs_json._MAP_DECODER) for t in group
        ]


def test_list_json_in_parts_is_the_whole_text(library: Library, made: list[Made]) -> None:
    rows = list_run_rows(library)
    whole = runs_json.runs_json(rows)
    for per_part in (1, 2, 3, len(rows), len(rows) + 1):
        parts = list(runs_json.runs_json_parts(rows, per_part))
        assert len(parts) == -(-len(rows) // per_part)
        assert "".join(parts) == whole
    assert whole == json.dumps([run_fields(r) for r in svc.find_runs(library)])


def test_runs_made_from_rows_are_the_same_objects() -> None:
    """``runs_from_rows`` (drafts that become ``Run``/``RunSpec``) gives the objects that
    ``Run(...)`` gives for the same stored values: same types, equal, printed alike, frozen,
    unhashable; a stored mapping text repeated across rows is one shared mapping."""
    tags, params, facts = {"zone": "a"}, {"duration": "5"}, {"client": {"os": "Linux"}}
    summaries = ({"bps": 1.5, "lost": 0.0}, {})
    first = (7, "local", "iperf3", "3.16", dumps(params), "failed", 1.5, None)
    second = (8, "lab", "ping", "", "{}", "completed", 2.5, 3.0)
    rows = [
        (*first, dumps(summaries[0]), 0, dumps(facts), "x", dumps(tags), "note", "boom"),
        (*second, dumps(summaries[1]), 1, "{}", "", dumps(tags), "", None),
    ]
    expected = [
        Run(
            id=row[0],
            spec=RunSpec(row[1], row[2], json.loads(row[4]), row[11], json.loads(row[12])),
            status=RunStatus(row[5]),
            started_at=row[6],
            ended_at=row[7],
            tool_version=row[3],
            summary=summary,
            summary_complete=bool(row[9]),
            host_facts=json.loads(row[10]),
            label=row[11],
            tags=json.loads(row[12]),
            notes=row[13],
            error=row[14],
        )
        for row, summary in zip(rows, summaries, strict=True)
    ]
    made = runs_from_rows(rows)
    assert [type(r) for r in made] == [Run, Run]
    assert [type(r.spec) for r in made] == [RunSpec, RunSpec]
    assert made == expected and made[0] != made[1]
    assert [repr(r) for r in made] == [repr(r) for r in expected]
    assert made[0].tags is made[1].tags is made[0].spec.tags  # one text, one mapping
    assert made[0].summary_complete is False and made[1].summary_complete is True
    with pytest.raises(dataclasses.FrozenInstanceError):
        made[0].label = "y"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        made[0].spec.pair = "y"  # type: ignore[misc]
    with pytest.raises(TypeError):  # unhashable, as Run(...) is: its mappings are dicts
        hash(made[0])
    assert runs_from_rows([]) == []
    with pytest.raises(ValueError):  # a row of other columns is refused, not misread
        runs_from_rows([rows[0][:-1]])


def test_run_rows_refuses_at_import_a_run_left_part_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    """``run_rows._check_drafts`` (run when the module is imported) fails when a row's run
    would miss a field, as one added to ``Run`` and not to ``_run`` would."""
    whole = run_rows._run

    def forgetful(row: Any, *maps: Any) -> Any:
        draft = run_rows._RunDraft()
        made = whole(row, *maps)
        for field in dataclasses.fields(Run):
            if field.name != "notes":
                setattr(draft, field.name, getattr(made, field.name))
        return draft

    run_rows._check_drafts()
    monkeypatch.setattr(run_rows, "_run", forgetful)
    with pytest.raises(TypeError, match="notes"):
        run_rows._check_drafts()


def test_listed_runs_decode_their_mappings_when_read(library: Library) -> None:
    """A listed run's summary, parameters, tags and host facts are read from their stored
    text when first used: equal to ``get_run``'s dicts, floats where numbers were stored as
    integers, a damaged text a clear ValueError only when read."""
    run_id = create_run(library, RunSpec("lab", "iperf3", {"duration": "5"}, tags={"zone": "a"}))
    finish_run(library, run_id, RunStatus.COMPLETED, summary={"bps": 5, "loss": 0.5}, complete=True)
    set_run_facts(library, run_id, host_facts={"client": {"os": "Linux"}})
    (listed,) = svc.find_runs(library, RunFilter(ids=(IdRange(run_id, run_id),)))
    assert listed == svc.show_run(library, run_id).run
    assert listed.host_facts == {"client": {"os": "Linux"}}
    assert listed.spec.params == {"duration": "5"}
    assert dict(listed.summary) == {"bps": 5.0, "loss": 0.5}
    assert type(listed.summary["bps"]) is float and "loss" in listed.summary
    assert listed.spec.tags == {"zone": "a"} and list(listed.spec.tags) == ["zone"]
    assert repr(listed.summary) == repr({"bps": 5.0, "loss": 0.5})
    library.conn.execute("UPDATE runs SET summary = '[1, 2]' WHERE id = ?", (run_id,))
    (damaged,) = svc.find_runs(library, RunFilter(ids=(IdRange(run_id, run_id),)))
    assert damaged.label == listed.label  # listing it is fine
    with pytest.raises(ValueError, match="not a JSON object"):
        dict(damaged.summary)
