"""Campaign cells that run a storage suite: the plan's parameters as a suite request, the
suite's host of the pair, and the runner the campaign engine is given (start a suite, or
go on with the one a killed campaign left, and take its headline figure as the value)."""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Mapping
from dataclasses import dataclass

from pairbench.analysis.campaign import BUSY, COMPLETED
from pairbench.analysis.steady_state import SteadyParams
from pairbench.analysis.storage_columns import column_names, suite_value
from pairbench.domain import HostPair
from pairbench.domain.campaign import Cell, RunKey, TestPlan
from pairbench.domain.failures import PairBusyError, RunError
from pairbench.domain.storage import (
    SteadyRule,
    StorageTest,
    SuiteParams,
    SuiteStatus,
    parse_size,
)
from pairbench.engine.campaign_run import RunOutcome
from pairbench.engine.observer import RunObserver
from pairbench.engine.storage_suite import done_jobs
from pairbench.engine.transports import Connector
from pairbench.library import Library, LibraryError
from pairbench.library.campaigns import campaign_runs
from pairbench.library.suites import StoredSuite, campaign_suites, get_suite
from pairbench.remote.secrets import SecretPrompt
from pairbench.services.storage import (
    SuiteRequest,
    check_request,
    inspect_target,
    prepared_fio,
    resume_suite,
    start_suite,
    suite_pair,
)

# A storage cell's parameters: the options of `pairbench storage run`, with `on` choosing
# the pair's host the suite runs on. Excursions are percent, as on the command line.
_INT = (
    "threads",
    "iodepth",
    "round_seconds",
    "max_rounds",
    "precondition_passes",
    "threads_per_target_max",
    "threads_per_core_max",
)
_BOOL = ("purge", "force")
_PERCENT = ("data_excursion", "slope_excursion")
_WORDS = ("test", "target", "size", "confirm", "on", "steady_state")
KNOWN = frozenset({*_WORDS, *_INT, *_BOOL, *_PERCENT})
HOSTS = ("server", "client")
WINDOW_ROUNDS = SteadyParams().window  # the steady-state window: no stage ends sooner


