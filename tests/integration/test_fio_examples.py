"""Differential test against fio itself: the example job files Debian's ``fio-examples``
package ships (``/usr/share/doc/fio/examples``), each run through Pairbench as a job file
(real fio on ``local``, in ``tmp_path``; a device's on a loop device); the run's stored figures
equal fio's own JSON groups of that same run (its final document, read back from the raw
output Pairbench stored), group by group (issue 27 §3, issue 29 §3).

The harness (``fio_examples_kit``) caps each file to run in a second, moves its absolute
paths into the example's own folder, puts its devices on the test's loop device (with
``confirm_destroy``) and gives its ``${VAR}``s values (``--set env.NAME=...``). Nothing else is
changed: a file Pairbench refuses is counted with Pairbench's reason, one fio fails with
fio's words.

What "fio's own group" is (docs/guide/fio-runs.md): a group of one
``jobs[]`` entry is that entry's figures; a group of several is their IOPS and bandwidth added
(the jobs of a group run at once), the mean latency weighted by I/Os, percentiles from the
merged json+ histograms by fio's rule. One group: the run's figures under the plain names;
several: under ``group<N>_``, nothing run-wide.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from glob import glob
from pathlib import Path
from typing import Any

import pytest

from blockkit import loop_device
from cli_slots import cli, library_of, run_in_slots
from fio_examples_kit import capped, env_for, fios_groups, make_read_files, moved
from pairbench.library import Library
from pairbench.library.runs import get_run
from pairbench.library.series import load_raw_output
from pairbench.tools.fio_jobenv import references
from pairbench.tools.fio_jobfile import JobFileError, check_job_file
from parser_checks import json_documents
from testkit import require, require_program

EXAMPLES = Path("/usr/share/doc/fio/examples")
PARALLEL = 3  # job files run at once (``run_in_slots``), each slot with its loop device
DEVICE_MIB = 16

RUN = "run"
# numa.fio binds jobs to NUMA nodes 0 and 0-1: fio refuses a node this computer lacks.
NUMA_NODES = len(glob("/sys/devices/system/node/node[0-9]*"))
# Why Pairbench refuses a file: the words of its reason.
NETWORK = "its I/O goes over the network"
SPECIAL = "not a file or block device Pairbench checks"
PROGRAM = "runs a program on the host"
UNKNOWN = "an engine fio does not ship"
PMEM = "persistent memory"

# fio-examples 3.33 (Debian 12): what each file does through Pairbench, after the harness's
# rewrite. "run": stored, its figures equal fio's groups; "refused: WORDS": Pairbench's
# reason; "fio fails: WORDS": accepted, and fio itself refuses it on this computer, stored
# failed with fio's words; "not run: WHY". Another fio version ships other files: this table
# then says what changed.
EXPECTED: dict[str, str] = {
    "1mbs_clients.fio": RUN,  # directory=tmp: made in the work directory
    "aio-read.fio": RUN,  # directory=/data1
    "backwards-read.fio": RUN,
    "basic-verify.fio": RUN,  # filename=/dev/XXX: the loop device
    "butterfly.fio": RUN,  # filename=/tmp/testfile
    "cmdprio-bssplit.fio": RUN,  # write_lat_log, /dev/sda
    "cmdprio-percentage.fio": RUN,
    "cpp_null.fio": f"refused: {UNKNOWN}",
    "cpuio.fio": RUN,
    # offset_increment=124g: the 2nd to 4th jobs start past any test device's end
    "cross-stripe-verify.fio": "fio fails: fio exited with status 3",
    "dedupe-global.fio": RUN,
    "dev-dax.fio": f"refused: {SPECIAL}",
    "dfs.fio": f"refused: {NETWORK}",
    "disk-zone-profile.fio": RUN,  # write_bw_log, /dev/sdb
    # directory=/scratch, donorname: run, and fio's e4defrag fails beside the jobs on its file
    "e4defrag.fio": "fio fails: error=Invalid or incomplete multibyte or wide character",
    "e4defrag2.fio": "fio fails: error=Invalid or incomplete multibyte or wide character",
    # randtrim with libaio on a file: fio's trim is for block devices
    "enospc-pressure.fio": "fio fails: error=Inappropriate ioctl for device",
    "exec.fio": f"refused: {PROGRAM}",
    "exitwhat.fio": RUN,
    "falloc.fio": RUN,
    "filecreate-ioengine.fio": RUN,
    "filedelete-ioengine.fio": RUN,
    "filestat-ioengine.fio": RUN,
    "fio-rand-RW.fio": RUN,
    "fio-rand-read.fio": RUN,
    "fio-rand-write.fio": RUN,
    "fio-seq-RW.fio": RUN,
    "fio-seq-read.fio": RUN,
    "fio-seq-write.fio": RUN,
    "fixed-rate-submission.fio": "not run: io_submit_mode=offload: fio 3.33 never ends",
    "flow.fio": RUN,
    "fsx.fio": RUN,
    "ftruncate.fio": RUN,
    "gfapi.fio": f"refused: {NETWORK}",
    "gpudirect-rdmaio-client.fio": f"refused: {NETWORK}",
    "gpudirect-rdmaio-server.fio": f"refused: {NETWORK}",
    "http-s3-crypto.fio": f"refused: {NETWORK}",
    "http-s3-storage-class.fio": f"refused: {NETWORK}",
    "http-s3.fio": f"refused: {NETWORK}",
    "http-swift.fio": f"refused: {NETWORK}",
    "http-webdav.fio": f"refused: {NETWORK}",
    "ime.fio": f"refused: {NETWORK}",
    "iometer-file-access-server.fio": RUN,
    "jesd219.fio": RUN,
    "latency-profile.fio": RUN,
    "libcufile-cufile.fio": f"refused: {SPECIAL}",
    "libcufile-posix.fio": f"refused: {SPECIAL}",
    "libhdfs.fio": f"refused: {NETWORK}",
    "libiscsi.fio": f"refused: {NETWORK}",
    "libpmem.fio": f"refused: {PMEM}",
    "librpma_apm-client.fio": f"refused: {NETWORK}",
    "librpma_apm-server.fio": f"refused: {NETWORK}",
    "librpma_gpspm-client.fio": f"refused: {NETWORK}",
    "librpma_gpspm-server.fio": f"refused: {NETWORK}",
    "libzbc-rand-write.fio": f"refused: {SPECIAL}",
    "libzbc-seq-read.fio": f"refused: {SPECIAL}",
    "mtd.fio": f"refused: {SPECIAL}",
    "nbd.fio": f"refused: {NETWORK}",
    "netio.fio": f"refused: {NETWORK}",
    "netio_multicast.fio": f"refused: {NETWORK}",
    "nfs.fio": f"refused: {NETWORK}",
    "null.fio": RUN,
    "numa.fio": RUN if NUMA_NODES > 1 else "fio fails: failed parsing numa_cpu_nodes=0-1",
    "pmemblk.fio": f"refused: {PMEM}",
    "poisson-rate-submission.fio": "not run: io_submit_mode=offload: fio 3.33 never ends",
    "rados.fio": f"refused: {NETWORK}",
    "rand-zones.fio": RUN,
    "rbd.fio": f"refused: {NETWORK}",
    "rdmaio-client.fio": f"refused: {NETWORK}",
    "rdmaio-server.fio": f"refused: {NETWORK}",
    "sg_verify-fail.fio": f"refused: {SPECIAL}",
    "sg_verify.fio": f"refused: {SPECIAL}",
    "sg_write_same_ndob.fio": f"refused: {SPECIAL}",
    "ssd-steadystate.fio": RUN,
    "ssd-test.fio": RUN,
    "steadystate.fio": RUN,
    "surface-scan.fio": RUN,
    "tiobench-example.fio": RUN,
    "uring-cmd-ng.fio": f"refused: {SPECIAL}",
    "uring-cmd-zoned.fio": f"refused: {SPECIAL}",
    "waitfor.fio": RUN,
    # ${FIO_RW} ... filled; meant to run with --filename=DEVICE on fio's command line
    "xnvme-compare.fio": "fio fails: file creation disallowed by allow_file_create=0",
    "xnvme-zoned.fio": "fio fails: fio exited with status 2",
    # zonemode=zbd: a zoned block device (host-managed SMR, ZNS), which a loop device is not
    "zbd-rand-write.fio": "fio fails: zbd_create_zone_info() failed",
    "zbd-seq-read.fio": "fio fails: zbd_create_zone_info() failed",
    "zipf.fio": RUN,
}


def examples() -> list[Path]:
    require_program("fio")
    require(EXAMPLES.is_dir(), f"{EXAMPLES} missing: apt-get install fio-examples (make test)")
    return sorted(EXAMPLES.glob("*.fio"))


def _stored(library: Path, run_id: int) -> tuple[str, str]:
    """A stored run's error ("" when none) and fio's stdout as stored."""
    with Library.open(library) as lib:
        chunks = load_raw_output(lib, run_id)
        error = get_run(lib, run_id).error or ""
    return error, "\n".join(text for source, text in chunks if source == "client.stdout")


Task = tuple[str, str, tuple[str, ...]]
Outcome = tuple[int, str, str, list[str], list[str]]


def _run(slot: Path, task: Task) -> Outcome:
    """One job file run from ``slot`` (its own folder for the work directory and, as the
    process's working directory, ``cwd``; the example's folder for its paths), on the slot's
    loop device: exit status, stdout, stderr, what is left in the work and the cwd folders."""
    name, text, devices = task
    root, work, cwd = slot / name / "root", slot / "work", slot / "cwd"
    root.mkdir(parents=True, mode=0o700)
    work.mkdir(exist_ok=True)
    cwd.mkdir(exist_ok=True)
    os.chdir(cwd)
    text, uses_device = moved(text, root, devices[int(slot.name.removeprefix("slot"))])
    make_read_files(text, root)
    job = slot / name / name
    job.write_text(text)
    args = ["run", "--pair", "local", "--tool", "fio", "--json", "--set", f"jobfile={job}"]
    args += ["--set", f"directory={work}"]
    for var, value in env_for(references(text), root).items():
        args += ["--set", f"env.{var}={value}"]
    if uses_device:
        args += ["--set", f"confirm_destroy={devices[int(slot.name.removeprefix('slot'))]}"]
    status, out, err = cli(library_of(slot), *args)
    return status, out, err, sorted(map(str, work.iterdir())), sorted(map(str, cwd.iterdir()))


@pytest.fixture
def devices() -> Iterator[tuple[str, ...]]:
    made = [loop_device(DEVICE_MIB) for _ in range(PARALLEL)]
    try:
        yield tuple(next(gen) for gen in made)
    finally:
        for gen in made:
            gen.close()


def _outcomes(tmp_path: Path, devices: tuple[str, ...]) -> Iterator[tuple[str, str, Any]]:
    """Each example: its name, what happened (``EXPECTED``'s words), and for a stored run its
    JSON line and stdout. Nothing of a run may be left in the work directory's folder nor in
    the process's working directory."""
    outcome: dict[str, str] = {}
    to_run: list[Task] = []
    for example in examples():
        text = capped(example.read_text())
        expected = EXPECTED.get(example.name, "")
        try:
            check_job_file(text, env_for(references(text), tmp_path))
        except JobFileError as exc:
            outcome[example.name] = f"refused: {exc}"
            continue
        if expected.startswith("not run"):
            outcome[example.name] = expected
            continue
        to_run.append((example.name, text, devices))
    ran = run_in_slots(tmp_path, _run, to_run, PARALLEL)
    for (name, _text, _devices), (slot, result) in zip(to_run, ran, strict=True):
        status, out, err, left_in_work, left_in_cwd = result
        assert left_in_work == [], f"{name}: the run left files behind"
        assert left_in_cwd == [], f"{name}: left in the working directory"
        run = json.loads(out.strip().splitlines()[-1]) if out.strip() else None
        if run is None:
            outcome[name] = f"refused: {err.strip()}"
            continue
        error, stdout = _stored(library_of(slot), int(run["id"]))
        if run["status"] == "completed":
            yield name, RUN, (run, stdout)
        else:
            yield name, f"fio fails: {run['status']} ({status}): {error}", (run, stdout)
    for name, words in outcome.items():
        yield name, words, None


@pytest.mark.timeout(900)
def test_every_example_job_file_stores_fios_own_groups(
    tmp_path: Path, devices: tuple[str, ...]
) -> None:
    seen: dict[str, str] = {}
    equal = 0
    for name, what, stored in _outcomes(tmp_path, devices):
        seen[name] = what
        expected = EXPECTED.get(name, "(not in EXPECTED)")
        if expected == RUN:
            assert what == RUN, f"{name}: {what}"
            assert stored is not None
            run, stdout = stored
            fios = fios_groups(json_documents(stdout)[-1])
            assert fios, f"{name}: fio reported no I/O"
            assert run["summary"].keys() == fios.keys(), name
            for key, value in fios.items():
                assert run["summary"][key] == pytest.approx(value, rel=1e-9), f"{name}: {key}"
            equal += 1
        else:
            kind, _, words = expected.partition(": ")
            assert what.startswith(kind) and words in what, f"{name}: {what}"
    assert sorted(seen) == sorted(EXPECTED) == [p.name for p in examples()]
    by_reason: dict[str, int] = {}
    for what in EXPECTED.values():
        if what != RUN:
            by_reason[what] = by_reason.get(what, 0) + 1
    runs = sum(1 for what in EXPECTED.values() if what == RUN)
    print(f"\nfio-examples: {equal}/{runs} run files equal fio's groups; the others:")
    for what, count in sorted(by_reason.items(), key=lambda item: -item[1]):
        print(f"  {count:3d}  {what}")
