"""``runs list --json`` as text, from raw rows, with no ``Run`` and no Python dict per run.

The text is byte for byte ``json.dumps([export.run_json.run_fields(run) for run in runs])``.
It is made a column at a time: strings quoted once per distinct value, floats printed with
one ``repr`` each, and the stored JSON columns rewritten as text where their shape allows it
(summaries as ``codec.dumps`` writes them, ``_summary_texts``; mappings of plain strings,
``_plain_texts``), else decoded and encoded with one call for all the rows (mappings that
repeat, such as host facts, once per distinct text). The runs' objects are then laid out
and joined a few hundred at a time (``runs_json_parts``), to be written piece by piece.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Sequence
from json.encoder import encode_basestring_ascii as _quote  # the escaping json.dumps uses
from typing import Any, cast

from pairbench.domain.timestamps import stored_time


def _null(_: str) -> None:
    return None


# As ``codec.loads_float_map`` then ``run_json._number``: numbers are floats, NaN or infinity
# (which JSON lacks) null. The other mappings decode as they are stored.
_SUMMARY_DECODER = json.JSONDecoder(parse_int=float, parse_constant=_null)
_MAP_DECODER = json.JSONDecoder()
PER_PART = 500  # runs per piece of ``runs_json_parts``
# Between the items of a list that ``json.dumps`` encodes: this string alone, as an item.
# Inside an encoded mapping a string after ", " is a key, followed by ": ", so the text of
# ``_GAP`` cannot occur there.
_MARK = "\x00"
_GAP = ", " + json.dumps(_MARK) + ", "

# Summaries as ``codec.dumps`` stores them: word keys, numbers as ``json.dumps`` writes them
# (a float's ``repr``: no trailing zero in a fraction, a signed exponent of two digits or more;
# an int), NaN and infinities as ``NaN``/``Infinity``. A column of such texts is rewritten as
# text (``_summary_texts``); any other text is decoded and encoded.
_NUMBER = (
    r"(?:-?(?:0|[1-9][0-9]{0,15}+)\.(?:0|[0-9]++(?<!0))"  # 0.25, 1500000000.0
    r"|-?(?:0|[1-9][0-9]{0,14}+)"  # an int of up to 15 digits: a float holds it exactly
    r"|-?[1-9](?:\.[0-9]++(?<!0))?e[-+](?:0[1-9]|[1-9][0-9]{1,2}+)"  # 1e-05, 1.5e+16
    r"|NaN|-?Infinity)(?=[,}])"
)
# One summary: ``{}`` or items, each followed by a comma and the next key, or by the end.
_SUMMARY = rf'\{{(?:"\w++":{_NUMBER}(?:,(?=")|(?=\}})))*+\}}'
_SUMMARIES = re.compile(rf"(?:{_SUMMARY}(?:\n(?!\Z)|\Z))++", re.ASCII)  # joined by newlines
# Mappings of strings (or of mappings of strings, as host facts) whose strings hold only
# printable ASCII but quote marks and backslashes: what ``json.dumps`` writes unescaped.
_STRING = r'"[ !#-\[\]-~]*+"'
_FLAT = rf'\{{(?:{_STRING}:{_STRING}(?:,(?=")|(?=\}})))*+\}}'
_MAPPING = rf'\{{(?:{_STRING}:(?:{_STRING}|{_FLAT})(?:,(?=")|(?=\}})))*+\}}'
_PLAIN = re.compile(rf"(?:{_MAPPING}(?:\n(?!\Z)|\Z))++")
_INT_VALUE = re.compile(r":(-?[0-9]++)(?=[,}])")  # in a valid summary: an int, not a float


def runs_json(rows: Sequence[Sequence[Any]]) -> str:
    """The JSON array for rows of ``library.runs.ROW_FIELDS``, as ``runs list --json``."""
    return "".join(runs_json_parts(rows))


def runs_json_parts(rows: Sequence[Sequence[Any]], per_part: int | None = None) -> Iterator[str]:
    """``runs_json(rows)`` in consecutive pieces of ``per_part`` runs each (``PER_PART``), to
    be written one after the other: the whole text (8 MB at 10,000 runs) is never one string."""
    per_part = per_part or PER_PART
    if not rows:
        yield "[]"
        return
    columns = list(zip(*rows, strict=True))  # one tuple per field, in ROW_FIELDS order
    if len(columns) != len(_BEFORE):
        raise ValueError(f"rows of {len(_BEFORE)} fields expected, got {len(columns)}")
    ids, pairs, tools, versions, params, statuses, starts, ends = columns[:8]
    labels, tags, notes, errors, summaries, complete, facts = columns[8:]
    # Each field's JSON text for every run, a whole column at a time; the texts that repeat
    # (pairs, tools, labels, parameters, host facts...) are quoted or encoded once apiece.
    fields = [
        list(map(str, ids)),
        _quoted_each(pairs),
        _quoted_each(tools),
        _quoted_each(versions),
        _mapping_texts(params, _MAP_DECODER, distinct=True),
        _quoted_each(statuses),
        _numbers(starts),
        _numbers(ends),
        _quoted_each(labels),
        _mapping_texts(tags, _MAP_DECODER, distinct=True),
        _quoted_each(notes),
        _quoted_each(errors),
        _summary_texts(summaries),
        list(map(_BOOLEAN.__getitem__, map(bool, complete))),
        _mapping_texts(facts, _MAP_DECODER, distinct=True),
    ]
    # Each run is the text before each field and the field's text, then "}, ": laid out
    # with one slice assignment per field and joined once per piece.
    width = 2 * len(_BEFORE) + 1
    for begin in range(0, len(rows), per_part):
        end = min(begin + per_part, len(rows))
        count = end - begin
        out = [_AFTER] * (width * count)
        for i, column in enumerate(fields):
            out[2 * i :: width] = [_BEFORE[i]] * count
            out[2 * i + 1 :: width] = column[begin:end]
        out[-1] = "}"
        yield ("[" if begin == 0 else ", ") + "".join(out) + ("]" if end == len(rows) else "")


# The text before each field of a run (``library.runs.ROW_FIELDS``, in order) and after its
# last: the keys of ``export.run_json.run_fields``, spaced as ``json.dumps`` spaces them.
_BEFORE = (
    '{"id": ',
    ', "pair": ',
    ', "tool": ',
    ', "tool_version": ',
    ', "params": ',
    ', "status": ',
    ', "started_at": ',
    ', "ended_at": ',
    ', "label": ',
    ', "tags": ',
    ', "notes": ',
    ', "error": ',
    ', "summary": ',
    ', "summary_complete": ',
    ', "host_facts": ',
)
_AFTER = "}, "
_BOOLEAN = {False: "false", True: "true"}


def _quoted_each(values: Sequence[str | None]) -> list[str]:
    """Each value as ``json.dumps`` writes it (None: null), each distinct one quoted once."""
    quoted = {value: "null" if value is None else _quote(value) for value in set(values)}
    return list(map(quoted.__getitem__, values))


def _numbers(values: Sequence[Any]) -> list[str]:
    """REAL columns as ``json.dumps`` prints their floats, a column at a time: None, NaN,
    infinities and what is no number (text a hostile library holds) as null, as
    ``run_json.run_fields`` gives them."""
    kinds = set(map(type, values))
    if kinds == {float} and math.isfinite(sum(values)):  # no NaN or infinity among them
        return list(map(float.__repr__, values))  # what json.dumps writes for a finite float
    if kinds <= {float, type(None)}:
        try:
            texts = json.dumps(list(values), allow_nan=False)[1:-1].split(", ")
        except ValueError:  # a NaN or an infinity: value by value below
            texts = []
        if len(texts) == len(values):  # floats and null hold no ", "
            return texts
    return [_number_text(v) for v in values]


def _number_text(value: Any) -> str:
    """One stored time as JSON text: a finite float's repr, else null."""
    if value is None:
        return "null"
    number = stored_time(value)
    return float.__repr__(number) if math.isfinite(number) else "null"


