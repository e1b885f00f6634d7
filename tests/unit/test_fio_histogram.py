"""The fio latency histogram (json+ ``clat_ns.bins`` of the final document): its buckets'
ranges, the stored ``fio_histogram`` analysis of an import and of a real run of a user's
two-job job file on ``local``, consistent with the summary's percentiles."""

from __future__ import annotations

import asyncio
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import LOCAL_PAIR, LineSource, RunSpec, RunStatus
from pairbench.library.analyses import get_analysis
from pairbench.library.series import load_raw_output
from pairbench.services.fio_histogram import describe_histogram, directions
from pairbench.services.fio_jobs import job_file_params
from pairbench.services.importing import import_output
from pairbench.services.library import Library
from pairbench.services.running import run_on_pair
from pairbench.tools.fio_histogram import HISTOGRAM_KIND, bucket_range_ns, histogram_payload
from parser_checks import fixture_text
from testkit import require_program

JSONPLUS = "randread4k_qd32_j2_jsonplus.out"
PERCENTS = {"p50": 50.0, "p99": 99.0, "p999": 99.9, "p9999": 99.99}


def fio_percentile(bins: dict[int, float], percent: float) -> int:
    """fio's rule, written out independently: the first bin reaching percent% of the count."""
    total = sum(bins.values())
    seen = 0.0
    for latency in sorted(bins):
        seen += bins[latency]
        if seen >= percent / 100.0 * total:
            return latency
    raise AssertionError("empty histogram")


def plat_idx_to_val(idx: int) -> float:
    """fio's stat.c ``plat_idx_to_val`` (6 bits per group), transcribed."""
    if idx < 128:
        return float(idx)
    error_bits = (idx >> 6) - 1
    base = 1 << (error_bits + 6)
    return base + ((idx % 64) + 0.5) * (1 << error_bits)


def last_document(text: str) -> dict[str, Any]:
    """The last JSON document of a fio output (independently of the parser)."""
    start = text.rfind("\n{\n") + 1  # 0 when the output holds one document only
    return json.loads(text[start : text.index("\n}", start) + 2])


def merged_bins(doc: dict[str, Any], direction: str) -> dict[int, float]:
    out: dict[int, float] = {}
    for job in doc["jobs"]:
        for key, count in job[direction]["clat_ns"].get("bins", {}).items():
            out[int(key)] = out.get(int(key), 0) + count
    return {k: v for k, v in out.items() if v}


# --------------------------------------------------------------------------- buckets


def test_bucket_ranges_hold_fios_keys_and_tile_the_latency_axis() -> None:
    previous_high = 0.0
    for idx in range(1856):  # FIO_IO_U_PLAT_NR for 29 groups of 64
        value = plat_idx_to_val(idx)
        if not value.is_integer():
            continue  # fio truncates the key to an integer (ns): same bucket either way
        low, high = bucket_range_ns(int(value))
        assert low <= value < high
        assert low == previous_high  # contiguous, no overlap
        previous_high = high


def test_payload_percentiles_follow_fios_rule() -> None:
    bins = {100: 5.0, 2000: 90.0, 50_000: 4.0, 900_000: 1.0}
    payload = histogram_payload({"read": bins, "write": {}})
    assert set(payload["directions"]) == {"read"}  # a direction without I/O is left out
    read = payload["directions"]["read"]
    assert read["bins"] == [[k, int(v)] for k, v in sorted(bins.items())]
    assert read["ios"] == sum(bins.values())
    for key, share in PERCENTS.items():
        assert read["percentiles_us"][key] == fio_percentile(bins, share) / 1000.0


# --------------------------------------------------------------------------- import


def test_an_imported_jsonplus_output_gets_its_histogram(library: Library) -> None:
    text = fixture_text("fio", JSONPLUS)
    run = import_output(library, "fio", text)
    payload = get_analysis(library, run.id, HISTOGRAM_KIND)
    assert payload is not None
    doc = last_document(text)
    for one in directions(payload):
        bins = merged_bins(doc, one.direction)
        assert one.counts == [bins[k] for k in sorted(bins)]
        for key, share in PERCENTS.items():
            expected = fio_percentile(bins, share) / 1000.0
            assert one.percentiles_us[key] == expected
            assert run.summary[f"{one.direction}_lat_{key}_us"] == pytest.approx(expected)
    assert [one.direction for one in directions(payload)] == ["read"]
    assert describe_histogram(payload)[0].startswith(f"read   {sum(bins.values()):.0f} I/Os")


