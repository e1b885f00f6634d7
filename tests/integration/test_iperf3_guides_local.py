"""iperf3 as guides write it, run for real on this computer: ``-u -b 0`` is unlimited UDP,
``-n``/``-k`` runs end after iperf3 sent that much (its own sender line says so), ``-i 0.1``
gives ten reports a second, ``-p`` is the server's port (a busy one refused before anything
is stored), ``-4`` runs."""

from __future__ import annotations

import asyncio
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from pairbench.domain import LOCAL_PAIR, Run, RunSpec, RunStatus
from pairbench.domain.failures import PortInUseError, RunError
from pairbench.library import Library
from pairbench.library.runs import count_runs
from pairbench.library.series import load_raw_output, load_series
from pairbench.services.running import run_on_pair
from testkit import require_program

pytestmark = pytest.mark.timeout(60)
# iperf3's own default UDP rate: a run at -b 0 far above it is unlimited.
IPERF3_UDP_DEFAULT_BPS = 1024 * 1024
SUM_THROUGHPUT = ("sum", "throughput_bps")


def _run(lib: Library, params: dict[str, str]) -> Run:
    return asyncio.run(run_on_pair(lib, LOCAL_PAIR, RunSpec("local", "iperf3", params)))


def _raw(lib: Library, run: Run) -> str:
    return "\n".join(text for _, text in load_raw_output(lib, run.id))


def _sender_bytes(raw: str) -> str:
    """iperf3's own sender total (the "Transfer" column of its ``sender`` line)."""
    found = re.findall(r"^\[\s*\d+\]\s+[\d.]+-[\d.]+\s+sec\s+(\S+ \S?Bytes).*sender$", raw, re.M)
    assert found, raw[-800:]
    return str(found[-1])


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Library]:
    require_program("iperf3")
    with Library.open(tmp_path / "library.sqlite") as opened:
        yield opened


def test_udp_at_bitrate_zero_is_unlimited(lib: Library) -> None:
    run = _run(lib, {"udp": "true", "bitrate": "0", "duration": "1", "length": "1400"})
    assert run.status is RunStatus.COMPLETED, run.error
    # iperf3's default for UDP (no -b) would be 1 Mbit/s; -b 0 on loopback is far faster.
    assert float(run.summary["throughput_bps"]) > 20 * IPERF3_UDP_DEFAULT_BPS, run.summary
    assert run.spec.params["bitrate"] == "0"


def test_a_run_by_bytes_at_a_tenth_of_a_second(lib: Library) -> None:
    run = _run(lib, {"bytes": "16M", "interval": "0.1", "bitrate": "60M"})
    assert run.status is RunStatus.COMPLETED, run.error
    assert _sender_bytes(_raw(lib, run)) == "16.0 MBytes"  # iperf3's own count, 1024-based
    assert "duration" not in run.spec.params
    [sums] = [s for s in load_series(lib, run.id) if (s.stream, s.metric) == SUM_THROUGHPUT]
    steps = np.diff(sums.t)
    # 16 MiB at 60 Mbit/s: ~2.2 s of reports every 0.1 s (the last one may be shorter; iperf3
    # prints each report's own start and end, a little late on a busy machine).
    assert len(steps) >= 15 and abs(float(np.median(steps)) - 0.1) <= 0.01, sums.t
    assert np.all(steps[:-1] < 0.15), sums.t
    assert 50e6 <= float(run.summary["throughput_bps"]) <= 66e6, run.summary


def test_a_run_by_blocks_sends_that_many_blocks(lib: Library) -> None:
    run = _run(lib, {"blockcount": "100", "length": "64K", "interval": "0.5"})
    assert run.status is RunStatus.COMPLETED, run.error
    assert _sender_bytes(_raw(lib, run)) == "6.25 MBytes"  # 100 blocks of 64 KiB


def test_the_chosen_port_is_used_and_a_busy_one_refused(lib: Library) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        busy = holder.getsockname()[1]
        with pytest.raises(RunError) as refused:
            _run(lib, {"port": str(busy), "duration": "1"})
        assert isinstance(refused.value.cause, PortInUseError)
        assert f"port {busy} is in use" in str(refused.value)
        assert "\n" not in str(refused.value)
        assert count_runs(lib) == 0  # refused before anything was stored
    free = busy  # released: now it is free
    run = _run(lib, {"port": str(free), "duration": "1", "version4": "true"})
    assert run.status is RunStatus.COMPLETED, run.error
    assert f"Connecting to host 127.0.0.1, port {free}" in _raw(lib, run)
