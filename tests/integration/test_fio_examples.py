"""Differential test against fio itself: the example job files Debian's ``fio-examples``
package ships (``/usr/share/doc/fio/examples``), each run through Pairbench as a job file
(real fio on ``local``, in ``tmp_path``); the run's stored figures equal fio's own JSON groups
of that same run (its final document, read back from the raw output Pairbench stored), group
by group (issue 27 §3).

**The capping rewrite** (so that each file runs on a file in a second or two): at the end of
every job section the harness appends ``runtime=300ms`` (fio's limit on any job, time_based or
not), and where the job (or its ``[global]``) sets them: ``size`` and ``filesize`` at most
``4m``, ``nrfiles`` at most 16, ``numjobs`` at most 4, ``loops=1``, ``ramp_time=0``,
``startdelay=0`` (fio takes a section's last value). Nothing else is changed: a file that
Pairbench refuses is counted with Pairbench's reason.

What "fio's own group" is (README "fio: several groups"): a group of one ``jobs[]`` entry is
that entry's figures; a group of several is their IOPS and bandwidth added (the jobs of a
group run at once), the mean latency weighted by I/Os, percentiles from the merged json+
histograms by fio's rule. One group: the run's figures under the plain names; several: under
``group<N>_``, nothing run-wide.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli_slots import cli, library_of, run_in_slots
from pairbench.library import Library
from pairbench.library.series import load_raw_output
from pairbench.tools.fio_jobfile import JobFileError, check_job_file, parse_job_file
from parser_checks import json_documents
from testkit import require, require_program

EXAMPLES = Path("/usr/share/doc/fio/examples")
CAP_BYTES = 4 * 2**20
PERCENTILES = (("50.000000", "p50"), ("99.000000", "p99"), ("99.900000", "p999"))
P9999 = ("99.990000", "p9999")
PARALLEL = 3  # job files run at once (``_runs``)

# fio-examples 3.33 (Debian 12): what Pairbench runs after the capping rewrite, and what it
# refuses, with the words of its reason. Another fio version ships other files: this list
# then says what changed.
ACCEPTED = (
    "backwards-read.fio",
    "dedupe-global.fio",
    "filecreate-ioengine.fio",
    "filedelete-ioengine.fio",
    "filestat-ioengine.fio",
    "fio-rand-RW.fio",
    "fio-rand-read.fio",
    "fio-rand-write.fio",
    "fio-seq-RW.fio",
    "fio-seq-read.fio",
    "fio-seq-write.fio",
    "fsx.fio",
    "iometer-file-access-server.fio",
    "null.fio",
    "rand-zones.fio",
    "surface-scan.fio",
    "tiobench-example.fio",
    "zipf.fio",
)
# Accepted, but not run: fio itself never ends them on Debian 12 (fio 3.33, capped or not: it
# prints "job ... hasn't exited in 300 seconds, it appears to be stuck"); a run of one is
# stored as stalled after the engine's stall limit, which this test does not wait for.
NOT_RUN = {
    "fixed-rate-submission.fio": "io_submit_mode=offload: fio 3.33 never ends",
    "poisson-rate-submission.fio": "io_submit_mode=offload: fio 3.33 never ends",
}
REASONS = {
    "directory": "directory: the jobs' directory is the run's own work directory",
    "absolute": "test files are relative names",
    "engine": "Pairbench runs job files on the host's own storage only",
    "log": "fio would write log files in its working directory",
    "report": "Pairbench's summary and latency histogram need fio's default reporting",
    "env": "Pairbench passes no environment variables to fio",
}


def _size(text: str) -> int | None:
    """A fio size (``512m``, ``10G``, ``4096``) in bytes; None for what is not one (``100%``)."""
    m = re.fullmatch(r"(\d+)([kmgt]?)i?b?", text.strip().lower())
    if m is None:
        return None
    return int(m.group(1)) * 1024 ** "_kmgt".index(m.group(2) or "_")


def capped(text: str) -> str:
    """The job file with the capping rewrite (module docstring)."""
    jobs = {job.line: job for job in parse_job_file(text)}
    lines = text.splitlines()
    out: list[str] = []
    pending: list[str] = []
    for number, line in enumerate(lines, 1):
        if line.strip().startswith("["):
            out += pending
            job = jobs.get(number)
            pending = _caps(job.options) if job is not None else []
        out.append(line)
    out += pending
    return "\n".join(out) + "\n"


def _caps(options: dict[str, str] | Any) -> list[str]:
    caps = ["runtime=300ms"]
    for key in ("size", "filesize"):
        size = _size(options.get(key, "")) if key in options else None
        if size is not None and size > CAP_BYTES:
            caps.append(f"{key}=4m")
    for key, limit in (("nrfiles", 16), ("numjobs", 4), ("loops", 1)):
        value = options.get(key, "")
        if value.isdigit() and int(value) > limit:
            caps.append(f"{key}={limit}")
    for key in ("ramp_time", "startdelay"):
        if key in options:
            caps.append(f"{key}=0")
    return caps


def examples() -> list[Path]:
    require_program("fio")
    require(EXAMPLES.is_dir(), f"{EXAMPLES} missing: apt-get install fio-examples (make test)")
    return sorted(EXAMPLES.glob("*.fio"))


# --------------------------------------------------------------------------- fio's groups


def final_document(raw: str) -> dict[str, Any]:
    """fio's last JSON document in a run's stored stdout."""
    return json_documents(raw)[-1]


def fio_percentile(bins: dict[int, float], percent: float) -> float:
    """fio's rule (stat.c): the first bucket whose running count reaches percent % of all."""
    total, seen = sum(bins.values()), 0.0
    for latency in sorted(bins):
        seen += bins[latency]
        if seen >= percent / 100.0 * total:
            return float(latency)
    return float(max(bins))


