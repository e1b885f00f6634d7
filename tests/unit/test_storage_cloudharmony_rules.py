"""CloudHarmony's way in the storage suite, on examples worked out by hand (the differential
tests in test_cloudharmony_reference.py check the same against their PHP): PHP's rounding,
its steady-state window (a latency rise under 0.05 ms is no slope), the stages prepared
again (the 128 KiB throughput stage purged and preconditioned first), numjobs capped, and
requests that cannot be CloudHarmony's refused before anything runs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pairbench.analysis.cloudharmony import reference_window, ss_fields
from pairbench.analysis.php_numbers import php_round, php_text
from pairbench.analysis.steady_state import SteadyState
from pairbench.analysis.storage_suite import job_of, jobs_total, suite_progress
from pairbench.domain.storage import JobKey, SteadyRule, StorageTest, SuiteParams, suite_threads
from pairbench.engine.storage_suite import job_label, job_params, purges_before
from pairbench.services.campaign_storage import suite_request
from pairbench.services.storage import SuiteRequest, check_request


def test_php_rounds_halves_away_from_zero_after_15_digits() -> None:
    # Python's round gives 1.95, 0.12, 2 and 0.28 for these (binary and half-even).
    assert (php_round(1.955, 2), php_round(0.125, 2), php_round(2.5), php_round(0.285, 2)) == (
        1.96,
        0.13,
        3.0,
        0.29,
    )
    assert php_round(-2.5) == -3.0 and php_round(1234567.891, 3) == 1234567.891
    assert [php_text(v) for v in (0.0, -0.0, 12.5, 1e15, 0.00012, 2.0, 635866117569605.0)] == [
        "0",
        "-0",
        "12.5",
        "1.0E+15",
        "0.00012",
        "2",
        "6.3586611756960E+14",  # PHP keeps that zero (its dtoa's small-integer tie)
    ]


def test_cloudharmonys_window_rounds_the_slope_before_times_four() -> None:
    # Mean write latency 100, 103, 106, 109, 112 µs: a steady rise of 3 µs a round.
    latency_ms = [0.100, 0.103, 0.106, 0.109, 0.112]
    window = reference_window(latency_ms, 5, 10.0)
    # mean 0.106 ms; slope 0.003 ms/round, rounded to 3 decimals: 0.003; × 4 = 0.012,
    # rounded to 1 decimal: 0.0 — no slope at all for CloudHarmony.
    assert (window.average, window.slope, window.largest_slope_excursion) == (0.106, 0.003, 0.0)
    assert window.max_slope_excursion == pytest.approx(0.0106)
    assert window.largest_data_excursion == pytest.approx(0.012)  # <= 2 × 0.0106
    assert window.y_intercept == 0.097  # the fitted value at round 0
    assert window.steady
    fields = ss_fields(window, 25, 10.0)
    assert fields["ss_linear_fit_formula"] == "0.003 * R + 0.097"
    assert (fields["ss_rounds"], fields["ss_start"], fields["ss_stop"]) == ("1-5", 1, 5)
    assert fields["ss_largest_slope_excursion"] == 0.0 and fields["ss_average"] == 0.106


def _latency_done(values_us: list[float]) -> dict[JobKey, dict[str, float]]:
    """A latency suite's rounds: the tracked 4k 0/100 job at ``values_us``, the rest alike."""
    done: dict[JobKey, dict[str, float]] = {}
    for r, value in enumerate(values_us, start=1):
        for j in range(12):
            done[JobKey(0, r, j)] = {"write_lat_mean_us": value, "write_iops": 1e6 / value}
    return done


def test_the_same_rounds_are_steady_by_cloudharmonys_rule_and_not_by_pts() -> None:
    done = _latency_done([100.0, 103.0, 106.0, 109.0, 112.0])
    pts = SuiteParams(StorageTest.LATENCY, "/dev/x", precondition_passes=0)
    theirs = replace(pts, steady_state=SteadyRule.CLOUDHARMONY)
    (by_pts,) = suite_progress(pts, done).stages
    (by_them,) = suite_progress(theirs, done).stages
    # PTS, unrounded: |3 µs| × 4 = 12 µs > 10 % of 106 µs. CloudHarmony: 0.0 ms <= 0.0106 ms.
    assert by_pts.verdict.state is SteadyState.PENDING and by_pts.verdict.window is not None
    assert not by_pts.verdict.window.slope_ok and by_pts.rule is SteadyRule.PTS
    assert by_them.verdict.state is SteadyState.REACHED and by_them.verdict.reached_at == 5
    window = by_them.verdict.window
    assert window is not None and window.rule == "cloudharmony"
    # Shown in Pairbench's unit (µs), as CloudHarmony decided it.
    assert window.mean == pytest.approx(106.0) and window.slope_excursion == 0.0
    assert window.slope_ok and window.data_ok
    assert window.intercept == pytest.approx(100.0)  # 97 + 3 × round 1, in µs
    # Both name CloudHarmony's check of the deciding window: its ss_* fields when steady.
    assert by_them.reference is not None and by_them.reference.steady
    assert by_pts.reference is not None and by_pts.reference.steady


