"""``%`` tokens, ``${VAR}`` references and ``~`` as OpenSSH expands them (misc.c)."""

from __future__ import annotations

import pwd
from collections.abc import Mapping


class ExpandError(ValueError):
    """A value ssh cannot expand (unknown token, unset variable); the message says which."""


def expand(
    value: str,
    tokens: Mapping[str, str] | None,
    environ: Mapping[str, str] | None = None,
) -> str:
    """``percent_expand`` (``environ`` None), ``percent_dollar_expand``, or ``dollar_expand``
    (``tokens`` None): each ``%x`` of ``tokens`` replaced, ``%%`` is ``%``, and with
    ``environ`` each ``${VAR}`` by its value. An unknown token, a lone ``%`` at the end, an
    unset or malformed variable: ``ExpandError``."""
    out: list[str] = []
    i = 0
    while i < len(value):
        char = value[i]
        if environ is not None and value.startswith("${", i):
            end = value.find("}", i + 2)
            if end < 0:
                raise ExpandError(f"environment variable {value[i:]!r} has no closing '}}'")
            name = value[i + 2 : end]
            if not name:
                raise ExpandError("a zero-length environment variable ${}")
            if name not in environ:
                raise ExpandError(f"environment variable ${{{name}}} is not set")
            out.append(environ[name])
            i = end + 1
            continue
        if char != "%" or tokens is None:
            out.append(char)
            i += 1
            continue
        token = value[i + 1 : i + 2]
        if token == "%":
            out.append("%")
        elif not token:
            raise ExpandError(f"{value!r} ends with a lone '%'")
        elif token in tokens:
            out.append(tokens[token])
        else:
            raise ExpandError(f"unknown token %{token} in {value!r}")
        i += 2
    return "".join(out)


def tilde_expand(path: str, home: str) -> str:
    """``tilde_expand``: ``~`` and ``~/x`` under ``home``, ``~user/x`` under that user's home
    (``ExpandError`` for an unknown user); anything else unchanged."""
    if not path.startswith("~"):
        return path
    rest = path[1:]
    if not rest or rest.startswith("/"):
        base, tail = home, rest.lstrip("/")
    else:
        user, _, tail = rest.partition("/")
        try:
            base = pwd.getpwnam(user).pw_dir
        except KeyError:
            raise ExpandError(f"no such user {user!r} in {path!r}") from None
        tail = tail.lstrip("/")
    separator = "" if base.endswith("/") else "/"
    return f"{base}{separator}{tail}"
