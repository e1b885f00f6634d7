"""Campaign plan files (TOML): read and check one into a ``Plan``, with an error that names
the key and what to write instead; and write a plan back (the window saves what it edits)."""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pairbench.analysis.campaign_cells import PlanError as PlanError
from pairbench.analysis.campaign_cells import combinations_of, compile_filter
from pairbench.analysis.campaign_schedule import parse_time_of_day
from pairbench.analysis.outliers import OutlierPolicy
from pairbench.domain.campaign import (
    BURST,
    PROBES,
    STORAGE,
    Order,
    PairSelector,
    Plan,
    RepeatPolicy,
    RetryPolicy,
    Schedule,
    TestPlan,
)
from pairbench.domain.failures import UserFileError
from pairbench.domain.metrics import METRICS, is_telemetry_metric
from pairbench.domain.user_files import read_text
from pairbench.services.campaign_plan_bounds import (
    DURATION_MAX_S,
    INT_RANGES,
    MAX_DEPTH,
    check_duration,
    check_int_range,
    check_passes,
    check_shape,
)
from pairbench.services.campaign_storage import check_storage_test
from pairbench.tools.registry import TOOLS, get_tool

MAX_PLAN_BYTES = 1_000_000
_TOP = {
    "name", "label", "pairs", "repeats", "order", "seed", "pause", "schedule", "outliers",
    "retry", "parallel", "filter", "tests",
}  # fmt: skip
_TEST = {"name", "tool", "params", "zip", "metric", "probe"}
_REPEATS = {"min", "max", "cv"}
_SCHEDULE = {"every", "for", "at", "days"}
_RETRY = {"retries", "delay", "skip_pair_after"}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|m|min|h|d)?\s*$", re.IGNORECASE)
_UNIT_S = {"ms": 0.001, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}


def read_plan(path: Path) -> tuple[Plan, str]:
    """The plan in a TOML file and its text; ``PlanError`` saying what is wrong."""
    try:
        text = read_text(path, what="the plan", limit=MAX_PLAN_BYTES, errors="strict")
    except UserFileError as exc:  # not a regular file, too large, or not text
        raise PlanError(str(exc)) from None
    return parse_plan(text, source=str(path)), text


def parse_plan(text: str, *, source: str = "the plan") -> Plan:
    """A plan from TOML text (a UTF-8 byte-order mark at its start is skipped, as Windows
    editors write one); ``PlanError`` naming the key at fault."""
    try:
        data = tomllib.loads(text.removeprefix("\ufeff"))
    except tomllib.TOMLDecodeError as exc:
        raise PlanError(f"{source} is not valid TOML: {exc}") from None
    except RecursionError:  # tomllib reads nested arrays and inline tables recursively
        raise PlanError(
            f"{source}: tables or arrays nested too deeply (at most {MAX_DEPTH} levels)"
        ) from None
    try:
        return plan_from_mapping(data)
    except PlanError as exc:
        raise PlanError(f"{source}: {exc}") from None


def plan_from_mapping(data: Mapping[str, Any]) -> Plan:
    """A plan from its parsed TOML (a dict); ``PlanError`` naming the key at fault."""
    check_shape(data)
    _known(data, _TOP, "the plan")
    name = _text(data, "name", required=True)
    tests = data.get("tests")
    if not isinstance(tests, list) or not tests:
        raise PlanError("the plan has no test: add at least one [[tests]] table with a tool")
    plan = Plan(
        name=name,
        pairs=_pairs(data.get("pairs")),
        tests=_distinct(tuple(_test(t, i) for i, t in enumerate(tests))),
        repeats=_repeats(data.get("repeats", 1)),
        order=_order(data.get("order", "interleaved")),
        seed=_int(data, "seed", None, low=0),
        pause_s=_duration(data.get("pause", 0), "pause"),
        schedule=_schedule(data.get("schedule", "once")),
        outliers=_outliers(data.get("outliers", "none")),
        retry=_retry(data.get("retry", {})),
        parallel=_int(data, "parallel", 1, low=1) or 1,
        filter=_text(data, "filter"),
        label=_text(data, "label"),
    )
    if plan.filter.strip():
        compile_filter(plan.filter)
    return plan


