"""One pass of ssh over its config files for one alias (readconf.c ``read_config_file``).

Every line of every file reached is read for every alias, in order: ``Host`` and ``Match``
lines switch the lines after them on or off, ``Include`` reads more files at its place (a
file included where the block does not apply is read with nothing in it applying), and each
other keyword is applied to the alias's options when on (first value wins).
"""

from __future__ import annotations

import glob
import grp
import os
import pwd
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pairbench.domain.failures import UserFileError
from pairbench.domain.user_files import open_regular, size_text
from pairbench.remote.ssh_config.lexer import Directive, LineError, argv_split, directive
from pairbench.remote.ssh_config.match import MatchContext, evaluate
from pairbench.remote.ssh_config.options import Options, apply
from pairbench.remote.ssh_config.patterns import match_pattern
from pairbench.remote.ssh_config.tokens import ExpandError, tilde_expand

MAX_DEPTH = 16  # READCONF_MAX_DEPTH
SYSTEM_DIR = "/etc/ssh"
MAX_FILE_BYTES = 1 << 20  # each file read (a config is a few KiB)
MAX_FILE_READS = 256  # files read in one pass, a file read again counting again
WHAT = "the SSH config"


class SSHConfigError(Exception):
    """ssh refuses the config (for this alias): ``FILE:LINE: reason`` or ``FILE: reason``."""


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """A top-level config file and how ssh reads it."""

    path: str
    user_config: bool = True  # a user's file (relative Includes under ~/.ssh; ``~`` allowed)
    check_perm: bool = False  # refused when writable by others (a default file, includes)
    required: bool = False  # ``-F FILE``: a file that cannot be read is an error


@dataclass
class Pass:
    """One reading of the files for an alias: what Host lines match and what is set."""

    host: str
    original_host: str
    final: bool
    home: str
    local_user: str
    environ: dict[str, str]
    options: Options
    wants_final: bool = False
    on_host: Callable[[list[str], Directive], None] | None = None  # sees every Host line
    listing: bool = False  # only listing aliases: Match exec is taken as false
    files_read: int = 0


@dataclass(frozen=True, slots=True)
class _File:
    """A file's lines (or why it could not be read), whether ssh refuses its owner/mode, and
    why Pairbench does not read it (a FIFO or device, which would block; too large)."""

    lines: list[str] | OSError
    bad_owner: bool = False
    refused: str | None = None


@dataclass
class Reader:
    """Reads each file once and replays it for each pass."""

    _files: dict[str, _File] = field(default_factory=dict)

    def run(self, files: Sequence[ConfigFile], p: Pass) -> None:
        """Read the top-level files in order (``SSHConfigError`` when ssh refuses them)."""
        for config in files:
            found = self._read(config.path, config.user_config, config.check_perm, p, [True], 0)
            if not found and config.required:
                problem = self._file(config.path).lines
                why = problem.strerror if isinstance(problem, OSError) else "not found"
                raise SSHConfigError(f"cannot read {config.path}: {why}")

    def _file(self, path: str) -> _File:
        cached = self._files.get(path)
        if cached is None:
            cached = _load(path)
            self._files[path] = cached
        return cached

    def _read(
        self,
        path: str,
        user_config: bool,
        check_perm: bool,
        p: Pass,
        active: list[bool],
        depth: int,
        never: bool = False,
    ) -> bool:
        if depth > MAX_DEPTH:
            raise SSHConfigError("Too many recursive configuration includes")
        p.files_read += 1
        if p.files_read > MAX_FILE_READS:
            raise SSHConfigError(f"{path}: the config reads more than {MAX_FILE_READS} files")
        loaded = self._file(path)
        if loaded.refused is not None:
            raise SSHConfigError(loaded.refused)
        if isinstance(loaded.lines, OSError):
            if depth == 0 or isinstance(loaded.lines, FileNotFoundError):
                return False
            raise SSHConfigError(f"cannot read {path}: {loaded.lines.strerror}")
        if check_perm and loaded.bad_owner:
            raise SSHConfigError(
                f"bad owner or permissions on {path} (ssh refuses a config file others can "
                "write to)"
            )
        for number, raw in enumerate(loaded.lines, start=1):
            try:
                line = directive(raw, path, number, user_config)
                if line is not None:
                    self._line(line, p, active, depth, never)
            except LineError as exc:
                raise SSHConfigError(f"{path}:{number}: {exc}") from None
        return True

    def _line(self, line: Directive, p: Pass, active: list[bool], depth: int, never: bool) -> None:
        args = argv_split(line.rest)
        if line.keyword == "host":
            active[0] = _host_line(args, line, p, never)
        elif line.keyword == "match":
            context = MatchContext(
                host_arg=p.host,
                original_host=p.original_host,
                hostname=p.options.hostname,
                user=p.options.user if p.options.user is not None else p.local_user,
                local_user=p.local_user,
                final=p.final,
                never_match=never or p.listing,
            )
            outcome = evaluate(line, context)
            p.wants_final = p.wants_final or outcome.wants_final
            active[0] = outcome.active
        elif line.keyword == "include":
            self._include(args, line, p, active, depth, never)
        else:
            apply(p.options, line, active[0], p.environ)

    def _include(
        self,
        args: list[str],
        line: Directive,
        p: Pass,
        active: list[bool],
        depth: int,
        never: bool,
    ) -> None:
        was_active = active[0]
        for arg in args:
            if not arg:
                raise LineError(f"keyword {line.keyword} empty argument")
            if arg.startswith("~") and not line.user_config:
                raise LineError(f"bad include path {arg}.")
            if not arg.startswith(("/", "~")):
                arg = f"~/.ssh/{arg}" if line.user_config else f"{SYSTEM_DIR}/{arg}"
            for path in _glob(arg, p.home):
                self._read(
                    path,
                    line.user_config,
                    True,
                    p,
                    active,
                    depth + 1,
                    never=never or not was_active,
                )
                active[0] = was_active  # a Match in an include does not leak out of it