def group_figures(entries: list[dict[str, Any]]) -> dict[str, float]:
    """A group's figures, as the module docstring says, from its ``jobs[]`` entries."""
    out: dict[str, float] = {}
    for direction in ("read", "write"):
        dirs = [
            e[direction] for e in entries if e[direction]["total_ios"] or e[direction]["io_bytes"]
        ]
        if not dirs:
            continue
        out[f"{direction}_iops"] = math.fsum(d["iops"] for d in dirs)
        out[f"{direction}_bytes_per_s"] = math.fsum(d["bw_bytes"] for d in dirs)
        timed = [d for d in dirs if d["lat_ns"]["N"] > 0]
        if not timed:
            continue
        n = sum(d["lat_ns"]["N"] for d in timed)
        out[f"{direction}_lat_mean_us"] = (
            math.fsum(d["lat_ns"]["mean"] * d["lat_ns"]["N"] for d in timed) / n / 1000.0
        )
        for key, name in (*PERCENTILES, P9999):
            if len(timed) == 1:
                value = timed[0]["clat_ns"].get("percentile", {}).get(key)
            else:
                merged: dict[int, float] = {}
                for d in timed:
                    for latency, count in d["clat_ns"]["bins"].items():
                        merged[int(latency)] = merged.get(int(latency), 0) + count
                value = fio_percentile(merged, float(key))
            if value is not None:
                out[f"{direction}_lat_{name}_us"] = value / 1000.0
    return out


def fios_groups(doc: dict[str, Any]) -> dict[str, float]:
    """Every group's figures under the names a run stores them by."""
    groups: dict[int, list[dict[str, Any]]] = {}
    for entry in doc["jobs"]:
        groups.setdefault(int(entry["groupid"]), []).append(entry)
    if len(groups) == 1:
        return group_figures(next(iter(groups.values())))
    return {
        f"group{g}_{name}": value
        for g, entries in sorted(groups.items())
        for name, value in group_figures(entries).items()
    }


