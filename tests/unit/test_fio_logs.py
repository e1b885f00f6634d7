"""fio's own log files as a job file's run stores them (``fio_logs``): the captured logs of a
real run (``fixtures/fio/logs_randread4k``) and the logs a real fio writes here, brought back
by the engine's script, are stored row for row as fio wrote them; bounded; and what a job
file may name them."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from pairbench.engine.workdir_files import collect_files
from pairbench.remote.local import LocalTransport
from pairbench.tools import fio_logs
from pairbench.tools.base import CollectedFile
from pairbench.tools.fio_jobfile import JobFileError, check_job_file, parse_job_file
from pairbench.tools.fio_logs import COLLECT, log_analyses, log_prefixes, logs_payload
from testkit import FIXTURES, require_program

LOGS = FIXTURES / "fio" / "logs_randread4k"


def _columns(text: str) -> tuple[list[float], list[float], list[int]]:
    """time, value, direction of every line, read here as fio's HOWTO describes them."""
    rows = [[part.strip() for part in line.split(",")] for line in text.splitlines() if line]
    return [float(r[0]) for r in rows], [float(r[1]) for r in rows], [int(r[2]) for r in rows]


def _collected(folder: Path) -> dict[str, CollectedFile]:
    return {
        p.name: CollectedFile(p.read_text(), p.stat().st_size, True) for p in folder.glob("*.log")
    }


def test_the_captured_logs_are_stored_row_for_row_with_their_units() -> None:
    payload = logs_payload(_collected(LOGS), ["rr"])
    assert payload is not None
    files = {f["name"]: f for f in payload["files"]}
    assert sorted(files) == sorted(p.name for p in LOGS.glob("*.log"))
    for name, stored in files.items():
        t, values, dirs = _columns((LOGS / name).read_text())
        assert (stored["t_ms"], stored["value"], stored["direction"]) == (t, values, dirs)
        assert stored["rows"] == len(t) and stored["complete"]
        assert stored["bytes"] == (LOGS / name).stat().st_size
    assert files["rr_bw.1.log"]["unit"] == "KiB/s" and files["rr_bw.1.log"]["job"] == 1
    assert files["rr_iops.2.log"]["unit"] == "IO/s" and files["rr_iops.2.log"]["job"] == 2
    assert {files[f"rr_{k}.1.log"]["unit"] for k in ("lat", "clat", "slat")} == {"ns"}


def test_only_the_jobs_logs_are_kept_and_a_cut_file_loses_its_last_row() -> None:
    text = (LOGS / "rr_bw.1.log").read_text()
    cut = text[: len(text) // 2]  # inside a row
    collected = {
        "rr_bw.1.log": CollectedFile(cut, len(text), False),
        "rr_bw.log": CollectedFile("500, 7, 1, 0, 0\n", 16, True),  # per_job_logs=0
        "data.log": CollectedFile("500, 1, 0, 0, 0\n", 16, True),  # a test file, say
        "rr_bw.1.log.fz": CollectedFile("x", 1, True),
    }
    payload = logs_payload(collected, ["rr"])
    assert payload is not None
    files = {f["name"]: f for f in payload["files"]}
    assert sorted(files) == ["rr_bw.1.log", "rr_bw.log"]
    whole_rows = cut[: cut.rfind("\n") + 1].count("\n")
    assert files["rr_bw.1.log"]["rows"] == whole_rows and not files["rr_bw.1.log"]["complete"]
    assert files["rr_bw.log"]["job"] is None and files["rr_bw.log"]["value"] == [7.0]
    assert logs_payload({"data.log": collected["data.log"]}, ["rr"]) is None


def test_rows_are_bounded_per_file_and_in_all(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fio_logs, "MAX_ROWS", 5)
    monkeypatch.setattr(fio_logs, "MAX_TOTAL_ROWS", 8)
    payload = logs_payload(_collected(LOGS), ["rr"])
    assert payload is not None
    rows = [(f["rows"], f["complete"]) for f in payload["files"]]
    assert rows[:3] == [(5, False), (3, False), (0, False)]


def test_log_names_default_to_the_job_and_stay_in_the_work_directory() -> None:
    jobs = parse_job_file(
        "[global]\nsize=1m\n[a]\nwrite_bw_log\nwrite_lat_log=lat\n[b]\nwrite_iops_log=io\n"
    )
    assert log_prefixes(jobs) == ["a", "lat", "io"]
    for value in ("../x", "/tmp/x", "sub/x", "."):
        with pytest.raises(JobFileError, match="a log's name is a file name"):
            check_job_file(f"[a]\nsize=1m\nwrite_bw_log={value}\n")
    with pytest.raises(JobFileError, match="log_store_compressed: fio would store its logs"):
        check_job_file("[a]\nsize=1m\nwrite_bw_log\nlog_store_compressed=1\n")


def test_the_logs_a_real_fio_writes_come_back_as_it_wrote_them(tmp_path: Path) -> None:
    require_program("fio")
    job = tmp_path / "logs.fio"
    job.write_text(
        "[global]\nsize=512k\nbs=4k\nioengine=psync\n"
        "[mix]\nrw=randrw\nwrite_bw_log=m\nwrite_iops_log=m\nwrite_lat_log=m\nnumjobs=2\n"
        "[avg]\nrw=read\nwrite_bw_log\nlog_avg_msec=1\n"
    )
    done = subprocess.run(
        ["fio", "--output-format=json", str(job)],
        cwd=tmp_path,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    collected = asyncio.run(collect_files(LocalTransport(), str(tmp_path), COLLECT))
    analyses = log_analyses(log_prefixes(parse_job_file(job.read_text())), collected)
    files = {f["name"]: f for f in analyses["fio_logs"]["files"]}
    written = sorted(p.name for p in tmp_path.glob("*.log"))
    assert sorted(files) == written
    assert {"m_bw.1.log", "m_bw.2.log", "m_clat.1.log", "avg_bw.3.log"} <= set(written)
    for name in written:
        t, values, dirs = _columns((tmp_path / name).read_text())
        stored = files[name]
        assert (stored["t_ms"], stored["value"], stored["direction"]) == (t, values, dirs)
    assert {1, 0} <= set(files["m_lat.1.log"]["direction"])  # randrw: writes and reads
