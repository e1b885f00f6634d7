"""The storage suite's defaults are written once (``domain/storage.py``): the CLI's options,
the request the window and campaigns build, the stored parameters and the steady-state rule
all start from the same figures."""

from __future__ import annotations

from pairbench.analysis.steady_state import SteadyParams
from pairbench.cli.main import build_parser
from pairbench.domain.storage import StorageTest, SuiteParams
from pairbench.services.storage import SuiteRequest

SHARED = ("iodepth", "round_seconds", "max_rounds", "precondition_passes", "slope_excursion")


def test_every_front_starts_from_the_same_defaults() -> None:
    stored = SuiteParams(StorageTest.IOPS, "/srv")
    asked = SuiteRequest("local", StorageTest.IOPS, "/srv")
    argv = ["storage", "run", "--host", "local", "--test", "iops", "--target", "/srv"]
    options = build_parser("storage").parse_args(argv)
    for name in SHARED:
        assert getattr(asked, name) == getattr(stored, name), name
    for name in SHARED[:-1]:
        assert getattr(options, name) == getattr(stored, name), name
    assert options.slope_excursion / 100 == stored.slope_excursion
    assert asked.data_limit() == stored.data_excursion == SteadyParams().data_excursion
    assert SteadyParams().slope_excursion == stored.slope_excursion
    assert SteadyParams().max_rounds == stored.max_rounds
