"""User text (labels, notes, tags, names) made harmless per output format, in one place."""

from __future__ import annotations

import re
from collections.abc import Iterable

# Characters never shown as they are: C0 controls (ESC, NUL, newlines, ...), DEL, C1 controls
# (CSI 0x9b, NEL 0x85, ...), Unicode line and paragraph separators, the Bidi_Control set
# (embeddings, overrides, isolates and marks: "Trojan Source", CVE-2021-42574), lone
# surrogates (which cannot even be encoded to UTF-8) and U+FFFE, U+FFFF (not allowed in XML).
UNSAFE_CODES = frozenset(
    [
        *range(0x20),
        *range(0x7F, 0xA0),
        0x061C,
        0x200E,
        0x200F,
        0x2028,
        0x2029,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
        *range(0xD800, 0xE000),
        0xFFFE,
        0xFFFF,
    ]
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(char: str) -> str:
    """``\\n``, ``\\x1b``, ``\\u202e``: a character written as a Python escape."""
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


# ``str.translate`` tables: each unsafe character to its escape (and, per format, more).
_VISIBLE = {code: _visible(chr(code)) for code in UNSAFE_CODES}
# Markdown: the escapes' backslashes doubled, inline syntax and the cell separator kept
# literal with a backslash, and ``<``, ``>``, ``&`` as entities (raw HTML is HTML in Markdown).
_MARKDOWN = {
    **{code: "\\" + escape for code, escape in _VISIBLE.items()},
    **{ord(c): "\\" + c for c in "\\`*_~[]|"},
    **{ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;"},
}
# HTML: as ``html.escape(quote=True)``; tab, newline and carriage return are whitespace there.
_HTML = {
    **{code: escape for code, escape in _VISIBLE.items() if chr(code) not in "\t\n\r"},
    **{ord("&"): "&amp;", ord("<"): "&lt;", ord(">"): "&gt;"},
    **{ord('"'): "&quot;", ord("'"): "&#x27;"},
}
_LINE_BREAK_RE = re.compile("\r\n|[\r\n\u2028\u2029]")
# What makes a heading, a list item or a rule of a line that starts a Markdown block.
_MD_BLOCK_START_RE = re.compile(r"^(\s*)(?:([#+-])|(\d{1,9})([.)]))")
# A plain decimal number: a spreadsheet reads it as a number, never as a formula.
_PLAIN_NUMBER_RE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
# OWASP "CSV injection": a cell starting with one of these may be run as a formula.
CSV_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_CSV_QUOTE_RE = re.compile('[,"\r\n]')
ELLIPSIS = "…"


def visible_controls(text: str) -> str:
    """``text`` with every control, line break, bidi and surrogate character shown as an escape."""
    return text.translate(_VISIBLE)


# --- terminal ----------------------------------------------------------------------------


def terminal_text(text: str, max_len: int | None = None) -> str:
    """``text`` safe to print on a terminal: control characters (C0 and C1 including ESC, NUL
    and DEL), line breaks and bidi controls shown as escapes (``\\x1b``, ``\\n``, ``\\u202e``),
    so one value stays on one line and cannot move the cursor, recolour, retitle or hide text.

    With ``max_len`` (for table columns) the result is at most ``max_len`` characters: longer
    text is cut, never inside an escape, and ends with ``…``.
    """
    if max_len is None:
        return visible_controls(text)
    if max_len < 1:
        raise ValueError(f"max_len must be at least 1, got {max_len}")
    # Escapes only lengthen text, so no more than max_len + 1 characters can matter.
    pieces = [_VISIBLE.get(ord(c), c) for c in text[: max_len + 1]]
    if sum(map(len, pieces)) <= max_len:
        return "".join(pieces)
    kept: list[str] = []
    used = 0
    for piece in pieces:
        if used + len(piece) > max_len - 1:
            break
        kept.append(piece)
        used += len(piece)
    return "".join(kept) + ELLIPSIS


# --- Markdown ----------------------------------------------------------------------------


def _markdown_inline(text: str) -> str:
    """One line of text as literal Markdown: controls visible, syntax escaped, HTML inert."""
    return text.translate(_MARKDOWN)


def markdown_cell(text: str) -> str:
    """``text`` as one cell of a GFM table, shown literally.

    ``|`` and backslashes are escaped (the row keeps its columns), line breaks become
    ``<br>``, ``<``, ``>`` and ``&`` become entities (so ``<script>`` is text, not HTML),
    brackets, backticks, ``*``, ``_`` and ``~`` are escaped (no links, images, code or
    emphasis), and other control characters are shown as escapes (``\\x1b``).
    """
    return "<br>".join(_markdown_inline(line) for line in _LINE_BREAK_RE.split(text))


def markdown_text(text: str) -> str:
    """``text`` as one line of Markdown prose (a heading, paragraph or list item), shown
    literally: as ``markdown_cell``, but line breaks become spaces and what would start a
    heading, list or rule (``#``, ``-``, ``+``, ``1.``) is escaped."""
    line = " ".join(_markdown_inline(part) for part in _LINE_BREAK_RE.split(text))
    return _MD_BLOCK_START_RE.sub(_escape_block_start, line, count=1)


def _escape_block_start(match: re.Match[str]) -> str:
    indent, symbol, digits, dot = match.groups()
    if symbol is not None:
        return f"{indent}\\{symbol}"
    return f"{indent}{digits}\\{dot}"


def markdown_row(cells: Iterable[str]) -> str:
    """``| a | b |``: a GFM table row of escaped cells."""
    return "| " + " | ".join(markdown_cell(c) for c in cells) + " |"


# --- HTML --------------------------------------------------------------------------------


def html_text(text: str) -> str:
    """``text`` for HTML element content or a quoted attribute: ``html.escape`` with quotes,
    and control and bidi characters (which HTML and XML do not allow, or which reorder the
    text around them) shown as escapes; tab, newline and carriage return are kept."""
    return text.translate(_HTML)


# --- CSV ---------------------------------------------------------------------------------


def csv_cell(value: str | float | None) -> str:
    """A CSV field that a spreadsheet shows as data, never runs as a formula.

    Numbers (``int`` and ``float`` values) are written as they are (``repr``), so ``-3.5``
    stays a number. Text that starts with ``=``, ``+``, ``-``, ``@``, tab or carriage return
    gets a leading single quote (OWASP's rule for CSV injection), unless it is a plain decimal
    number such as ``-3.5`` or ``+1e9``, which no spreadsheet reads as a formula. Text that
    starts with a quote gets one more, so reading back is always: drop one leading ``'`` from
    a text field that has one. ``None`` is an empty field.
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if value.startswith("'") or (
        value.startswith(CSV_FORMULA_STARTS) and not _PLAIN_NUMBER_RE.fullmatch(value)
    ):
        return "'" + value
    return value


def csv_text_value(field: str) -> str:
    """The inverse of ``csv_cell`` for a text field: the text it was written from."""
    return field[1:] if field.startswith("'") else field


def csv_field(value: str | float | None) -> str:
    """``csv_cell``, quoted as RFC 4180 says when it holds a comma, a double quote or a line
    break (``csv.writer`` with ``lineterminator="\\n"`` leaves a lone ``\\r`` unquoted, which
    breaks the row for every reader)."""
    text = csv_cell(value)
    if _CSV_QUOTE_RE.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def csv_line(values: Iterable[str | float | None]) -> str:
    """One CSV record of ``csv_field``s, ending with ``\\n``."""
    return ",".join(map(csv_field, values)) + "\n"
