"""Importing saved tool outputs: stored like live runs, statuses from the tool's own words."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.library import Library, LibraryError
from pairbench.library.series import load_raw_output, load_series
from pairbench.services.importing import import_output
from pairbench.tools.base import ParseError
from parser_checks import fixture_path, fixture_text


def test_import_stores_series_summary_and_raw_text(library: Library) -> None:
    text = fixture_text("iperf3", "tcp_t5_P2.out")
    run = import_output(library, "iperf3", text, label="field run", source_name="x.out")
    assert run.status.value == "completed" and run.summary_complete
    assert run.label == "field run" and run.tags["imported"] == "x.out"
    series = {(s.stream, s.metric): s for s in load_series(library, run.id)}
    assert len(series[("sum", "throughput_bps")].t) == 5
    assert {"5", "7", "sum"} <= {stream for stream, _ in series}
    raw = "\n".join(text for _, text in load_raw_output(library, run.id))
    assert raw == text


@pytest.mark.parametrize(
    ("name", "status", "needle"),
    [
        ("err_conn_refused.out", "failed", "Connection refused"),
        ("tcp_interrupted_sigint.out", "interrupted", "interrupt"),
    ],
)
def test_import_statuses_follow_the_tool(
    library: Library, name: str, status: str, needle: str
) -> None:
    run = import_output(library, "iperf3", fixture_text("iperf3", name))
    assert run.status.value == status
    assert run.error is not None and needle in run.error


def test_import_needs_a_known_pair_and_tool(library: Library) -> None:
    text = fixture_text("iperf3", "tcp_t5.out")
    with pytest.raises(LibraryError, match="no pair named"):
        import_output(library, "iperf3", text, pair="nope")
    with pytest.raises(ValueError, match="unknown tool"):
        import_output(library, "nosuch", text)


def test_unparseable_output_stores_nothing(library: Library) -> None:
    with pytest.raises(ParseError):
        import_output(library, "iperf3", "[  5]   0.00-1.00   sec  garbage here\n")
    assert library.conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0


def test_cli_import_then_show(library_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library_path)})
    path = fixture_path("iperf3", "udp_b50M_l1400.out")
    status = run_cli(["import", "iperf3", str(path), "--label", "udp", "--json"], env)
    assert status == 0, err.getvalue()
    imported = json.loads(out.getvalue())
    assert imported["status"] == "completed"
    assert imported["summary"]["lost_percent"] == 0
    out.truncate(0)
    out.seek(0)
    assert run_cli(["runs", "show", str(imported["id"]), "--json"], env) == 0
    shown = json.loads(out.getvalue())
    assert shown["label"] == "udp"
    # The client sends: per-interval datagram counts; jitter and loss only in the summary.
    assert any(s["metric"] == "packets" for s in shown["series"])
    assert shown["summary"]["jitter_ms"] == 0.008
