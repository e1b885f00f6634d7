"""The one grammar of sizes and rates (``domain/quantities.py``): a table of what each form
means in each reading, round trips of every number and unit, refusals, and iperf3's own
reading of the 1024-based counts Pairbench computes from the same text."""

from __future__ import annotations

import json
import subprocess
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pairbench.domain.quantities import QuantityError, amount_bits, rate_bps, size_bytes
from pairbench.tools.params import count_value
from sshdkit import free_port
from testkit import require_program

KI, MI, GI, TI = 2**10, 2**20, 2**30, 2**40

SIZES = [
    # text, iec, si, tc
    ("1400", 1400, 1400, 1400),
    ("1400B", 1400, 1400, 1400),
    ("512M", 512 * MI, 512 * 10**6, 512 * MI),
    ("512m", 512 * MI, 512 * 10**6, 512 * MI),
    ("512MiB", 512 * MI, 512 * MI, 512 * MI),
    ("512mib", 512 * MI, 512 * MI, 512 * MI),
    ("512MB", 512 * 10**6, 512 * 10**6, 512 * MI),
    ("64k", 64 * KI, 64 * 10**3, 64 * KI),
    ("64KiB", 64 * KI, 64 * KI, 64 * KI),
    ("4GiB", 4 * GI, 4 * GI, 4 * GI),
    ("4GB", 4 * 10**9, 4 * 10**9, 4 * GI),
    ("2T", 2 * TI, 2 * 10**12, 2 * TI),
    ("1.5G", Decimal("1.5") * GI, Decimal("1.5e9"), Decimal("1.5") * GI),
]


@pytest.mark.parametrize(("text", "iec", "si", "tc"), SIZES)
def test_a_size_means_what_its_reading_says(text: str, iec: int, si: int, tc: int) -> None:
    assert size_bytes(text, bare="iec") == iec
    assert size_bytes(text, bare="si") == si
    assert size_bytes(text, bare="tc") == tc


def test_tc_reads_its_own_lower_case_units() -> None:
    assert size_bytes("500mb", bare="tc") == 500 * MI  # tc: "mb" megabytes, 1024-based
    assert size_bytes("10kb", bare="tc") == 10 * KI
    assert size_bytes("7b", bare="tc") == 7


RATES = [
    ("8000", 8000),
    ("750M", 750 * 10**6),
    ("0.75G", 750 * 10**6),
    ("750mbit", 750 * 10**6),
    ("750Mbit/s", 750 * 10**6),
    ("1.5gbits/s", 1_500_000_000),
    ("800k", 800_000),
    ("2T", 2 * 10**12),
    ("0", 0),
]


@pytest.mark.parametrize(("text", "bps"), RATES)
def test_a_rate_is_bits_per_second_in_powers_of_1000(text: str, bps: int) -> None:
    assert rate_bps(text) == bps == rate_bps(text, tc=True)


def test_bps_is_bits_except_where_tc_reads_it() -> None:
    assert rate_bps("10Gbps") == rate_bps("10Gb/s") == 10 * 10**9
    for text in ("10Gbps", "200mbps", "5b/s"):
        with pytest.raises(QuantityError, match="ambiguous") as caught:
            rate_bps(text, tc=True)
        assert caught.value.kind == "ambiguous"


@pytest.mark.parametrize(
    ("text", "bits"),
    [("2700G", 2700e9), ("2700Gbit", 2700e9), ("337.5GB", 2700e9), ("500MiB", 500 * MI * 8)],
)
def test_an_amount_is_bits_or_bytes_spelled_with_b(text: str, bits: float) -> None:
    assert amount_bits(text) == Decimal(str(bits))