def suite_request(host: str, params: Mapping[str, str], *, label: str = "") -> SuiteRequest:
    """The suite a storage cell runs on ``host``; ``ValueError`` naming the parameter at
    fault (an unknown one, a value out of range, a device without its confirmation)."""
    for key in params:
        if key not in KNOWN:
            close = difflib.get_close_matches(key, sorted(KNOWN), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(
                f"unknown storage parameter {key!r}{hint}; known: {', '.join(sorted(KNOWN))}"
            )
    test = params.get("test", StorageTest.IOPS.value)
    try:
        storage_test = StorageTest(test)
    except ValueError:
        tests = ", ".join(t.value for t in StorageTest)
        raise ValueError(f"test: {test!r} is not a storage test ({tests})") from None
    try:
        rule = SteadyRule(params.get("steady_state", SteadyRule.PTS.value))
    except ValueError:
        rules = ", ".join(r.value for r in SteadyRule)
        raise ValueError(
            f"steady_state: {params['steady_state']!r} is not a rule ({rules})"
        ) from None
    values: dict[str, int | float | bool | SteadyRule | None] = {"steady_state": rule}
    for key in _INT:
        if key in params:
            values[key] = _number(key, params[key], int)
    for key in _PERCENT:
        if key in params:
            values[key] = _number(key, params[key], float) / 100.0
    for key in _BOOL:
        if key in params:
            if params[key] not in ("true", "false"):
                raise ValueError(f"{key}: true or false, got {params[key]!r}")
            values[key] = params[key] == "true"
    req = SuiteRequest(
        host=host,
        test=storage_test,
        target=params.get("target", ""),
        size=parse_size(params["size"]) if params.get("size") else 0,
        confirm=params.get("confirm", ""),
        label=label,
        **values,  # type: ignore[arg-type]
    )
    check_request(req)
    return req


def _number(key: str, text: str, kind: type[int] | type[float]) -> int | float:
    try:
        return kind(text)
    except ValueError:
        raise ValueError(f"{key}: a number, got {text!r}") from None


def suite_host(pair: HostPair, params: Mapping[str, str]) -> str:
    """The host of ``pair`` a storage cell runs its suite on (``on``: server or client)."""
    on = params.get("on", "server")
    if on not in HOSTS:
        raise ValueError(f"on: 'server' or 'client', got {on!r}")
    return (pair.server if on == "server" else pair.client).name


def check_storage_test(test: TestPlan, combinations: list[dict[str, str]]) -> None:
    """Every parameter set of a storage test must make a valid suite, and a metric it names
    must be one of the suite's report columns (``ValueError`` says which is wrong)."""
    if test.tool != "fio":
        raise ValueError('the storage suite runs fio (tool = "fio")')
    for params in combinations:
        suite_request("", params)
        if params.get("on", "server") not in HOSTS:
            raise ValueError(f"on: 'server' or 'client', got {params['on']!r}")
        if test.metric:
            names = column_names(StorageTest(params.get("test", StorageTest.IOPS.value)))
            if test.metric not in names:
                close = difflib.get_close_matches(test.metric, names, n=3)
                hint = f"; e.g. {', '.join(close or names[:3])}"
                raise ValueError(f"metric {test.metric!r} is not a column of the suite{hint}")


def expected_seconds(params: Mapping[str, str]) -> tuple[float, float]:
    """How long a storage cell's suite runs: at least (every stage steady in its first
    window of rounds) and at most (every stage to its last round); preconditioning aside."""
    req = suite_request("", params)
    plan = SuiteParams(req.test, req.target, round_seconds=req.round_seconds)
    return plan.estimated_seconds(WINDOW_ROUNDS), plan.estimated_seconds(req.max_rounds)


@dataclass
class StorageCellRunner:
    """Runs a campaign's storage cells: each a storage suite on one host of its pair."""

    lib: Library
    secrets: SecretPrompt | None = None
    accept_new_host_key: bool = False

    async def preflight(self, pair: HostPair, cell: Cell) -> None:
        """fio on the suite's host and its target checked (``RunError`` says why not)."""
        try:
            host = suite_pair(self.lib, suite_host(pair, cell.params))
            req = suite_request(host.name, cell.params)
        except (ValueError, LibraryError) as exc:
            raise RunError(f"{cell.title}: {exc}") from None
        params = SuiteParams(req.test, req.target, req.size)
        connector = Connector(
            self.lib, secrets=self.secrets, accept_new_host_key=self.accept_new_host_key
        )
        try:
            transport = await connector.transport(host.server)
            await inspect_target(transport, params, force=True)
            await prepared_fio(connector, host, params)
        finally:
            await connector.close()

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
        """Start the cell's suite, or go on with the one this cell's round left unfinished
        (a killed campaign), and take the cell's metric from its report."""
        label = f"campaign {campaign_id}: {cell.title} #{key.round}"
        left = _left_over(self.lib, campaign_id, key)
        try:
            if left is not None and left.status == SuiteStatus.COMPLETED.value:
                return _outcome(self.lib, left.id, cell, SuiteStatus.COMPLETED, None)
            if left is not None:
                out = await resume_suite(
                    self.lib,
                    left.id,
                    run_observer=observer,
                    cancel=cancel,
                    secrets=self.secrets,
                    accept_new_host_key=self.accept_new_host_key,
                    force=cell.params.get("force") == "true",  # as the plan forced its start
                )
            else:
                req = suite_request(suite_host(pair, cell.params), cell.params, label=label)
                out = await start_suite(
                    self.lib,
                    req,
                    run_observer=observer,
                    cancel=cancel,
                    secrets=self.secrets,
                    accept_new_host_key=self.accept_new_host_key,
                    tags=key.tags(campaign_id),
                )
        except PairBusyError as exc:
            return RunOutcome(None, BUSY, None, str(exc))
        except (RunError, ValueError, LibraryError) as exc:
            suite_id = None if left is None else left.id
            return RunOutcome(None, "failed", None, str(exc), suite_id)
        return _outcome(self.lib, out.suite_id, cell, out.status, out.error)


def _left_over(lib: Library, campaign_id: int, key: RunKey) -> StoredSuite | None:
    """The suite this cell's round started and the campaign did not list as completed (a
    campaign killed or stopped during it): the one to go on with."""
    completed = {r.suite_id for r in campaign_runs(lib, campaign_id) if r.status == COMPLETED}
    wanted = {
        "campaign_cell": str(key.cell),
        "campaign_pass": str(key.occurrence),
        "campaign_round": str(key.round),
    }
    for suite in reversed(campaign_suites(lib, campaign_id)):
        if suite.id in completed:
            continue
        if all(suite.tags.get(k) == v for k, v in wanted.items()):
            return suite
    return None


def _outcome(
    lib: Library, suite_id: int, cell: Cell, status: SuiteStatus, error: str | None
) -> RunOutcome:
    """What the campaign records of a suite: its value (the cell's metric) when it completed
    with that figure, else its status and why."""
    if status is not SuiteStatus.COMPLETED:
        return RunOutcome(None, status.value, None, error or f"the suite ended {status}", suite_id)
    params = SuiteParams.from_json(get_suite(lib, suite_id).params)
    value = suite_value(params, done_jobs(lib, suite_id), cell.metric)
    if value is None:
        why = f"suite {suite_id} completed without {cell.metric} in its report"
        return RunOutcome(None, "failed", None, why, suite_id)
    return RunOutcome(None, COMPLETED, value, "", suite_id)
