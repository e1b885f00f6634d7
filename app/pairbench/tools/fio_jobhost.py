"""The host check before a job file runs: every absolute path its jobs open (``fio_jobpaths``)
under the rules of the ``directory``/``file``/``device`` parameters: no link, no folder others
may change, nothing read-only, no device in use, and an existing file or a device that a job
would destroy only when ``confirm_destroy`` names it."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from typing import Final

from pairbench.tools.base import HostCheck, ParamError
from pairbench.tools.fio_devices import IN_USE_SCRIPT
from pairbench.tools.fio_jobpaths import JobPaths, PathUse, split_names
from pairbench.tools.fio_paths import (
    PATH_STATE_LOOP,
    PathState,
    directory_problem,
    parse_path_states,
)

# Character devices a job may read and write: their data cannot be destroyed.
HARMLESS_DEVICES: Final = frozenset({"/dev/null", "/dev/zero"})

# ``PATH_STATE_LOOP`` over the paths, then for each block device (not a link) what
# ``IN_USE_SCRIPT`` (the first argument) finds: "N.in_use_status=S", "N.in_use=WHAT" lines.
JOB_PATHS_SCRIPT: Final = (
    "in_use=$1; shift\n"
    + PATH_STATE_LOOP
    + r"""
n=0
for p in "$@"; do
  n=$((n + 1))
  if [ -b "$p" ] && [ ! -L "$p" ]; then
    found=$(sh -c "$in_use" sh "$p"); echo "$n.in_use_status=$?"
    printf '%s\n' "$found" | while IFS= read -r line; do
      [ -n "$line" ] && echo "$n.in_use=$line"
    done
  fi
done
exit 0
"""
)


def checked_paths(paths: JobPaths, parent: str) -> tuple[str, ...]:
    """The script's arguments: the ``directory=`` folders, the ``directory`` parameter's
    folder, each file and its folder; each once, in that order."""
    wanted = [*paths.directories, parent] if parent else [*paths.directories]
    for use in paths.files:
        wanted += [use.path, posixpath.dirname(use.path) or "/"]
    return tuple(dict.fromkeys(wanted))


def job_paths_argv(paths: Sequence[str]) -> list[str]:
    """argv that reports what each path is (``JOB_PATHS_SCRIPT``)."""
    return ["sh", "-c", JOB_PATHS_SCRIPT, "sh", IN_USE_SCRIPT, *paths]


def _in_use(text: str, number: int) -> tuple[str | None, list[str]]:
    status: str | None = None
    found: list[str] = []
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key == f"{number}.in_use_status":
            status = value.strip()
        elif key == f"{number}.in_use" and value.strip():
            found.append(value.strip())
    return status, found


def _destroys(use: PathUse, state: PathState) -> str | None:
    """Why a run would destroy what ``use`` names (a regular file or a block device that
    exists), or None: it only reads within it."""
    jobs = ", ".join(f"[{name}]" for name in use.jobs[:3])
    if state.real_type == "character special file":
        return None  # /dev/null, /dev/zero: nothing to destroy (others are refused before)
    if state.real_type == "block special file":
        return f"a block device the jobs {jobs} write to" if use.writes else None
    if use.writes:
        return f"an existing file the jobs {jobs} write, truncate or remove"
    if use.needs is None:
        return f"an existing file the jobs {jobs} may lay out again (their size is not a number)"
    if use.needs > state.size:
        return (
            f"it holds {state.size} bytes, less than the {use.needs} the jobs {jobs} read: fio "
            "deletes and lays it out again"
        )
    return None


def _file_problem(use: PathUse, state: PathState, folder: PathState, text: str, n: int) -> str:
    """Why the jobs may not open ``use`` at all ("" when they may)."""
    path = use.path
    if state.kind == "link":
        return (
            f"{path} is a symbolic link: fio would open wherever it points. Give the real path "
            f"(readlink -f {path}); a link is never followed"
        )
    if state.kind == "directory":
        return f"{path} is a directory: fio opens it as a file (name the folder with directory=)"
    if state.real_type == "character special file":
        if path in HARMLESS_DEVICES:
            return ""
        return (
            f"{path} is a character device: not a file or block device whose use Pairbench "
            "checks (only /dev/null and /dev/zero are)"
        )
    if state.real_type == "block special file":
        status, found = _in_use(text, n)
        if status != "0":
            return f"cannot tell whether {path} is in use (status {status or 'none'})"
        if found:
            return (
                f"refusing to run fio on {path}: it is in use ({'; '.join(found[:5])}). Unmount "
                "it (and everything on it) first"
            )
        return ""
    if state.kind not in ("file", "missing"):
        return f"{path} is not a regular file nor a block device ({state.real_type or state.kind})"
    problem = directory_problem(folder)
    return f"{path}: its folder: {problem}" if problem else ""


def _directory_problem(state: PathState) -> str | None:
    """``directory_problem``, and a link refused (fio takes a ``directory=`` only as the
    directory itself: ``lstat``)."""
    if state.kind == "link":
        return f"{state.path} is a symbolic link: give the directory's own path"
    return directory_problem(state)


def _fio_list(paths: Sequence[str]) -> str:
    return ":".join(p.replace(":", "\\:") for p in paths)


def refuse_unsafe_job_paths(
    text: str, paths: JobPaths, parent: str, confirm: str, *, args: Sequence[str]
) -> None:
    """``ParamError`` (all the problems, then what needs confirming) unless the jobs may open
    every path as the script saw them (``args``: its arguments)."""
    states = dict(zip(args, parse_path_states(text, tuple(args)), strict=True))
    number = {path: n for n, path in enumerate(args, start=1)}
    problems = [
        f"directory={d}: {problem}"
        for d in paths.directories
        if (problem := _directory_problem(states[d]))
    ]
    if parent and (problem := directory_problem(states[parent])):
        problems.append(f"directory (the work directory's folder): {problem}")
    confirmed = set(split_names(confirm))
    unconfirmed: list[tuple[str, str]] = []
    for use in paths.files:
        state = states[use.path]
        folder = states[posixpath.dirname(use.path) or "/"]
        problem = _file_problem(use, state, folder, text, number[use.path])
        if problem:
            problems.append(problem)
        elif state.kind != "missing" and use.path not in confirmed:
            why = _destroys(use, state)
            if why:
                unconfirmed.append((use.path, why))
    if problems:
        raise ParamError("; ".join(problems))
    if unconfirmed:
        listed = "; ".join(f"{path} ({why})" for path, why in unconfirmed)
        wanted = _fio_list(sorted(confirmed | {path for path, _ in unconfirmed}))
        raise ParamError(
            f"the job file would DESTROY data: {listed}. If that is what you want, add --set "
            f"confirm_destroy={wanted}"
        )


def job_file_check(paths: JobPaths, params: Mapping[str, str]) -> HostCheck | None:
    """The host check before the job file runs (None when it names no path outside the work
    directory and no ``directory`` parameter is given)."""
    parent = params.get("directory", "")
    args = checked_paths(paths, parent)
    if not args:
        return None
    confirm = params.get("confirm_destroy", "")
    return HostCheck(
        job_paths_argv(args),
        lambda text: refuse_unsafe_job_paths(text, paths, parent, confirm, args=args),
    )
