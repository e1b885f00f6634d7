"""Imports that are not what they claim (issue 26, §3): UTF-16 text (PowerShell) reads as the
same run as its UTF-8 original; parameters the output records are kept only as `--set`
would accept them (so "run again" runs); a negative figure is refused, except the lost
datagrams iperf3 itself may print below zero."""

from __future__ import annotations

import codecs
import io
import json
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.library import Library
from pairbench.library.runs import get_run
from pairbench.library.series import load_series
from pairbench.services.importing import import_output
from pairbench.services.run_again import run_again_spec
from pairbench.tools.base import ParamError
from pairbench.tools.registry import get_tool
from testkit import FIXTURES, REPO


def _cli(library: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library)})
    return run_cli(list(argv), env), out.getvalue(), err.getvalue()


SOURCES = [
    ("iperf3", REPO / "tests" / "data" / "captures" / "iperf3" / "v312_tcp_V.out"),
    ("iperf3", FIXTURES / "iperf3" / "udp_b50M_l1400_json.out"),
    ("ping", FIXTURES / "ping" / "c20_s1400_i02_D.out"),
]
ENCODINGS = {
    "UTF-16 LE with BOM (PowerShell >)": lambda t: codecs.BOM_UTF16_LE + t.encode("utf-16-le"),
    "UTF-16 BE with BOM": lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"),
    "UTF-8 with BOM (Notepad)": lambda t: codecs.BOM_UTF8 + t.encode("utf-8"),
    "UTF-16 LE without BOM": lambda t: t.replace("\n", "\r\n").encode("utf-16-le"),
}


@pytest.mark.parametrize("encoding", list(ENCODINGS))
@pytest.mark.parametrize(("tool", "source"), SOURCES, ids=lambda v: getattr(v, "name", v))
def test_utf16_text_imports_as_the_utf8_original(
    tool: str, source: Path, encoding: str, tmp_path: Path, library_path: Path
) -> None:
    original = source.read_text(encoding="utf-8")
    converted = tmp_path / "powershell.txt"
    converted.write_bytes(ENCODINGS[encoding](original))
    for path in (source, converted):
        status, _, err = _cli(library_path, "import", tool, str(path), "--json")
        assert status == 0, err
    with Library.open(library_path) as lib:
        first, second = get_run(lib, 1), get_run(lib, 2)
        assert second.status == first.status and second.summary == first.summary
        assert second.started_at == first.started_at and second.spec.params == first.spec.params
        assert second.summary_complete and second.error is None
        assert [(s.stream, s.metric, list(s.t), list(s.v)) for s in load_series(lib, 2)] == [
            (s.stream, s.metric, list(s.t), list(s.v)) for s in load_series(lib, 1)
        ]
    parsed = [_cli(library_path, "parse", tool, str(p))[1] for p in (source, converted)]
    assert json.loads(parsed[0]) == json.loads(parsed[1])


def _json_with_test_start(**fields: object) -> str:
    document = json.loads((FIXTURES / "iperf3" / "tcp_t5_json.out").read_text(encoding="utf-8"))
    document["start"]["test_start"].update(fields)
    return json.dumps(document)


def test_parameters_set_would_refuse_are_left_out_with_a_note(library: Library) -> None:
    run = import_output(
        library, "iperf3", _json_with_test_start(duration=1e308, num_streams=-3, omit=2)
    )
    assert run.status.value == "completed"
    assert run.spec.params == {"omit": "2", "length": "131072"}  # duration and streams left out
    assert "parameter duration=" in run.notes and "must be at most 86400" in run.notes
    assert "parameter streams='-3' not kept: streams must be a whole number" in run.notes
    assert all(len(line) < 300 for line in run.notes.splitlines())
    again = run_again_spec(run)
    get_tool("iperf3").resolve(again.params)  # "run again" runs: no ParamError


@pytest.mark.parametrize(
    "value", ["1", "86400", "86401", "0", "-3", "1e308", "10" * 200, "٣", " 5 ", "5.0"]
)
def test_an_imported_parameter_is_kept_exactly_when_set_accepts_it(
    library: Library, value: str
) -> None:
    """The reference is `--set`'s own check (the tool's ``resolve``), value by value."""
    try:
        accepted: str | None = get_tool("iperf3").resolve({"duration": value})["duration"]
    except ParamError:
        accepted = None
    from pairbench.services.import_checks import checked_params

    kept, notes = checked_params(get_tool("iperf3"), {"duration": value})
    assert kept.get("duration") == accepted
    assert bool(notes) == (accepted is None)


def test_parameters_that_conflict_together_are_all_left_out(library: Library) -> None:
    """iperf3 refuses tos with dscp: an output naming both keeps neither (its note says)."""
    from pairbench.services.import_checks import checked_params

    kept, notes = checked_params(get_tool("iperf3"), {"tos": "16", "dscp": "EF", "omit": "1"})
    assert kept == {} and "together" in notes[-1]


def test_negative_lost_datagrams_are_iperf3_s_own_and_kept(library: Library) -> None:
    """iperf3 counts reordered datagrams as lost, then takes them back: an interval's lost
    count can print below zero. That is the tool's figure, not a forgery."""
    from pairbench.services.import_checks import MAY_BE_NEGATIVE

    assert {"lost_packets", "lost_percent"} == MAY_BE_NEGATIVE
    path = FIXTURES / "iperf3" / "udp_b50M_l1400_json.out"
    document = json.loads(path.read_text(encoding="utf-8"))
    interval = document["intervals"][1]
    interval["sum"]["lost_packets"] = -2
    interval["sum"]["lost_percent"] = -0.05
    run = import_output(library, "iperf3", json.dumps(document))
    assert run.status.value == "completed"
    for part in document["end"].values():
        if isinstance(part, dict) and "jitter_ms" in part:
            part["jitter_ms"] = -0.01  # a jitter below zero is no tool's figure
    with pytest.raises(ValueError, match=r"jitter_ms in the summary is -0\.01"):
        import_output(library, "iperf3", json.dumps(document))
