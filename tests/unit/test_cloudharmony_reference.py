"""Differential tests against CloudHarmony's own block-storage code (PHP, run by Debian's
``php``; ``tests/reference``): their workload loop, steady-state check, column computation
and results writer, on the same fio results as Pairbench's storage suite in ``cloudharmony``
mode. Every verdict (state, round), every ``ss_*`` field and every CloudHarmony-named
column must be equal — to the bit, not approximately.

Seeded generators: tracking series (random walks, trends, steps, plateaus, windows at the
20 % / 10 % edges; IOPS, latency in µs and in ms, throughput; 5 to 25 rounds) and job
results (mixed jobs, a direction idle, rounding halves, fio's whole KiB/s)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from pairbench.analysis.cloudharmony import ss_window_fields
from pairbench.analysis.steady_state import SteadyState
from pairbench.analysis.storage_columns import cloudharmony_columns, cloudharmony_ss
from pairbench.analysis.storage_suite import SuiteProgress, suite_progress
from pairbench.domain.storage import (
    JobKey,
    SteadyRule,
    StorageTest,
    SuiteParams,
    stages_of,
)
from pairbench.tools.fio_extremes import last_document
from reference.cloudharmony import run_reference
from reference.fio_docs import IDLE, Doc, direction, doc, figures, named_jobs
from testkit import REPO

SEED = 20270527


# ----------------------------------------------------------------------------- series


def _walk(rng: random.Random, base: float, n: int) -> list[float]:
    sigma = rng.choice((0.004, 0.02, 0.06))
    out = [base]
    for _ in range(n - 1):
        out.append(out[-1] * math.exp(rng.gauss(0.0, sigma)))
    return out


def _trend(rng: random.Random, base: float, n: int) -> list[float]:
    k = rng.uniform(-0.04, 0.04)
    return [base * (1 + k * r) for r in range(n)]


def _step(rng: random.Random, base: float, n: int) -> list[float]:
    at, factor = rng.randint(1, n), rng.uniform(0.5, 1.5)
    return [base * (factor if r >= at else 1.0) * rng.uniform(0.99, 1.01) for r in range(n)]


def _plateau(rng: random.Random, base: float, n: int) -> list[float]:
    a, tau = rng.uniform(-0.6, 2.0), rng.uniform(0.8, 6.0)
    return [base * (1 + a * math.exp(-r / tau)) for r in range(n)]


def _edge(rng: random.Random, base: float, n: int) -> list[float]:
    """Windows whose data or slope excursion sits at its limit (20 % / 10 % of the mean),
    to a hair either side."""
    hair = rng.choice((0.0, 1e-12, -1e-12, 1e-7, -1e-7, 1e-3, -1e-3))
    if rng.random() < 0.5:  # max - min at 20 % of the mean
        e = 0.1 + hair
        window = [base * (1 - e), base, base, base, base * (1 + e)]
        rng.shuffle(window)
    else:  # the fitted line rising 10 % of the mean across the window
        slope = base * (0.025 + hair) * rng.choice((1, -1))
        window = [base + slope * (r - 2) for r in range(5)]
    lead = [base * rng.uniform(0.6, 1.6) for _ in range(n - 5)]
    return lead + window


SHAPES: tuple[Callable[[random.Random, float, int], list[float]], ...] = (
    _walk,
    _trend,
    _step,
    _plateau,
    _edge,
)


def _tracked_doc(test: StorageTest, value: float) -> Doc:
    """The tracked (0/100) job's document carrying ``value`` in CloudHarmony's unit."""
    if test is StorageTest.IOPS:
        return doc(write=direction(round(value, 6), 4 * int(value), 90000.5, 400000))
    if test is StorageTest.LATENCY:
        return doc(write=direction(2000.0, 8000, round(value * 1e6, 6), int(value * 3e6)))
    bw = round(value * 1024)
    return doc(write=direction(bw / 1024.0, bw, 1e6, 9000000))


MIXED = doc(direction(300.25, 1201, 41250.125, 99000), direction(120.5, 482, 88000.75, 250000))


def _suite_request(
    test: StorageTest, series: list[list[float]], max_rounds: int, verification: float
) -> tuple[dict[str, Any], dict[JobKey, Doc]]:
    """Their request and our jobs for one suite whose stages track ``series``."""
    docs: dict[JobKey, Doc] = {}
    for s, stage in enumerate(stages_of(test)):
        tracked = stage.job_index(stage.tracked)
        for r, value in enumerate(series[s], start=1):
            for j in range(len(stage.jobs)):
                docs[JobKey(s, r, j)] = _tracked_doc(test, value) if j == tracked else MIXED
    explicit = {k: d for k, d in docs.items() if d is not MIXED or test is StorageTest.THROUGHPUT}
    request = {
        "kind": "suite",
        "test": test.value,
        "max_rounds": max_rounds,
        "verification": verification,
        "rounds": 0 if test is StorageTest.THROUGHPUT else len(series[0]),
        "default": MIXED,
        "jobs": named_jobs(test, explicit),
    }
    return request, docs


def _ours(
    test: StorageTest,
    docs: dict[JobKey, Doc],
    max_rounds: int,
    verification: float,
    cache: dict[int, dict[str, float]],
    parse: bool = True,
) -> tuple[SuiteProgress, dict[JobKey, dict[str, float]]]:
    """Pairbench's progress in cloudharmony mode after the same jobs (``parse``: their
    summaries by Pairbench's fio parser too)."""
    params = SuiteParams(
        test,
        "/dev/x",
        max_rounds=max_rounds,
        precondition_passes=0,
        slope_excursion=verification / 100,
        data_excursion=2 * verification / 100,
        steady_state=SteadyRule.CLOUDHARMONY,
    )
    done = {}
    for key, document in docs.items():
        if id(document) not in cache:
            cache[id(document)] = figures(document, parse=parse)
        done[key] = cache[id(document)]
    return suite_progress(params, done), done


