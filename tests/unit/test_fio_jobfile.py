"""tools.fio_jobfile and services.fio_jobs: a user's fio job file read as fio reads it,
refused where it would defeat Pairbench's control, its jobs listed, and the run it makes."""

from __future__ import annotations

import io
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.library.runs import list_runs
from pairbench.services.fio_jobs import (
    JobFileError,
    check_job_text,
    format_jobs,
    job_file_params,
    read_job_file,
)
from pairbench.services.library import open_library
from pairbench.tools import fio
from pairbench.tools.base import Capabilities, CommandContext, ParamError
from pairbench.tools.fio_engines import REFUSED as ENGINE_REASONS
from pairbench.tools.fio_jobfile import (
    IOENGINES,
    MAX_NUMJOBS,
    REFUSED,
    check_job_file,
    expected_seconds,
    job_file_name,
    parse_job_file,
)
from testkit import require_program

TWO_JOBS = """\
; a comment line
# another one
[global]
ioengine=libaio   ; inline comment
direct=1
size=64m
bs=4k
runtime=10
time_based

[reads]
readwrite=randread
iodepth=16
numjobs=2

[global]
bs=128k

[writes]
rw=write
filename=data.bin
"""


def minimal(extra: str, section: str = "job") -> str:
    return f"[global]\nsize=1m\n[{section}]\nrw=read\n{extra}\n"


# --------------------------------------------------------------------------- good files


def test_two_jobs_inherit_the_globals_above_them_only() -> None:
    reads, writes = check_job_file(TWO_JOBS)
    assert (reads.name, writes.name) == ("reads", "writes")
    assert reads.option("rw") == "randread"  # fio's alias readwrite
    assert reads.option("ioengine") == "libaio"  # inline comment cut, blanks trimmed
    assert reads.option("bs") == "4k"  # the second [global] comes after it
    assert writes.option("bs") == "128k"
    assert writes.option("time_based") == ""  # a flag: set, no value
    assert writes.option("iodepth", "1") == "1"
    assert reads.line == TWO_JOBS.splitlines().index("[reads]") + 1


def test_job_rows_show_main_options_with_fio_defaults() -> None:
    rows = check_job_text(TWO_JOBS, "/home/me/my jobs.fio").jobs
    assert [row["name"] for row in rows] == ["reads", "writes"]
    assert rows[0] | {} == {
        "name": "reads", "rw": "randread", "bs": "4k", "iodepth": "16", "numjobs": "2",
        "size": "64m", "runtime": "10", "ioengine": "libaio", "filename": "",
    }  # fmt: skip
    assert rows[1]["numjobs"] == "1" and rows[1]["filename"] == "data.bin"


def test_format_jobs_lists_every_job_under_a_header() -> None:
    job = check_job_text(TWO_JOBS, "mine.fio")
    lines = format_jobs(job)
    assert lines[0] == "job file mine.fio: 2 jobs"
    assert lines[1].split() == ["name", "rw", "bs", "iodepth", "numjobs", "size", "runtime",
                                "ioengine", "filename"]  # fmt: skip
    assert lines[2].split()[:3] == ["reads", "randread", "4k"]
    assert lines[3].split()[-1] == "data.bin"


def test_a_global_named_globalsomething_is_global_and_relative_names_pass() -> None:
    text = "[global-x]\nsize=1m\n[a]\nrw=read\nfilename=dir/one:two\\:three\n"
    (job,) = check_job_file(text)
    assert job.option("size") == "1m"


@pytest.mark.parametrize("engine", sorted(IOENGINES))
def test_local_engines_are_accepted(engine: str) -> None:
    assert check_job_file(minimal(f"ioengine={engine}"))


def test_time_based_with_runtime_from_global_is_accepted() -> None:
    assert check_job_file("[global]\nruntime=5\ntime_based\nsize=1m\n[a]\nrw=read\n")


# --------------------------------------------------------------------------- refused files


@pytest.mark.parametrize("option", sorted(REFUSED))
def test_each_refused_option_is_refused_with_its_reason(option: str) -> None:
    for text in (minimal(f"{option}=x"), f"[global]\n{option}=x\n[job]\nrw=read\n"):
        with pytest.raises(JobFileError, match=rf"\[job\].*{option}: "):
            check_job_file(text)


