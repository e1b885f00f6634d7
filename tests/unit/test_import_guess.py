"""Guessing the tool of a saved output, and finding runs by tag and date (Qt-free helpers)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pairbench.domain import RunSpec, RunStatus
from pairbench.library import Library
from pairbench.library.runs import create_run, finish_run
from pairbench.services.import_guess import check_readable, guess_tool, read_output_file
from pairbench.services.run_browser import RunQuery, load_run_detail, run_listing, tag_matches


@pytest.mark.parametrize(
    ("fixture", "tool"),
    [
        ("iperf3/tcp_t5.out", "iperf3"),
        ("iperf3/tcp_t5_json.out", "iperf3"),
        ("iperf3/tcp_interrupted_sigint.out", "iperf3"),
        ("iperf3/udp_b50M_l1400.out", "iperf3"),
        ("iperf3/err_conn_refused.out", "iperf3"),
        ("uperf/netperf_tcp_aep.out", "uperf"),
        ("fio/randread4k_qd32_j2_jsonplus.out", "fio"),
        ("ping/c20_s1400_i02.out", "ping"),
        ("nuttcp/tcp_T5_i1.out", "nuttcp"),
    ],
)
def test_each_tool_is_recognised_from_its_output(
    fixtures_dir: Path, fixture: str, tool: str
) -> None:
    guess = guess_tool(read_output_file(fixtures_dir / fixture), "saved.txt")
    assert guess.tool == tool, guess


def test_unreadable_text_leaves_the_choice_to_the_user() -> None:
    guess = guess_tool("nothing any tool prints\n", "notes.txt")
    assert guess.tool is None
    assert guess.sure == [] and guess.weak == []
    assert "iperf3" in guess.candidates


def test_a_tool_named_in_the_file_name_wins_a_tie(fixtures_dir: Path) -> None:
    text = read_output_file(fixtures_dir / "iperf3" / "server_oneoff_tcp.out")
    named = guess_tool(text, "iperf3-server.out")
    assert named.named == "iperf3" and named.tool == "iperf3"
    assert named.candidates[0] == "iperf3"


def test_check_readable_refuses_text_the_tool_does_not_print() -> None:
    with pytest.raises(ValueError, match="holds nothing fio prints"):
        check_readable("hello\n", "fio", "hello.txt")


def test_read_output_file_says_why_it_cannot(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read"):
        read_output_file(tmp_path / "missing.out")


def test_tag_matches_key_or_key_value() -> None:
    tags = {"zone": "eu-west-1a", "imported": "tcp_t5.out"}
    assert tag_matches(tags, "zone")
    assert tag_matches(tags, "zone=EU-WEST-1A")
    assert tag_matches(tags, " zone = eu-west-1a ")
    assert not tag_matches(tags, "zone=eu-west-1b")
    assert not tag_matches(tags, "region")


def test_find_runs_by_tag_and_dates(library: Library) -> None:
    now = time.time()
    ids = {}
    for name, age, tags in (("new", 0, {"zone": "a"}), ("old", 10, {"zone": "b"})):
        run_id = create_run(
            library,
            RunSpec("local", "iperf3", {}, label=name, tags=tags),
            started_at=now - age * 86400,
        )
        finish_run(library, run_id, RunStatus.COMPLETED, summary={}, complete=True)
        ids[name] = run_id
    assert [r.label for r in run_listing(library, RunQuery()).runs] == ["new", "old"]
    assert [r.label for r in run_listing(library, RunQuery(tag="zone=b")).runs] == ["old"]
    recent = run_listing(library, RunQuery(since=now - 86400))
    assert [r.label for r in recent.runs] == ["new"]
    assert "local" in recent.pairs and "iperf3" in recent.tools
    assert RunQuery().is_empty() and not RunQuery(tag="x").is_empty()
    detail = load_run_detail(library, ids["new"])
    assert detail.run.label == "new" and detail.series == [] and detail.raw_text == ""