def _pts_differs(progress: SuiteProgress, done: dict[JobKey, dict[str, float]]) -> int:
    """Stages whose verdict (state, round) the PTS rule would give otherwise."""
    pts = suite_progress(replace(progress.params, steady_state=SteadyRule.PTS), done)
    return sum(
        (a.verdict.state, a.verdict.rounds) != (b.verdict.state, b.verdict.rounds)
        for a, b in zip(progress.stages, pts.stages, strict=True)
    )


# The ss_* fields CloudHarmony writes of a steady window (its run options aside).
SS_WINDOW = frozenset(
    {
        "ss_average",
        "ss_max_data_excursion",
        "ss_max_slope_excursion",
        "ss_largest_data_excursion",
        "ss_largest_slope_excursion",
        "ss_slope",
        "ss_y_intercept",
        "ss_linear_fit_formula",
        "ss_start",
        "ss_stop",
        "ss_rounds",
    }
)

_STATES = {True: SteadyState.REACHED, False: SteadyState.NOT_REACHED, None: SteadyState.PENDING}


def _compare(
    theirs: dict[str, Any], progress: SuiteProgress, done: dict[JobKey, dict[str, float]]
) -> tuple[int, int]:
    """Assert their verdicts, columns and ss_* fields equal ours; (verdicts, columns)."""
    verdicts = 0
    for stage, their in zip(progress.stages, theirs["stages"], strict=False):
        verdict = stage.verdict
        expected = _STATES[their["status"]]
        assert verdict.state is expected, (stage.stage.name, their, stage.values)
        if expected is SteadyState.REACHED:
            assert verdict.reached_at == their["complete"]
        elif expected is SteadyState.NOT_REACHED:
            assert verdict.rounds == their["complete"]
        verdicts += 1
    if not theirs["metrics"]:  # a stage pending: their run wrote no results
        assert any(s.verdict.state is SteadyState.PENDING for s in progress.stages)
        return verdicts, 0
    ours = cloudharmony_columns(progress, done)
    assert list(ours.items()) == list(theirs["metrics"].items())  # names, values, order
    assert cloudharmony_ss(progress) == theirs["options"]
    fields = 0
    for stage, their in zip(progress.stages, theirs["stages"], strict=True):
        ss = {k: v for k, v in their["options"].items() if k in SS_WINDOW}
        assert ss_window_fields(stage.reference) == ss  # each stage's, as it wrote them
        fields += len(ss)
    return verdicts, len(ours) + len(theirs["options"]) + fields


