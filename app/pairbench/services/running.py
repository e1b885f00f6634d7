"""Starting a run or a burst probe on a pair and waiting for it: connect, probe, run, store.

Both functions connect to the pair's hosts (asking ``secrets`` for passwords and
passphrases; pinning a new host key only with ``accept_new_host_key``), probe the tool,
run and store the run, and close every connection, however they end. A run that cannot
start raises ``RunError`` (``domain.failures``) with nothing stored; once started, a run
is stored whatever happens, and setting ``cancel`` ends it as ``cancelled``.

``on_ready`` is called once the hosts are connected and the tool probed, just before the
run starts: the CLI installs its Ctrl-C handler there (before it, Ctrl-C simply stops the
command, as nothing is stored yet).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from pairbench.domain import HostPair, Run, RunSpec
from pairbench.engine.execute import execute_run, prepare
from pairbench.engine.observer import RunObserver as RunObserver
from pairbench.engine.transports import Connector
from pairbench.library import Library
from pairbench.remote.secrets import SecretPrompt as SecretPrompt

if TYPE_CHECKING:  # the probe's module needs numpy: imported when a probe runs
    from pairbench.engine.burst import BurstProbeOutcome, EstimateCallback


async def run_on_pair(
    lib: Library,
    pair: HostPair,
    spec: RunSpec,
    *,
    observer: RunObserver | None = None,
    cancel: asyncio.Event | None = None,
    secrets: SecretPrompt | None = None,
    accept_new_host_key: bool = False,
    on_ready: Callable[[], None] | None = None,
) -> Run:
    """Run ``spec`` on ``pair`` and store it; the stored run with its final status."""
    connector = Connector(lib, secrets=secrets, accept_new_host_key=accept_new_host_key)
    try:
        prepared = await prepare(pair, spec, connector)
        if on_ready is not None:
            on_ready()
        return await execute_run(lib, prepared, observer=observer, cancel=cancel)
    finally:
        await connector.close()


async def probe_burst_on_pair(
    lib: Library,
    pair: HostPair,
    spec: RunSpec,
    *,
    after_step_s: float,
    refill_idle_s: float = 0.0,
    observer: RunObserver | None = None,
    cancel: asyncio.Event | None = None,
    on_estimate: EstimateCallback | None = None,
    secrets: SecretPrompt | None = None,
    accept_new_host_key: bool = False,
    on_ready: Callable[[], None] | None = None,
) -> BurstProbeOutcome:
    """Run the burst probe ``spec`` (from ``services.burst.burst_probe_spec``) on ``pair``:
    it stops ``after_step_s`` after the drop to baseline is confirmed; with
    ``refill_idle_s`` > 0 it then rests and bursts again to measure the refill. Each run is
    stored with its burst analysis; ``on_estimate`` sees the live estimate per interval."""
    from pairbench.engine.burst import run_burst_probe

    connector = Connector(lib, secrets=secrets, accept_new_host_key=accept_new_host_key)
    try:
        prepared = await prepare(pair, spec, connector)
        if on_ready is not None:
            on_ready()
        return await run_burst_probe(
            lib,
            prepared,
            after_step_s=after_step_s,
            refill_idle_s=refill_idle_s,
            observer=observer,
            cancel=cancel,
            on_estimate=on_estimate,
        )
    finally:
        await connector.close()
