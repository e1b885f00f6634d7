"""The paths a fio job file's jobs open, as fio 3.33 names them (``directory``, ``filename``
lists, ``filename_format``, ``numjobs`` × ``nrfiles``, e4defrag's ``donorname``): relative ones
in the run's work directory (fio's working directory there), absolute ones checked on the
host before the run (``fio_jobhost``); and for each, whether a job would destroy its data."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from pairbench.tools.fio_engines import DESTRUCTIVE
from pairbench.tools.fio_jobtext import FioJob, JobFileError

# Most absolute paths a job file may name outside the work directory (each checked).
MAX_PATHS: Final = 256
# rw values that only read (fio's rw, before its ":N" offset modifier).
READ_ONLY: Final = frozenset({"read", "randread"})
# fio's filename_format keywords (init.c fpre_keywords), replaced in this order, any case;
# $clientuid is the client's address in client/server mode: "" when fio runs alone.
_FORMAT_KEYWORDS: Final = ("$jobname", "$jobnum", "$filenum", "$clientuid")
_SIZE_RE: Final = re.compile(r"(\d{1,18})\s*([kmgtp]?)(i?b?)", re.IGNORECASE)
_FALSE: Final = frozenset({"0", "false", "no", "off"})


@dataclass(slots=True)
class PathUse:
    """An absolute path the jobs open: whether one of them writes, truncates or removes it,
    and the most bytes a reading job needs of an existing file (fio lays out again, deleting
    it, a file smaller than that; None: not known, as if it were written)."""

    path: str
    writes: bool = False
    needs: int | None = 0
    jobs: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class JobPaths:
    """Where the jobs' files are: ``folders`` (relative ``directory=`` folders, made in the
    work directory before fio starts), ``directories`` (absolute ``directory=`` folders,
    checked), ``files`` (absolute files and devices, checked)."""

    folders: tuple[str, ...] = ()
    directories: tuple[str, ...] = ()
    files: tuple[PathUse, ...] = ()

    def paths(self) -> set[str]:
        """Every absolute path the jobs name (folders and files)."""
        return {*self.directories, *(use.path for use in self.files)}


def split_names(value: str) -> list[str]:
    """A ``:``-separated list as fio reads it (``get_next_str``): ``\\:`` is a colon in a
    name, empty names (``::``, a leading or trailing ``:``) are skipped."""
    names: list[str] = []
    name = ""
    for part in value.strip().split(":"):
        if part.endswith("\\"):
            name += part[:-1] + ":"
            continue
        name += part
        if name:
            names.append(name)
        name = ""
    if name:
        names.append(name)
    return names


def fio_bytes(text: str) -> int | None:
    """A fio size in bytes (``4k``, ``1G``, ``512MiB``; fio's default base 1024); None when
    it is none Pairbench reads (a percentage, an expression, ``$mb_memory``)."""
    match = _SIZE_RE.fullmatch(text.strip())
    if match is None:
        return None
    power = " kmgtp".index(match.group(2).lower() or " ")
    return int(match.group(1)) << (10 * power)


def _flag(job: FioJob, key: str) -> bool:
    return key in job.options and job.option(key).strip().lower() not in _FALSE


def job_writes(job: FioJob) -> bool:
    """True when the job may change the data of the files it opens: any rw but a read, an
    engine that changes files whatever rw says, ``unlink``."""
    rw = job.option("rw", "read").partition(":")[0].strip()
    engine = job.option("ioengine").strip()
    return (
        rw not in READ_ONLY
        or engine in DESTRUCTIVE
        or _flag(job, "unlink")
        or _flag(job, "unlink_each_loop")
    )


def _needs(job: FioJob) -> int | None:
    """The bytes a reading job needs of an existing file (0: whatever it holds)."""
    low, _, high = job.option("filesize").partition("-")
    size_text = (high or low) if "filesize" in job.options else job.option("size")
    if not size_text.strip() or size_text.strip().endswith("%"):
        return 0
    size, offset = fio_bytes(size_text), fio_bytes(job.option("offset", "0"))
    return None if size is None or offset is None else size + offset


def _format_name(fmt: str, job: str, jobnum: int, filenum: int) -> str:
    """A file name from ``filename_format`` as fio's ``make_filename`` makes it."""
    if not fmt:
        return f"{job}.{jobnum}.{filenum}"
    values = (job, str(jobnum), str(filenum), "")
    for keyword, value in zip(_FORMAT_KEYWORDS, values, strict=True):
        fmt = re.sub(re.escape(keyword), value.replace("\\", "\\\\"), fmt, flags=re.IGNORECASE)
    return fmt


def _count(job: FioJob, key: str) -> int:
    value = job.option(key, "1").strip()
    if not value.isdigit() or not 0 < int(value) <= 4096:
        raise JobFileError(
            f"{job.where}: {key}={value}: Pairbench must tell the files this job opens "
            "outside the work directory: a whole number, at most 4096"
        )
    return int(value)


def _check_name(job: FioJob, key: str, name: str) -> None:
    """A name fio would open: absolute and normalised, or relative inside the work directory."""
    if name == "-":
        raise JobFileError(f"{job.where}: {key}=-: fio's standard input or output: name a file")
    if name.startswith("/"):
        if posixpath.normpath(name) != name or name.startswith("//"):
            raise JobFileError(
                f"{job.where}: {key}={name}: an absolute path is written without '..', '.', "
                "'//' or a trailing '/'"
            )
    elif ".." in name.split("/"):
        raise JobFileError(
            f"{job.where}: {key}={name}: a relative name with '..' leaves the run's work "
            "directory: give an absolute path instead"
        )


def _join(directory: str, name: str) -> str:
    """fio's name of a file in a directory (``directory/name``, "" for none): a name that is
    absolute stays under the directory (fio writes ``dir//abs``)."""
    if not directory:
        return name
    return posixpath.normpath(f"{directory}/{name}")


def _job_files(job: FioJob, dirs: list[str]) -> Iterable[str]:
    """The names of the files the job opens (relative ones included)."""
    names = split_names(job.option("filename"))
    for name in names:
        _check_name(job, "filename", name)
    if names:
        return [_join(dirs[0], name) for name in names]
    fmt = job.option("filename_format")
    if fmt:
        _check_name(job, "filename_format", fmt)
    absolute = any(d.startswith("/") for d in dirs) or fmt.startswith("/")
    if not absolute:
        lone = job.option("nrfiles", "1") == "1" and dirs == [""] and not fmt
        if job.name.startswith("/") and lone:
            raise JobFileError(
                f"{job.where}: a job named like a path with no filename: fio opens that path "
                "itself when it is a device. Name the file with filename="
            )
        return []  # every file is in the work directory: fio names them itself
    numjobs, nrfiles = _count(job, "numjobs"), _count(job, "nrfiles")
    if numjobs * nrfiles > MAX_PATHS:
        raise _too_many(job)
    return [
        _join(dirs[jobnum % len(dirs)], _format_name(fmt, job.name, jobnum, filenum))
        for jobnum in range(numjobs)
        for filenum in range(nrfiles)
    ]


def _too_many(job: FioJob) -> JobFileError:
    return JobFileError(
        f"{job.where}: the job file opens more than {MAX_PATHS} files outside the work "
        "directory; Pairbench checks each: use fewer, or leave directory= out (the run's own "
        "work directory then holds them)"
    )


def job_paths(jobs: Iterable[FioJob]) -> JobPaths:
    """Where the jobs' files are (``JobPaths``); ``JobFileError`` for a name fio could not be
    held to: ``-``, a relative name with ``..``, an absolute one not normalised, too many."""
    folders: list[str] = []
    directories: list[str] = []
    files: dict[str, PathUse] = {}
    for job in jobs:
        dirs = split_names(job.option("directory")) or [""]
        for directory in dirs:
            _check_name(job, "directory", directory)
            target = directories if directory.startswith("/") else folders
            if directory and directory not in target:
                target.append(directory)
        names = list(_job_files(job, dirs))
        writes, needs = job_writes(job), _needs(job)
        donor = job.option("donorname") if job.option("ioengine") == "e4defrag" else ""
        if donor:
            _check_name(job, "donorname", donor)
        uses = [(name, writes, needs) for name in names]
        uses += [(_join(job.option("directory"), donor), True, 0)] if donor else []
        for name, write, need in uses:
            if not name.startswith("/"):
                continue
            use = files.setdefault(name, PathUse(name))
            use.writes = use.writes or write
            use.needs = None if use.needs is None or need is None else max(use.needs, need)
            if job.name not in use.jobs:
                use.jobs.append(job.name)
            if len(files) > MAX_PATHS:
                raise _too_many(job)
    return JobPaths(tuple(folders), tuple(directories), tuple(files.values()))
