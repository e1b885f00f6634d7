"""The run form's field for a fio job file: its text (editable), a "Job file…" button that
reads one from this computer, and the list of its jobs (or what is wrong with it), shown
before the run starts."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from pairbench.services.fio_jobs import JobFile, check_job_text, job_lines, read_job_file
from pairbench.ui.run.text_file_field import FileKind, TextFileField


def _jobs(text: str) -> list[str]:
    job = check_job_text(text)
    count = len(job.jobs)
    uses = [f"variables: {', '.join(job.variables)} (their values below)"] if job.variables else []
    return [f"{count} job{'s' if count != 1 else ''}:", *job_lines(job), *uses]


def _read(path: str) -> tuple[str, str]:
    job = read_job_file(path)
    return job.name, job.text


JOB_FILE = FileKind(
    button="Job file…",
    tooltip="Read a fio job file from this computer",
    dialog="fio job file",
    file_filter="fio job files (*.fio *.ini *.job);;All files (*)",
    placeholder="[global]\nioengine=libaio\n…\n[job1]\nrw=randread",
    accessible="fio job file text",
    empty="No job file: the options of this form run.",
    check=_jobs,
    read=_read,
)


class JobTextField(TextFileField):
    """A job file's text with its jobs listed below (``TextFileField`` for fio)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(JOB_FILE, parent)

    @property
    def job(self) -> JobFile | None:
        """The job file as checked (None while empty or refused)."""
        return check_job_text(self.text()) if self.valid else None

    def variables(self) -> list[str]:
        """The ``${VAR}``s the text uses (none while empty or refused)."""
        job = self.job
        return job.variables if job is not None else []
