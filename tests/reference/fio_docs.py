"""fio results for the storage suite's differential tests: fio-shaped JSON documents (one
job, as ``group_reporting`` prints it) made from chosen figures, their figures as the
suite keeps them (Pairbench's fio parser and the engine's ``output_figures``), the fio
documents a stored suite's runs kept, and the same jobs as CloudHarmony's code names them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pairbench.domain import LineSource
from pairbench.domain.storage import JobKey, StorageTest, stages_of
from pairbench.engine.storage_suite import FIGURES, output_figures
from pairbench.library import Library
from pairbench.library.series import load_raw_output
from pairbench.library.suites import suite_jobs
from pairbench.services.parsing import parse_output
from pairbench.tools.fio_extremes import last_document
from reference.cloudharmony import job_name

Doc = dict[str, Any]


def direction(iops: float, bw_kib: int, lat_mean_ns: float, lat_max_ns: int) -> dict[str, Any]:
    """One direction of a fio job as fio prints it (``bw`` = ``bw_bytes`` // 1024)."""
    ios = int(iops)
    lat = {"min": 1 if ios else 0, "max": lat_max_ns, "mean": lat_mean_ns, "stddev": 0.0}
    return {
        "io_bytes": bw_kib * 1024,
        "io_kbytes": bw_kib,
        "bw_bytes": bw_kib * 1024 + (517 if bw_kib else 0),
        "bw": bw_kib,
        "iops": iops,
        "runtime": 1000 if ios else 0,
        "total_ios": ios,
        "lat_ns": {**lat, "N": ios},
        "clat_ns": {**lat, "N": ios},
    }


IDLE = direction(0.0, 0, 0.0, 0)


def doc(read: Mapping[str, Any] | None = None, write: Mapping[str, Any] | None = None) -> Doc:
    """A fio JSON document of one job (a direction without I/O printed as zeros)."""
    job = {"jobname": "job", "groupid": 0, "error": 0}
    job.update(read=dict(read or IDLE), write=dict(write or IDLE))
    return {"fio version": "fio-3.33", "timestamp": 1700000000, "jobs": [job]}


def figures(document: Doc, *, parse: bool = True) -> dict[str, float]:
    """The job's figures as the suite keeps them: its summary by Pairbench's fio parser and
    fio's own figures of its first job (``engine.storage_suite.output_figures``).
    ``parse=False`` leaves the summary out (quicker, where only fio's own figures count)."""
    if not parse:  # fio's layout: "{" and "}" on lines of their own
        return output_figures({}, ["{", json.dumps(document)[1:-1], "}"])
    text = json.dumps(document, indent=2)
    summary = parse_output("fio", text).summary.values
    kept = {name: float(summary[name]) for name in FIGURES if name in summary}
    return output_figures(kept, text.splitlines())


def named_jobs(test: StorageTest, docs: Mapping[JobKey, Doc]) -> dict[str, Doc]:
    """The documents by CloudHarmony's job names."""
    stages = stages_of(test)
    return {job_name(test, k.round, stages[k.stage].jobs[k.job]): d for k, d in docs.items()}


def stored_documents(library: Path, suite_id: int, test: StorageTest) -> dict[str, Doc]:
    """The last fio document each job of a stored suite's rounds kept (its run's raw
    output), by CloudHarmony's job name."""
    lib = Library.open(library)
    try:
        stages = stages_of(test)
        out = {}
        for job in suite_jobs(lib, suite_id):
            if JobKey(job.stage, job.round, job.job).precondition or job.run_id is None:
                continue
            lines = [
                line
                for source, text in load_raw_output(lib, job.run_id)
                if source == LineSource.CLIENT_OUT.value
                for line in text.split("\n")
            ]
            document = last_document(lines)
            assert document is not None, f"run {job.run_id} kept no fio document"
            out[job_name(test, job.round, stages[job.stage].jobs[job.job])] = document
        return out
    finally:
        lib.close()
