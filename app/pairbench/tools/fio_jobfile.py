"""A user's own fio job file: read as fio reads it (INI sections), checked for what would
defeat Pairbench's control of the run, its jobs listed, and the argv that runs it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from pairbench.domain import LineSource
from pairbench.tools.base import CommandContext, Commands, ParamError
from pairbench.tools.params import FileNameParam, Param, file_name

MAX_JOBFILE_CHARS: Final = 64 * 1024
MAX_JOBS: Final = 64
MAX_NUMJOBS: Final = 256
DEFAULT_NAME: Final = "job.fio"

_OUTPUT = (
    "Pairbench sets fio's output itself (--output-format=json+, --status-interval from its "
    "status_interval parameter): its live plots and the summary read it"
)
_COMMAND = "it runs a program on the host, which a job file run by Pairbench may not do"
_HOST_FILE = (
    "it names a file on the host that Pairbench neither uploads nor removes (relative names "
    "are taken from fio's working directory, not the run's): leave it out"
)
_LOG = (
    "fio would write log files in its working directory, where nothing removes them; "
    "Pairbench's series come from the json+ documents: leave it out"
)
_REPORT = (
    "Pairbench's summary and latency histogram need fio's default reporting (reads and "
    "writes apart, the default completion-latency percentiles): leave it out"
)
_DIRECTORY = (
    "the jobs' directory is the run's own work directory (removed after the run with the "
    "test files): leave it out, and choose the file system with Pairbench's directory "
    "parameter (pairbench run ... --set directory=/mnt/test)"
)

# Options a job file may not set, and why. Names as fio spells them (and their aliases).
REFUSED: Final[Mapping[str, str]] = {
    **dict.fromkeys(
        (
            "output",
            "output-format",
            "status-interval",
            "eta",
            "eta-newline",
            "eta-interval",
            "minimal",
            "terse-version",
            "append-terse",
            "bandwidth-log",
            "latency-log",
        ),
        _OUTPUT,
    ),
    **dict.fromkeys(
        ("exec_prerun", "exec_postrun", "trigger", "trigger-file", "trigger-remote"), _COMMAND
    ),
    **dict.fromkeys(
        ("write_bw_log", "write_lat_log", "write_iops_log", "write_hist_log", "write_iolog"),
        _LOG,
    ),
    **dict.fromkeys(
        ("read_iolog", "merge_blktrace_file", "replay_redirect", "opendir", "ioscheduler"),
        _HOST_FILE,
    ),
    **dict.fromkeys(
        ("unified_rw_reporting", "percentile_list", "clat_percentiles", "lat_percentiles"),
        _REPORT,
    ),
    "directory": _DIRECTORY,
}
# I/O engines on the host's own storage. Others send I/O elsewhere (net, rdma, http, nbd,
# nfs, rbd...), run programs (exec) or load code (external:/path.so).
IOENGINES: Final = frozenset(
    {
        "sync",
        "psync",
        "vsync",
        "pvsync",
        "pvsync2",
        "libaio",
        "io_uring",
        "posixaio",
        "mmap",
        "splice",
        "null",
        "falloc",
        "filecreate",
        "filestat",
        "filedelete",
        "ftruncate",
    }
)
_ALIASES: Final = {"readwrite": "rw", "blocksize": "bs", "timeout": "runtime"}
_PATH_OPTIONS: Final = ("filename", "filename_format")
# What the job list shows of each job, with fio's default when the file does not say.
SHOWN: Final = (
    ("rw", "read"),
    ("bs", "4k"),
    ("iodepth", "1"),
    ("numjobs", "1"),
    ("size", ""),
    ("runtime", ""),
    ("ioengine", ""),
    ("filename", ""),
)


class JobFileError(ParamError):
    """A job file Pairbench will not run: the message names the line and what to change."""


@dataclass(frozen=True, slots=True)
class FioJob:
    """One job section with the options it runs with: the ``[global]`` sections above it,
    then its own (a later value wins), as fio applies them."""

    name: str
    line: int
    options: Mapping[str, str]

    def option(self, key: str, default: str = "") -> str:
        """The option's value (``""`` for a flag without one); ``default`` if not set."""
        return self.options.get(key, default)

    def shown(self) -> dict[str, str]:
        """The job's main options, for the list shown before a run starts."""
        return {"name": self.name, **{k: self.option(k, d) for k, d in SHOWN}}


