"""A user's own fio job file: read as fio reads it (``fio_jobtext``), its ``${VAR}``s filled
(``fio_jobenv``), checked for what would defeat Pairbench's control of the run (options,
engines, paths: ``fio_jobpaths``), its jobs listed, and the argv that runs it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from pairbench.domain import LineSource
from pairbench.tools.base import CommandContext, Commands, ParamError
from pairbench.tools.fio_engines import ACCEPTED as IOENGINES
from pairbench.tools.fio_engines import engine_problem
from pairbench.tools.fio_jobenv import parse_env, references, substitute
from pairbench.tools.fio_jobpaths import JobPaths, job_paths, split_names
from pairbench.tools.fio_jobtext import MAX_JOBFILE_CHARS, MAX_JOBS, SHOWN, FioJob, JobFileError
from pairbench.tools.fio_jobtext import parse_job_file as parse_job_file
from pairbench.tools.fio_logs import COLLECT, LOG_OPTIONS, check_log_option, log_prefixes
from pairbench.tools.params import FileNameParam, Param, file_name

__all__ = [
    "IOENGINES",
    "MAX_JOBFILE_CHARS",
    "MAX_JOBS",
    "SHOWN",
    "FioJob",
    "JobFileError",
]

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
    "Pairbench stores fio's bandwidth, IOPS and latency logs with the run (write_bw_log, "
    "write_iops_log, write_lat_log), not histogram logs nor I/O traces: leave it out"
)
_COMPRESSED = (
    "fio would store its logs compressed, which Pairbench does not read (log_compression "
    "alone is fine: the files fio writes are not compressed)"
)
_REPORT = (
    "Pairbench's summary and latency histogram need reads and writes reported apart: leave it out"
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
    **dict.fromkeys(("write_hist_log", "write_iolog"), _LOG),
    "log_store_compressed": _COMPRESSED,
    **dict.fromkeys(
        ("read_iolog", "merge_blktrace_file", "replay_redirect", "opendir", "ioscheduler"),
        _HOST_FILE,
    ),
    "unified_rw_reporting": _REPORT,
}


def check_job_file(text: str, env: Mapping[str, str] | None = None) -> list[FioJob]:
    """The jobs of a job file Pairbench may run, its ``${VAR}``s filled from ``env``;
    ``JobFileError`` saying what to change.

    Refused: the options in ``REFUSED`` (output control, programs, files on the host that
    Pairbench neither uploads nor removes, reports that the summary cannot read), an
    ``ioengine`` that leaves the host or needs a special device or library
    (``fio_engines``), a path fio could not be held to (``fio_jobpaths.job_paths``: ``-``,
    ``..`` out of the work directory, too many), a log name with ``/``, ``numjobs`` above
    ``MAX_NUMJOBS`` and ``time_based`` without ``runtime`` (a run that never ends). With
    ``env`` None (the text alone, before the values are known), options whose value uses a
    variable are checked once the values are given.
    """
    if env is not None:
        text = substitute(text, env)
    else:
        references(text)  # names fio would read: checked now
    jobs = parse_job_file(text)
    deferred = False
    for job in jobs:
        for key, value in job.options.items():
            reason = REFUSED.get(key.lower())
            if reason is not None:
                raise JobFileError(f"{job.where}: {key}: {reason}")
            deferred = deferred or "${" in value
        _check_values(job)
    if not deferred:
        job_paths(jobs)
    return jobs


def _check_values(job: FioJob) -> None:
    """What one job's values may not be (a value that uses a variable: later)."""

    def known(key: str, default: str = "") -> str:
        value = job.option(key, default)
        return "" if "${" in value else value

    engine = known("ioengine")
    if engine and (problem := engine_problem(engine)):
        raise JobFileError(f"{job.where}: ioengine={engine}: {problem}")
    for key in LOG_OPTIONS:
        if known(key):
            check_log_option(job, key)
    numjobs = known("numjobs", "1")
    if numjobs.isdigit() and int(numjobs) > MAX_NUMJOBS:
        raise JobFileError(f"{job.where}: numjobs={numjobs}: at most {MAX_NUMJOBS}")
    time_based = known("time_based", "0") not in ("0", "false")
    if time_based and job.option("runtime") in ("", "0"):
        raise JobFileError(f"{job.where}: time_based without runtime would never end: add one")


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
WITH_JOBFILE: Final = (
    "jobfile",
    "jobfile_text",
    "jobfile_env",
    "directory",
    "confirm_destroy",
    "status_interval",
)


def run_text(params: Mapping[str, str]) -> str:
    """The job file as it runs: ``jobfile_text`` with its variables filled from
    ``jobfile_env`` (the text itself when it uses none)."""
    return substitute(params["jobfile_text"], parse_env(params.get("jobfile_env", "")))


def run_paths(params: Mapping[str, str]) -> JobPaths:
    """Where the resolved job file's files are (``fio_jobpaths.job_paths``)."""
    return job_paths(parse_job_file(run_text(params)))


def resolve_job_file(resolved: Mapping[str, str], defaults: Mapping[str, str]) -> dict[str, str]:
    """The parameters of a job-file run (from fully resolved ones): only ``WITH_JOBFILE``;
    any other parameter given is refused, as the file decides it. The file is checked with
    its variables filled (every one given a value, none given that it does not use), and
    ``confirm_destroy`` may name only paths it opens."""
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
    out = {key: resolved[key] for key in WITH_JOBFILE}
    out["jobfile"] = out["jobfile"] or DEFAULT_NAME
    check_job_file(out["jobfile_text"], parse_env(out["jobfile_env"]))
    opened = run_paths(out).paths()
    strange = [path for path in split_names(out["confirm_destroy"]) if path not in opened]
    if strange:
        raise ParamError(
            f"confirm_destroy names {strange[0]}, which the job file does not open (give the "
            "paths of its filename= and directory= options, apart by ':')"
        )
    return out


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
    """``fio`` on the job file (its variables filled) uploaded into the work directory, with
    Pairbench's output options (``status_option``: the status interval), run from the work
    directory (``env -C``): the jobs' relative files (and their relative ``directory=``
    folders, made there first) and fio's logs go there, and ``--aux-path`` the files fio
    writes of itself (a ``verify`` job cut short saves ``*-verify.state``); absolute paths
    are the job file's own, checked on the host before (``fio_jobhost``). The logs are
    brought back after the run (``Commands.collect``). Without a work directory,
    ``--directory`` puts the relative files in ``directory``."""
    name = params["jobfile"]
    text = run_text(params)
    jobs = parse_job_file(text)
    workdir = ctx.workdir.rstrip("/")
    output = ["--output-format=json+", status_option, "--eta=never"]
    if workdir:
        argv = ["env", "-C", workdir, "fio", *output, f"--aux-path={workdir}", f"{workdir}/{name}"]
    else:
        argv = ["fio", *output, f"--directory={directory}", f"--aux-path={directory}", name]
    return Commands(
        client=argv,
        server=None,
        files={name: text},
        run_on="server",
        parse=(LineSource.CLIENT_OUT, LineSource.CLIENT_ERR),
        folders=job_paths(jobs).folders,
        collect=COLLECT if log_prefixes(jobs) else (),
    )