def test_the_128k_stage_is_purged_and_preconditioned_again() -> None:
    params = SuiteParams(
        StorageTest.THROUGHPUT, "/dev/x", precondition_passes=2, max_rounds=5, prep_each_stage=True
    )
    done: dict[JobKey, dict[str, float]] = {JobKey(-1, p, 0): {} for p in (1, 2)}
    for r in range(1, 6):  # the 1 MiB stage steady at round 5
        done[JobKey(0, r, 0)] = {"read_bytes_per_s": 2e8, "read_iops": 190.0}
        done[JobKey(0, r, 1)] = {"write_bytes_per_s": 1e8, "write_iops": 95.0}
    progress = suite_progress(params, done)
    assert progress.stages[0].finished and progress.next_job == JobKey(-2, 1, 0)
    # 2 passes + 10 jobs + 2 passes again + the 128 KiB stage's window of 5 rounds × 2
    assert jobs_total(params, progress, done) == (12, 24)
    assert purges_before(params, JobKey(-2, 1, 0)) and not purges_before(params, JobKey(-2, 2, 0))
    assert not purges_before(params, JobKey(-1, 1, 0))  # the first purge is the suite's start
    assert job_label(7, JobKey(-2, 1, 0), job_of(params, JobKey(-2, 1, 0)), params) == (
        "storage 7: precondition pass 1 before throughput 128k"
    )
    done[JobKey(-2, 1, 0)] = {}
    assert suite_progress(params, done).next_job == JobKey(-2, 2, 0)
    done[JobKey(-2, 2, 0)] = {}
    assert suite_progress(params, done).next_job == JobKey(1, 1, 0)
    # With --precondition-once, or in a suite stored before (no prep_each_stage), straight on.
    for other in (replace(params, precondition_once=True), replace(params, prep_each_stage=False)):
        assert suite_progress(other, done).next_job == JobKey(1, 1, 0)
    assert purges_before(replace(params, precondition_once=True), JobKey(1, 1, 0))
    assert not purges_before(replace(params, purge=False, precondition_once=True), JobKey(1, 1, 0))


def test_preconditioning_runs_at_the_suites_depth_even_for_the_latency_test() -> None:
    params = SuiteParams(StorageTest.LATENCY, "/dev/x", size=2**30, threads=4, iodepth=32)
    assert job_params(params, 1, JobKey(-1, 1, 0))["iodepth"] == "32"  # as CloudHarmony's
    assert job_params(params, 1, JobKey(-1, 1, 0))["numjobs"] == "1"
    job = job_params(params, 1, JobKey(0, 1, 0))
    assert (job["iodepth"], job["numjobs"]) == ("1", "1")  # the test's jobs: 1 thread, QD 1


@pytest.mark.parametrize(
    ("asked", "cpus", "caps", "threads"),
    [
        (None, 4, {}, 4),  # default: the CPUs
        (None, 36, {}, 8),  # at most 8 per target
        (32, 36, {}, 8),  # the field report's --threads=32: 8 × 64 I/Os in flight
        (32, 2, {}, 4),  # at most 2 per CPU
        (32, 36, {"per_target_max": 32}, 32),
        (16, 4, {"per_target_max": 64, "per_core_max": 3}, 12),
    ],
)
def test_threads_are_capped_as_cloudharmony_caps_them(
    asked: int | None, cpus: int, caps: dict[str, int], threads: int
) -> None:
    assert suite_threads(asked, cpus, **caps) == threads


def test_a_cloudharmony_request_has_one_threshold() -> None:
    base = SuiteRequest("local", StorageTest.IOPS, "/srv", size=2**30)
    assert base.data_limit() == 0.20
    theirs = replace(base, steady_state=SteadyRule.CLOUDHARMONY, slope_excursion=0.15)
    assert theirs.data_limit() == pytest.approx(0.30)  # twice its ss_verification
    check_request(theirs)
    with pytest.raises(ValueError, match="one threshold"):
        check_request(replace(theirs, data_excursion=0.25))
    with pytest.raises(ValueError, match="threads per target"):
        check_request(replace(base, threads_per_target_max=0))
    cell = suite_request("h", {"target": "/srv", "size": "1GiB", "steady_state": "cloudharmony"})
    assert cell.steady_state is SteadyRule.CLOUDHARMONY and cell.data_limit() == 0.20
    capped = suite_request("h", {"target": "/srv", "size": "1GiB", "threads_per_core_max": "3"})
    assert capped.threads_per_core_max == 3
    with pytest.raises(ValueError, match="steady_state: 'snia' is not a rule"):
        suite_request("h", {"target": "/srv", "size": "1GiB", "steady_state": "snia"})
