"""``runs list --json`` as text, from raw rows, with no ``Run`` and no Python dict per run.

The text is byte for byte ``json.dumps([export.run_json.run_fields(run) for run in runs])``.
Each JSON column is decoded with one call for all the rows (and, for the mappings that repeat
from run to run, such as host facts, only once per distinct text) and encoded with one call
(``_encode_each``); the fields of each run are then joined into its object by one f-string.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from json.encoder import encode_basestring_ascii as _quote  # the escaping json.dumps uses
from typing import Any


def _null(_: str) -> None:
    return None


# As ``codec.loads_float_map`` then ``run_json._number``: numbers are floats, NaN or infinity
# (which JSON lacks) null. The other mappings decode as they are stored.
_SUMMARY_DECODER = json.JSONDecoder(parse_int=float, parse_constant=_null)
_MAP_DECODER = json.JSONDecoder()
# Between the items of a list that ``json.dumps`` encodes: this string alone, as an item.
# Inside an encoded mapping a string after ", " is a key, followed by ": ", so the text of
# ``_GAP`` cannot occur there.
_MARK = "\x00"
_GAP = ", " + json.dumps(_MARK) + ", "


def runs_json(rows: Sequence[Sequence[Any]]) -> str:
    """The JSON array for rows of ``library.runs.ROW_FIELDS``, as ``runs list --json``."""
    if not rows:
        return "[]"
    params = _mapping_texts([r[4] for r in rows], _MAP_DECODER, distinct=True)
    tags = _mapping_texts([r[9] for r in rows], _MAP_DECODER, distinct=True)
    summaries = _mapping_texts([r[12] for r in rows], _SUMMARY_DECODER, distinct=False)
    facts = _mapping_texts([r[14] for r in rows], _MAP_DECODER, distinct=True)
    starts = _numbers([r[6] for r in rows])
    ends = _numbers([r[7] for r in rows])
    q = _quote
    items = [
        f'{{"id": {r[0]}, "pair": {q(r[1])}, "tool": {q(r[2])}, '
        f'"tool_version": {q(r[3])}, "params": {p}, "status": {q(r[5])}, '
        f'"started_at": {start}, "ended_at": {end}, '
        f'"label": {q(r[8])}, "tags": {t}, "notes": {q(r[10])}, '
        f'"error": {"null" if r[11] is None else q(r[11])}, "summary": {s}, '
        f'"summary_complete": {"true" if r[13] else "false"}, "host_facts": {f}}}'
        for r, p, t, s, f, start, end in zip(
            rows, params, tags, summaries, facts, starts, ends, strict=True
        )
    ]
    return "[" + ", ".join(items) + "]"


def _numbers(values: list[Any]) -> list[str]:
    """REAL columns as ``json.dumps`` prints their floats (None: null), with one call."""
    if set(map(type, values)) <= {float, type(None)}:
        texts = json.dumps(values)[1:-1].split(", ")  # floats and null hold no ", "
        if len(texts) == len(values):
            return texts
    return ["null" if v is None else json.dumps(float(v)) for v in values]


def _mapping_texts(texts: list[str], decoder: json.JSONDecoder, *, distinct: bool) -> list[str]:
    """Stored JSON mappings as ``json.dumps`` prints them, decoded and encoded in bulk
    (``distinct``: each different text once, for columns whose texts repeat)."""
    texts = [text or "{}" for text in texts]
    if not distinct:
        return _encode_each(_decode_each(decoder, texts))
    unique = list(dict.fromkeys(texts))
    encoded = dict(zip(unique, _encode_each(_decode_each(decoder, unique)), strict=True))
    return [encoded[text] for text in texts]


def _decode_each(decoder: json.JSONDecoder, texts: list[str]) -> list[Any]:
    """Each text decoded, with one call for all of them (as one array)."""
    values = decoder.decode("[" + ",".join(texts) + "]")
    if not isinstance(values, list) or len(values) != len(texts):  # a text held two values
        return [decoder.decode(text) for text in texts]
    return values


def _encode_each(values: list[Any]) -> list[str]:
    """Each value as ``json.dumps`` prints it, with one call for all of them."""
    spaced: list[Any] = [_MARK] * (2 * len(values) - 1)
    spaced[0::2] = values
    text = json.dumps(spaced, check_circular=False)
    parts = text[1:-1].split(_GAP) if values else []
    if len(parts) != len(values):  # cannot happen for mappings; stay exact if it does
        return [json.dumps(value) for value in values]
    return parts