# (test, base value in CloudHarmony's unit, suites): the IOPS test's 56 jobs a round cost
# the most, so fewer of its suites.
SCALES = (
    (StorageTest.IOPS, lambda rng: rng.uniform(500.0, 900000.0), 50),
    (StorageTest.LATENCY, lambda rng: rng.uniform(0.012, 0.25), 100),  # 12-250 µs, in ms
    (StorageTest.LATENCY, lambda rng: rng.uniform(0.5, 60.0), 100),  # ms
    (StorageTest.THROUGHPUT, lambda rng: rng.uniform(20.0, 3500.0), 80),  # MiB/s, 2 stages
)


def test_verdicts_ss_fields_and_columns_equal_cloudharmonys_on_generated_series(
    tmp_path: Path,
) -> None:
    rng = random.Random(SEED + 1)
    requests: list[dict[str, Any]] = []
    ours: list[tuple[SuiteProgress, dict[JobKey, dict[str, float]]]] = []
    cache: dict[int, dict[str, float]] = {}
    for test, base, suites in SCALES:
        for i in range(suites):
            shape = SHAPES[i % len(SHAPES)]
            stages = len(stages_of(test))
            series = [shape(rng, base(rng), rng.randint(5, 25)) for _ in range(stages)]
            max_rounds = rng.choice((25, max(5, max(len(s) for s in series))))
            verification = rng.choice((10, 10, 10, 5, 15, 20))
            request, docs = _suite_request(test, series, max_rounds, verification)
            requests.append(request)
            ours.append(_ours(test, docs, max_rounds, verification, cache, parse=False))
    results = run_reference(requests, tmp_path)
    verdicts = columns = differ = 0
    for their, (progress, done) in zip(results, ours, strict=True):
        counted = _compare(their, progress, done)
        verdicts, columns = verdicts + counted[0], columns + counted[1]
        differ += _pts_differs(progress, done)
    states = {s.verdict.state for p, _d in ours for s in p.stages}
    assert states == set(SteadyState)  # reached, not reached and pending all covered
    # The series tell the rules apart: the PTS rule, unrounded, decides otherwise on some.
    assert differ >= 10, differ
    print(f"CloudHarmony agreement on series: verdicts {verdicts}/{verdicts}, "
          f"columns and ss_* fields {columns}/{columns}")  # fmt: skip


# ----------------------------------------------------------------------------- job results


