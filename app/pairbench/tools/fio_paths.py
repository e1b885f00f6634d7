"""fio's files on a host: what a path and its directory are (a constant script's report), and
the refusals that keep a run from writing through a planted link, into a directory others
may change, onto a read-only file system, or over a file nobody confirmed."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Final

from pairbench.tools.base import HostCheck, ParamError

# For each argument: its kind without following a link (link, directory, file, other,
# missing), its owner, mode and size (lstat), the same of what a link points to, and for a
# directory whether this user may write in it and the options of the mount it is on (the
# longest mount point of /proc/self/mountinfo that holds it; the last one mounted wins).
# Lines "N.key=value", N the argument's number; "me=UID" first. A constant script: the paths
# are its arguments (``PATH_STATE_LOOP``, the loop over them, serves ``fio_jobhost`` too).
PATH_STATE_LOOP: Final = r"""
echo "me=$(id -u)"
n=0
for p in "$@"; do
  n=$((n + 1))
  if [ -L "$p" ]; then k=link; elif [ -d "$p" ]; then k=directory
  elif [ -f "$p" ]; then k=file; elif [ -e "$p" ]; then k=other; else k=missing; fi
  echo "$n.kind=$k"
  [ "$k" = missing ] && continue
  stat --printf "$n.owner=%u\n$n.mode=%a\n$n.size=%s\n" -- "$p"
  stat -L --printf "$n.real_owner=%u\n$n.real_mode=%a\n$n.real_type=%F\n" -- "$p" 2>/dev/null
  if [ -d "$p" ]; then
    if [ -w "$p" ]; then echo "$n.writable=yes"; else echo "$n.writable=no"; fi
    real=$(readlink -f -- "$p")
    awk -v p="$real" -v n="$n" 'BEGIN { best = -1 }
      { m = $5; if ((m == "/" || p == m || index(p, m "/") == 1) && length(m) >= best) {
          best = length(m); o = $6 } }
      END { print n ".options=" o }' /proc/self/mountinfo
  fi
done
"""
PATH_STATE_SCRIPT: Final = PATH_STATE_LOOP + "exit 0\n"
_STICKY: Final = 0o1000
_GROUP_OTHER_WRITE: Final = 0o022


def path_state_argv(*paths: str) -> list[str]:
    """argv that reports what each of ``paths`` is on the host (``PATH_STATE_SCRIPT``)."""
    return ["sh", "-c", PATH_STATE_SCRIPT, "sh", *paths]


@dataclass(frozen=True, slots=True)
class PathState:
    """What one path is on the host, as ``PATH_STATE_SCRIPT`` saw it."""

    path: str
    kind: str  # link, directory, file, other, missing
    me: int  # the login user's uid
    owner: int = -1
    mode: int = 0
    size: int = 0
    real_type: str = ""  # what a link points to ("directory", "regular file"...; "" dangling)
    real_owner: int = -1
    real_mode: int = 0
    writable: bool = False
    options: tuple[str, ...] = ()

    @property
    def read_only(self) -> bool:
        return "ro" in self.options

    @property
    def is_directory(self) -> bool:
        """A directory, or a link to one."""
        return self.kind == "directory" or self.real_type == "directory"


def parse_path_states(text: str, paths: tuple[str, ...]) -> list[PathState]:
    """The script's report as one ``PathState`` per path given to it (``ParamError`` when the
    report is not understood)."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key.strip()] = value.strip()
    try:
        me = int(values["me"])
        return [_state(path, me, values, n) for n, path in enumerate(paths, start=1)]
    except (KeyError, ValueError) as exc:
        raise ParamError(f"cannot tell what {', '.join(paths)} is on the host ({exc})") from exc


def _state(path: str, me: int, values: dict[str, str], n: int) -> PathState:
    def get(key: str) -> str:
        return values.get(f"{n}.{key}", "")

    return PathState(
        path=path,
        kind=get("kind") or "missing",
        me=me,
        owner=int(get("owner") or -1),
        mode=int(get("mode") or "0", 8),
        size=int(get("size") or 0),
        real_type=get("real_type").replace("regular empty file", "regular file"),
        real_owner=int(get("real_owner") or -1),
        real_mode=int(get("real_mode") or "0", 8),
        writable=get("writable") == "yes",
        options=tuple(get("options").split(",")) if get("options") else (),
    )


