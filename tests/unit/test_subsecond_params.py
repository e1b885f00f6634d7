"""Sub-second intervals as each tool writes them: the interval parameter of iperf3, ping,
nuttcp, uperf and fio, checked the same way and put on the command line in the tool's own
units; the stall watch reads it; saved outputs at 0.1 s parse to 0.1 s steps and say their
interval and end (fio's status documents are never merged in twos)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pairbench.domain import group_records
from pairbench.tools.base import Capabilities, CommandContext, ParamError
from pairbench.tools.feed import feed_text
from pairbench.tools.provenance import provenance
from pairbench.tools.registry import get_tool

DATA = Path(__file__).parent.parent / "data" / "subsecond"
CTX = CommandContext("10.0.0.2", 5201, "/tmp/work")
CAPS = Capabilities("", ())


def _argv(tool: str, params: dict[str, str]) -> list[str]:
    adapter = get_tool(tool)
    return adapter.commands(adapter.resolve(params), CAPS, CTX).client


def _has(argv: list[str], *part: str) -> bool:
    return any(tuple(argv[i : i + len(part)]) == part for i in range(len(argv)))


@pytest.mark.parametrize(
    ("tool", "name", "given", "part"),
    [
        ("iperf3", "interval", "0.1", ("-i", "0.1")),
        ("ping", "interval", "0.2", ("-i", "0.2")),
        ("nuttcp", "interval", "0.1", ("-i", "0.1")),
        ("uperf", "interval", "0.1", ("-i", "100m")),  # uperf's bare m: milliseconds
        ("uperf", "interval", "2", ("-i", "2s")),
        ("fio", "status_interval", "100ms", ("--status-interval=100ms",)),
        ("fio", "status_interval", "0.25", ("--status-interval=250ms",)),
        ("fio", "status_interval", "1", ("--status-interval=1",)),
    ],
)
def test_the_interval_reaches_the_tool_in_its_own_units(
    tool: str, name: str, given: str, part: tuple[str, ...]
) -> None:
    assert _has(_argv(tool, {name: given}), *part), _argv(tool, {name: given})


@pytest.mark.parametrize(
    ("tool", "name", "seconds"),
    [
        ("iperf3", "interval", 0.1),
        ("ping", "interval", 0.2),
        ("nuttcp", "interval", 0.1),
        ("uperf", "interval", 0.1),
        ("fio", "status_interval", 0.1),
    ],
)
def test_the_stall_watch_reads_each_tools_interval(tool: str, name: str, seconds: float) -> None:
    adapter = get_tool(tool)
    assert adapter.interval_seconds(adapter.resolve({name: str(seconds)})) == seconds
    assert adapter.interval_seconds(adapter.resolve({})) == 1.0


@pytest.mark.parametrize("tool", ["iperf3", "nuttcp", "uperf"])
@pytest.mark.parametrize("bad", ["0.05", "0", "61", "-1", "1e-1", "0.1; id", "1 s"])
def test_an_interval_out_of_range_or_malformed_is_refused(tool: str, bad: str) -> None:
    with pytest.raises(ParamError, match="interval must be"):
        get_tool(tool).resolve({"interval": bad})


def test_a_fio_job_file_takes_the_status_interval_too() -> None:
    job = "[j]\nrw=read\nsize=1M\n"
    argv = _argv("fio", {"jobfile_text": job, "status_interval": "0.2"})
    assert "--status-interval=200ms" in argv


def test_fio_status_documents_at_100ms_are_each_an_interval() -> None:
    """fio 3.33 ``--status-interval=100ms`` (1 s): one record per document, ~0.1 s apart
    (they were merged in twos when an interval of 99 ms counted as too short)."""
    text = (DATA / "fio-3.33_randread_status100ms.json").read_text()
    records, summary = feed_text(get_tool("fio").file_parser(), text)
    [iops] = [s for s in group_records(records) if (s.stream, s.metric) == ("sum", "read_iops")]
    steps = np.diff(np.asarray(iops.t))
    assert len(iops.t) >= 8 and np.allclose(steps, 0.1, atol=0.02), steps
    assert summary.error is None and summary.values["read_iops"] > 0


def test_a_saved_iperf3_text_at_a_tenth_of_a_second_by_bytes() -> None:
    """iperf3 3.12 ``-n 8M -b 50M -i 0.1 -V``: 0.1 s steps, and its own words for the end
    and the interval become the run's parameters."""
    text = (DATA / "iperf3-3.12_bytes8M_interval0.1.txt").read_text()
    records, summary = feed_text(get_tool("iperf3").file_parser(), text)
    [rate] = [
        s for s in group_records(records) if (s.stream, s.metric) == ("sum", "throughput_bps")
    ]
    assert np.allclose(np.diff(np.asarray(rate.t))[:-1], 0.1, atol=0.011)
    assert 45e6 < summary.values["throughput_bps"] < 55e6
    params = provenance("iperf3", text).params
    assert params["bytes"] == "8388608" and params["interval"] == "0.1"
    assert "duration" not in params
    resolved = get_tool("iperf3").resolve(params)
    assert "duration" not in resolved and resolved["interval"] == "0.1"
