"""JSON columns: mappings of strings or numbers stored as compact, sorted JSON text."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def dumps(value: Mapping[str, Any]) -> str:
    """Serialise a mapping for a TEXT column."""
    return json.dumps(dict(value), sort_keys=True, separators=(",", ":"))


def loads_str_map(text: str | None) -> dict[str, str]:
    """A JSON object of strings, as stored by ``dumps``."""
    return {str(k): str(v) for k, v in json.loads(text or "{}").items()}


def loads_float_map(text: str | None) -> dict[str, float]:
    """A JSON object of numbers, as stored by ``dumps``."""
    return {str(k): float(v) for k, v in json.loads(text or "{}").items()}


def loads_nested_str_map(text: str | None) -> dict[str, dict[str, str]]:
    """A JSON object of objects of strings (host facts per host role)."""
    raw = json.loads(text or "{}")
    return {str(k): {str(a): str(b) for a, b in v.items()} for k, v in raw.items()}