def _host_line(args: list[str], line: Directive, p: Pass, never: bool) -> bool:
    if p.on_host is not None:
        p.on_host(args, line)
    on = False
    for arg in args:
        if not arg:
            raise LineError(f"keyword {line.keyword} empty argument")
        if never:
            return False
        negated = arg.startswith("!")
        if match_pattern(p.host, arg[1:] if negated else arg):
            if negated:
                return False
            on = True
    return on


def _glob(pattern: str, home: str) -> list[str]:
    """``glob(pattern, GLOB_TILDE)``, sorted: ``~`` is $HOME, ``~user`` that user's home."""
    if pattern.startswith("~"):
        try:
            pattern = tilde_expand(pattern, home)
        except ExpandError:
            return []
    return sorted(glob.glob(pattern))


def _load(path: str) -> _File:
    """A file's lines as ssh's ``getline`` gives them (split at newlines only; a NUL ends a
    line), or the error opening it. Only a regular file is opened, and without blocking
    (``domain.user_files``: a FIFO or device put there would hang ssh); a directory reads as
    empty, as in ssh."""
    if path == os.devnull or os.path.isdir(path):
        return _File([])  # ``ssh -F /dev/null``: no config; a directory: nothing read
    try:
        with open_regular(path, what=WHAT, limit=MAX_FILE_BYTES) as handle:
            info = os.fstat(handle.fileno())
            data = handle.read(MAX_FILE_BYTES + 1)
    except UserFileError as exc:
        if exc.os_error is not None:
            return _File(exc.os_error)
        return _File([], refused=str(exc))
    except OSError as exc:
        return _File(exc)
    if len(data) > MAX_FILE_BYTES:  # it grew past the limit after it was opened
        refusal = f"{WHAT} {path} is larger than {size_text(MAX_FILE_BYTES)}"
        return _File([], refused=refusal)
    lines = [line.split("\0", 1)[0] for line in data.decode("utf-8", "surrogateescape").split("\n")]
    if lines and not lines[-1]:
        lines.pop()
    return _File(lines, _bad_owner(info))


def _bad_owner(info: os.stat_result) -> bool:
    """Whether ssh refuses the file: owned by another user, or writable by others (Debian's
    ssh allows group write when the group is the owner's alone)."""
    if info.st_uid not in (0, os.getuid()) or info.st_mode & stat.S_IWOTH:
        return True
    return bool(info.st_mode & stat.S_IWGRP) and not _private_group(info.st_gid, info.st_uid)


def _private_group(gid: int, uid: int) -> bool:
    try:
        group = grp.getgrgid(gid)
        owner = pwd.getpwuid(uid).pw_name
    except KeyError:
        return False
    primary = [user for user in pwd.getpwall() if user.pw_gid == gid]
    if any(user.pw_uid != uid for user in primary):
        return False
    members = list(group.gr_mem)
    if members and members != [owner]:
        return False
    return bool(primary or members)
