"""One run of a campaign: its spec (tagged with campaign, cell, pass, round and attempt),
executed on its pair, and the outcome the campaign records (a failure never raises)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Protocol

from pairbench.analysis.campaign import BUSY
from pairbench.domain import HostPair, Run, RunSpec, RunStatus
from pairbench.domain.campaign import Cell, RunKey
from pairbench.domain.failures import PairBusyError, RunError
from pairbench.engine.execute import prepare
from pairbench.engine.observer import RunObserver
from pairbench.engine.transports import Connector
from pairbench.library import Library

DEFAULT_AFTER_STEP_S = 30.0


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What a campaign keeps of one run: the run (None when it could not start), the status
    the campaign lists (the run's, or ``failed`` when it measured nothing), the value of the
    cell's metric and the reason."""

    run: Run | None
    status: str
    value: float | None
    error: str
    suite_id: int | None = None  # a suite-valued cell's storage suite


class CellRunner(Protocol):
    """Runs a campaign's cells of one probe kind in place of ``run_cell`` (the services
    layer gives the engine one for storage suites, which it owns)."""

    async def preflight(self, pair: HostPair, cell: Cell) -> None:
        """Check the pair can run ``cell`` (``RunError`` says why not); nothing is stored."""
        ...

    async def run(
        self,
        campaign_id: int,
        key: RunKey,
        cell: Cell,
        pair: HostPair,
        *,
        observer: RunObserver | None,
        cancel: asyncio.Event,
    ) -> RunOutcome:
        """Run the cell at ``key``; its outcome, whatever happened (never raises)."""
        ...


def cell_spec(campaign_id: int, cell: Cell, key: RunKey, pair: HostPair) -> RunSpec:
    """The run of ``cell`` at ``key``: its tool and parameters on its pair, labelled and
    tagged with its place in the campaign (a burst probe's spec is the probe's own)."""
    label = f"campaign {campaign_id}: {cell.title} #{key.round}"
    tags = key.tags(campaign_id)
    if cell.probe == "burst":
        from pairbench.engine.burst import DEFAULT_MAX_DURATION_S, DEFAULT_STREAMS
        from pairbench.engine.burst import burst_probe_spec as probe_spec

        spec = probe_spec(
            pair,
            max_duration_s=int(cell.params.get("duration", DEFAULT_MAX_DURATION_S)),
            streams=int(cell.params.get("streams", DEFAULT_STREAMS)),
            label=label,
        )
        return replace(spec, tags={**spec.tags, **tags})
    params = {k: v for k, v in cell.params.items()}
    return RunSpec(pair.name, cell.tool, params, label, tags)


def metric_value(run: Run, metric: str) -> tuple[float | None, str]:
    """The cell's metric from a completed run's summary, or None and why not."""
    if run.status is not RunStatus.COMPLETED:
        return None, run.error or f"the run ended {run.status.value}"
    value = run.summary.get(metric)
    if value is None:
        return None, f"run {run.id} completed without {metric} in its summary"
    number = float(value)
    if number != number or abs(number) == float("inf"):
        return None, f"run {run.id}: {metric} is not a finite number"
    return number, ""


async def run_cell(
    lib: Library,
    connector: Connector,
    pair: HostPair,
    spec: RunSpec,
    cell: Cell,
    *,
    observer: RunObserver | None,
    cancel: asyncio.Event,
) -> RunOutcome:
    """Prepare and execute one campaign run; its outcome, whatever happened."""
    from pairbench.engine.execute import execute_run

    try:
        prepared = await prepare(pair, spec, connector)
        if cell.probe == "burst":
            from pairbench.engine.burst import run_burst_probe

            after = float(cell.params.get("after_step", DEFAULT_AFTER_STEP_S))
            outcome = await run_burst_probe(
                lib, prepared, after_step_s=after, observer=observer, cancel=cancel
            )
            run = outcome.run
        else:
            run = await execute_run(lib, prepared, observer=observer, cancel=cancel)
    except PairBusyError as exc:  # another run holds a host: wait for it, no failure
        return RunOutcome(None, BUSY, None, str(exc))
    except RunError as exc:
        await connector.forget(pair.client, pair.server)
        return RunOutcome(None, "failed", None, str(exc))
    value, why = metric_value(run, cell.metric)
    if value is not None:
        return RunOutcome(run, "completed", value, "")
    if run.status in (RunStatus.INTERRUPTED, RunStatus.FAILED, RunStatus.STALLED):
        await connector.forget(pair.client, pair.server)  # connect afresh next time
    status = run.status.value if run.status is not RunStatus.COMPLETED else "failed"
    return RunOutcome(run, status, None, why)