def directory_problem(state: PathState) -> str | None:
    """Why Pairbench must not create its files in this directory, or None.

    Refused: a directory that does not exist, is on a read-only mount, that this user may
    not write in, that belongs to another user (but root), or that group or others may write
    in without the sticky bit: whoever may rename or add entries there could swap in a link
    between the check and fio's open, and make the run overwrite a file it was never given.
    """
    path = state.path
    if state.kind == "missing":
        return f"{path} does not exist"
    if not state.is_directory:
        return f"{path} is not a directory"
    if state.read_only:
        return (
            f"{path} is on a read-only file system: nothing can be written there. Remount it "
            "read-write, or choose a directory on another file system"
        )
    owner = state.real_owner if state.kind == "link" else state.owner
    mode = state.real_mode if state.kind == "link" else state.mode
    if owner not in (state.me, 0):
        return (
            f"{path} belongs to another user (uid {owner}), who could replace the files "
            "Pairbench makes in it with links to other files; choose a directory of your own"
        )
    if mode & _GROUP_OTHER_WRITE and not mode & _STICKY:
        who = " and ".join(
            w for bit, w in ((0o020, "its group"), (0o002, "everyone")) if mode & bit
        )
        return (
            f"{path} may be written by {who} (mode {mode & 0o7777:o}) without the sticky bit: "
            "anyone who can write there could plant a link and make the run overwrite "
            f"another file. Choose a directory only you can write to, or set the sticky bit "
            f"(chmod +t {path})"
        )
    if not state.writable:
        return f"{path} is not writable by the login user (uid {state.me})"
    return None


def refuse_unsafe_directory(text: str, directory: str) -> None:
    """``ParamError`` unless ``directory`` (the script's only argument) is safe to create
    files in."""
    (state,) = parse_path_states(text, (directory,))
    problem = directory_problem(state)
    if problem:
        raise ParamError(problem)


def file_check_argv(path: str) -> list[str]:
    """argv that reports what ``path`` and its directory are."""
    return path_state_argv(path, posixpath.dirname(path) or "/")


def refuse_unsafe_file(text: str, path: str, *, writes: bool, size: int, confirm: str) -> None:
    """``ParamError`` when fio on the kept test file ``path`` could destroy what it was not
    given: its directory unsafe (``directory_problem``), the path a link (fio would follow it),
    not a regular file, or an existing file that fio would write (a write workload) or lay
    out again (a read workload on a file smaller than ``size``: fio deletes and recreates it)
    without ``confirm`` equal to the path."""
    file, folder = parse_path_states(text, (path, posixpath.dirname(path) or "/"))
    problem = directory_problem(folder)
    if problem:
        raise ParamError(f"the test file's folder: {problem}")
    if file.kind == "missing":
        return
    if file.kind == "link":
        raise ParamError(
            f"{path} is a symbolic link: fio would write wherever it points. Give the real "
            "file's path (a link is never followed)"
        )
    if file.kind != "file":
        raise ParamError(f"{path} exists and is not a regular file ({file.kind})")
    if not writes and file.size >= size:
        return  # read within the file: nothing written
    if confirm == path:
        return
    how = (
        "fio overwrites it"
        if writes
        else f"it holds {file.size} bytes, less than size, so fio deletes and recreates it"
    )
    raise ParamError(
        f"{path} already exists and {how}: its data would be DESTROYED. If that is what you "
        f"want, add --set confirm_destroy={path}"
    )


def directory_check(directory: str) -> HostCheck:
    """The host check before fio makes its work directory in ``directory``."""
    return HostCheck(path_state_argv(directory), lambda t: refuse_unsafe_directory(t, directory))


def file_check(path: str, *, writes: bool, size: int, confirm: str) -> HostCheck:
    """The host check before fio opens the kept test file ``path`` (``refuse_unsafe_file``)."""
    return HostCheck(
        file_check_argv(path),
        lambda t: refuse_unsafe_file(t, path, writes=writes, size=size, confirm=confirm),
    )