def _summary_texts(stored: Sequence[str | None]) -> list[str]:
    """Stored summaries as ``json.dumps`` prints them after ``_SUMMARY_DECODER``, for all rows.

    Decoding and encoding every number costs most of ``runs list --json``; the texts that
    ``codec.dumps`` writes need neither: a float's ``repr`` decodes and encodes to itself, an
    int of up to 15 digits becomes the same digits and ``.0``, NaN and the infinities become
    null; keys of word characters print as stored, and ``:`` and ``,`` occur only between
    items. So when the whole column has that shape (one regular expression, in C) it is
    rewritten as text; otherwise every summary is decoded and encoded. (A text that another
    program wrote with a key twice would keep both here, where decoding keeps the last.)
    """
    try:  # a NULL (None) fails here, an empty text the match below: both decoded as {}
        joined = "\n".join(cast("Sequence[str]", stored))
    except TypeError:
        joined = ""
    if _SUMMARIES.fullmatch(joined) is None:
        return _mapping_texts(stored, _SUMMARY_DECODER, distinct=False)
    pieces = _INT_VALUE.split(joined)  # text, an int, text, ...: each int gains ".0"
    pieces[1::2] = [f":{digits}.0" for digits in pieces[1::2]]
    joined = "".join(pieces)
    for constant in (":NaN", ":-Infinity", ":Infinity"):  # in this order: -Infinity first
        if constant in joined:
            joined = joined.replace(constant, ":null")
    parts = joined.replace(":", ": ").replace(",", ", ").split("\n")  # all between items
    if len(parts) != len(stored):  # cannot happen: a valid summary holds no newline
        return _mapping_texts(stored, _SUMMARY_DECODER, distinct=False)
    return parts


