"""The metadata of a Flent data file in Pairbench's terms: the run's start time (UTC, or the
local time older Flent wrote), its parameters, printable bounded text."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

_PARAM_CHARS: Final = 256
_ISO: Final = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z?")


def raw_times(raw_values: object) -> list[float]:
    """The absolute times (epoch seconds) of Flent's raw measurements."""
    times: list[float] = []
    if isinstance(raw_values, dict):
        for series in raw_values.values():
            if isinstance(series, list):
                for item in series:
                    t = item.get("t") if isinstance(item, dict) else None
                    if isinstance(t, int | float) and math.isfinite(t):
                        times.append(float(t))
    return times


def start_time(metadata: Mapping[str, Any], raw_times: list[float]) -> tuple[float | None, str]:
    """The run's start (``T0``, else ``TIME``) in epoch seconds; a note when the file wrote
    it in local time (Flent before 1.0): its offset is the whole hours to the first raw
    measurement, as Flent itself guesses it, else UTC is assumed."""
    for key in ("T0", "TIME"):
        text = meta_text(metadata.get(key))
        if not _ISO.fullmatch(text):
            continue
        utc = text.endswith("Z")
        stamp = datetime.fromisoformat(text.removesuffix("Z")).replace(tzinfo=UTC).timestamp()
        if utc:
            return stamp, ""
        if raw_times:
            offset = round((min(raw_times) - stamp) / 3600.0) * 3600.0
            return stamp + offset, f"Flent wrote {key} in local time: UTC{-offset / 3600:+.0f}"
        return stamp, f"Flent wrote {key} in local time, with no raw times: taken as UTC"
    return None, "Flent's file has no start time (T0, TIME)"


def run_params(metadata: Mapping[str, Any], hosts: tuple[str, ...]) -> dict[str, str]:
    """Flent's test settings as the run's parameters: test name, title, length, step,
    hosts, IP version, Flent's -t/--test-parameter values."""
    params = {
        "test": meta_text(metadata.get("NAME")),
        "title": meta_text(metadata.get("TITLE")),
        "length": number_text(metadata.get("LENGTH")),
        "step": number_text(metadata.get("STEP_SIZE")),
        "hosts": ",".join(hosts),
        "ip_version": number_text(metadata.get("IP_VERSION")),
        "total_length": number_text(metadata.get("TOTAL_LENGTH")),
    }
    test_parameters = metadata.get("TEST_PARAMETERS")
    if isinstance(test_parameters, dict):
        for key, value in list(test_parameters.items())[:32]:
            params[f"test_parameter.{meta_text(key)[:64]}"] = meta_text(value)
    return {k: v for k, v in params.items() if v}


def meta_text(value: object) -> str:
    """A metadata value as printable text, bounded (control characters dropped)."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value)
    return "".join(c for c in text[:_PARAM_CHARS] if c.isprintable())


def number_text(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return ""
    return f"{value:g}"
