"""Reading the host aliases of an OpenSSH client config (``~/.ssh/config``) as plain entries."""

from __future__ import annotations

import fnmatch
import getpass
import glob
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pairbench.domain.failures import UserFileError
from pairbench.domain.user_files import read_text

MAX_INCLUDE_DEPTH = 5
MAX_CONFIG_BYTES = 1 << 20  # each file (the config and each it includes)
MAX_CONFIG_FILES = 256  # the config and every file its Includes read, in all
_WILDCARDS = ("*", "?")
# The keywords read here; every other keyword is accepted and ignored.
_SINGLE_VALUE = ("hostname", "port", "user", "identityfile", "proxyjump")


class SSHConfigError(Exception):
    """The config cannot be read; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class SSHConfigEntry:
    """What the config says about one concrete ``Host`` alias (first obtained value wins)."""

    alias: str
    hostname: str
    port: int | None = None
    user: str | None = None
    identity_file: str | None = None
    proxy_jump: str | None = None
    proxy_command: str | None = None


@dataclass(frozen=True, slots=True)
class _Directive:
    """One ``Keyword value`` line and the Host pattern lists that must all match the alias."""

    conditions: tuple[tuple[str, ...], ...]
    keyword: str
    args: tuple[str, ...]
    raw: str
    where: str


@dataclass
class _Reader:
    include_dir: Path
    home: Path
    directives: list[_Directive] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    files_read: int = 0

    def read(self, path: Path, base: tuple[tuple[str, ...], ...] | None, depth: int) -> None:
        """Read one file; ``base`` is the including block's condition (None: never applies)."""
        if depth > MAX_INCLUDE_DEPTH:
            raise SSHConfigError(f"{path}: Include nested deeper than {MAX_INCLUDE_DEPTH} levels")
        self.files_read += 1
        if self.files_read > MAX_CONFIG_FILES:
            raise SSHConfigError(f"{path}: the config includes more than {MAX_CONFIG_FILES} files")
        try:
            text = read_text(path, what="the SSH config", limit=MAX_CONFIG_BYTES)
        except UserFileError as exc:
            raise SSHConfigError(str(exc)) from None
        conditions = base
        for lineno, keyword, args, raw in _lines(text, path):
            where = f"{path}:{lineno}"
            if keyword == "host":
                if not args:
                    raise SSHConfigError(f"{where}: Host needs at least one pattern")
                conditions = None if base is None else (*base, tuple(args))
                if conditions is not None:
                    self._add_aliases(args)
            elif keyword == "match":
                conditions = None  # Match blocks are not evaluated: their settings are skipped
            elif keyword == "include":
                for included in self._expand_include(args, where):
                    self.read(included, conditions, depth + 1)
            elif conditions is not None:
                self.directives.append(_Directive(conditions, keyword, tuple(args), raw, where))

    def _add_aliases(self, patterns: list[str]) -> None:
        for pattern in patterns:
            concrete = not pattern.startswith("!") and not any(c in pattern for c in _WILDCARDS)
            if concrete and pattern not in self.aliases:
                self.aliases.append(pattern)

    def _expand_include(self, args: list[str], where: str) -> Iterator[Path]:
        if not args:
            raise SSHConfigError(f"{where}: Include needs a file name")
        for arg in args:
            pattern = _expand_tilde(arg, self.home)
            if not os.path.isabs(pattern):
                pattern = str(self.include_dir / pattern)
            for match in sorted(glob.glob(pattern)):
                if Path(match).is_file():
                    yield Path(match)


def parse_ssh_config(
    path: Path | str | None = None,
    *,
    home: Path | None = None,
    include_dir: Path | None = None,
) -> list[SSHConfigEntry]:
    """Every concrete alias of the config at ``path`` (default ``~/.ssh/config``), in order.

    Relative ``Include`` paths are looked up in ``include_dir`` (default ``~/.ssh``), as
    OpenSSH does for a user config. Wildcard and negated patterns are not aliases, but their
    blocks apply to the aliases they match; ``Match`` blocks are skipped.
    """
    home = home if home is not None else Path.home()
    config = Path(path) if path is not None else home / ".ssh" / "config"
    reader = _Reader(include_dir=include_dir or home / ".ssh", home=home)
    reader.read(Path(_expand_tilde(str(config), home)), (), depth=0)
    return [_resolve(alias, reader.directives, home) for alias in reader.aliases]


