"""Differential tests against CloudHarmony's own block-storage code (PHP, ``tests/reference``)
for the numbers around its suite: PHP's ``round`` and float text (which CloudHarmony's
columns and ``ss_*`` fields go through), and fio's numjobs as its run options set them."""

from __future__ import annotations

import random
from pathlib import Path

from pairbench.analysis.php_numbers import php_round, php_text
from pairbench.domain.storage import suite_threads
from reference.cloudharmony import run_reference

SEED = 20270527


# ----------------------------------------------------------------------------- PHP numbers


def test_php_round_and_float_text_are_phps(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    cases: list[tuple[float, int]] = [(1.955, 2), (1.005, 2), (0.125, 2), (-2.5, 0)]
    values: list[float] = [0.0, -0.0, 1e14, 1e15, 1e-4, 9.99e-5, -0.001, 2 / 3]
    for _ in range(20000):
        places = rng.choice((0, 1, 2, 3, 4, 12))
        kind = rng.random()
        if kind < 0.4:  # halves at the rounded place, as sums of fio's figures make them
            value = (rng.randint(0, 10**7) + 0.5) / 10**places
        else:
            value = rng.uniform(0, 1) * 10 ** rng.randint(-7, 9)
        cases.append((-value if rng.random() < 0.2 else value, places))
        values.append(php_round(rng.uniform(-1, 1) * 10 ** rng.randint(-4, 16), 3))
    rounded, texts = run_reference(
        [{"kind": "round", "cases": cases}, {"kind": "text", "values": values}], tmp_path
    )
    assert [php_round(v, p) for v, p in cases] == rounded
    assert [php_text(v) for v in values] == texts


# ----------------------------------------------------------------------------- threads


def test_threads_default_and_caps_are_cloudharmonys(tmp_path: Path) -> None:
    """fio's numjobs for one target: CloudHarmony's run options (``--threads``, default the
    CPUs; ``--threads_per_target_max`` 8; ``--threads_per_core_max`` 2) against ours."""
    cases: list[tuple[int, int | None, int | None, int | None]] = [
        (cpus, threads, per_target, per_core)
        for cpus in (1, 2, 3, 36)
        for threads in (None, 1, 3, 8, 9, 32, 200)
        for per_target in (None, 1, 4, 16)
        for per_core in (None, 1, 3)
    ]
    args = [
        [
            f"--{name}={value}"
            for name, value in (
                ("threads", threads),
                ("threads_per_target_max", per_target),
                ("threads_per_core_max", per_core),
            )
            if value is not None
        ]
        for _cpus, threads, per_target, per_core in cases
    ]
    request = {
        "kind": "threads",
        "cpus_file": str(tmp_path / "cpus"),
        "cases": [[c[0], a] for c, a in zip(cases, args, strict=True)],
    }
    (theirs,) = run_reference([request], tmp_path)
    ours = []
    for cpus, threads, per_target, per_core in cases:
        caps = {"per_target_max": per_target, "per_core_max": per_core}
        ours.append(suite_threads(threads, cpus, **{k: v for k, v in caps.items() if v}))
    assert ours == [int(t) for t in theirs]
    assert theirs[cases.index((36, 32, None, None))] == 8  # the field report's --threads=32
    print(f"CloudHarmony agreement on threads: {len(cases)}/{len(cases)}")
