"""A private key path as the user typed it: checked before it is stored (exists, is a file,
readable, not too large, a key), with messages that name the path safely."""

from __future__ import annotations

import errno
import os
import shlex
import stat
from pathlib import Path

from pairbench.domain.failures import UserFileError
from pairbench.domain.user_files import open_regular
from pairbench.domain.validation import shown
from pairbench.remote.ssh_auth import private_key_problem

# Linux's limits (PATH_MAX counts the terminating NUL); the file system may allow less,
# which the OS then reports as ENAMETOOLONG, handled too.
NAME_MAX = 255
PATH_MAX = 4096
MAX_KEY_FILE_BYTES = 1 << 20


def _shown_path(path: str, limit: int = 100) -> str:
    """A path for a message, its middle elided when long."""
    if len(path) <= limit:
        return path
    half = (limit - 1) // 2
    return f"{path[:half]}…{path[-half:]}"


def check_key_path(value: str) -> str:
    """A private key file the user may log in with, as an absolute path (``~`` expanded).

    Every problem is a ``ValueError`` with a one-line message: a name too long (a component
    over 255 bytes, or the path over 4095), missing, unreachable or unreadable, a directory
    or another non-file, a key others may read (OpenSSH ignores such a key: permissions beyond
    0600 on a key the user owns), an empty or huge file, or one that is not a private key (a
    public key, a certificate, anything else). An encrypted key passes: its passphrase is asked
    when connecting.
    """
    if not value or not value.isprintable():
        raise ValueError(f"invalid key file name {shown(value)}")
    try:
        path = Path(value).expanduser().absolute()
    except (RuntimeError, OSError) as exc:  # ~user without a home; a vanished working dir
        raise ValueError(f"cannot resolve the key file name {shown(value)}: {exc}") from None
    text = str(path)
    shown_path = _shown_path(text)
    _check_path_length(text, shown_path)
    try:
        info = path.stat()
    except OSError as exc:
        raise ValueError(_key_file_os_error(path, shown_path, exc)) from None
    if stat.S_ISDIR(info.st_mode):
        raise ValueError(
            f"key file {shown_path} is a directory; give the private key file in it "
            "(such as id_ed25519)"
        )
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"key file {shown_path} is not a regular file")
    if info.st_size == 0:
        raise ValueError(f"key file {shown_path} is empty, not a private key")
    if info.st_size > MAX_KEY_FILE_BYTES:
        raise ValueError(
            f"key file {shown_path} is {info.st_size} bytes long: too large for a private key"
        )
    try:  # opened without blocking: a FIFO put there since the stat above is refused too
        with open_regular(path, what="key file", limit=MAX_KEY_FILE_BYTES) as handle:
            data = handle.read(MAX_KEY_FILE_BYTES + 1)
    except UserFileError as exc:
        if exc.os_error is not None:
            raise ValueError(_key_file_os_error(path, shown_path, exc.os_error)) from None
        raise ValueError(f"key file {shown_path} is not usable: {exc}") from None
    except OSError as exc:
        raise ValueError(_key_file_os_error(path, shown_path, exc)) from None
    problem = private_key_problem(data)
    if problem is not None:
        raise ValueError(f"key file {shown_path} is not usable: {problem}")
    if os.name == "posix" and info.st_uid == os.geteuid() and info.st_mode & 0o077:
        who = " and ".join(
            name for bits, name in ((0o070, "its group"), (0o007, "others")) if info.st_mode & bits
        )
        raise ValueError(
            f"key file {shown_path} is accessible by {who}: permissions "
            f"{stat.S_IMODE(info.st_mode):04o} are too open for a private key (OpenSSH ignores "
            f"such a key too); run `chmod 600 {shlex.quote(text)}`"
        )
    return text


def _check_path_length(text: str, shown_path: str) -> None:
    encoded = os.fsencode(text)
    if len(encoded) >= PATH_MAX:
        raise ValueError(
            f"the key file path {shown_path} is {len(encoded)} bytes long; "
            f"at most {PATH_MAX - 1} are allowed"
        )
    for part in encoded.split(b"/"):
        if len(part) > NAME_MAX:
            name = _shown_path(os.fsdecode(part), 40)
            raise ValueError(
                f"the key file path {shown_path} has a name of {len(part)} bytes ({name}); "
                f"at most {NAME_MAX} are allowed for each name in a path"
            )


def _key_file_os_error(path: Path, shown_path: str, exc: OSError) -> str:
    """The message for an error of the OS about a key file (each errno in words)."""
    number = exc.errno
    if number == errno.ENOENT:
        return f"key file {shown_path} not found"
    if number == errno.ENOTDIR:
        parent = next((p for p in path.parents if p.exists() and not p.is_dir()), None)
        where = f": {parent} is a file, not a directory" if parent is not None else ""
        return f"key file {shown_path} not found{where}"
    if number in (errno.EACCES, errno.EPERM):
        return f"cannot read key file {shown_path}: permission denied"
    if number == errno.ENAMETOOLONG:
        return f"the key file path {shown_path} is too long for the file system"
    if number == errno.ELOOP:
        return f"key file {shown_path}: too many levels of symbolic links"
    if number == errno.EISDIR:
        return f"key file {shown_path} is a directory; give the private key file in it"
    return f"cannot read key file {shown_path}: {exc.strerror or exc}"
