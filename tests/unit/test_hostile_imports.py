"""Hostile import files (issue 26, §3): each refused by `import` (or `import-bundle`) in one
line, the library unchanged, in bounded time: files that are no regular file (a FIFO in a
process of its own, devices, a directory), too large for the cap or for memory (under an
address-space limit, as `ulimit -v`), empty, binary, with implausible or NaN start times
(each tool that records one), negative or non-finite figures, hostile bundles."""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import shutil
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hostilekit import (
    assert_refused,
    copy_library,
    make_template,
    not_regular_files,
    payloads,
    refused_here,
    run_here,
    run_here_unblocking,
    run_process,
    snapshot,
    sparse_file,
)
from testkit import FIXTURES, REPO

CAPTURES = REPO / "tests" / "data" / "captures"


def _text(tool: str, name: str, folder: Path = FIXTURES) -> str:
    return (folder / tool / name).read_text(encoding="utf-8")


def _iperf3_json(change: Callable[[dict[str, Any]], None]) -> str:
    document = json.loads(_text("iperf3", "tcp_t5_json.out"))
    change(document)
    return json.dumps(document, indent=1)


def _stamp(value: float) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["start"]["timestamp"].__setitem__("timesecs", value)


def _intervals(key: str, value: float) -> Callable[[dict[str, Any]], None]:
    def change(document: dict[str, Any]) -> None:
        for interval in document["intervals"]:
            interval["sum"][key] = value
            for stream in interval["streams"]:
                stream[key] = value

    return change


def _times_1000(pattern: str) -> Callable[[str], str]:
    """Each number after ``pattern`` multiplied by 1000 (seconds written as milliseconds)."""
    return lambda text: re.sub(
        re.escape(pattern) + r"(\d+(?:\.\d+)?)",
        lambda m: f"{pattern}{float(m.group(1)) * 1000:.3f}",
        text,
    )


def _fio_ms() -> str:
    text = _text("fio", "randread4k_qd32_j2_jsonplus.out")
    return _times_1000('"timestamp_ms" : ')(text)


def _last_interval_ends_late(document: dict[str, Any]) -> None:
    last = document["intervals"][-1]
    last["sum"]["end"] = 1e300
    for stream in last["streams"]:
        stream["end"] = 1e300