def _resolve(alias: str, directives: list[_Directive], home: Path) -> SSHConfigEntry:
    values: dict[str, str] = {}
    for directive in directives:
        if directive.keyword in values or not _applies(directive.conditions, alias):
            continue
        if directive.keyword == "proxycommand":
            values["proxycommand"] = directive.raw
        elif directive.keyword in _SINGLE_VALUE and directive.args:
            value = directive.args[0]
            if directive.keyword == "port":
                _check_port(value, directive.where)
            values[directive.keyword] = value
    hostname = _expand_tokens(values.get("hostname", alias), {"h": alias})
    user = values.get("user")
    port = values.get("port")
    identity = values.get("identityfile")
    if identity is not None:
        local_user = _local_user()
        identity = _expand_tokens(
            _expand_tilde(identity, home),
            {
                "d": str(home),
                "u": local_user,
                "h": hostname,
                "n": alias,
                "r": user or local_user,
                "p": port or "22",
            },
        )
    return SSHConfigEntry(
        alias=alias,
        hostname=hostname,
        port=None if port is None else int(port),
        user=user,
        identity_file=identity,
        proxy_jump=_none_is_unset(values.get("proxyjump")),
        proxy_command=_none_is_unset(values.get("proxycommand")),
    )


def _applies(conditions: tuple[tuple[str, ...], ...], alias: str) -> bool:
    return all(_host_matches(patterns, alias) for patterns in conditions)


def _host_matches(patterns: tuple[str, ...], alias: str) -> bool:
    """OpenSSH ``Host`` semantics: any negated match excludes, else any positive match."""
    name = alias.lower()
    matched = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        if fnmatch.fnmatchcase(name, _glob_only(pattern.removeprefix("!").lower())):
            if negated:
                return False
            matched = True
    return matched


def _glob_only(pattern: str) -> str:
    """An ssh pattern for fnmatch: only ``*`` and ``?`` are special, so escape ``[``."""
    return pattern.replace("[", "[[]")


def _check_port(value: str, where: str) -> None:
    if not value.isdigit() or not 1 <= int(value) <= 65535:
        raise SSHConfigError(f"{where}: bad port {value!r}")


def _none_is_unset(value: str | None) -> str | None:
    return None if value is None or value.lower() == "none" else value


def _local_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


def _expand_tilde(value: str, home: Path) -> str:
    if value == "~" or value.startswith("~/"):
        return str(home) + value[1:]
    return os.path.expanduser(value) if value.startswith("~") else value


def _expand_tokens(value: str, tokens: dict[str, str]) -> str:
    """Expand ``%x`` tokens OpenSSH knows; unknown ones are left as written."""
    out: list[str] = []
    i = 0
    while i < len(value):
        char = value[i]
        if char == "%" and i + 1 < len(value):
            token = value[i + 1]
            if token == "%":
                out.append("%")
                i += 2
                continue
            if token in tokens:
                out.append(tokens[token])
                i += 2
                continue
        out.append(char)
        i += 1
    return "".join(out)


def _lines(text: str, path: Path) -> Iterator[tuple[int, str, list[str], str]]:
    """(line number, lower-case keyword, arguments, raw rest of line) per directive line."""
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        keyword, rest = _split_keyword(stripped)
        try:
            args = _split_args(rest)
        except ValueError as exc:
            raise SSHConfigError(f"{path}:{lineno}: {exc}") from None
        yield lineno, keyword.lower(), args, rest


def _split_keyword(line: str) -> tuple[str, str]:
    """``Key value``, ``Key=value`` and ``Key = value`` alike."""
    end = 0
    while end < len(line) and not line[end].isspace() and line[end] != "=":
        end += 1
    keyword, rest = line[:end], line[end:].lstrip()
    if rest.startswith("="):
        rest = rest[1:].lstrip()
    return keyword, rest


def _split_args(text: str) -> list[str]:
    """Split on blanks, honouring double and single quotes; an unquoted ``#`` word ends the line."""
    args: list[str] = []
    current: list[str] = []
    quote: str | None = None
    in_word = False
    i = 0
    while i < len(text):
        char = text[i]
        if quote is not None:
            if char == quote:
                quote = None
            elif char == "\\" and i + 1 < len(text) and text[i + 1] in (quote, "\\"):
                i += 1
                current.append(text[i])
            else:
                current.append(char)
        elif char in ('"', "'"):
            quote = char
            in_word = True
        elif char.isspace():
            if in_word:
                args.append("".join(current))
                current, in_word = [], False
        elif char == "#" and not in_word:
            break
        else:
            current.append(char)
            in_word = True
        i += 1
    if quote is not None:
        raise ValueError("unterminated quote")
    if in_word:
        args.append("".join(current))
    return args