def _strip_comment(text: str) -> str:
    """A line without what follows ``;`` or ``#`` (fio's comments), blanks trimmed."""
    for mark in (";", "#"):
        text = text.split(mark, 1)[0]
    return text.strip()


def parse_job_file(text: str) -> list[FioJob]:
    """The jobs of a job file, as fio reads it; ``JobFileError`` for what fio would refuse
    (an option outside a section, no job) or Pairbench cannot check (``include``)."""
    if len(text) > MAX_JOBFILE_CHARS:
        raise JobFileError(f"job file longer than {MAX_JOBFILE_CHARS // 1024} KiB")
    if "\x00" in text:
        raise JobFileError("job file has NUL characters: not a text file")
    jobs: list[FioJob] = []
    defaults: dict[str, str] = {}
    current: dict[str, str] | None = None
    section: tuple[str, int] | None = None

    def close() -> None:
        if section is not None and current is not None and not _is_global(section[0]):
            jobs.append(FioJob(section[0], section[1], {**defaults, **current}))

    for number, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        if not line:
            continue
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                raise JobFileError(f"line {number}: {line[:60]!r} is not a [section] header")
            close()
            section, current = (line[1:-1].strip(), number), {}
            if _is_global(section[0]):
                current = defaults  # a [global] section sets the defaults of the jobs after it
            continue
        if line.startswith("include"):
            raise JobFileError(
                f"line {number}: include: the included file would be neither checked nor "
                "uploaded; put its options in this file"
            )
        if current is None:
            raise JobFileError(f"line {number}: option {line[:60]!r} outside a [section]")
        key, _, value = line.partition("=")
        current[_ALIASES.get(key.strip(), key.strip())] = value.strip()
    close()
    if not jobs:
        raise JobFileError("job file has no job: add a [name] section after [global]")
    if len(jobs) > MAX_JOBS:
        raise JobFileError(f"job file has {len(jobs)} jobs; at most {MAX_JOBS}")
    return jobs


def _is_global(section: str) -> bool:
    return section.startswith("global")  # fio: any section whose name starts with "global"


def check_job_file(text: str) -> list[FioJob]:
    """The jobs of a job file Pairbench may run; ``JobFileError`` saying what to change.

    Refused: the options in ``REFUSED`` (output control, programs, files outside the work
    directory, reporting that the summary cannot read), an ``ioengine`` not in ``IOENGINES``,
    a ``filename`` that is absolute, ``-`` or has ``..`` (test files are relative names in
    the run's work directory), ``${VAR}`` (no environment is passed), ``numjobs`` above
    ``MAX_NUMJOBS`` and ``time_based`` without ``runtime`` (a run that never ends).
    """
    jobs = parse_job_file(text)
    for job in jobs:
        where = f"job [{job.name}] (line {job.line})"
        for key, value in job.options.items():
            reason = REFUSED.get(key.lower())
            if reason is not None:
                raise JobFileError(f"{where}: {key}: {reason}")
            if "${" in value:
                raise JobFileError(
                    f"{where}: {key}={value}: Pairbench passes no environment variables to "
                    "fio; write the value itself"
                )
        engine = job.option("ioengine")
        if engine and engine not in IOENGINES:
            raise JobFileError(
                f"{where}: ioengine={engine}: Pairbench runs job files on the host's own "
                f"storage only: one of {', '.join(sorted(IOENGINES))}"
            )
        for key in _PATH_OPTIONS:
            if key in job.options:
                _check_relative(where, key, job.options[key])
        numjobs = job.option("numjobs", "1")
        if numjobs.isdigit() and int(numjobs) > MAX_NUMJOBS:
            raise JobFileError(f"{where}: numjobs={numjobs}: at most {MAX_NUMJOBS}")
        time_based = job.option("time_based", "0") not in ("0", "false")
        if time_based and job.option("runtime") in ("", "0"):
            raise JobFileError(f"{where}: time_based without runtime would never end: add one")
    return jobs


