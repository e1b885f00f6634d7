"""services.running: connect, prepare, call ``on_ready``, run, close: in that order, always closed.

The engine's parts are replaced by recorders: what is checked here is the order of the
steps and that connections are closed however the run ends (a real run on the pair
``local`` is in the CLI tests, e.g. ``test_iperf3_text``)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pairbench.domain import LOCAL_PAIR, RunSpec
from pairbench.domain.failures import RunError
from pairbench.engine import burst as engine_burst
from pairbench.services import running
from pairbench.services.burst import burst_probe_spec
from pairbench.services.library import Library, open_library

SPEC = RunSpec(pair="local", tool="iperf3", params={"duration": "1"})


class Recorder:
    """Stands in for the connector and the engine steps; ``steps`` lists what happened."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, prepare_fails: bool = False) -> None:
        self.steps: list[str] = []
        self.connector_args: dict[str, Any] = {}
        self.run_args: dict[str, Any] = {}
        recorder = self

        class FakeConnector:
            def __init__(self, lib: Library, **kwargs: Any) -> None:
                recorder.connector_args = kwargs
                recorder.steps.append("connect")

            async def close(self) -> None:
                recorder.steps.append("close")

        async def prepare(pair: object, spec: RunSpec, connector: FakeConnector) -> str:
            recorder.steps.append("prepare")
            if prepare_fails:
                raise RunError("iperf3 is not installed")
            return f"prepared {spec.tool}"

        async def execute_run(lib: Library, prepared: str, **kwargs: Any) -> str:
            recorder.steps.append(f"execute {prepared}")
            recorder.run_args = kwargs
            return "the run"

        async def run_burst_probe(lib: Library, prepared: str, **kwargs: Any) -> str:
            recorder.steps.append(f"probe {prepared}")
            recorder.run_args = kwargs
            return "the outcome"

        monkeypatch.setattr(running, "Connector", FakeConnector)
        monkeypatch.setattr(running, "prepare", prepare)
        monkeypatch.setattr(running, "execute_run", execute_run)
        monkeypatch.setattr(engine_burst, "run_burst_probe", run_burst_probe)

    def ready(self) -> None:
        self.steps.append("ready")


@pytest.fixture
def lib(tmp_path: Path) -> Any:
    with open_library(tmp_path / "l.sqlite") as library:
        yield library


def test_run_on_pair_prepares_then_runs_then_closes(
    lib: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = Recorder(monkeypatch)
    cancel = asyncio.Event()
    observer = object()
    secrets = object()
    result = asyncio.run(
        running.run_on_pair(
            lib,
            LOCAL_PAIR,
            SPEC,
            observer=observer,  # type: ignore[arg-type]
            cancel=cancel,
            secrets=secrets,  # type: ignore[arg-type]
            accept_new_host_key=True,
            on_ready=rec.ready,
        )
    )
    assert result == "the run"
    assert rec.steps == ["connect", "prepare", "ready", "execute prepared iperf3", "close"]
    assert rec.connector_args == {"secrets": secrets, "accept_new_host_key": True}
    assert rec.run_args == {"observer": observer, "cancel": cancel}


def test_a_run_that_cannot_start_is_not_ready_and_still_closes(
    lib: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = Recorder(monkeypatch, prepare_fails=True)
    with pytest.raises(RunError, match="not installed"):
        asyncio.run(running.run_on_pair(lib, LOCAL_PAIR, SPEC, on_ready=rec.ready))
    assert rec.steps == ["connect", "prepare", "close"]
    rec.steps.clear()
    with pytest.raises(RunError):
        asyncio.run(
            running.probe_burst_on_pair(lib, LOCAL_PAIR, SPEC, after_step_s=5, on_ready=rec.ready)
        )
    assert rec.steps == ["connect", "prepare", "close"]


def test_probe_passes_its_settings_to_the_engine(
    lib: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    rec = Recorder(monkeypatch)
    spec = burst_probe_spec(LOCAL_PAIR, max_duration_s=60, streams=3, label="t")

    def on_estimate(estimate: object) -> None:
        return None

    outcome = asyncio.run(
        running.probe_burst_on_pair(
            lib,
            LOCAL_PAIR,
            spec,
            after_step_s=12.5,
            refill_idle_s=40.0,
            on_estimate=on_estimate,
            on_ready=rec.ready,
        )
    )
    assert outcome == "the outcome"
    assert rec.steps == ["connect", "prepare", "ready", "probe prepared iperf3", "close"]
    assert rec.run_args == {
        "after_step_s": 12.5,
        "refill_idle_s": 40.0,
        "observer": None,
        "cancel": None,
        "on_estimate": on_estimate,
    }


def test_burst_probe_spec_carries_the_pair_tags_and_probe_tags() -> None:
    spec = burst_probe_spec(LOCAL_PAIR, max_duration_s=90, streams=4)
    assert (spec.pair, spec.tool) == ("local", "iperf3")
    assert spec.params == {"duration": "90", "streams": "4"}
    assert spec.tags["probe"] == "burst" and spec.tags["phase"] == "burst"
    assert spec.label == "burst probe"
    with pytest.raises(ValueError):
        burst_probe_spec(LOCAL_PAIR, streams=0)
