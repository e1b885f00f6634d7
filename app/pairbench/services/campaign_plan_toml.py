"""A plan written back as the TOML file the CLI reads (``parse_plan`` gives the same plan)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence

from pairbench.domain.campaign import Plan, RepeatPolicy, RetryPolicy, Schedule, TestPlan

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")
_INTEGER = re.compile(r"^[+-]?(0|[1-9][0-9]*)$")
_FLOAT = re.compile(r"^[+-]?(0|[1-9][0-9]*)\.[0-9]+$")


def plan_to_toml(plan: Plan) -> str:
    """The plan as a TOML file: top keys, then one ``[[tests]]`` table per test. Defaults
    are left out where the reader fills them in the same way."""
    lines = [f"name = {_string(plan.name)}"]
    if plan.label:
        lines.append(f"label = {_string(plan.label)}")
    if plan.pairs.names:
        lines.append(f"pairs = {_array([_string(n) for n in plan.pairs.names])}")
    else:
        lines.append(f"pairs = {_table({k: _string(v) for k, v in plan.pairs.tags.items()})}")
    lines.append(f"repeats = {_repeats(plan.repeats)}")
    lines.append(f"order = {_string(plan.order.value)}")
    if plan.seed is not None:
        lines.append(f"seed = {plan.seed}")
    if plan.pause_s:
        lines.append(f"pause = {_duration(plan.pause_s)}")
    lines.append(f"schedule = {_schedule(plan.schedule)}")
    lines.append(f"outliers = {_string(plan.outliers)}")
    if plan.retry != RetryPolicy():
        lines.append(f"retry = {_retry(plan.retry)}")
    if plan.parallel != 1:
        lines.append(f"parallel = {plan.parallel}")
    if plan.filter:
        lines.append(f"filter = {_string(plan.filter)}")
    for test in plan.tests:
        lines.append("")
        lines.extend(_test(test))
    return "\n".join(lines) + "\n"


def _test(test: TestPlan) -> list[str]:
    out = ["[[tests]]"]
    if test.name != test.tool:
        out.append(f"name = {_string(test.name)}")
    out.append(f"tool = {_string(test.tool)}")
    params = {k: _axis(v) for k, v in test.axes.items()}
    if params:
        out.append(f"params = {_table(params)}")
    if test.zip:
        out.append(f"zip = {_array([_array([_string(n) for n in g]) for g in test.zip])}")
    if test.metric:
        out.append(f"metric = {_string(test.metric)}")
    if test.probe:
        out.append(f"probe = {_string(test.probe)}")
    return out


def _axis(values: Sequence[str]) -> str:
    if len(values) == 1:
        return _scalar(values[0])
    return _array([_scalar(v) for v in values])


def _scalar(value: str) -> str:
    """A parameter value: a number or true/false when the reader turns it back into the same
    text, else a string (the plan keeps every parameter as text)."""
    if value in ("true", "false"):
        return value
    if _INTEGER.match(value) and str(int(value)) == value:
        return value
    if _FLOAT.match(value) and math.isfinite(float(value)) and str(float(value)) == value:
        return value
    return _string(value)


def _repeats(repeats: RepeatPolicy) -> str:
    if repeats.min == repeats.max and repeats.cv is None:
        return str(repeats.min)
    parts = {"min": str(repeats.min), "max": str(repeats.max)}
    if repeats.cv is not None:
        parts["cv"] = repr(float(repeats.cv))
    return _table(parts)


def _schedule(schedule: Schedule) -> str:
    if schedule.kind == "every":
        return _table({"every": _duration(schedule.every_s), "for": _duration(schedule.for_s)})
    if schedule.kind == "times":
        parts = {"at": _array([_string(t) for t in schedule.times])}
        if schedule.days != 1:
            parts["days"] = str(schedule.days)
        return _table(parts)
    return _string("once")


def _retry(retry: RetryPolicy) -> str:
    return _table(
        {
            "retries": str(retry.retries),
            "delay": _duration(retry.delay_s),
            "skip_pair_after": str(retry.skip_pair_after),
        }
    )


def _duration(seconds: float) -> str:
    """Whole hours or minutes in words ("2h", "10min"), else seconds as a number."""
    if seconds > 0 and seconds.is_integer():
        whole = int(seconds)
        if whole % 3600 == 0:
            return _string(f"{whole // 3600}h")
        if whole % 60 == 0:
            return _string(f"{whole // 60}min")
        return str(whole)
    return repr(float(seconds))


def _string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def _key(name: str) -> str:
    return name if _BARE_KEY.match(name) else _string(name)


def _array(items: Sequence[str]) -> str:
    return "[" + ", ".join(items) + "]"


def _table(items: Mapping[str, str]) -> str:
    if not items:
        return "{}"
    return "{ " + ", ".join(f"{_key(k)} = {v}" for k, v in items.items()) + " }"
