"""Splitting ssh_config lines as OpenSSH 9.2 does (misc.c ``strdelim``, ``argv_split``)."""

from __future__ import annotations

from dataclasses import dataclass

WHITESPACE = " \t\r\n"
_QUOTE = '"'


class LineError(ValueError):
    """A line ssh refuses to read; the message is ssh's reason (without file and line)."""


@dataclass(frozen=True, slots=True)
class Directive:
    """One ``Keyword arguments`` line: the lower-case keyword, the raw rest, where it is."""

    keyword: str
    rest: str
    path: str
    line: int
    user_config: bool = True  # from a user's config (not /etc/ssh/ssh_config)

    @property
    def where(self) -> str:
        """``FILE:LINE`` for messages."""
        return f"{self.path}:{self.line}"


def strdelim(text: str | None, split_equals: bool = True) -> tuple[str | None, str | None]:
    """The next token of ``text`` and what follows it (misc.c ``strdelim_internal``).

    Splits on blanks and (with ``split_equals``) one ``=``; a double-quoted part is one token.
    Returns (None, None) for an unterminated quote; the rest is None at the end of the text.
    """
    if text is None:
        return None, None
    delimiters = WHITESPACE + _QUOTE + ("=" if split_equals else "")
    cut = next((i for i, char in enumerate(text) if char in delimiters), -1)
    if cut < 0:
        return text, None
    if text[cut] == _QUOTE:
        close = text.find(_QUOTE, cut + 1)
        if close < 0:
            return None, None
        return text[:cut] + text[cut + 1 : close], text[close + 1 :].lstrip(WHITESPACE)
    equals_skipped = split_equals and text[cut] == "="
    rest = text[cut + 1 :].lstrip(WHITESPACE)
    if split_equals and rest.startswith("=") and not equals_skipped:
        rest = rest[1:].lstrip(WHITESPACE)
    return text[:cut], rest


def argv_split(text: str) -> list[str]:
    """Arguments as ``argv_split(s, ..., terminate_on_comment=1)``: blanks separate, single and
    double quotes group, ``\\`` escapes a quote, a backslash or (unquoted) a space, and a ``#``
    starting an argument ends the line. ``LineError`` for an unterminated quote."""
    args: list[str] = []
    i = 0
    length = len(text)
    while i < length:
        if text[i] in " \t":
            i += 1
            continue
        if text[i] == "#":
            break
        quote = ""
        arg: list[str] = []
        while i < length:
            char = text[i]
            if char == "\\":
                following = text[i + 1 : i + 2]
                if following in ("'", '"', "\\") or (following == " " and not quote):
                    i += 1
                    arg.append(following)
                else:
                    arg.append(char)
            elif not quote and char in " \t":
                break
            elif not quote and char in "\"'":
                quote = char
            elif quote and char == quote:
                quote = ""
            else:
                arg.append(char)
            i += 1
        if i >= length and quote:
            raise LineError("invalid quotes")
        args.append("".join(arg))
    return args


def directive(raw: str, path: str, line: int, user_config: bool = True) -> Directive | None:
    """The directive of one line, or None for a blank or comment line (readconf.c
    ``process_config_line_depth``). ``LineError`` when the keyword has no argument."""
    text = raw.rstrip(WHITESPACE + "\f")
    keyword, rest = strdelim(text)
    if keyword == "":
        keyword, rest = strdelim(rest)
    if not keyword or keyword.startswith(("\n", "#")):
        return None
    keyword = keyword.lower()
    if rest is not None:
        rest = rest.lstrip(WHITESPACE)
    if not rest:
        raise LineError(f'no argument after keyword "{keyword}"')
    return Directive(keyword, rest, path, line, user_config)
