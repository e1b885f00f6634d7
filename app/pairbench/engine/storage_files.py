"""A directory suite's own files on its host: a private directory made exclusively in the
target (``mktemp -d``: new, mode 0700, the login user's) that holds the test file and the
O_DIRECT probe; checked again before a resumed suite's fio touches it and before a purge
renews its test file; removed exactly (the test file, then the empty directory), never
recursively, never through a link."""

from __future__ import annotations

import posixpath
from typing import Final

from pairbench.domain.failures import RunError, TargetChangedError, TransportError
from pairbench.engine.storage_target import host_run
from pairbench.remote.base import Transport
from pairbench.tools.fio_paths import PathState, parse_path_states, path_state_argv

PREFIX: Final = "pairbench-suite."
TEMPLATE: Final = PREFIX + "XXXXXXXX"
TEST_FILE: Final = "test.dat"
FACT: Final = "test_dir"  # the suite's fact that names its directory
_PROBE: Final = ".direct-probe"


def test_file_in(test_dir: str) -> str:
    """The test file in a suite's directory."""
    return posixpath.join(test_dir, TEST_FILE)


def is_test_dir_of(target: str, path: str) -> bool:
    """True if ``path`` is a name ``make_test_dir`` could have made in ``target``."""
    name = posixpath.basename(path)
    return (
        posixpath.dirname(path) == target
        and name.startswith(PREFIX)
        and len(name) == len(TEMPLATE)
        and name[len(PREFIX) :].isalnum()
    )


async def make_test_dir(transport: Transport, target: str) -> str:
    """A new private directory in ``target`` (``mktemp -d``); ``RunError`` when it cannot."""
    result = await host_run(transport, ["mktemp", "-d", "-p", target, TEMPLATE])
    path = str(result.stdout).strip()
    if result.exit_status != 0 or not is_test_dir_of(target, path):
        said = result.stderr.strip()[:200] or f"mktemp printed {path[:80]!r}"
        raise RunError(
            f"{transport.host_name}: cannot make the suite's directory in {target}: {said}"
        )
    return path


async def probe_direct(transport: Transport, test_dir: str) -> bool:
    """Whether O_DIRECT writes work in the suite's directory (a 4 KiB file, removed)."""
    probe = posixpath.join(test_dir, _PROBE)
    dd = ["dd", "if=/dev/zero", f"of={probe}", "bs=4096", "count=1", "oflag=direct"]
    try:
        return bool((await host_run(transport, dd)).exit_status == 0)
    finally:
        await _quietly(transport, ["rm", "-f", "--", probe])


def _problem(folder: PathState, test: PathState) -> str | None:
    """What makes a suite's directory (or its test file) other than the suite left it."""
    if folder.kind == "link":
        return f"{folder.path} is now a symbolic link, not the directory the suite made"
    if folder.kind != "directory":
        return f"{folder.path} is no longer a directory"
    if folder.owner != folder.me:
        return f"{folder.path} belongs to uid {folder.owner}, not the login user (uid {folder.me})"
    if folder.mode & 0o7777 != 0o700:
        return f"{folder.path} has mode {folder.mode & 0o7777:o}, not 700 as the suite made it"
    if test.kind == "link":
        return f"{test.path} is a symbolic link (fio would write wherever it points)"
    if test.kind not in ("missing", "file"):
        return f"{test.path} is not a regular file"
    return None


async def check_test_dir(transport: Transport, target: str, test_dir: str) -> bool:
    """Before fio touches a suite's directory again: True if it is as the suite made it (its
    own directory in ``target``, not a link, the login user's, mode 0700, the test file
    absent or a regular file), False if it is gone; ``RunError`` otherwise (nothing
    touched)."""
    host = transport.host_name
    if not is_test_dir_of(target, test_dir):
        raise RunError(f"{host}: {test_dir} is not a directory the suite made in {target}")
    test_file = test_file_in(test_dir)
    report = await host_run(transport, path_state_argv(test_dir, test_file))
    try:
        folder, test = parse_path_states(report.stdout, (test_dir, test_file))
    except ValueError as exc:
        raise RunError(f"{host}: cannot check the suite's directory: {exc}") from exc
    if folder.kind == "missing":
        return False
    problem = _problem(folder, test)
    if problem:
        raise RunError(
            f"{host}: {problem}. The suite refuses to use it (nothing was written); look at "
            "what changed there, then start a new suite"
        )
    return True


async def reopen_test_dir(transport: Transport, target: str, recorded: str) -> tuple[str, str]:
    """A resumed suite's directory, checked (``check_test_dir``), or a new one when it is gone
    (or was never recorded: a suite of an earlier version); with a note for the suite's facts
    ("" when it was there)."""
    if recorded and await check_test_dir(transport, target, recorded):
        return recorded, ""
    made = await make_test_dir(transport, target)
    gone = (
        f"{recorded} was gone"
        if recorded
        else "no directory was recorded (a suite of an earlier version: its test file in the "
        "target, if any, is left as it was)"
    )
    return made, f"at a resume {gone}: {made} was made, its test file new"


async def renew_test_file(transport: Transport, target: str, test_dir: str) -> str:
    """A directory suite's purge: its test file removed from its own directory, checked first
    (``check_test_dir``), so that fio's next job makes it anew there (exclusively: nobody but
    the login user can plant a name in that 0700 directory). A note of how; ``RunError``
    when it cannot be removed; ``TargetChangedError`` (nothing touched) when the directory is
    gone or no longer as the suite made it."""
    try:
        there = await check_test_dir(transport, target, test_dir)
    except RunError as exc:
        raise TargetChangedError(str(exc)) from exc
    if not there:
        raise TargetChangedError(
            f"{transport.host_name}: {test_dir}, the suite's directory, is gone; resume the "
            "suite to go on in a new one"
        )
    test_file = test_file_in(test_dir)
    said = await _quietly(transport, ["rm", "-f", "--", test_file])
    if said:
        raise RunError(f"{transport.host_name}: could not remove {test_file}: {said}")
    return f"a new test file ({test_file} removed; the next job makes it anew)"


async def remove_test_dir(transport: Transport, target: str, test_dir: str) -> str:
    """Remove the suite's test file and then its (empty) directory, after checking that it is
    still the suite's; a note of what happened."""
    try:
        if not await check_test_dir(transport, target, test_dir):
            return f"{test_dir} was already gone"
    except RunError as exc:
        return f"left as it is: {exc}"
    test_file = test_file_in(test_dir)
    said = await _quietly(transport, ["rm", "-f", "--", test_file])
    said = said or await _quietly(transport, ["rmdir", "--", test_dir])
    if said:
        return f"could not remove {test_dir}: {said}"
    return f"test file {test_file} and its directory removed"


async def _quietly(transport: Transport, argv: list[str]) -> str:
    """Run a clean-up command: "" when it worked, else what went wrong."""
    try:
        result = await transport.run(argv, timeout_s=60.0)
    except (TransportError, TimeoutError, OSError) as exc:
        return str(exc)
    return "" if result.exit_status == 0 else result.stderr.strip()[:160] or "failed"
