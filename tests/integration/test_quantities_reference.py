"""The size and rate grammar (``domain/quantities.py``) against the programs that read the
values: tc (a ``bfifo`` limit in bytes and a ``tbf`` rate in bytes/s, read back with ``tc -j``
in a network namespace this test makes and removes) and fio (the bytes an ``ioengine=null``
job moves for a ``size=``). A form the program takes means to Pairbench what it means to the
program; a form only Pairbench takes (``3MiB``, ``800k``) reaches the program, through the
lab's own tc spelling, as the same number."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Iterator
from decimal import Decimal

import pytest

from pairbench.domain.quantities import rate_bps, size_bytes
from pairbench.lab.shaping import format_rate, format_size, parse_rate, parse_size
from pairbench.tools.fio import TOOL as FIO
from testkit import require, require_program

# Sizes as tc writes them (its own lower-case units and a bare number), and the same amounts
# as the lab also takes them (IEC spelled out, upper case).
TC_SIZES = ["1500", "10b", "64k", "64kb", "3m", "1.5mb", "500mb", "2gb", "512KB", "7MB"]
LAB_ONLY_SIZES = ["3MiB", "64KiB", "1GiB"]
TC_RATES = ["100", "1000bit", "800kbit", "200mbit", "200Mbit", "1.5Gbit", "5gbit", "64kbit"]
LAB_ONLY_RATES = ["800k", "200M", "1.5G", "10Gbit/s"]
# fio's sizes as the run form takes them (a bare prefix: fio's powers of 1024).
FIO_SIZES = ["4k", "64K", "1m", "3M", "1g"]


@pytest.fixture(scope="module")
def netns() -> Iterator[str]:
    """A network namespace of this test's own (its loopback carries the qdiscs)."""
    require(os.geteuid() == 0, "tc in a network namespace needs root")
    ip = require_program("ip")
    require_program("tc")
    name = f"pbq-{uuid.uuid4().hex[:8]}"
    subprocess.run([ip, "netns", "add", name], check=True, timeout=30)
    try:
        yield name
    finally:
        subprocess.run([ip, "netns", "del", name], check=True, timeout=30)


def _tc(netns: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ip", "netns", "exec", netns, "tc", *args], capture_output=True, text=True, timeout=30
    )


def _qdisc_option(netns: str, qdisc: list[str], option: str) -> int:
    """The ``option`` of the qdisc ``qdisc`` as tc reads its arguments back (``tc -j``)."""
    added = _tc(netns, "qdisc", "replace", "dev", "lo", "root", *qdisc)
    assert added.returncode == 0, f"tc refused {qdisc}: {added.stderr}"
    shown = json.loads(_tc(netns, "-j", "qdisc", "show", "dev", "lo").stdout)
    return int(shown[0]["options"][option])


def _tc_bytes(netns: str, text: str) -> int:
    return _qdisc_option(netns, ["bfifo", "limit", text], "limit")


def _tc_bytes_per_second(netns: str, text: str) -> int:
    return _qdisc_option(netns, ["tbf", "rate", text, "burst", "64kb", "latency", "50ms"], "rate")


@pytest.mark.parametrize("text", TC_SIZES)
def test_a_size_tc_takes_means_the_same_bytes(netns: str, text: str) -> None:
    assert size_bytes(text, bare="tc") == _tc_bytes(netns, text)


@pytest.mark.parametrize("text", LAB_ONLY_SIZES)
def test_a_size_only_the_lab_takes_reaches_tc_as_the_same_bytes(netns: str, text: str) -> None:
    assert _tc(netns, "qdisc", "replace", "dev", "lo", "root", "bfifo", "limit", text).returncode
    bytes_ = parse_size(text)
    assert _tc_bytes(netns, format_size(bytes_)) == bytes_ == size_bytes(text, bare="tc")


@pytest.mark.parametrize("text", TC_RATES)
def test_a_rate_tc_takes_means_the_same_bits_per_second(netns: str, text: str) -> None:
    assert rate_bps(text, tc=True) // 8 == _tc_bytes_per_second(netns, text)


@pytest.mark.parametrize("text", LAB_ONLY_RATES)
def test_a_rate_only_the_lab_takes_reaches_tc_as_the_same_rate(netns: str, text: str) -> None:
    bps = parse_rate(text, "--rate")
    assert Decimal(bps) == rate_bps(text, tc=True)
    assert _tc_bytes_per_second(netns, format_rate(bps)) == bps // 8


def test_what_tc_reads_as_bytes_per_second_is_refused_by_the_lab(netns: str) -> None:
    """tc's ``mbps`` is megabytes per second (10mbps: 10,000,000 bytes/s): the lab refuses
    it rather than read it as networks write it."""
    assert _tc_bytes_per_second(netns, "10mbps") == 10_000_000
    with pytest.raises(ValueError, match="ambiguous"):
        rate_bps("10mbps", tc=True)


@pytest.mark.parametrize("text", FIO_SIZES)
def test_fio_moves_the_bytes_its_size_means_to_pairbench(text: str) -> None:
    fio = require_program("fio")
    checked = FIO.resolve({"size": text, "bs": "4k"})["size"]
    assert checked == text
    job = ["--name=q", "--ioengine=null", f"--size={text}", "--bs=4k", "--rw=read"]
    done = subprocess.run(
        [fio, *job, "--output-format=json"], capture_output=True, text=True, timeout=60, check=True
    )
    moved = json.loads(done.stdout)["jobs"][0]["read"]["io_bytes"]
    assert moved == size_bytes(text, bare="iec")
