"""An import keeps the output form it read, and why its summary is incomplete, in the notes."""

from __future__ import annotations

from pairbench.domain import RunStatus
from pairbench.library import Library
from pairbench.services.importing import import_output
from testkit import REPO

CAPTURES = REPO / "tests" / "data" / "captures"


def test_a_terse_fio_import_names_its_form_and_what_it_lacks(library: Library) -> None:
    text = (CAPTURES / "fio" / "terse_v3_two_jobs.out").read_text()
    run = import_output(library, "fio", text, pair="local", source_name="terse.out")
    assert run.status is RunStatus.COMPLETED
    assert not run.summary_complete
    assert run.notes.splitlines() == [
        "output form: terse v3",
        "summary incomplete: fio printed one report, at the end (no --status-interval): no "
        "per-interval figures, only the whole run's",
    ]


def test_a_whole_iperf3_import_names_its_form_only(library: Library) -> None:
    text = (CAPTURES / "iperf3" / "v321_tcp_P2_json.out").read_text()
    run = import_output(library, "iperf3", text, pair="local", source_name="x.json")
    assert run.status is RunStatus.COMPLETED and run.summary_complete
    assert run.notes == "output form: json"