# name → (tool, the file's bytes, a word the refusal says); ``None`` tool: import-bundle.
CONTENT: dict[str, tuple[str, bytes, str]] = {
    "an empty file": ("iperf3", b"", "empty"),
    "blank lines": ("iperf3", b"\n \n\t\n", "empty"),
    "NUL-laced text": ("iperf3", b"Connecting to host\x00\x00 10.0.0.2\n" * 50, "binary"),
    "random bytes": ("iperf3", random.Random(26).randbytes(65536), "binary"),
    "another tool's output (ping as fio)": (
        "fio",
        _text("ping", "c20_s1400_i02.out").encode(),
        "nothing fio prints",
    ),
    "timesecs in milliseconds": (
        "iperf3",
        _iperf3_json(_stamp(1795300068000)).encode(),
        "(milliseconds?)",
    ),
    "timemillisecs in microseconds": (
        "iperf3",
        _iperf3_json(
            lambda d: d["start"]["timestamp"].__setitem__("timemillisecs", 1795300068000000)
        ).encode(),
        "(milliseconds?)",
    ),
    "timesecs negative": ("iperf3", _iperf3_json(_stamp(-1795300068)).encode(), "1990"),
    "timesecs 1e20": ("iperf3", _iperf3_json(_stamp(1e20)).encode(), "1990"),
    "timesecs NaN": ("iperf3", _iperf3_json(_stamp(float("nan"))).encode(), "NaN"),
    "timesecs Infinity": ("iperf3", _iperf3_json(_stamp(float("inf"))).encode(), "1990"),
    "iperf3 text of the year 9999": (
        "iperf3",
        _text("iperf3", "v312_tcp_V.out", CAPTURES).replace(" 2026 ", " 9999 ").encode(),
        "1990",
    ),
    "fio timestamp_ms in microseconds": ("fio", _fio_ms().encode(), "(milliseconds?)"),
    "ping -D stamps of 1970 (a clock never set)": (
        "ping",
        _text("ping", "c20_s1400_i02_D.out").replace("[17953", "[").encode(),
        "1990",
    ),
    "uperf timestamp_ms in microseconds": (
        "uperf",
        _times_1000("timestamp_ms:")(_text("uperf", "iperf_tcp_nthr2_a_raw.out")).encode(),
        "(milliseconds?)",
    ),
    "negative throughput": (
        "iperf3",
        _iperf3_json(_intervals("bits_per_second", -5e9)).encode(),
        "negative",
    ),
    "negative receiver summary": (
        "iperf3",
        _iperf3_json(
            lambda d: d["end"]["sum_received"].__setitem__("bits_per_second", -1e9)
        ).encode(),
        "negative",
    ),
    "NaN throughput": (
        "iperf3",
        _iperf3_json(_intervals("bits_per_second", float("nan"))).encode(),
        "",
    ),
    "an interval ending 1e300 s in": (
        "iperf3",
        _iperf3_json(_last_interval_ends_late).encode(),
        "",
    ),
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_template(tmp_path_factory.mktemp("hostile-imports"))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", list(CONTENT))
def test_a_hostile_output_file_is_refused(name: str, template: Path, tmp_path: Path) -> None:
    tool, content, word = CONTENT[name]
    path = tmp_path / "output.txt"
    path.write_bytes(content)
    (outcome,) = refused_here(template, tmp_path, ("import", tool, str(path)))
    assert word in outcome.err


SPECIAL: dict[str, Callable[[Path], Path]] = {
    **not_regular_files(600),  # over the 512 MiB cap
    "a missing file": lambda folder: folder / "missing.out",
    "a file named by a shell payload": lambda folder: folder / payloads(folder)[0],
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", list(SPECIAL))
def test_an_output_that_is_no_regular_file_is_refused(
    name: str, template: Path, tmp_path: Path
) -> None:
    path = str(SPECIAL[name](tmp_path))
    refused_here(template, tmp_path, ("import", "iperf3", path), ("parse", "iperf3", path))


@pytest.mark.timeout(60)
def test_a_fifo_does_not_block_import_or_parse(template: Path, tmp_path: Path) -> None:
    library = copy_library(template, tmp_path)
    fifo = tmp_path / "output.out"
    os.mkfifo(fifo)
    before = snapshot(library)
    outcome = run_process(library, "import", "iperf3", str(fifo))  # a real process
    assert_refused(outcome, before, library, tmp_path)
    assert "named pipe (FIFO)" in outcome.err
    for argv in (("parse", "iperf3", str(fifo)), ("import-bundle", str(fifo))):
        assert_refused(run_here_unblocking(library, fifo, *argv), before, library, tmp_path)


@pytest.mark.timeout(120)
def test_devices_and_big_files_under_a_memory_limit_get_one_line(
    template: Path, tmp_path: Path
) -> None:
    """As `ulimit -v 256M`: /dev/zero and /dev/urandom are never read, a file over the cap is
    refused by its size, and one under the cap that does not fit in memory says so."""
    library = copy_library(template, tmp_path)
    before = snapshot(library)
    fits_not = sparse_file(tmp_path / "400m.out", 400 << 20)  # under the cap, over the memory
    for path in (Path("/dev/zero"), Path("/dev/urandom"), fits_not):
        outcome = run_process(library, "import", "iperf3", str(path), memory_mib=256)
        assert_refused(outcome, before, library, tmp_path)
    fine = run_process(
        library, "import", "iperf3", str(FIXTURES / "iperf3" / "tcp_t5.out"), memory_mib=256
    )
    assert fine.status == 0, fine.err  # the limit leaves room for a real import


def _bundle(folder: Path, template: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """An evidence bundle of the template's run, its run.json changed by ``change``."""
    source = folder / "source"
    source.mkdir()
    library = copy_library(template, source)
    written = folder / "written.zip"
    outcome = run_here(library, "export", "1", "--format", "bundle", "--out", str(written))
    assert outcome.status == 0, outcome.err
    hostile = folder / "bundle.zip"
    with zipfile.ZipFile(written) as zin, zipfile.ZipFile(hostile, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if info.filename.endswith("run.json"):
                record = json.loads(data)
                change(record)
                data = json.dumps(record).encode()
            zout.writestr(info.filename, data)
    shutil.rmtree(source)
    return hostile


def _host(role: str, **fields: object) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        record["pair"] = record["pair_detail"]["name"] = "elsewhere"
        record["pair_detail"][role].update(fields)

    return change


BUNDLES: dict[str, Callable[[dict[str, Any]], None]] = {
    "a bundled run started in milliseconds": lambda r: r.__setitem__("started_at", 1.7953e12),
    "a bundled run without a start (null)": lambda r: r.__setitem__("started_at", None),
    "a bundled run ending in the year 3000": lambda r: r.__setitem__("ended_at", 32503680000.0),
    "a bundled host named local": _host("server", name="local"),
    "a bundled host that claims to be this computer": _host("client", name="x1", auth="local"),
    "a bundled host whose address is a shell payload": _host(
        "server", name="x2", address="$(touch /tmp/never-pairbench)"
    ),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", list(BUNDLES))
def test_a_hostile_bundle_is_refused_whole(name: str, template: Path, tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, template, BUNDLES[name])
    (outcome,) = refused_here(
        template, tmp_path, ("import-bundle", str(bundle), "--allow-duplicates")
    )
    assert "nothing imported" in outcome.err


def _flent(change: Callable[[dict[str, Any]], None]) -> bytes:
    """Flent's own tcp_2up_iperf data file (tests/data/flent), changed, gzipped again."""
    with gzip.open(REPO / "tests" / "data" / "flent" / "tcp_2up_iperf-loopback.flent.gz") as f:
        document = json.load(f)
    change(document)
    return gzip.compress(json.dumps(document).encode(), 1)


def _gzip_bomb(mib: int) -> bytes:
    """``mib`` MiB of zeros gzipped (about 1 kB per MiB), made a MiB at a time."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunk = bytes(1 << 20)
    return b"".join(packer.compress(chunk) for _ in range(mib)) + packer.flush()


def _series(name: str, value: float) -> Callable[[dict[str, Any]], None]:
    return lambda d: d["results"][name].__setitem__(3, value)


def _nested(depth: int) -> bytes:
    return gzip.compress(b'{"x_values": ' + b"[" * depth + b"]" * depth + b"}")


FLENT: dict[str, tuple[Callable[[], bytes], str]] = {
    "a gzip bomb past 512 MiB": (lambda: _gzip_bomb(520), "inflates to more than 512 MiB"),
    "a NaN throughput": (lambda: _flent(_series("TCP upload::1", float("nan"))), "not a measured"),
    "a negative ping": (lambda: _flent(_series("Ping (ms) ICMP", -1.0)), "never negative"),
    "a start in 2150": (
        lambda: _flent(lambda d: d["metadata"].__setitem__("T0", "2150-01-01T00:00:00.000000Z")),
        "not a date between 1990 and 2100",
    ),
    "JSON nested 100,000 deep": (lambda: _nested(100_000), "not a Flent data file"),
    "a format from the future": (lambda: _flent(lambda d: d.__setitem__("version", 99)), "newer"),
    "results that are no list": (
        lambda: _flent(lambda d: d["results"].__setitem__("TCP upload::1", {"a": 1})),
        "not a list",
    ),
    "random bytes after gzip's magic": (
        lambda: b"\x1f\x8b" + random.Random(7).randbytes(4096),
        "damaged",
    ),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name", list(FLENT))
def test_a_hostile_flent_file_is_refused(name: str, template: Path, tmp_path: Path) -> None:
    make, word = FLENT[name]
    path = tmp_path / "results.flent.gz"
    path.write_bytes(make())
    (outcome,) = refused_here(template, tmp_path, ("import", "flent", str(path)))
    assert word in outcome.err


@pytest.mark.timeout(60)
def test_a_flent_fifo_does_not_block(template: Path, tmp_path: Path) -> None:
    library = copy_library(template, tmp_path)
    fifo = tmp_path / "results.flent.gz"
    os.mkfifo(fifo)
    before = snapshot(library)
    outcome = run_here_unblocking(library, fifo, "import", "flent", str(fifo))
    assert_refused(outcome, before, library, tmp_path)
    assert "named pipe (FIFO)" in outcome.err


def test_there_are_at_least_twenty_five_hostile_import_files() -> None:
    assert len(CONTENT) + len(SPECIAL) + len(BUNDLES) + len(FLENT) + 2 >= 33  # + the FIFOs


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("tool", "param", "name"),
    [("fio", "jobfile", "job.fio"), ("uperf", "profile_file", "mine.xml")],
)
def test_a_job_file_that_is_no_regular_file_is_refused(
    tool: str, param: str, name: str, template: Path, tmp_path: Path
) -> None:
    """`run --set jobfile=PATH` (fio) and `--set profile_file=PATH` (uperf) read a file on this
    computer too: a device or a FIFO there is refused before any run is stored."""
    fifo = tmp_path / name
    os.mkfifo(fifo)
    device = ("run", "--pair", "p1", "--tool", tool, "--set", f"{param}=/dev/zero")
    (outcome,) = refused_here(template, tmp_path, device)
    assert "character device" in outcome.err
    library = tmp_path / "library.sqlite"  # the copy refused_here made, unchanged
    before = snapshot(library)
    argv = ("run", "--pair", "p1", "--tool", tool, "--set", f"{param}={fifo}")
    outcome = run_here_unblocking(library, fifo, *argv)
    assert_refused(outcome, before, library, tmp_path)
    assert "named pipe (FIFO)" in outcome.err