def _known(data: Mapping[str, Any], keys: set[str], where: str) -> None:
    for key in data:
        if key not in keys:
            close = difflib.get_close_matches(key, sorted(keys), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            if keys is _TEST and key in _TOP:
                hint = " (a plan's own keys go before the first [[tests]] table)"
            raise PlanError(
                f"{where} has an unknown key {key!r}{hint}; known keys: {', '.join(sorted(keys))}"
            )


def _text(data: Mapping[str, Any], key: str, *, required: bool = False) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise PlanError(f"{key!r} must be text, got {value!r}")
    if required and not value.strip():
        raise PlanError(f"the plan needs a {key!r}")
    return value.strip()


def _int(data: Mapping[str, Any], key: str, default: int | None, *, low: int) -> int | None:
    value = data.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise PlanError(f"{key!r} must be a whole number of at least {low}, got {value!r}")
    return check_int_range(key, value) if key in INT_RANGES else value


def _duration(value: object, key: str) -> float:
    """Seconds from a number or text like "30s", "2min", "1h"."""
    if isinstance(value, bool):
        raise PlanError(f'{key!r} must be a duration such as 30 or "2min", got {value!r}')
    if isinstance(value, (int, float)):
        seconds = float(value)
    elif isinstance(value, str) and (m := _DURATION.match(value)):
        seconds = float(m.group(1)) * _UNIT_S[(m.group(2) or "s").lower()]
    else:
        raise PlanError(f'{key!r} must be a duration such as 30 or "2min", got {value!r}')
    if not math.isfinite(seconds) or seconds < 0:
        raise PlanError(f"{key!r} must be a duration of 0 or more, got {value!r}")
    return check_duration(key, seconds) if key in DURATION_MAX_S else seconds


def _pairs(value: object) -> PairSelector:
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return PairSelector(names=tuple(dict.fromkeys(value)))
    if isinstance(value, dict) and value:
        tags = {str(k): str(v) for k, v in value.items() if isinstance(v, (str, int, float))}
        if len(tags) != len(value):
            raise PlanError("'pairs' as tags needs text values, e.g. pairs = { zone = \"a\" }")
        return PairSelector(tags=tags)
    raise PlanError(
        '\'pairs\' must be a list of pair names, e.g. pairs = ["lab1", "lab2"], or a tag '
        f'selector, e.g. pairs = {{ zone = "a" }}; got {value!r}'
    )


def _test(value: object, number: int) -> TestPlan:
    where = f"test #{number + 1}"
    if not isinstance(value, dict):
        raise PlanError(f"{where} must be a table ([[tests]])")
    _known(value, _TEST, where)
    tool = value.get("tool")
    if tool not in TOOLS:
        close = difflib.get_close_matches(str(tool), sorted(TOOLS), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise PlanError(f"{where}: unknown tool {tool!r}{hint}; tools: {', '.join(sorted(TOOLS))}")
    params = value.get("params", {})
    if not isinstance(params, dict):
        raise PlanError(f"{where}: 'params' must be a table, e.g. params = {{ duration = 5 }}")
    axes = {str(k): _axis(v, f"{where}: parameter {k!r}") for k, v in params.items()}
    zipped = value.get("zip", [])
    if not isinstance(zipped, list) or not all(
        isinstance(g, list) and all(isinstance(n, str) for n in g) for g in zipped
    ):
        raise PlanError(f"{where}: 'zip' is a list of lists of parameter names")
    probe = str(value.get("probe", ""))
    if probe not in PROBES:
        raise PlanError(f'{where}: \'probe\' is "burst" or "storage", got {probe!r}')
    if probe == BURST and tool != "iperf3":
        raise PlanError(f'{where}: the burst probe runs iperf3 (tool = "iperf3")')
    name = str(value.get("name") or tool)
    metric = _metric(value.get("metric", ""), probe, where)
    test = TestPlan(name, str(tool), axes, tuple(tuple(g) for g in zipped), metric, probe)
    _check_params(test, where)
    return test


def _metric(value: object, probe: str, where: str) -> str:
    """A test's metric: a summary metric Pairbench knows (a storage suite's report column is
    checked with the suite), else ``PlanError`` with the nearest names."""
    if not isinstance(value, str):
        raise PlanError(f"{where}: 'metric' must be text, got {value!r}")
    # Host telemetry is a series of the run, never a value of its summary.
    known = sorted(name for name in METRICS if not is_telemetry_metric(name))
    if not value or probe == STORAGE or value in known:
        return value
    close = difflib.get_close_matches(value, known, n=3, cutoff=0.5)
    hint = (
        f"did you mean {' or '.join(repr(c) for c in close)}?"
        if close
        else f"metrics: {', '.join(known)}"
    )
    raise PlanError(
        f"{where}: unknown metric {value!r}: no run's summary holds it, so no run would count; "
        f"{hint}"
    )


def _distinct(tests: tuple[TestPlan, ...]) -> tuple[TestPlan, ...]:
    """The tests, when no two share a name (in any letter case): their cells, reports and
    charts are told apart by it."""
    seen: dict[str, int] = {}
    for number, test in enumerate(tests, start=1):
        key = " ".join(test.name.casefold().split())
        if key in seen:
            raise PlanError(
                f"tests #{seen[key]} and #{number} are both named {test.name!r}: their cells "
                'could not be told apart; give each test its own name = "..."'
            )
        seen[key] = number
    return tests


def _axis(value: object, where: str) -> tuple[str, ...]:
    values = value if isinstance(value, list) else [value]
    if not values:
        raise PlanError(f"{where} is an empty list: give at least one value")
    out: list[str] = []
    for v in values:
        if isinstance(v, bool):
            out.append("true" if v else "false")
        elif isinstance(v, (int, float, str)):
            out.append(str(v))
        else:
            raise PlanError(f"{where}: {v!r} is not a number, text or true/false")
    return tuple(out)


def _check_params(test: TestPlan, where: str) -> None:
    """Every parameter set of the test must be valid for its tool (before anything runs)."""
    if test.probe == BURST:
        return
    if test.probe == STORAGE:
        try:
            check_storage_test(test, combinations_of(test))
        except ValueError as exc:
            raise PlanError(f"{where} (storage suite): {exc}") from None
        return
    tool = get_tool(test.tool)
    for params in combinations_of(test):
        try:
            tool.resolve(params)
        except ValueError as exc:
            raise PlanError(f"{where} ({test.tool}): {exc}") from None


def _repeats(value: object) -> RepeatPolicy:
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise PlanError(f"'repeats' must be at least 1, got {value}")
        check_int_range("repeats", value)
        return RepeatPolicy(value, value, None)
    if not isinstance(value, dict):
        raise PlanError("'repeats' is a number, or { min = 3, max = 10, cv = 0.05 }")
    _known(value, _REPEATS, "'repeats'")
    low = _int(value, "min", 1, low=1) or 1
    high = _int(value, "max", low, low=1) or low
    if high < low:
        raise PlanError(f"'repeats': max ({high}) is below min ({low})")
    cv = value.get("cv")
    if cv is not None and (
        isinstance(cv, bool) or not isinstance(cv, (int, float)) or not 0 < cv < 1
    ):
        hint = f" (for {cv} %, write {cv / 100:g})" if isinstance(cv, (int, float)) else ""
        raise PlanError(f"'repeats': cv is a fraction such as 0.05 (5 %), got {cv!r}{hint}")
    return RepeatPolicy(low, high, None if cv is None else float(cv))


def _order(value: object) -> Order:
    try:
        return Order(str(value))
    except ValueError:
        raise PlanError(f'\'order\' is "interleaved" or "sequential", got {value!r}') from None


def _schedule(value: object) -> Schedule:
    if value == "once":
        return Schedule()
    if not isinstance(value, dict):
        raise PlanError(
            '\'schedule\' is "once", { every = "10min", for = "24h" } or '
            '{ at = ["08:00", "20:00"], days = 7 }'
        )
    _known(value, _SCHEDULE, "'schedule'")
    if "every" in value:
        every = _duration(value["every"], "schedule.every")
        span = _duration(value.get("for", 0), "schedule.for")
        if every <= 0 or span < every:
            raise PlanError("'schedule': every must be > 0 and for at least one period")
        check_passes(span // every, "for / every")
        return Schedule("every", every, span)
    if "at" in value:
        times = value["at"] if isinstance(value["at"], list) else [value["at"]]
        try:
            parsed = tuple(sorted({parse_time_of_day(str(t)) for t in times}))
        except ValueError as exc:
            raise PlanError(f"'schedule.at': {exc}") from None
        days = _int(value, "days", 1, low=1) or 1
        check_passes(days * len(parsed), "days × times")
        return Schedule("times", times=parsed, days=days)
    raise PlanError("'schedule' needs 'every' (with 'for') or 'at'")


def _outliers(value: object) -> str:
    try:
        return str(OutlierPolicy.parse(str(value)))
    except ValueError as exc:
        raise PlanError(f"'outliers': {exc}") from None


def _retry(value: object) -> RetryPolicy:
    if not isinstance(value, dict):
        raise PlanError("'retry' is a table: { retries = 1, delay = \"5s\", skip_pair_after = 3 }")
    _known(value, _RETRY, "'retry'")
    default = RetryPolicy()
    retries = _int(value, "retries", default.retries, low=0)
    skip = _int(value, "skip_pair_after", default.skip_pair_after, low=0)
    delay = _duration(value.get("delay", default.delay_s), "retry.delay")
    return RetryPolicy(retries or 0, delay, skip or 0)
