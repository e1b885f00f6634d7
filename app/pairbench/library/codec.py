"""JSON columns: mappings of strings or numbers stored as compact, sorted JSON text."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from itertools import repeat
from typing import Any, Self


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


class LazyJsonMap(Mapping[str, Any]):
    """A stored JSON object, decoded when first read.

    For runs listed by the thousand, whose mappings are mostly not read at all (a count, a
    page of ids, a filter's matches): decoding a dict per run cost more than fetching the
    rows. Reads, equality and ``repr`` are those of the decoded dict (which is never
    changed); a damaged text raises ``ValueError`` when first read, as decoding it at once
    would have done earlier.
    """

    __slots__ = ("_items", "_text")
    _DECODER = json.JSONDecoder()

    _text: str | None
    _items: dict[str, Any]

    def __init__(self, text: str | None) -> None:
        self._text = text  # ``_items`` is set when first read

    @classmethod
    def many(cls, texts: Sequence[str | None]) -> list[Self]:
        """``[cls(text) for text in texts]``, made by C-level maps (no Python frame each)."""
        made = list(map(object.__new__, repeat(cls, len(texts))))
        deque(map(_TEXT_SLOT.__set__, made, texts), maxlen=0)
        return made

    def _decoded(self) -> dict[str, Any]:
        try:
            return self._items
        except AttributeError:
            pass
        decoded = self._DECODER.decode(self._text or "{}")
        if not isinstance(decoded, dict):
            raise ValueError(f"a stored mapping is not a JSON object: {self._text!r:.80}")
        self._items = decoded
        return decoded

    def __getitem__(self, key: str) -> Any:
        return self._decoded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())

    def __contains__(self, key: object) -> bool:
        return key in self._decoded()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyJsonMap):
            return self._decoded() == other._decoded()
        if isinstance(other, Mapping):
            return self._decoded() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a mapping, as a dict: unhashable

    def __repr__(self) -> str:
        return repr(self._decoded())


class LazyFloatMap(LazyJsonMap):
    """A stored JSON object of numbers, decoded as ``loads_float_map`` decodes it (every
    number a float) when first read."""

    __slots__ = ()
    _DECODER = json.JSONDecoder(parse_int=float)


_TEXT_SLOT = vars(LazyJsonMap)["_text"]