# --------------------------------------------------------------------------- running


def _stdout_of(library: Path, run_id: int) -> str:
    with Library.open(library) as lib:
        chunks = load_raw_output(lib, run_id)
    return "\n".join(text for source, text in chunks if source == "client.stdout")


def _run(slot: Path, job_text: tuple[str, str]) -> tuple[int, str, str, list[str], list[str]]:
    """One job file run from ``slot`` (its own folder for the jobs' directory and, as fio's
    working directory, ``cwd``): exit status, stdout, stderr, what is left in each folder."""
    name, text = job_text
    job, work, cwd = slot / name, slot / "work", slot / "cwd"
    work.mkdir(exist_ok=True)
    cwd.mkdir(exist_ok=True)
    os.chdir(cwd)
    job.write_text(text)
    args = ["run", "--pair", "local", "--tool", "fio", "--json"]
    status, out, err = cli(
        library_of(slot), *args, "--set", f"jobfile={job}", "--set", f"directory={work}"
    )
    return status, out, err, sorted(map(str, work.iterdir())), sorted(map(str, cwd.iterdir()))


def _runs(tmp_path: Path) -> Iterator[tuple[str, str | None, dict[str, Any] | None, str]]:
    """Each example: its name, Pairbench's refusal (None: run), the run's JSON, its stdout.
    ``PARALLEL`` run at once (``cli_slots``); nothing of a run may be left in the jobs'
    directory nor in fio's working directory (surface-scan.fio's verify job, cut short, saves
    a verify state file: in the run's work directory, removed)."""
    refused: dict[str, str] = {}
    to_run: list[tuple[str, str]] = []
    for example in examples():
        text = capped(example.read_text())
        try:
            check_job_file(text)
        except JobFileError as exc:
            refused[example.name] = str(exc)
            continue
        if example.name not in NOT_RUN:
            to_run.append((example.name, text))
    ran = run_in_slots(tmp_path, _run, to_run, PARALLEL)
    runs = dict(zip((name for name, _ in to_run), ran, strict=True))
    for example in examples():
        name = example.name
        if name in refused or name in NOT_RUN:
            yield name, refused.get(name), None, ""
            continue
        slot, (status, out, err, left_in_work, left_in_cwd) = runs[name]
        run = json.loads(out.strip().splitlines()[-1]) if out.strip() else None
        assert status == 0 and run is not None, f"{name}: {status} {err}"
        assert left_in_work == [], f"{name}: the run left files behind"
        assert left_in_cwd == [], f"{name}: left in fio's working directory"
        yield name, None, run, _stdout_of(library_of(slot), int(run["id"]))


@pytest.mark.timeout(600)
def test_every_example_job_file_stores_fios_own_groups(tmp_path: Path) -> None:
    accepted: list[str] = []
    refused: dict[str, str] = {}
    not_run: list[str] = []
    for name, refusal, run, stdout in _runs(tmp_path):
        if refusal is not None:
            refused[name] = refusal
            continue
        if run is None:
            not_run.append(name)
            continue
        accepted.append(name)
        assert run["status"] == "completed", name
        expected = fios_groups(final_document(stdout))
        assert expected, f"{name}: fio reported no I/O"
        stored = run["summary"]
        assert stored.keys() == expected.keys(), name
        for key, value in expected.items():
            assert stored[key] == pytest.approx(value, rel=1e-9), f"{name}: {key}"
    assert tuple(accepted) == ACCEPTED
    assert not_run == sorted(NOT_RUN)
    assert len(refused) + len(accepted) + len(not_run) == len(examples())
    for name, reason in refused.items():
        assert any(words in reason for words in REASONS.values()), f"{name}: {reason}"
    print(
        f"\nfio-examples: {len(accepted)}/{len(accepted)} run files equal fio's groups; "
        f"{len(refused)} refused by Pairbench; {len(not_run)} not run (fio hangs)"
    )
