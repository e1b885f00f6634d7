"""The storage suite's plan and progress: PTS job matrices, the next job after any set of
finished jobs (a stage prepared again: purged and preconditioned first), steady-state
verdicts per stage, window-mean tables, CloudHarmony's columns beside Pairbench's own, and
CloudHarmony's thread caps — on figures written out here, the expected values worked out by
hand (tests/reference checks the same against CloudHarmony's own PHP)."""

from __future__ import annotations

import pytest

from pairbench.analysis.steady_state import SteadyState
from pairbench.analysis.storage_columns import suite_columns
from pairbench.analysis.storage_suite import job_of, jobs_total, suite_progress, verdict_json
from pairbench.analysis.storage_tables import suite_tables
from pairbench.domain.storage import (
    IOPS_BLOCK_SIZES,
    IOPS_MIXES,
    Job,
    JobKey,
    StorageTest,
    SuiteParams,
    estimate_text,
    parse_size,
    stages_of,
)


def test_the_iops_matrix_is_pts_mixes_outer_block_sizes_inner() -> None:
    (stage,) = stages_of(StorageTest.IOPS)
    assert len(stage.jobs) == 56
    assert stage.jobs[0] == Job("1m", 100) and stage.jobs[7] == Job("512", 100)
    assert stage.jobs[8] == Job("1m", 95) and stage.jobs[-1] == Job("512", 0)
    assert [j.read_pct for j in stage.jobs[::8]] == list(IOPS_MIXES)
    assert tuple(j.bs for j in stage.jobs[:8]) == IOPS_BLOCK_SIZES
    assert stage.tracked == Job("4k", 0) and stage.metric == "write_iops"
    assert [j.rw for j in (Job("4k", 100), Job("4k", 65), Job("4k", 0))] == [
        "randread",
        "randrw",
        "randwrite",
    ]


def test_latency_and_throughput_matrices() -> None:
    (lat,) = stages_of(StorageTest.LATENCY)
    assert [j.name for j in lat.jobs[:4]] == ["16k 100/0", "8k 100/0", "4k 100/0", "512b 100/0"]
    assert len(lat.jobs) == 12 and lat.metric == "write_lat_mean_us"
    big, small = stages_of(StorageTest.THROUGHPUT)
    assert [j.rw for j in big.jobs] == ["read", "write"] and big.jobs[0].bs == "1m"
    assert small.jobs[1] == Job("128k", 0, sequential=True) == small.tracked
    params = SuiteParams(StorageTest.LATENCY, "/dev/x", threads=8, iodepth=32)
    assert (params.job_threads(), params.job_iodepth()) == (1, 1)


def test_sizes_and_params_round_trip() -> None:
    assert parse_size("4GiB") == 4 * 2**30 == parse_size("4g")
    assert parse_size("512M") == 512 * 2**20 and parse_size("1073741824") == 2**30
    for bad in ("", "0", "4 GB", "-1G", "1.5G", "4PB"):
        with pytest.raises(ValueError, match="a size such as"):
            parse_size(bad)
    params = SuiteParams(StorageTest.IOPS, "/srv", size=2**30, threads=4, direct=False)
    assert SuiteParams.from_json(params.to_json()) == params
    assert params.to_json()["test"] == "iops"
    # 56 jobs x 60 s: 5 rounds = 4 h 40 min, 25 rounds = 23 h 20 min
    text = estimate_text(SuiteParams(StorageTest.IOPS, "/dev/x"))
    assert text == "4 h 40 min to 23 h 20 min of fio jobs (5 to 25 rounds)"
    short = SuiteParams(StorageTest.THROUGHPUT, "/dev/x", round_seconds=1, max_rounds=5)
    assert estimate_text(short) == "20 s of fio jobs (5 rounds)"  # 4 jobs x 5 rounds x 1 s


def _figures(write_iops: float, read_iops: float = 0.0) -> dict[str, float]:
    return {"write_iops": write_iops, "read_iops": read_iops}


def _throughput_done(
    values_1m: list[float], values_128k: list[float], passes: int
) -> dict[JobKey, dict[str, float]]:
    done: dict[JobKey, dict[str, float]] = {JobKey(-1, r, 0): {} for r in range(1, passes + 1)}
    for stage, values in enumerate((values_1m, values_128k)):
        for r, value in enumerate(values, start=1):
            done[JobKey(stage, r, 0)] = {"read_bytes_per_s": 2 * value, "read_iops": 1.0}
            done[JobKey(stage, r, 1)] = {"write_bytes_per_s": value, "write_iops": 1.0}
    return done


MIB = 2**20


