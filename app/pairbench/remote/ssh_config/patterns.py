"""OpenSSH's patterns (match.c): ``*`` and ``?`` only, comma lists with ``!`` negation."""

from __future__ import annotations

_SUBPATTERN_MAX = 1023  # match.c keeps a sub-pattern in a 1024-byte buffer


def match_pattern(text: str, pattern: str) -> bool:
    """``match_pattern``: the whole of ``text`` against one pattern, case-sensitively.

    The same answers as match.c's recursion, in at most len(text) * len(pattern) steps (a
    hostile pattern of many ``*`` cannot make it slow): on a mismatch, go back to the last
    ``*`` and let it take one more character.
    """
    t = p = 0
    star = -1
    resume = 0
    while t < len(text):
        if p < len(pattern) and pattern[p] == "*":
            star, resume = p, t
            p += 1
        elif p < len(pattern) and pattern[p] in ("?", text[t]):
            t += 1
            p += 1
        elif star >= 0:
            resume += 1
            t, p = resume, star + 1
        else:
            return False
    return all(c == "*" for c in pattern[p:])


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def ascii_lower(text: str) -> str:
    """OpenSSH's ``lowercase`` (``tolower`` in the C locale): A-Z to a-z, nothing else."""
    return text.translate(_ASCII_LOWER)


def match_pattern_list(text: str, patterns: str, lower_patterns: bool) -> int:
    """``match_pattern_list``: -1 when a negated sub-pattern matches, 1 when a positive one
    does, else 0. With ``lower_patterns`` the sub-patterns (not ``text``) are lower-cased."""
    positive = 0
    if not patterns:
        return 0
    for raw in patterns.split(","):
        negated = raw.startswith("!")
        sub = raw[1:] if negated else raw
        if len(sub.encode("utf-8", "surrogateescape")) >= _SUBPATTERN_MAX:
            return 0
        if lower_patterns:
            sub = ascii_lower(sub)
        if match_pattern(text, sub):
            if negated:
                return -1
            positive = 1
    return positive


def match_hostname(host: str, patterns: str) -> int:
    """``match_hostname``: the host lower-cased against a lower-cased pattern list."""
    return match_pattern_list(ascii_lower(host), patterns, True)


def is_wildcard(pattern: str) -> bool:
    """Whether a ``Host`` pattern names more than one host (or negates)."""
    return pattern.startswith("!") or "*" in pattern or "?" in pattern