@pytest.mark.parametrize(
    ("engine", "words"),
    [
        ("exec", "runs a program"),
        ("external:/tmp/x.so", "loads code"),
        ("net", "over the network"),
        ("rdma", "over the network"),
        ("http", "over the network"),
        ("sg", "SCSI generic"),
        ("libpmem", "persistent memory"),
        ("cpp_null", "fio does not ship"),
    ],
)
def test_engines_that_leave_the_host_or_need_a_special_device_are_refused(
    engine: str, words: str
) -> None:
    with pytest.raises(JobFileError, match=rf"ioengine={re.escape(engine)}: .*{words}"):
        check_job_file(minimal(f"ioengine={engine}"))


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("filename", "../up", "leaves the run's work directory"),
        ("filename", "a/../../b", "leaves the run's work directory"),
        ("filename", "ok:../x", "leaves the run's work directory"),
        ("directory", "../up", "leaves the run's work directory"),
        ("filename", "-", "standard input or output"),
        ("filename", "/mnt//x", "without '..', '.', '//'"),
        ("filename", "/mnt/x/../y", "without '..', '.', '//'"),
        ("directory", "/mnt/x/", "without '..', '.', '//'"),
        ("filename_format", "../$jobname", "leaves the run's work directory"),
        ("write_lat_log", "/etc/lat", "a log's name is a file name"),
        ("write_bw_log", "..", "a log's name is a file name"),
    ],
)
def test_paths_fio_could_not_be_held_to_are_refused(key: str, value: str, words: str) -> None:
    with pytest.raises(JobFileError, match=rf"\[job\].*{key}=.*{re.escape(words)}"):
        check_job_file(minimal(f"{key}={value}"))


@pytest.mark.parametrize(
    "extra",
    ["filename=/dev/sdb", "filename=/mnt/x/f:/mnt/y/g", "directory=/mnt/test", "directory=tmp"],
)
def test_absolute_paths_and_directories_are_accepted_for_the_host_check(extra: str) -> None:
    assert check_job_file(minimal(extra))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "no job"),
        ("; only a comment\n\n", "no job"),
        ("[global]\nsize=1m\n", "no job"),
        ("size=1m\n[a]\n", "outside a [section]"),
        ("[a]\ninclude other.fio\n", "include"),
        ("[a\nrw=read\n", "not a [section] header"),
        (minimal("size=${SIZE B}"), "a variable's name"),
        (minimal("${KEY}=1"), "in an option's name"),
        (minimal("time_based"), "never end"),
        (minimal("time_based=1\nruntime=0"), "never end"),
        (minimal(f"numjobs={MAX_NUMJOBS + 1}"), "at most"),
        ("[a]\nrw=read\0\n", "NUL"),
        ("[a]\n" + "x" * 70_000, "longer than"),
    ],
)
def test_bad_files_are_refused_with_a_clear_message(text: str, words: str) -> None:
    with pytest.raises(JobFileError, match=words.replace("[", r"\[")):
        check_job_file(text)


def test_too_many_jobs_are_refused() -> None:
    text = "".join(f"[j{i}]\nrw=read\n" for i in range(65))
    with pytest.raises(JobFileError, match="at most 64"):
        parse_job_file(text)


# --------------------------------------------------------------------------- names, length


@pytest.mark.parametrize(
    ("given", "name"),
    [("/a/b/mine.fio", "mine.fio"), ("C:\\x\\y z.fio", "y_z.fio"), ("..", "job.fio"),
     ("/tmp/.hidden", "hidden"), ("ünï.fio", "_n_.fio")],
)  # fmt: skip
def test_job_file_name_is_a_safe_base_name(given: str, name: str) -> None:
    assert job_file_name(given) == name


def test_expected_seconds_adds_stonewalled_groups_and_takes_each_groups_longest() -> None:
    text = (
        "[global]\nsize=1m\n[a]\nruntime=2\n[b]\nruntime=3\nramp_time=1\n"
        "[c]\nstonewall\nruntime=1m\n[d]\nruntime=500ms\n"
    )
    assert expected_seconds(text) == pytest.approx(max(2, 3 + 1) + max(60, 0.5))


# --------------------------------------------------------------------------- the tool


def test_resolve_with_a_job_file_keeps_only_what_applies_and_is_idempotent() -> None:
    resolved = fio.resolve({"jobfile": "two.fio", "jobfile_text": TWO_JOBS})
    assert resolved == {
        "jobfile": "two.fio",
        "jobfile_text": TWO_JOBS,
        "jobfile_env": "",
        "directory": "",
        "confirm_destroy": "",
        "status_interval": "1",
    }
    assert fio.resolve(resolved) == resolved
    assert fio.resolve({"jobfile_text": TWO_JOBS})["jobfile"] == "job.fio"
    assert "jobfile" not in fio.resolve({})  # an ordinary run stores no job-file keys