REFUSED = [
    # text, reading ("size" in all three, "rate", "amount"), kind
    ("", "size", "malformed"),
    (" 4G", "size", "malformed"),
    ("4 GB", "size", "malformed"),
    ("-1G", "size", "malformed"),
    ("1e9", "size", "malformed"),
    ("nan", "size", "malformed"),
    ("0x10", "size", "malformed"),
    ("２００M", "size", "malformed"),
    ("9" * 16, "size", "malformed"),
    ("4PB", "size", "unit"),
    ("5iB", "size", "unit"),
    ("500mbit", "size", "unit"),
    ("500Mbps", "size", "unit"),
    ("200mb", "rate", "ambiguous"),
    ("200MB", "rate", "ambiguous"),
    ("200B", "rate", "ambiguous"),
    ("5ms", "rate", "unit"),
    ("200MiB", "rate", "unit"),
    ("2700Gb", "amount", "ambiguous"),
]


@pytest.mark.parametrize(("text", "reading", "kind"), REFUSED)
def test_what_is_not_a_quantity_is_refused_saying_why(text: str, reading: str, kind: str) -> None:
    calls = {
        "size": [lambda t: size_bytes(t, bare="iec"), lambda t: size_bytes(t, bare="si")],
        "rate": [rate_bps, lambda t: rate_bps(t, tc=True)],
        "amount": [amount_bits],
    }[reading]
    for call in calls:
        with pytest.raises(QuantityError) as caught:
            call(text)
        assert caught.value.kind == kind, str(caught.value)
        assert repr(text) in str(caught.value) and "\n" not in str(caught.value)


def test_ambiguous_bytes_or_bits_are_refused_outside_tc() -> None:
    with pytest.raises(QuantityError, match=r"write 500MB, 500MiB or 500Mbit"):
        size_bytes("500Mb", bare="iec")
    assert size_bytes("500Mb", bare="tc") == 500 * MI


NUMBERS = st.decimals(min_value=0, max_value=10**12, places=3, allow_nan=False)
PREFIXES = st.sampled_from(["", "k", "K", "m", "M", "g", "G", "t", "T"])


def _text(number: Decimal) -> str:
    return format(number.normalize(), "f") if number else "0"


@given(NUMBERS, PREFIXES)
def test_every_number_and_prefix_reads_back(number: Decimal, prefix: str) -> None:
    power = "kmgt".index(prefix.lower()) + 1 if prefix else 0
    text = _text(number) + prefix
    assert size_bytes(text, bare="iec") == number * 1024**power
    assert size_bytes(text, bare="si") == number * 1000**power
    if prefix:
        assert size_bytes(text + "iB", bare="si") == number * 1024**power
    assert rate_bps(text + "bit") == rate_bps(text) == number * 1000**power
    assert amount_bits(text + "B") == number * 1000**power * 8


@given(st.integers(min_value=1, max_value=10**15 - 1))
def test_a_byte_count_written_with_its_largest_exact_iec_prefix_reads_back(size: int) -> None:
    prefix, factor = next(
        (p, f) for p, f in (("T", TI), ("G", GI), ("M", MI), ("K", KI), ("", 1)) if size % f == 0
    )
    text = f"{size // factor}{prefix}iB" if prefix else str(size)
    assert size_bytes(text, bare="si") == size


@pytest.mark.timeout(60)
def test_iperf3_reads_a_count_as_pairbench_does() -> None:
    """iperf3's own ``unit_atoi``: ``-n 3K`` is what ``count_value("3K")`` says it is."""
    iperf3 = require_program("iperf3")
    port = str(free_port())
    server = subprocess.Popen(
        [iperf3, "-s", "-1", "-p", port], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        for attempt in range(50):  # the server takes a moment to listen
            client = subprocess.run(
                [iperf3, "-c", "127.0.0.1", "-p", port, "-n", "3K", "-J"],
                capture_output=True,
                text=True,
                timeout=20,
            )
            document = json.loads(client.stdout)
            if "error" not in document or attempt == 49:
                break
            subprocess.run(["sleep", "0.1"], check=True)
        assert "error" not in document, document.get("error")
        assert document["start"]["test_start"]["bytes"] == count_value("3K") == 3 * KI
    finally:
        server.kill()
        server.wait(timeout=10)