def test_the_next_job_follows_preconditioning_rounds_and_stages() -> None:
    params = SuiteParams(StorageTest.THROUGHPUT, "/dev/x", precondition_passes=2)
    assert suite_progress(params, {}).next_job == JobKey(-1, 1, 0)
    assert job_of(params, JobKey(-1, 1, 0)) == Job("128k", 0, sequential=True)
    done = _throughput_done([], [], passes=2)
    assert suite_progress(params, done).next_job == JobKey(0, 1, 0)
    # Round 3 half done: two complete rounds count, the next job is round 3's write.
    done = _throughput_done([100.0, 100.0], [], passes=2)
    done[JobKey(0, 3, 0)] = {"read_bytes_per_s": 1.0, "read_iops": 1.0}
    progress = suite_progress(params, done)
    assert progress.stages[0].values == (100.0, 100.0)
    assert progress.next_job == JobKey(0, 3, 1)
    # 2 passes + 5 jobs done; planned: 2 + 5 rounds x 2 jobs for each stage
    assert jobs_total(params, progress, done) == (7, 22)


def test_a_steady_stage_ends_and_the_next_stage_begins() -> None:
    params = SuiteParams(StorageTest.THROUGHPUT, "/dev/x", precondition_passes=0)
    # 1m: steady at round 5 (100, 104, 98, 102, 100: max-min 6 <= 20.16; slope -0.2/round).
    done = _throughput_done([100.0, 104.0, 98.0, 102.0, 100.0], [50.0], passes=0)
    progress = suite_progress(params, done)
    first, second = progress.stages
    assert first.verdict.state is SteadyState.REACHED and first.verdict.reached_at == 5
    assert first.finished and not second.finished
    assert progress.next_job == JobKey(1, 2, 0)
    window = verdict_json(first)["window"]
    assert isinstance(window, dict)
    assert window["mean"] == pytest.approx(100.8)
    assert window["data_excursion"] == pytest.approx(6.0)
    assert window["data_limit"] == pytest.approx(20.16)
    # least squares over x = 0..4: slope = sum((x-2)(v-100.8)) / 10 = -0.2
    assert window["slope"] == pytest.approx(-0.2) and window["slope_excursion"] == pytest.approx(
        0.8
    )
    # Tables average the window's rounds: read = 2 x value, write = value.
    tables = suite_tables(params, progress, done)
    assert tables[0].name == "throughput 1m"
    assert tables[0].value("1m", 100) == pytest.approx(201.6)
    assert tables[0].value("1m", 0) == pytest.approx(100.8)
    assert tables[1].value("128k", 0) == pytest.approx(50.0)  # the one round so far


def test_throughput_columns_are_cloudharmonys_mib_per_s_beside_pairbenchs_bytes() -> None:
    params = SuiteParams(StorageTest.THROUGHPUT, "/dev/x", precondition_passes=0)
    # MiB/s per round; the read job moves twice the write's. 100.3 MiB/s: fio's bw
    # (KiB/s, whole) is 102707, ÷ 1024 = 100.2998... rounded to 100.3.
    mib = [100.3, 104.0, 98.0, 102.0, 100.0]
    done = _throughput_done([v * MIB for v in mib], [50.0 * MIB] * 5, passes=0)
    progress = suite_progress(params, done)
    columns = suite_columns(params, progress, done, suite_tables(params, progress, done))
    # CloudHarmony: each job's (read + write) KiB/s ÷ 1024, rounded to 2; their mean, to 2.
    assert columns["throughput_1024k_100_0"] == 201.72  # 2 x (100.3+104+98+102+100) / 5
    assert columns["throughput_1024k_0_100"] == 100.86
    assert columns["throughput_128k_0_100"] == 50.0
    # Pairbench's own: B/s, unrounded, under a name of its own.
    assert columns["throughput_1024k_100_0_bytes_per_s"] == pytest.approx(201.72 * MIB)
    names = [name for name in columns if not name.startswith("ss_")]
    assert names == [
        "throughput_1024k_100_0",
        "throughput_1024k_0_100",
        "throughput_128k_100_0",
        "throughput_128k_0_100",
        "throughput_1024k_100_0_bytes_per_s",
        "throughput_1024k_0_100_bytes_per_s",
        "throughput_128k_100_0_bytes_per_s",
        "throughput_128k_0_100_bytes_per_s",
    ]
    # The row's ss_* fields are the 128 KiB stage's window (50 MiB/s flat), as theirs.
    assert columns["ss_average"] == 50.0 and columns["ss_rounds"] == "1-5"
    assert columns["ss_slope"] == 0.0 and columns["ss_linear_fit_formula"] == "0 * R + 50"
    assert columns["ss_max_slope_excursion"] == 5.0 and columns["ss_max_data_excursion"] == 10.0
    assert (columns["ss_max_rounds"], columns["ss_verification"]) == (25, 10)