def _random_direction(rng: random.Random, scale: float) -> dict[str, Any]:
    """A direction's figures, sometimes at the roundings' halves (bw ÷ 1024 at x.xx5)."""
    iops = round(rng.uniform(1.0, 2.0) * scale, rng.choice((0, 1, 6)))
    if rng.random() < 0.2:
        iops = math.floor(iops) + 0.5
    bw = int(rng.uniform(1.0, 3.0) * scale * 4)
    if rng.random() < 0.3:
        bw = 1024 * (bw // 1024) + rng.choice((128, 384, 640, 896, 5, 1019))
    mean = round(rng.uniform(8000.0, 9e6), rng.choice((0, 3, 6)))
    return direction(iops, bw, mean, int(mean * rng.uniform(1.0, 40.0)))


def _random_doc(rng: random.Random, read_pct: int) -> Doc:
    scale = 10 ** rng.uniform(1, 5.5)
    read = _random_direction(rng, scale) if read_pct else IDLE
    write = _random_direction(rng, scale) if read_pct < 100 else IDLE
    if 0 < read_pct < 100 and rng.random() < 0.15:  # a mixed job one of whose sides idled
        read, write = (IDLE, write) if rng.random() < 0.5 else (read, IDLE)
    return doc(read, write)


def test_columns_equal_cloudharmonys_on_generated_job_results(tmp_path: Path) -> None:
    rng = random.Random(SEED + 2)
    requests: list[dict[str, Any]] = []
    ours: list[tuple[SuiteProgress, dict[JobKey, dict[str, float]]]] = []
    cache: dict[int, dict[str, float]] = {}
    tests = [StorageTest.IOPS] * 3 + [StorageTest.LATENCY] * 6 + [StorageTest.THROUGHPUT] * 12
    for test in tests:
        rounds = rng.randint(5, 8)
        docs: dict[JobKey, Doc] = {}
        for s, stage in enumerate(stages_of(test)):
            for r in range(1, rounds + 1):
                for j, job in enumerate(stage.jobs):
                    docs[JobKey(s, r, j)] = _random_doc(rng, job.read_pct)
        request = {
            "kind": "suite",
            "test": test.value,
            "max_rounds": rounds,
            "verification": 10,
            "rounds": 0,
            "default": MIXED,
            "jobs": named_jobs(test, docs),
        }
        requests.append(request)
        ours.append(_ours(test, docs, rounds, 10, cache))
    results = run_reference(requests, tmp_path)
    columns = 0
    for their, (progress, done) in zip(results, ours, strict=True):
        assert their["metrics"], their["stages"]  # every stage ended: a results row
        columns += _compare(their, progress, done)[1]
    print(f"CloudHarmony agreement on generated jobs: columns {columns}/{columns}")


def _captured_documents() -> list[Doc]:
    """The last fio document of every JSON capture in the repository (real fio runs:
    mixed read/write jobs, several jobs, json and json+)."""
    found = []
    for path in sorted((REPO / "tests" / "data").glob("*/fio/*.out")):
        document = last_document(path.read_text(errors="replace").split("\n"))
        if document is not None and document.get("jobs"):
            found.append(document)
    return found


def test_columns_equal_cloudharmonys_on_real_fio_outputs(tmp_path: Path) -> None:
    captured = _captured_documents()
    assert len(captured) >= 8
    mixed = [d for d in captured if all(d["jobs"][0][k]["iops"] > 0 for k in ("read", "write"))]
    assert mixed  # randrw captures: CloudHarmony's (read + write) / 2 against fio's own
    rng = random.Random(SEED + 3)
    requests: list[dict[str, Any]] = []
    ours: list[tuple[SuiteProgress, dict[JobKey, dict[str, float]]]] = []
    cache: dict[int, dict[str, float]] = {}
    for test in StorageTest:
        docs: dict[JobKey, Doc] = {}
        for s, stage in enumerate(stages_of(test)):
            for r in range(1, 6):
                for j, job in enumerate(stage.jobs):
                    pool = mixed if 0 < job.read_pct < 100 else captured
                    docs[JobKey(s, r, j)] = rng.choice(pool)
        jobs = named_jobs(test, docs)
        request = {"kind": "suite", "test": test.value, "max_rounds": 5, "verification": 10}
        requests.append({**request, "rounds": 0, "default": MIXED, "jobs": jobs})
        ours.append(_ours(test, docs, 5, 10, cache))
    columns = 0
    for their, (progress, done) in zip(run_reference(requests, tmp_path), ours, strict=True):
        columns += _compare(their, progress, done)[1]
    print(f"CloudHarmony agreement on real fio outputs: columns {columns}/{columns}")