def test_resolve_refuses_other_options_a_missing_text_and_a_bad_file() -> None:
    with pytest.raises(ParamError, match="rw, size: set in the job file"):
        fio.resolve({"jobfile_text": TWO_JOBS, "rw": "write", "size": "2G"})
    with pytest.raises(ParamError, match="needs the job file's text"):
        fio.resolve({"jobfile": "two.fio"})
    with pytest.raises(ParamError, match="exec_prerun"):
        fio.resolve({"jobfile_text": minimal("exec_prerun=rm -rf /")})
    with pytest.raises(ParamError, match="file name"):
        fio.resolve({"jobfile": "../x.fio", "jobfile_text": TWO_JOBS})


def test_commands_upload_the_file_and_run_it_with_pairbench_output_options() -> None:
    params = fio.resolve({"jobfile": "two.fio", "jobfile_text": TWO_JOBS})
    workdir = "/var/tmp/pairbench.x"
    commands = fio.commands(params, Capabilities("fio-3.33"), CommandContext("h", 0, workdir))
    assert commands.files == {"two.fio": TWO_JOBS}
    assert commands.run_on == "server" and commands.server is None
    assert commands.client == [
        "env", "-C", workdir, "fio", "--output-format=json+", "--status-interval=1",
        "--eta=never", f"--aux-path={workdir}", f"{workdir}/two.fio",
    ]  # fmt: skip
    assert commands.folders == () and commands.collect == ()
    assert fio.expected_seconds(params) == 10.0


# --------------------------------------------------------------------------- services


def test_read_job_file_and_job_file_params(tmp_path: Path) -> None:
    path = tmp_path / "two jobs.fio"
    path.write_text(TWO_JOBS.replace("\n", "\r\n"), encoding="utf-8")
    job = read_job_file(path)
    assert job.name == "two_jobs.fio" and job.text == TWO_JOBS
    params, read = job_file_params({"jobfile": str(path), "directory": "/mnt"})
    assert read == job
    assert params == {"jobfile": "two_jobs.fio", "jobfile_text": TWO_JOBS, "directory": "/mnt"}
    # a stored run's parameters (run again): the text is taken as it is, no file is read
    again, _ = job_file_params(params)
    assert again == params
    assert job_file_params({"rw": "read"}) == ({"rw": "read"}, None)


def test_read_job_file_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(JobFileError, match=r"cannot read job file .*missing\.fio"):
        read_job_file(tmp_path / "missing.fio")
    binary = tmp_path / "bin.fio"
    binary.write_bytes(b"[a]\nrw=\xff\n")
    with pytest.raises(JobFileError, match="not UTF-8"):
        read_job_file(binary)
    bad = tmp_path / "bad.fio"
    bad.write_text(minimal("write_lat_log=/etc/lat"))
    with pytest.raises(JobFileError, match=r"bad.fio: job \[job\] \(line 3\): write_lat_log"):
        read_job_file(bad)


def _cli(library: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library)})
    return run_cli(list(argv), env), out.getvalue(), err.getvalue()


def test_cli_refuses_a_bad_job_file_before_anything_is_stored(tmp_path: Path) -> None:
    library = tmp_path / "lib.sqlite"
    bad = tmp_path / "bad.fio"
    bad.write_text(minimal("exec_postrun=reboot"))
    status, out, err = _cli(
        library, "run", "--pair", "local", "--tool", "fio", "--set", f"jobfile={bad}"
    )
    assert status == 1 and out == ""
    assert "exec_postrun" in err and "runs a program" in err
    with open_library(library) as lib:
        assert list_runs(lib) == []


def test_the_run_again_line_of_a_job_file_run_reads_back_to_the_same_params() -> None:
    from pairbench.cli.cmd_run import parse_settings

    params = fio.resolve({"jobfile": "two.fio", "jobfile_text": TWO_JOBS})
    argv = shlex.split(
        shlex.join(["--set", f"jobfile={params['jobfile']}", "--set", f"jobfile_text={TWO_JOBS}"])
    )
    settings = [argv[i + 1] for i in range(0, len(argv), 2)]
    again, job = job_file_params(parse_settings(settings))
    assert job is not None and fio.resolve(again) == params


def test_every_engine_the_installed_fio_has_is_accepted_or_refused_with_its_own_reason() -> None:
    require_program("fio")
    done = subprocess.run(["fio", "--enghelp"], capture_output=True, text=True, timeout=30)
    engines = [line.strip() for line in done.stdout.splitlines()[1:] if line.strip()]
    assert "psync" in engines and "cpuio" in engines
    unknown = [e for e in engines if e not in IOENGINES and e not in ENGINE_REASONS]
    assert unknown == []
    for engine in sorted(IOENGINES):
        assert check_job_file(minimal(f"ioengine={engine}"))