def _mapping_texts(
    texts: Sequence[str | None], decoder: json.JSONDecoder, *, distinct: bool
) -> list[str]:
    """Stored JSON mappings as ``json.dumps`` prints them, decoded and encoded in bulk
    (``distinct``: each different text once, for columns whose texts repeat)."""
    if not distinct:
        return _encode_each(_decode_each(decoder, [text or "{}" for text in texts]))
    unique = list(dict.fromkeys(texts))
    stored = [text or "{}" for text in unique]
    plain = _plain_texts(stored)
    if plain is None:
        plain = _encode_each(_decode_each(decoder, stored))
    encoded = dict(zip(unique, plain, strict=True))
    return list(map(encoded.__getitem__, texts))


def _plain_texts(texts: list[str]) -> list[str] | None:
    """Mappings as ``json.dumps`` prints them, as text, if every one is ``_PLAIN`` (else None).

    Their strings hold nothing ``json.dumps`` escapes, so every quote mark opens or closes
    one and the text between strings is ``{``, ``}``, ``:`` and ``,``: spaced after ``:`` and
    ``,``, it is what decoding and encoding would give.
    """
    joined = "\n".join(texts)
    if _PLAIN.fullmatch(joined) is None:
        return None
    colons, nonempty = joined.count(":"), len(texts) - texts.count("{}")
    if joined.count('"') == 4 * colons and joined.count(",") == colons - nonempty:
        # Flat mappings (tags, parameters) whose strings hold no ":" or ",": every item is
        # four quote marks and one colon, and the commas are those between items (a nested
        # mapping or a colon or comma in a string breaks one count or the other), so both
        # marks occur only between items.
        parts = joined.replace(":", ": ").replace(",", ", ").split("\n")
        return parts if len(parts) == len(texts) else None
    pieces = joined.split('"')  # between strings, a string, between strings, ...
    between = "\x00".join(pieces[0::2]).replace(":", ": ").replace(",", ", ")
    pieces[0::2] = between.split("\x00")
    parts = '"'.join(pieces).split("\n")
    return parts if len(parts) == len(texts) else None


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
