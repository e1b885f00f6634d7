"""A user's fio job file for a run: read on this computer, checked before anything starts,
its jobs listed, and the run parameters that carry it (``jobfile`` = its name,
``jobfile_text`` = its text, uploaded into the run's work directory by the tool)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pairbench.domain.failures import UserFileError
from pairbench.domain.user_files import read_text
from pairbench.tools.fio_jobenv import env_settings, format_env, parse_env, references
from pairbench.tools.fio_jobfile import (
    MAX_JOBFILE_CHARS,
    SHOWN,
    JobFileError,
    check_job_file,
    job_file_name,
)

__all__ = [
    "JobFile",
    "JobFileError",
    "check_job_text",
    "format_env_values",
    "format_jobs",
    "job_file_params",
    "job_lines",
    "read_env_values",
    "read_job_file",
]


@dataclass(frozen=True, slots=True)
class JobFile:
    """A checked job file: the name it is stored under, its text, and its jobs' main
    options (``name``, ``rw``, ``bs``, ``iodepth``, ``numjobs``, ``size``, ``runtime``,
    ``ioengine``, ``filename``; "" where the file does not say and fio has no default; with
    its ``${VAR}``s filled when their values were given), and the variables it uses."""

    name: str
    text: str
    jobs: list[dict[str, str]]
    variables: list[str] = field(default_factory=list)


def check_job_text(text: str, name: str = "", env: Mapping[str, str] | None = None) -> JobFile:
    """``text`` as a job file named ``name``, its variables filled from ``env`` (None: not
    known yet, so their options are checked later); ``JobFileError`` says what to change."""
    text = text.replace("\r\n", "\n")
    jobs = check_job_file(text, env)
    return JobFile(job_file_name(name), text, [job.shown() for job in jobs], references(text))


def read_job_file(path: str | Path, env: Mapping[str, str] | None = None) -> JobFile:
    """The job file at ``path`` on this computer, checked; ``JobFileError`` if it cannot be
    read (``domain.user_files.read_text``: a regular file, not too large, text), or would
    not be run (``tools.fio_jobfile.check_job_file``)."""
    file = Path(path).expanduser()
    try:
        text = read_text(file, what="job file", limit=MAX_JOBFILE_CHARS * 4, errors="strict")
    except UserFileError as exc:
        raise JobFileError(str(exc)) from None
    try:
        return check_job_text(text, file.name, env)
    except JobFileError as exc:
        raise JobFileError(f"{file}: {exc}") from exc


def job_file_params(params: Mapping[str, str]) -> tuple[dict[str, str], JobFile | None]:
    """The run parameters with the job file read: ``jobfile=PATH`` (a file on this
    computer) becomes its name and ``jobfile_text`` its text; a ``jobfile_text`` given
    (a stored run's, run again) is checked as it is; ``env.NAME=value`` (the CLI's form of a
    variable's value) goes into ``jobfile_env``, and the file is checked with its variables
    filled. None: no job file."""
    out = env_settings(params)
    given_text = out.get("jobfile_text", "")
    env = parse_env(out.get("jobfile_env", ""))
    if given_text.strip():
        job = check_job_text(given_text, out.get("jobfile", ""), env)
    elif out.get("jobfile", "").strip():
        job = read_job_file(out["jobfile"].strip(), env)
    else:
        if env:
            raise JobFileError("jobfile_env (env.NAME=value) applies to a job file only")
        return out, None
    out["jobfile"], out["jobfile_text"] = job.name, job.text
    return out, job


def format_jobs(job: JobFile) -> list[str]:
    """The job list as text lines: a header, then one line per job."""
    keys = ["name", *(key for key, _ in SHOWN)]
    rows = [[row.get(key, "") or "-" for key in keys] for row in job.jobs]
    widths = [max(len(key), *(len(r[i]) for r in rows)) for i, key in enumerate(keys)]
    lines = [f"job file {job.name}: {len(job.jobs)} job{'s' if len(job.jobs) != 1 else ''}"]
    for cells in ([*keys], *rows):
        lines.append("  " + "  ".join(_cells(cells, widths)).rstrip())
    return lines


def job_lines(job: JobFile) -> list[str]:
    """One short line per job (for a narrow panel): its name, then the options it sets or
    fio's default for them, ``key=value`` (``rw``'s value alone)."""
    lines = []
    for row in job.jobs:
        options = " ".join(f"{k}={row[k]}" for k, _ in SHOWN[1:] if row.get(k))
        lines.append(f"[{row['name']}] {row.get('rw', '')} {options}".rstrip())
    return lines


def _cells(cells: Sequence[str], widths: Sequence[int]) -> list[str]:
    return [cell.ljust(width) for cell, width in zip(cells, widths, strict=True)]


def format_env_values(values: Mapping[str, str]) -> str:
    """``jobfile_env`` from a form's values (those left empty are not given)."""
    return format_env({name: value for name, value in values.items() if value})


def read_env_values(raw: str) -> dict[str, str]:
    """The ``NAME=value`` items of ``jobfile_env`` that are well formed (for a form)."""
    values: dict[str, str] = {}
    for item in raw.split():
        try:
            values.update(parse_env(item))
        except JobFileError:
            continue
    return values
