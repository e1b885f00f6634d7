"""Flent's data files, made by Flent 2.3.0 itself (tests/data/flent/README.md), imported as
runs: every kept series equals Flent's own values on its step grid (read here from the file
with json, independently), the aggregate is Flent's sum, the summary Flent's own whole-run
figures, the start Flent's T0; a file without data, of a newer format, damaged or inflating
without end is refused in one line with nothing stored; the run compares with iperf3's."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import json
import os
import random
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pairbench.analysis.compare import compare
from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain.failures import InputRefusedError, UserFileError
from pairbench.export.selection import load_inputs
from pairbench.library import Library
from pairbench.library.runs import count_runs
from pairbench.library.series import load_raw_output, load_series
from pairbench.services.flent_import import import_flent, is_flent_file, read_flent_file
from pairbench.services.importing import import_output
from pairbench.tools.base import ParseError
from pairbench.tools.flent_file import decompress, read_flent

DATA = Path(__file__).resolve().parents[1] / "data" / "flent"
IPERF3 = Path(__file__).resolve().parents[1] / "data" / "captures" / "iperf3"
FILES = sorted(p.name for p in DATA.glob("*-loopback.flent.gz"))
MBIT = 1e6


def _document(name: str) -> dict[str, Any]:
    with gzip.open(DATA / name, "rt") as handle:
        loaded: dict[str, Any] = json.load(handle)
    return loaded


def _series(lib: Library, run_id: int) -> dict[tuple[str, str], tuple[list[float], list[float]]]:
    return {(s.stream, s.metric): (s.t.tolist(), s.v.tolist()) for s in load_series(lib, run_id)}


def _flent_values(doc: dict[str, Any], name: str, scale: float) -> tuple[list[float], list[float]]:
    pairs = [
        (x, v) for x, v in zip(doc["x_values"], doc["results"][name], strict=True) if v is not None
    ]
    return [x for x, _ in pairs], [v * scale for _, v in pairs]


def _import(lib: Library, name: str) -> Any:
    return import_flent(lib, read_flent_file(DATA / name), source_name=name)


@pytest.mark.parametrize("name", FILES)
def test_each_file_is_one_run_with_flents_metadata(library: Library, name: str) -> None:
    doc = _document(name)
    meta = doc["metadata"]
    run = _import(library, name)
    assert run.status.value == "completed" and run.spec.tool == "flent"
    assert run.spec.pair == "local"  # Flent tested 127.0.0.1: no saved pair has it
    t0 = datetime.fromisoformat(meta["T0"].replace("Z", "+00:00")).timestamp()
    assert run.started_at == pytest.approx(t0, abs=1e-6)
    assert run.spec.params["test"] == meta["NAME"]
    assert float(run.spec.params["length"]) == meta["LENGTH"]
    assert float(run.spec.params["step"]) == meta["STEP_SIZE"]
    assert run.spec.params["hosts"] == ",".join(meta["HOSTS"])
    assert run.tool_version == f"Flent {meta['FLENT_VERSION']}"
    assert run.tags["imported"] == name
    raw = "\n".join(text for _, text in load_raw_output(library, run.id))
    assert json.loads(raw) == doc  # the file's JSON, whole


def test_throughput_and_ping_series_are_flents_own_values(library: Library) -> None:
    name = "tcp_2up_iperf-loopback.flent.gz"
    doc = _document(name)
    run = _import(library, name)
    series = _series(library, run.id)
    for flow in ("TCP upload::1", "TCP upload::2"):
        assert series[(flow, "throughput_bps")] == _flent_values(doc, flow, MBIT)
    assert series[("sum", "throughput_bps")] == _flent_values(doc, "TCP upload sum", MBIT)
    assert series[("Ping (ms) ICMP", "rtt_ms")] == _flent_values(doc, "Ping (ms) ICMP", 1.0)
    assert set(series) == {
        ("sum", "throughput_bps"),
        ("TCP upload::1", "throughput_bps"),
        ("TCP upload::2", "throughput_bps"),
        ("Ping (ms) ICMP", "rtt_ms"),
    }
    meta = doc["metadata"]["SERIES_META"]
    # Flent's whole-run figures: iperf's own averages summed, ping's mean, least and most.
    assert run.summary["throughput_bps"] == pytest.approx(
        meta["TCP upload sum"]["MEAN_VALUE"] * MBIT
    )
    ping = meta["Ping (ms) ICMP"]
    assert run.summary["rtt_avg_ms"] == pytest.approx(ping["MEAN_VALUE"])
    assert run.summary["rtt_min_ms"] == pytest.approx(ping["MIN_VALUE"])
    assert run.summary["rtt_max_ms"] == pytest.approx(ping["MAX_VALUE"])


def test_one_flow_is_its_own_sum_and_steps_are_flents(library: Library) -> None:
    name = "udp_flood-loopback.flent.gz"
    doc = _document(name)
    run = _import(library, name)
    series = _series(library, run.id)
    assert series[("sum", "throughput_bps")] == series[("UDP upload", "throughput_bps")]
    t = np.asarray(series[("Ping (ms) ICMP", "rtt_ms")][0])
    assert np.allclose(np.diff(t), doc["metadata"]["STEP_SIZE"])  # Flent's 0.2 s grid


def test_voip_and_irtt_series_keep_their_meaning(library: Library) -> None:
    name = "voip-loopback.flent.gz"
    doc = _document(name)
    run = _import(library, name)
    series = _series(library, run.id)
    assert series[("VoIP::rtt", "rtt_ms")] == _flent_values(doc, "VoIP::rtt", 1.0)
    assert series[("VoIP::jitter", "jitter_ms")] == _flent_values(doc, "VoIP::jitter", 1.0)
    assert series[("VoIP::delay", "one_way_delay_ms")] == _flent_values(doc, "VoIP::delay", 1.0)
    assert ("VoIP::loss", "lost_packets") in series
    irtt = doc["metadata"]["SERIES_META"]["VoIP"]
    assert run.summary["rtt_avg_ms"] == pytest.approx(irtt["RTT_MEAN"])
    assert run.summary["lost_percent"] == pytest.approx(irtt["PACKET_LOSS_RATE"] * 100)
    ping = _import(library, "ping-loopback.flent.gz")
    assert set(_series(library, ping.id)) == {
        ("Ping (ms) ICMP", "rtt_ms"),
        ("Ping (ms) UDP", "rtt_ms"),
    }


def test_a_file_without_data_is_refused_and_nothing_stored(library: Library) -> None:
    flent = read_flent_file(DATA / "udp_flood-empty.flent.gz")
    with pytest.raises(InputRefusedError, match="holds no data") as refused:
        import_flent(library, flent)
    assert "\n" not in str(refused.value)
    assert count_runs(library) == 0


def test_bzip2_plain_json_and_older_versions_read_as_flent_reads_them() -> None:
    raw = gzip.decompress((DATA / "ping-loopback.flent.gz").read_bytes())
    expected = read_flent(gzip.compress(raw))
    for data in (bz2.compress(raw), raw):
        again = read_flent(data)
        assert again.records == expected.records and again.summary == expected.summary
    doc = json.loads(raw)
    doc["version"] = "x"  # Flent reads a version that is no number as 1, and the same shape
    assert read_flent(json.dumps(doc).encode()).records == expected.records


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.update(version=5), "format version 5 is newer"),
        (lambda d: d.pop("x_values"), "no x_values and results"),
        (lambda d: d["results"].update({"Ping (ms) ICMP": ["fast"]}), "not a number"),
    ],
)
def test_what_flent_never_writes_is_refused_in_one_line(change: Any, words: str) -> None:
    doc = _document("ping-loopback.flent.gz")
    change(doc)
    with pytest.raises(ParseError, match=words) as refused:
        read_flent(gzip.compress(json.dumps(doc).encode()))
    assert "\n" not in str(refused.value)


def test_damaged_or_endless_compressed_data_is_refused() -> None:
    with pytest.raises(ParseError, match="damaged compressed data"):
        read_flent(b"\x1f\x8b" + os.urandom(64))
    gz = gzip.compress(b"\0" * (8 << 20))  # 8 MiB of zeros in ~8 kB
    assert len(gz) < 64 << 10
    with pytest.raises(ParseError, match="inflates to more than 1 MiB"):
        decompress(gz, limit=1 << 20)
    with pytest.raises(ParseError, match="inflates to more than 1 MiB"):
        decompress(bz2.compress(b"\0" * (8 << 20)), limit=1 << 20)
    with pytest.raises(ParseError, match="no JSON"):
        read_flent(gzip.compress(b"not json"))


def test_files_are_told_by_name_or_compressed_start(tmp_path: Path) -> None:
    assert is_flent_file(DATA / "ping-loopback.flent.gz")
    renamed = tmp_path / "results.dat"
    renamed.write_bytes((DATA / "ping-loopback.flent.gz").read_bytes())
    assert is_flent_file(renamed)
    text = tmp_path / "iperf3.txt"
    text.write_text("Connecting to host 10.0.0.2, port 5201\n")
    assert not is_flent_file(text)
    fifo = tmp_path / "x.flent.gz"
    os.mkfifo(fifo)
    with pytest.raises(UserFileError, match="FIFO"):
        read_flent_file(fifo)


def test_a_flent_run_compares_with_an_iperf3_run(library: Library) -> None:
    flent = _import(library, "tcp_2up_iperf-loopback.flent.gz")
    iperf3 = import_output(library, "iperf3", (IPERF3 / "v321_tcp_P2_json.out").read_text())
    result = compare(load_inputs(library, [flent.id, iperf3.id]), metric="throughput_bps")
    values = {v.run_id: v.value for g in result.groups for v in g.values}
    assert values[flent.id] == pytest.approx(flent.summary["throughput_bps"])
    assert values[iperf3.id] == pytest.approx(iperf3.summary["throughput_bps"])
    assert {c.run_id for c in result.curves} == {flent.id, iperf3.id}


def _cli(library: Path, *argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library)})
    return run_cli(list(argv), env), out.getvalue(), err.getvalue()


def test_the_cli_imports_and_refuses_in_one_line(tmp_path: Path) -> None:
    library = tmp_path / "lib.sqlite"
    file = DATA / "tcp_2up_iperf-loopback.flent.gz"
    status, out, _ = _cli(library, "import", "flent", str(file), "--json")
    assert status == 0 and json.loads(out)["status"] == "completed"
    not_flent = tmp_path / "iperf3.txt"
    not_flent.write_text((IPERF3 / "v321_tcp_P2_json.out").read_text())
    status, _, err = _cli(library, "import", "flent", str(not_flent))
    assert status == 1 and "is not a Flent data file" in err and err.count("\n") == 1
    status, _, err = _cli(library, "import", "flent", str(DATA / "udp_flood-empty.flent.gz"))
    assert status == 1 and "nothing stored" in err and err.count("\n") == 1
    with Library.open(library) as lib:
        assert count_runs(lib) == 1


def _mutations(doc: Any, rng: random.Random) -> Any:
    """``doc`` with one value somewhere replaced by a value of another kind."""
    odd = [None, True, -1, 1e308, float("nan"), "x", [], {}, [None, "a", 3], {"t": "s"}]
    paths: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in list(items)[:40]:
            paths.append((node, key))
            if isinstance(value, dict | list):
                walk(value)

    walk(doc)
    metadata = doc["metadata"]
    node, key = rng.choice(paths) if rng.random() < 0.5 else (metadata, rng.choice(list(metadata)))
    node[key] = rng.choice(odd)
    return doc


@pytest.mark.parametrize("name", FILES)
def test_any_value_of_another_kind_is_read_or_refused_never_a_crash(name: str) -> None:
    """Flent's own files with one value of another kind put anywhere (120 seeded changes per
    file): a run or a ``ParseError``, never another exception."""
    raw = gzip.decompress((DATA / name).read_bytes())
    rng = random.Random(f"flent-{name}")
    for _ in range(120):
        doc = _mutations(json.loads(raw), rng)
        data = json.dumps(doc).encode()
        with contextlib.suppress(ParseError):
            read_flent(data)
        cut = data[: rng.randrange(len(data))]
        with pytest.raises(ParseError):
            read_flent(gzip.compress(cut)) if cut.strip() else read_flent(b"{")


def test_parse_prints_a_flent_file_in_the_parse_shape_and_stores_nothing(tmp_path: Path) -> None:
    library = tmp_path / "lib.sqlite"
    doc = _document("udp_flood-loopback.flent.gz")
    status, out, _ = _cli(library, "parse", "flent", str(DATA / "udp_flood-loopback.flent.gz"))
    assert status == 0
    parsed = json.loads(out)
    assert parsed["tool"] == "flent"
    [flow] = [s for s in parsed["series"] if s["stream"] == "UDP upload"]
    assert (flow["t"], flow["v"]) == tuple(map(list, _flent_values(doc, "UDP upload", MBIT)))
    status, _, err = _cli(library, "parse", "flent", str(IPERF3 / "v321_tcp_P2_json.out"))
    assert status == 1 and err.startswith("pairbench: ") and err.count("\n") == 1
    assert not library.exists()