def _check_relative(where: str, key: str, value: str) -> None:
    """Every ``:``-separated name (``\\:`` escapes a colon) relative, inside the work dir."""
    for name in re.split(r"(?<!\\):", value):
        parts = name.split("/")
        if not name or name == "-" or name.startswith("/") or ".." in parts:
            raise JobFileError(
                f"{where}: {key}={value}: test files are relative names, made in the run's "
                "work directory (choose its file system with Pairbench's directory parameter; "
                "test a raw device with the device parameter, without a job file)"
            )


def job_file_name(path_or_name: str) -> str:
    """The name the job file is stored and uploaded under (``params.file_name``)."""
    return file_name(path_or_name, DEFAULT_NAME)


@dataclass(frozen=True, slots=True)
class JobNameParam(FileNameParam):
    """``jobfile``: the job file's name (the CLI and the run panel read the file at a path
    and give its name and text: see ``services.fio_jobs``)."""

    button: str = "Job file…"


@dataclass(frozen=True, slots=True)
class JobTextParam(Param):
    """``jobfile_text``: the job file's text, checked by ``check_job_file``."""

    def check(self, raw: str) -> str:
        text = raw.replace("\r\n", "\n")
        if text.strip():
            check_job_file(text)
        return text if text.strip() else ""


# Parameters that still apply with a job file (the file says everything else).
WITH_JOBFILE: Final = ("jobfile", "jobfile_text", "directory", "status_interval")


def resolve_job_file(resolved: Mapping[str, str], defaults: Mapping[str, str]) -> dict[str, str]:
    """The parameters of a job-file run (from fully resolved ones): only ``WITH_JOBFILE``;
    any other parameter given is refused, as the file decides it."""
    if not resolved["jobfile_text"]:
        raise ParamError(
            "jobfile needs the job file's text: give its path (pairbench run --set "
            "jobfile=PATH, or the run panel's Job file… button)"
        )
    others = sorted(k for k, v in resolved.items() if k not in WITH_JOBFILE and v != defaults[k])
    if others:
        raise ParamError(
            f"{', '.join(others)}: set in the job file, not with a job file's run "
            f"(only {', '.join(WITH_JOBFILE)} apply)"
        )
    return {
        "jobfile": resolved["jobfile"] or DEFAULT_NAME,
        "jobfile_text": resolved["jobfile_text"],
        "directory": resolved["directory"],
        "status_interval": resolved["status_interval"],
    }


_SECONDS_RE: Final = re.compile(r"(\d{1,9})(us|usec|ms|msec|s|m|h|d)?")
_SECONDS: Final = {"us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "s": 1.0, "m": 60.0}


def _seconds(text: str) -> float:
    match = _SECONDS_RE.fullmatch(text.strip())
    if match is None:
        return 0.0
    unit = match.group(2) or "s"
    return int(match.group(1)) * {**_SECONDS, "h": 3600.0, "d": 86400.0}[unit]


def expected_seconds(text: str) -> float:
    """How long the job file should run: its ``stonewall`` groups one after another, each as
    long as its longest ``runtime`` + ``ramp_time`` (0 when no job says)."""
    total = group = 0.0
    for job in parse_job_file(text):
        if "stonewall" in job.options or "wait_for_previous" in job.options:
            total, group = total + group, 0.0
        length = _seconds(job.option("runtime", "0")) + _seconds(job.option("ramp_time", "0"))
        group = max(group, length)
    return total + group


def job_file_commands(
    params: Mapping[str, str], ctx: CommandContext, directory: str, status_option: str
) -> Commands:
    """``fio`` on the job file uploaded into the work directory, with Pairbench's output
    options; ``--directory`` (``directory``: the work directory) puts the jobs' relative
    test files there, and ``--aux-path`` the files fio writes of itself (a ``verify`` job cut
    short saves ``*-verify.state``, else in fio's working directory, where nothing removes
    it)."""
    name = params["jobfile"]
    path = f"{ctx.workdir.rstrip('/')}/{name}" if ctx.workdir else name
    argv = [
        "fio",
        "--output-format=json+",
        status_option,
        "--eta=never",
        f"--directory={directory}",
        f"--aux-path={directory}",
        path,
    ]
    return Commands(
        client=argv,
        server=None,
        files={name: params["jobfile_text"]},
        run_on="server",
        parse=(LineSource.CLIENT_OUT, LineSource.CLIENT_ERR),
    )
