"""A data-path outage during a run (SSH fine, the data link down): said live, stored as
``stalled`` with the outage's start and length, summary incomplete."""

from __future__ import annotations

import re
import subprocess
import time
from typing import Any

from faultkit import finish, start_run, wait_for_interval
from pairbench.library import Library
from pairbench.library.runs import get_run, list_runs
from testkit import read_until

STALL_NOTICE = "! no report for"  # the run's live notice of a stall (engine/stall.py)
NOTICE_WITHIN_S = 15.0  # bounds the wait for it (the notice comes after 3 s without data)


def _data_link(lab: Any, state: str) -> None:
    subprocess.run(["ip", "-n", lab.namespace("server"), "link", "set", "data", state], check=True)


def test_data_link_outage_is_stored_as_stalled(lab: Any, shaped: Any) -> None:
    shaped("--rate", "100mbit")
    proc = start_run(lab.library, "iperf3", "duration=14")
    try:
        wait_for_interval(proc)
        _data_link(lab, "down")
        down_at = time.monotonic()
        # The link stays down until the run says it stalled (not for a fixed time).
        said = read_until(proc, STALL_NOTICE, NOTICE_WITHIN_S, stdout=True)
    finally:
        _data_link(lab, "up")
    up_after = time.monotonic() - down_at
    status, rest, err = finish(proc, 90)
    out = said + rest
    assert status == 5, (status, out, err)  # stalled
    assert "! no report for" in out, out  # said live
    assert "reports again" in out, out
    with Library.open(lab.library) as lib:
        run = get_run(lib, list_runs(lib)[0].id)
    assert run.status.value == "stalled"
    assert not run.summary_complete
    match = re.search(r"from (\d+\.\d) s for (\d+\.\d) s", run.error or "")
    assert match, run.error
    start, length = float(match.group(1)), float(match.group(2))
    assert 0.5 <= start <= 4.0, run.error
    # TCP resumes at its next retransmission after the link is back: a few seconds more.
    assert up_after - 1.5 <= length <= up_after + 8.0, (length, up_after, run.error)
