"""A fio job file's text as fio reads it: ``[sections]``, ``key=value`` options, comments, the
``[global]`` sections that set the defaults of the jobs after them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final

from pairbench.tools.base import ParamError

MAX_JOBFILE_CHARS: Final = 64 * 1024
MAX_JOBS: Final = 64
_ALIASES: Final = {
    "readwrite": "rw",
    "blocksize": "bs",
    "timeout": "runtime",
    "nr_files": "nrfiles",
}
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

    @property
    def where(self) -> str:
        """The job as a refusal names it: ``job [name] (line N)``."""
        return f"job [{self.name}] (line {self.line})"


def comment_start(text: str) -> int:
    """Where fio's comment starts in a line (its first ``;`` or ``#``: fio's
    ``strip_blank_end``), or the line's length."""
    marks = [i for i in (text.find(";"), text.find("#")) if i >= 0]
    return min(marks) if marks else len(text)


def strip_comment(text: str) -> str:
    """A line without its comment, blanks trimmed."""
    return text[: comment_start(text)].strip()


def option_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of each option line (not a comment, a blank line nor a
    ``[section]`` header), as fio reads them."""
    for number, raw in enumerate(text.splitlines(), 1):
        line = strip_comment(raw)
        if line and not line.startswith("["):
            yield number, raw


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
        line = strip_comment(raw)
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
