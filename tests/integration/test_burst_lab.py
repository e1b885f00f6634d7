"""The burst probe end to end: through the lab's burst-credit emulation (the ground truth),
on a flat shaped link, with a refill phase; and the engine's stop hook on this computer."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from local_run_helpers import alive, children_of
from pairbench.domain import LOCAL_PAIR, Record, Run, RunSpec, RunStatus
from pairbench.engine.burst import run_burst_probe
from pairbench.engine.execute import Prepared, execute_run, prepare
from pairbench.engine.observer import NullObserver
from pairbench.engine.transports import Connector
from pairbench.lab.shaping import parse_rate, parse_size
from pairbench.library import Library
from pairbench.library.analyses import get_analyses
from pairbench.library.series import load_series
from testkit import require_program

AFTER_STEP_S = 5
MAX_DURATION_S = 120
# (burst rate, baseline rate, bucket): bursts of ~12.6 s, drops of 80 % and 50 %. A bucket that
# drains is all a probe needs: 12 intervals at the burst rate (the estimator wants 2) time the
# step well within the 10 % the checks allow, and keep each probe near 25 s.
SETTINGS = [("1gbit", "200mbit", "1200MB"), ("600mbit", "300mbit", "450MB")]


def _implied(burst: str, rate: str, bucket: str) -> dict[str, float]:
    """What the shaping implies. The lab's rates count TCP payload (a size table takes the
    headers off), so they are goodput, the very figure iperf3 reports; the bucket drains at
    burst − rate because tbf keeps refilling it at the rate during the burst."""
    burst_bps, rate_bps = parse_rate(burst), parse_rate(rate)
    bucket_bits = parse_size(bucket) * 8
    return {
        "burst_bps": burst_bps,
        "baseline_bps": rate_bps,
        "bucket_bits": bucket_bits,
        "burst_seconds": bucket_bits / (burst_bps - rate_bps),
    }


def _probe(lab: Any, *options: str, timeout: float = 240) -> dict[str, Any]:
    """``probe burst --pair lab --json OPTIONS``; its JSON (the child is killed on timeout,
    so a stuck probe never keeps sending into the next test's bucket)."""
    result = lab.cli(
        "probe",
        "burst",
        "--pair",
        "lab",
        "--json",
        *options,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "step" in result.stderr  # the live lines (stderr with --json) show the estimate
    payload: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return payload


def _throughput_times(library: Path, run_id: int) -> list[float]:
    with Library.open(library) as lib:
        for series in load_series(lib, run_id):
            if (series.stream, series.metric) == ("sum", "throughput_bps"):
                return [float(t) for t in series.t]
    raise AssertionError(f"run {run_id} has no aggregate throughput")


@pytest.mark.lab
@pytest.mark.timeout(420)
@pytest.mark.parametrize(("burst", "rate", "bucket"), SETTINGS)
def test_probe_measures_the_emulated_burst_credits(
    lab: Any, shaped: Any, burst: str, rate: str, bucket: str
) -> None:
    shaped("--rate", rate, "--burst-rate", burst, "--bucket", bucket)
    implied = _implied(burst, rate, bucket)
    result = _probe(lab, "--after-step", str(AFTER_STEP_S), "--max-duration", str(MAX_DURATION_S))
    estimate = result["burst"]
    errors = {key: estimate[key] / value - 1 for key, value in implied.items()}
    delay = estimate["confirmed_at"] - estimate["step_t"]
    print(
        f"\nburst {burst} / rate {rate} / bucket {bucket}: "
        + ", ".join(f"{key} {estimate[key]:.4g} ({errors[key]:+.2%})" for key in implied)
        + f", step at {estimate['step_t']:.2f} s confirmed {delay:.1f} s later"
    )
    assert result["status"] == "completed"
    assert estimate["detected"] is True
    assert abs(errors["burst_bps"]) <= 0.05
    assert abs(errors["baseline_bps"]) <= 0.05
    assert abs(errors["burst_seconds"]) <= 0.10
    assert abs(errors["bucket_bits"]) <= 0.10
    assert 0 < delay <= 10
    # It stopped by itself, AFTER_STEP_S after the confirmation, long before MAX_DURATION_S.
    assert result["notes"].startswith(f"stopped by the burst probe {AFTER_STEP_S} s after")
    times = _throughput_times(lab.library, result["id"])
    assert estimate["confirmed_at"] + AFTER_STEP_S <= times[-1] <= estimate["confirmed_at"] + 10
    # The analysis is stored with the run, and `analyze burst` gives the same.
    shown = json.loads(lab.cli("runs", "show", str(result["id"]), "--json").stdout)
    assert shown["analyses"]["burst"]["bucket_bits"] == pytest.approx(estimate["bucket_bits"])
    assert shown["tags"]["probe"] == "burst"
    again = json.loads(lab.cli("analyze", "burst", str(result["id"]), "--json").stdout)
    assert again["step_t"] == pytest.approx(estimate["step_t"])


@pytest.mark.lab
@pytest.mark.timeout(420)
def test_flat_shaped_link_has_no_step(lab: Any, shaped: Any) -> None:
    shaped("--rate", "200mbit")
    result = _probe(lab, "--after-step", "5", "--max-duration", "30")
    assert result["status"] == "completed"
    assert result["burst"]["detected"] is False
    assert result["burst"]["state"] == "no_step"
    assert result["burst"]["burst_bps"] == pytest.approx(200e6, rel=0.05)
    assert result["notes"] == ""  # it ran its full course
    assert len(_throughput_times(lab.library, result["id"])) == 30


@pytest.mark.lab
@pytest.mark.timeout(420)
def test_refill_phase_measures_the_refill_rate(lab: Any, shaped: Any) -> None:
    """After the step the link rests 10 s, then bursts again: what came back is ~10 s of
    the baseline rate (tbf refills at --rate), i.e. a refill rate ≈ the baseline."""
    shaped("--rate", "200mbit", "--burst-rate", "1gbit", "--bucket", "1000MB")
    result = _probe(lab, "--after-step", "3", "--max-duration", "90", "--refill-idle", "10")
    assert result["burst"]["detected"] is True
    refill = result["refill"]
    print(
        f"\nrefill after {refill['idle_s']:.1f} s idle: {refill['refilled_bits'] / 1e9:.2f} Gbit "
        f"→ {refill['refill_bps'] / 1e6:.1f} Mbit/s ({refill['refill_ratio']:.3f} × baseline)"
    )
    assert result["refill_run"]["status"] == "completed"
    assert 9 <= refill["idle_s"] <= 15
    assert refill["refill_ratio"] == pytest.approx(1.0, abs=0.1)
    assert refill["full"] is False
    shown = json.loads(lab.cli("runs", "show", str(result["refill_run"]["id"]), "--json").stdout)
    assert shown["tags"]["phase"] == "refill"
    assert shown["analyses"]["burst_refill"]["after_run"] == result["id"]


class _StopAfter:
    """Ends a run once the aggregate reached ``t``."""

    def __init__(self, t: float) -> None:
        self.t = t

    def check(self, records: list[Record]) -> str | None:
        if any(r.stream == "sum" and r.t >= self.t for r in records):
            return f"enough after {self.t:g} s"
        return None


class _Broken:
    def check(self, records: list[Record]) -> str | None:
        raise RuntimeError("boom")


def _on_this_computer(
    library: Path, duration: str, work: Callable[[Library, Prepared], Awaitable[Any]]
) -> Any:
    """``work`` on a prepared 100 Mbit/s iperf3 run of ``duration`` s on this computer."""

    async def go() -> Any:
        with Library.open(library) as lib:
            connector = Connector(lib)
            try:
                spec = RunSpec("local", "iperf3", {"duration": duration, "bitrate": "100M"})
                return await work(lib, await prepare(LOCAL_PAIR, spec, connector))
            finally:
                await connector.close()

    return asyncio.run(go())


def _local_run(library: Path, duration: str, stop: Any) -> Any:
    return _on_this_computer(library, duration, lambda lib, p: execute_run(lib, p, stop=stop))


def test_stop_condition_ends_a_run_as_completed_with_its_note(library_path: Path) -> None:
    require_program("iperf3")
    run = _local_run(library_path, "30", _StopAfter(2.0))
    assert run.status is RunStatus.COMPLETED
    assert run.error is None
    assert run.notes == "enough after 2 s"
    assert run.duration is not None and run.duration < 10
    assert run.summary["throughput_bps"] == pytest.approx(100e6, rel=0.1)
    assert not run.summary_complete  # iperf3 was interrupted: the summary is the intervals'
    assert 2 <= len(_throughput_times(library_path, run.id)) <= 5
    assert _iperf3_children() == []


def _iperf3_children() -> list[int]:
    found = []
    for pid in children_of(os.getpid()):
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            continue
        if comm == "iperf3" and alive(pid):
            found.append(pid)
    return found


def test_a_failing_stop_condition_is_noted_and_the_run_goes_on(library_path: Path) -> None:
    require_program("iperf3")
    run = _local_run(library_path, "2", _Broken())
    assert run.status is RunStatus.COMPLETED and run.summary_complete
    assert "stop condition failed: RuntimeError: boom" in run.notes


class _AnalysesWhenFinished(NullObserver):
    """Reads the library, as another reader would, the moment the run is announced finished."""

    def __init__(self, library: Path) -> None:
        self.library = library
        self.seen: dict[int, set[str]] = {}

    def on_finished(self, run: Run) -> None:
        with Library.open(self.library) as lib:
            self.seen[run.id] = set(get_analyses(lib, run.id))


def test_a_probes_analysis_is_stored_before_its_run_is_announced_finished(
    library_path: Path,
) -> None:
    """The window shows "Completed" and reloads the run when it hears the run finished, and a
    campaign moves on: the burst analysis must be in the library by then (it was stored just
    after, and a window test read the library in between once)."""
    require_program("iperf3")
    observer = _AnalysesWhenFinished(library_path)
    outcome = _on_this_computer(
        library_path,
        "2",
        lambda lib, p: run_burst_probe(lib, p, after_step_s=1, observer=observer),
    )
    assert outcome.run.status is RunStatus.COMPLETED
    assert outcome.estimate.detected is False  # a flat 100 Mbit/s: no step, still analysed
    assert list(observer.seen) == [outcome.run.id]
    assert "burst" in observer.seen[outcome.run.id], observer.seen