def test_a_stage_out_of_rounds_is_not_reached_and_the_suite_ends() -> None:
    params = SuiteParams(StorageTest.THROUGHPUT, "/dev/x", precondition_passes=0, max_rounds=6)
    swinging = [100.0, 140.0, 90.0, 150.0, 80.0, 160.0]  # max-min far above 20 % of the mean
    steady = [10.0] * 5
    progress = suite_progress(params, _throughput_done(swinging, steady, passes=0))
    assert progress.stages[0].verdict.state is SteadyState.NOT_REACHED
    assert progress.stages[0].verdict.rounds == 6
    assert progress.stages[1].verdict.reached_at == 5
    assert progress.finished and progress.next_job is None
    # The tables of a stage not reached average its last window (rounds 2-6).
    tables = suite_tables(params, progress, _throughput_done(swinging, steady, passes=0))
    assert tables[0].value("1m", 0) == pytest.approx(sum(swinging[1:]) / 5)


def test_iops_and_latency_tables_and_their_column_names() -> None:
    params = SuiteParams(StorageTest.LATENCY, "/dev/x", precondition_passes=0)
    (stage,) = stages_of(StorageTest.LATENCY)
    done: dict[JobKey, dict[str, float]] = {}
    for r in range(1, 6):
        for j, job in enumerate(stage.jobs):
            figures = {"write_lat_mean_us": 20.0, "write_iops": 300.0}
            figures["write_lat_max_us"] = 100.0 * r  # round 5's is the largest: 500
            if job.read_pct:
                figures.update(read_lat_mean_us=80.0, read_iops=100.0, read_lat_max_us=700.0)
            done[JobKey(0, r, j)] = figures
    progress = suite_progress(params, done)
    assert progress.finished and progress.stages[0].verdict.reached_at == 5
    mean, iops, maximum = suite_tables(params, progress, done)
    assert (mean.name, iops.name, maximum.name) == (
        "weighted mean latency",
        "latency IOPS",
        "peak latency",
    )
    assert maximum.value("4k", 0) == 500.0 and maximum.value("8k", 65) == 700.0
    # 65/35: (80 x 100 + 20 x 300) / 400 = 35 µs; 100/0 (reads and writes here): the same
    assert mean.value("4k", 65) == pytest.approx(35.0) and mean.value("4k", 0) == 20.0
    assert iops.value("512", 65) == 400.0
    columns = suite_columns(params, progress, done, [mean, iops, maximum])
    # CloudHarmony's, in ms: a mixed job's (read + write) / 2, unweighted: (80 + 20) / 2 µs
    assert columns["latency_4k_65_35_mean"] == 0.05
    # the window's mean of each job's max: (100 + 200 + 300 + 400 + 500) / 5 µs
    assert columns["latency_16k_0_100_max"] == 0.3
    assert columns["latency_16k_65_35_max"] == 0.5  # ((700 + 100 r) / 2) averaged over r
    # Pairbench's own, under names of their own (µs).
    assert columns["latency_4k_65_35_weighted_mean_us"] == pytest.approx(35.0)
    assert columns["latency_16k_0_100_peak_us"] == 500.0
    assert columns["latency_512b_0_100_iops"] == 300.0
    names = list(columns)
    assert names[:4] == [
        "latency_16k_100_0_mean",
        "latency_16k_100_0_max",
        "latency_8k_100_0_mean",
        "latency_8k_100_0_max",
    ]  # CloudHarmony's order: the jobs' (mixes outer, block sizes inner), mean then max
    assert len([n for n in names if n.endswith(("_mean", "_max"))]) == 24
    assert len([n for n in names if n.startswith("ss_")]) == 13  # steady: every field
    assert len(names) == 24 + 13 + 36
    iops_params = SuiteParams(StorageTest.IOPS, "/dev/x", precondition_passes=0)
    (iops_stage,) = stages_of(StorageTest.IOPS)
    iops_done = {
        JobKey(0, r, j): _figures(float(j + 1), 1.0)
        for r in range(1, 6)
        for j in range(len(iops_stage.jobs))
    }
    iops_progress = suite_progress(iops_params, iops_done)
    (table,) = suite_tables(iops_params, iops_progress, iops_done)
    assert len(table.cells) == 56 and table.value("1m", 100) == 2.0
    iops_columns = suite_columns(iops_params, iops_progress, iops_done, [table])
    assert iops_columns["iops_4k_0_100"] == 55.0 + 1.0
    assert list(iops_columns)[:2] == ["iops_1m_100_0", "iops_128k_100_0"]
