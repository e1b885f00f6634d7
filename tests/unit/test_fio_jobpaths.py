"""The paths a job file's jobs open, against fio itself: each job file below runs in real fio
3.33 (tiny files in ``tmp_path``, ``--debug=file``, which prints every file fio adds to a job
as ``"PATH" added at N``), and the absolute paths ``fio_jobpaths.job_paths`` names are exactly
those fio opened (relative ones are the work directory's); then which of them a job writes."""

from __future__ import annotations

import posixpath
import re
import subprocess
from pathlib import Path

import pytest

from pairbench.tools.fio_jobpaths import job_paths, split_names
from pairbench.tools.fio_jobtext import JobFileError, parse_job_file
from testkit import require_program

ADDED = re.compile(r'"(.*)" added at \d+')

# Each job file with T for the test's own folder (absolute paths under it), and its
# directory= folders.
CASES = {
    "directories in turn": ("[a]\ndirectory=T/d1:T/d2\nnumjobs=3\nnrfiles=2\n", ["d1", "d2"]),
    "names in a directory": ("[b]\ndirectory=T/d1\nfilename=x\\:y:T/abs/z\n", ["d1"]),
    "a format": ("[c]\nfilename_format=T/f.$JobName.$jobnum.$filenum\nnrfiles=2\nnumjobs=2\n", []),
    "absolute names": ("[d]\nfilename=T/one:T/two\nnumjobs=2\n", []),
    "a format in a directory": (
        "[e]\ndirectory=T/d2\nfilename_format=$jobname-$filenum\nnrfiles=3\n",
        ["d2"],
    ),
    "empty names skipped": ("[f]\nfilename=:T/lead::T/next:\n", []),
    "relative and absolute": ("[g]\nfilename=rel.bin:T/abs.bin\n[h]\nnrfiles=2\n", []),
}


def _fio_files(tmp_path: Path, text: str) -> set[str]:
    """The files fio adds to the jobs of ``text``, run in ``tmp_path`` (its cwd)."""
    require_program("fio")
    job = tmp_path / "job.fio"
    job.write_text("[global]\nsize=16k\nbs=4k\nioengine=psync\nrw=write\n" + text)
    done = subprocess.run(
        ["fio", "--debug=file", "--output-format=terse", str(job)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    # fio adds the files before it opens any: a job that then fails (a folder missing) counts
    return set(ADDED.findall(done.stdout + done.stderr))


@pytest.mark.parametrize(("template", "folders"), list(CASES.values()), ids=list(CASES))
def test_the_absolute_paths_are_those_fio_opens(
    tmp_path: Path, template: str, folders: list[str]
) -> None:
    for folder in ("d1", "d2", "abs"):
        (tmp_path / folder).mkdir()
    text = template.replace("T/", f"{tmp_path}/")
    opened = _fio_files(tmp_path, text)
    assert opened
    fio_absolute = {posixpath.normpath(p) for p in opened if p.startswith("/")}
    paths = job_paths(parse_job_file(text))
    assert {use.path for use in paths.files} == fio_absolute
    assert paths.directories == tuple(f"{tmp_path}/{folder}" for folder in folders)


def test_fios_list_syntax() -> None:
    assert split_names("a:b\\:c:/d") == ["a", "b:c", "/d"]
    assert split_names(":a::b:") == ["a", "b"]
    assert split_names("") == []


def test_which_paths_a_job_writes_and_how_much_a_reading_job_needs() -> None:
    text = (
        "[global]\nsize=1m\n"
        "[r]\nrw=randread\nfilename=/data/r\n"
        "[w]\nrw=randwrite\nfilename=/data/w\n"
        "[rw-shared]\nrw=read:-8k\nfilename=/data/r\noffset=64k\n"
        "[trim]\nrw=randtrim\nfilename=/data/t\n"
        "[unlink]\nrw=read\nunlink=1\nfilename=/data/u\n"
        "[gone]\nrw=read\nioengine=filedelete\nfilename=/data/d\n"
        "[pct]\nrw=read\nsize=50%\nfilename=/data/p\n"
        "[expr]\nrw=read\nsize=(2*$mb_memory)\nfilename=/data/e\n"
        "[defrag]\nrw=write\nioengine=e4defrag\ndirectory=/data\nfilename=f\ndonorname=don\n"
        "[null]\nfilename=/dev/null\n"
    )
    uses = {use.path: use for use in job_paths(parse_job_file(text)).files}
    assert not uses["/data/r"].writes and uses["/data/r"].needs == 2**20 + 64 * 1024
    assert uses["/data/r"].jobs == ["r", "rw-shared"]
    assert all(uses[p].writes for p in ("/data/w", "/data/t", "/data/u", "/data/d"))
    assert uses["/data/p"].needs == 0 and uses["/data/e"].needs is None
    assert uses["/data/don"].writes and uses["/data/f"].writes
    assert uses["/dev/null"].jobs == ["null"]


def test_relative_folders_are_made_in_the_work_directory_and_too_many_files_refused() -> None:
    paths = job_paths(parse_job_file("[a]\ndirectory=tmp:sub/x\n[b]\ndirectory=tmp\n"))
    assert paths.folders == ("tmp", "sub/x") and paths.files == ()
    with pytest.raises(JobFileError, match="more than 256 files"):
        job_paths(parse_job_file("[a]\ndirectory=/data\nnumjobs=20\nnrfiles=20\n"))
    with pytest.raises(JobFileError, match="a whole number"):
        job_paths(parse_job_file("[a]\ndirectory=/data\nnumjobs=$ncpus\n"))
    with pytest.raises(JobFileError, match="named like a path"):
        job_paths(parse_job_file("[/dev/sdb]\nrw=read\n"))