def test_an_import_without_histograms_stores_none(library: Library) -> None:
    run = import_output(library, "fio", fixture_text("fio", "randrw70_4k_qd32_j2_group_json.out"))
    assert get_analysis(library, run.id, HISTOGRAM_KIND) is None


# --------------------------------------------------------------------------- a real run

TWO_JOBS = """\
[global]
ioengine=psync
direct=1
size=2m
bs=4k
runtime=1
time_based

[reader]
rw=randread
filename=shared.bin

[writer]
rw=randwrite
"""


def test_a_two_job_job_file_runs_on_local_and_keeps_file_and_histogram(
    library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_program("fio")
    monkeypatch.setenv("PAIRBENCH_LOCK_DIR", str(tmp_path))  # not another test's lock
    with tempfile.TemporaryDirectory(dir="/var/tmp", prefix="pb-fio-") as folder:
        path = Path(folder) / "two.fio"
        path.write_text(TWO_JOBS)
        params, job = job_file_params({"jobfile": str(path), "directory": folder})
        assert job is not None and [row["name"] for row in job.jobs] == ["reader", "writer"]
        spec = RunSpec(LOCAL_PAIR.name, "fio", params, "job file")
        run = asyncio.run(run_on_pair(library, LOCAL_PAIR, spec))
        assert sorted(p.name for p in Path(folder).iterdir()) == ["two.fio"]  # work dir gone
    assert run.status is RunStatus.COMPLETED, run.error
    assert run.spec.params == {
        "jobfile": "two.fio",
        "jobfile_text": TWO_JOBS,
        "jobfile_env": "",
        "directory": folder,
        "confirm_destroy": "",
        "status_interval": "1",  # the job file runs at Pairbench's status interval
    }
    commands = get_analysis(library, run.id, "commands")
    assert commands is not None and commands["files"] == {"two.fio": TWO_JOBS}
    assert commands["main"]["argv"][-1].endswith("/two.fio")
    # both jobs ran: one jobs[] entry each, and the summary is their sum
    stdout = "\n".join(
        t for s, t in load_raw_output(library, run.id) if s == LineSource.CLIENT_OUT.value
    )
    doc = last_document(stdout)
    assert [j["jobname"] for j in doc["jobs"]] == ["reader", "writer"]
    reader, writer = doc["jobs"]
    assert reader["read"]["total_ios"] > 0 and writer["write"]["total_ios"] > 0
    assert run.summary["read_iops"] == pytest.approx(
        reader["read"]["iops"] + writer["read"]["iops"]
    )
    assert run.summary["write_iops"] == pytest.approx(writer["write"]["iops"])
    # the histogram: the final document's bins, merged over the jobs, and the summary's p99
    payload = get_analysis(library, run.id, HISTOGRAM_KIND)
    assert payload is not None
    shown = {one.direction: one for one in directions(payload)}
    assert set(shown) == {"read", "write"}
    for direction, one in shown.items():
        bins = merged_bins(doc, direction)
        assert one.counts == [bins[k] for k in sorted(bins)]
        assert one.ios == sum(j[direction]["clat_ns"]["N"] for j in doc["jobs"])
        p99 = fio_percentile(bins, 99.0) / 1000.0
        assert one.percentiles_us["p99"] == p99
        assert run.summary[f"{direction}_lat_p99_us"] == pytest.approx(p99)


def test_cli_prints_the_jobs_first_and_keeps_its_json_contract(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    require_program("fio")
    monkeypatch.setenv("PAIRBENCH_LOCK_DIR", str(tmp_path))
    out, err = io.StringIO(), io.StringIO()
    library = tmp_path / "lib.sqlite"
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library)})
    with tempfile.TemporaryDirectory(dir="/var/tmp", prefix="pb-fio-") as folder:
        path = Path(folder) / "two.fio"
        path.write_text(TWO_JOBS.replace("runtime=1", "runtime=1\nnumjobs=2"))
        argv = ["run", "--pair", "local", "--tool", "fio", "--json", "--set", f"jobfile={path}"]
        status = run_cli([*argv, "--set", f"directory={folder}"], env)
    assert status == 0, err.getvalue()
    result = json.loads(out.getvalue())  # stdout: the one JSON object, nothing else
    assert result["status"] == "completed" and result["summary"]["write_iops"] > 0
    lines = err.getvalue().splitlines()
    assert lines[0] == "job file two.fio: 2 jobs"
    assert [line.split()[:5] for line in lines[2:4]] == [
        ["reader", "randread", "4k", "1", "2"],
        ["writer", "randwrite", "4k", "1", "2"],
    ]
    assert lines[4].startswith(f"run {result['id']}: fio on local")  # the jobs come first
