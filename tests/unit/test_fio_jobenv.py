"""``${VAR}`` in a job file, filled as fio fills it: Pairbench's substituted text, run through
``fio --showcmd`` (fio's own reading of a job file, as options) with no environment, reads
exactly as the original file with the values in fio's environment; then the refusals, the
CLI's ``--set env.NAME=value``, and a stored run that repeats with the same text."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from pairbench.cli.cmd_run import parse_settings
from pairbench.services.fio_jobs import check_job_text, job_file_params
from pairbench.services.run_again import changed_params
from pairbench.tools import fio
from pairbench.tools.base import Capabilities, CommandContext, ParamError
from pairbench.tools.fio_jobenv import env_settings, parse_env, references, substitute
from pairbench.tools.fio_jobfile import JobFileError, check_job_file
from testkit import require_program

# Each: a job file and the environment fio would run it with.
CASES = {
    "values": (
        "[global]\nsize=${SIZE}k\nbs=4k\n[a]\nrw=${RW}\niodepth=${DEPTH}\n",
        {"SIZE": "64", "RW": "randread", "DEPTH": "8"},
    ),
    "in a value's middle, twice": (
        "[a]\nsize=1m\ndescription=x${A}y${A}z\nbs=${B}k,${B}k\n",
        {"A": "AA", "B": "8"},
    ),
    "an empty value, as unset": ("[a]\nsize=1m\ndescription=<${EMPTY}>\n", {"EMPTY": ""}),
    "comments and headers untouched": (
        "; ${NOT_IN_A_COMMENT}\n[job${X}]\nsize=1m ; ${NOR_HERE}\nrw=${RW} # ${NOR_THIS}\n",
        {"RW": "write"},
    ),
    "fio's keywords are fio's": (
        "[a]\nsize=1m\nnumjobs=$ncpus\nbs=$pagesize\ndescription=$RW ${RW}\n",
        {"RW": "read"},
    ),
    "xnvme-compare.fio's override": (
        "[global]\nrw=randread\nsize=1m\n[default]\n[override]\nrw=${FIO_RW}\n"
        "iodepth=${FIO_IODEPTH}\nbs=${FIO_BS}\n",
        {"FIO_RW": "randwrite", "FIO_IODEPTH": "16", "FIO_BS": "512"},
    ),
}


def _showcmd(job: Path, env: dict[str, str]) -> str:
    clean = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    done = subprocess.run(
        ["fio", "--showcmd", str(job)],
        capture_output=True,
        text=True,
        timeout=30,
        env={**clean, **env},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(("text", "env"), list(CASES.values()), ids=list(CASES))
def test_the_filled_file_reads_in_fio_as_the_file_with_its_environment(
    tmp_path: Path, text: str, env: dict[str, str]
) -> None:
    require_program("fio")
    original, filled = tmp_path / "original.fio", tmp_path / "filled.fio"
    original.write_text(text)
    filled.write_text(substitute(text, env))
    assert _showcmd(filled, {}) == _showcmd(original, env)


def test_the_variables_are_listed_once_in_order_of_use() -> None:
    text, _ = CASES["values"]
    assert references(text) == ["SIZE", "RW", "DEPTH"]
    assert references(CASES["comments and headers untouched"][0]) == ["RW"]
    assert references(CASES["fio's keywords are fio's"][0]) == ["RW"]


@pytest.mark.parametrize(
    ("text", "env", "words"),
    [
        ("[a]\nrw=${RW}\n", {}, r"uses \$\{RW\}: give its value with --set env.RW=VALUE"),
        ("[a]\nrw=read\n", {"RW": "x"}, r"does not use \$\{RW\}"),
        ("[a]\nrw=${R W}\n", {}, "a variable's name is letters"),
        ("[a]\nrw=${}\n", {}, "a variable's name is letters"),
        ("[a]\n${OPT}=1\n", {}, "in an option's name"),
    ],
)
def test_a_missing_value_an_unused_one_and_strange_names_are_refused(
    text: str, env: dict[str, str], words: str
) -> None:
    with pytest.raises(JobFileError, match=words):
        substitute(text, env)


@pytest.mark.parametrize(
    ("given", "words"),
    [
        ("RW", "is not NAME=value"),
        ("1X=a", "is not NAME=value"),
        ("A=x;y", "a value has no blanks, ';', '#'"),
        ("A=x#y", "a value has no blanks, ';', '#'"),
        ("A=${B}", "a value has no blanks, ';', '#' or '\\$\\{'"),
        ("A=1 A=2", "A given twice"),
    ],
)
def test_values_that_would_change_the_files_meaning_are_refused(given: str, words: str) -> None:
    with pytest.raises(JobFileError, match=words):
        parse_env(given)


def test_the_cli_form_folds_into_jobfile_env_sorted() -> None:
    out = env_settings({"jobfile": "x.fio", "env.RW": "read", "env.BS": "4k"})
    assert out == {"jobfile": "x.fio", "jobfile_env": "BS=4k RW=read"}
    with pytest.raises(JobFileError, match=r"env\.RW: given in jobfile_env too"):
        env_settings({"jobfile_env": "RW=read", "env.RW": "write"})
    with pytest.raises(JobFileError, match="a value has no blanks"):
        env_settings({"env.D": "a b"})


def test_a_file_with_variables_is_listed_before_its_values_are_known() -> None:
    text, env = CASES["values"]
    job = check_job_text(text)
    assert job.variables == ["SIZE", "RW", "DEPTH"] and job.jobs[0]["rw"] == "${RW}"
    filled = check_job_text(text, env=env)
    assert filled.jobs[0]["rw"] == "randread" and filled.text == text
    # an engine given by a variable is checked once its value is known
    engine = "[a]\nsize=1m\nioengine=${E}\n"
    assert check_job_file(engine)
    with pytest.raises(JobFileError, match="ioengine=net: its I/O goes over the network"):
        check_job_file(engine, {"E": "net"})


def test_a_run_stores_the_file_and_its_values_and_runs_again_with_the_same_text(
    tmp_path: Path,
) -> None:
    text, _env = CASES["values"]
    path = tmp_path / "vars.fio"
    path.write_text(text)
    settings = [f"jobfile={path}", "env.SIZE=64", "env.RW=randread", "env.DEPTH=8"]
    params, job = job_file_params(parse_settings(settings))
    assert job is not None and job.jobs[0]["iodepth"] == "8"
    resolved = fio.resolve(params)
    assert resolved["jobfile_text"] == text
    assert resolved["jobfile_env"] == "DEPTH=8 RW=randread SIZE=64"
    context = CommandContext("h", 0, "/tmp/pairbench.x")
    uploaded = fio.commands(resolved, Capabilities("fio-3.33"), context).files["vars.fio"]
    assert uploaded == "[global]\nsize=64k\nbs=4k\n[a]\nrw=randread\niodepth=8\n"
    # run again: the stored parameters, as the copied command line gives them back
    line = shlex.join(f"{k}={v}" for k, v in changed_params("fio", resolved).items())
    again, _ = job_file_params(parse_settings(shlex.split(line)))
    assert fio.resolve(again) == resolved
    assert fio.commands(fio.resolve(again), Capabilities(""), context).files["vars.fio"] == uploaded


def test_resolve_refuses_values_without_a_job_file_and_a_missing_value() -> None:
    with pytest.raises(ParamError, match="applies to a job file only"):
        fio.resolve({"jobfile_env": "A=1"})
    with pytest.raises(ParamError, match=r"uses \$\{RW\}"):
        fio.resolve({"jobfile_text": "[a]\nsize=1m\nrw=${RW}\n"})
    with pytest.raises(JobFileError, match="applies to a job file only"):
        job_file_params({"env.RW": "read"})
