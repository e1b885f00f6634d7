"""fio's percentile options as fio defines them, against fio itself: each job file below runs
in real fio 3.33 (tiny, in ``tmp_path``) and the summary Pairbench's parser makes of its json+
output holds exactly the percentiles fio printed (``clat_percentiles``, ``lat_percentiles``,
``slat_percentiles``, ``percentile_list``), each named with its unit; over several jobs of a
group, from their merged json+ histograms by fio's rule (computed here from the bins)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fio_examples_kit import fio_percentile
from pairbench.tools.fio_json import parse_json_output
from pairbench.tools.fio_percentiles import DEFAULT_LIST, reported, suffix
from testkit import require_program

SUMMARY_WORDS = {"clat_ns": "lat", "lat_ns": "total_lat", "slat_ns": "submit_lat"}
PERCENTILE_NAME = re.compile(r"_p\d+(_\d+)?_us$")
DEFAULT_KEPT = {"50.000000": "p50", "99.000000": "p99", "99.900000": "p999", "99.990000": "p9999"}


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("50.000000", "p50"),
        ("99.900000", "p999"),
        ("99.990000", "p9999"),
        ("99.500000", "p99_5"),
        ("99.950000", "p99_95"),
        ("100.000000", "p100"),
        ("1.000000", "p1"),
        ("0.100000", "p0_1"),
        ("99.999000", "p99_999"),
        ("10.500000", "p10_5"),
        ("1.050000", "p1_05"),
    ],
)
def test_each_percentile_has_one_name_that_no_other_shares(key: str, name: str) -> None:
    assert suffix(key) == name


def test_fios_default_list_keeps_the_established_four_a_given_list_every_one() -> None:
    assert reported(DEFAULT_LIST) == list(DEFAULT_KEPT.items())
    assert reported(["99.500000", "1.000000", "50.000000"]) == [
        ("1.000000", "p1"),
        ("50.000000", "p50"),
        ("99.500000", "p99_5"),
    ]
    assert reported([]) == []


def _fio(tmp_path: Path, text: str) -> str:
    require_program("fio")
    job = tmp_path / "job.fio"
    job.write_text(text)
    done = subprocess.run(
        ["fio", "--output-format=json+", f"--directory={tmp_path}", str(job)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _expected(doc: dict[str, Any]) -> dict[str, float]:
    """The percentiles of fio's own document, as the module docstring says."""
    out: dict[str, float] = {}
    for direction in ("read", "write"):
        entries = [j[direction] for j in doc["jobs"] if j[direction]["total_ios"]]
        for source, word in SUMMARY_WORDS.items():
            printed = [e[source] for e in entries if e[source].get("percentile")]
            keys = {k for e in printed for k in e["percentile"]}
            kept = (
                DEFAULT_KEPT
                if keys == set(DEFAULT_LIST)
                else {k: DEFAULT_KEPT.get(k, "p" + f"{float(k):g}".replace(".", "_")) for k in keys}
            )
            for key, name in kept.items():
                if len(printed) == 1:
                    value = printed[0]["percentile"][key]
                else:
                    merged: dict[int, float] = {}
                    for e in printed:
                        for lat, count in e["bins"].items():
                            merged[int(lat)] = merged.get(int(lat), 0) + count
                    value = fio_percentile(merged, float(key))
                out[f"{direction}_{word}_{name}_us"] = value / 1000.0
    return out


BASE = "[global]\nsize=256k\nbs=4k\nioengine=psync\nrw=randrw\n"
CASES = {
    "default": BASE + "[a]\n",
    "a list": BASE + "[a]\npercentile_list=50:99.5:100\n",
    "no clat": BASE + "[a]\nclat_percentiles=0\n",
    "total latency": BASE + "[a]\nlat_percentiles=1\n",
    "total, a list": BASE + "[a]\nlat_percentiles=1\npercentile_list=1:99.95\n",
    "submission (libaio)": (
        "[global]\nsize=256k\nbs=4k\nioengine=libaio\niodepth=4\nrw=randrw\n"
        "[a]\nslat_percentiles=1\nlat_percentiles=1\npercentile_list=10:99.9\n"
    ),
    "two jobs, a list": BASE + "percentile_list=25:75:99.5\n[a]\n[b]\n",
}


@pytest.mark.parametrize("text", list(CASES.values()), ids=list(CASES))
def test_the_summary_holds_the_percentiles_fio_printed(tmp_path: Path, text: str) -> None:
    output = _fio(tmp_path, text)
    doc = json.loads(output[output.index("{") :])
    expected = _expected(doc)
    _records, summary = parse_json_output(output)
    stored = {k: v for k, v in summary.values.items() if PERCENTILE_NAME.search(k)}
    assert stored.keys() == expected.keys()
    for key, value in expected.items():
        assert stored[key] == pytest.approx(value, rel=1e-12), key
    if "clat_percentiles=0" in text:
        assert not any(k.startswith(("read_lat_p", "write_lat_p")) for k in stored)
    if "percentile_list=50:99.5:100" in text:
        assert {"read_lat_p50_us", "read_lat_p99_5_us", "read_lat_p100_us"} <= stored.keys()
