"""tools.fio_extremes: the largest latencies of a run, from its last fio JSON document."""

from __future__ import annotations

import json
from pathlib import Path

from pairbench.tools.fio_extremes import latency_max_us

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures" / "fio"


def _doc(read_max: int, write_max: int, write_ios: int = 5) -> list[str]:
    doc = {
        "jobs": [
            {
                "read": {"total_ios": 3, "lat_ns": {"max": read_max}},
                "write": {"total_ios": write_ios, "lat_ns": {"max": write_max}},
            }
        ]
    }
    return json.dumps(doc, indent=2).split("\n")


def test_a_captured_json_plus_run() -> None:
    # jsonplus_randrw70_j2_group.out: "lat_ns" max 34779035 (read), 34883971 (write); trim
    # and sync did no I/O (max 0)
    lines = (CAPTURES / "jsonplus_randrw70_j2_group.out").read_text().split("\n")
    assert latency_max_us(lines) == {"read_lat_max_us": 34779.035, "write_lat_max_us": 34883.971}


def test_the_last_whole_document_counts_and_idle_directions_are_left_out() -> None:
    lines = [*_doc(1000, 2000), "fio: some warning", *_doc(4000, 9000, write_ios=0)]
    assert latency_max_us(lines) == {"read_lat_max_us": 4.0}
    cut = _doc(1000, 2000) + _doc(7000, 8000)[:-3]  # the last document is cut short
    assert latency_max_us(cut) == {"read_lat_max_us": 1.0, "write_lat_max_us": 2.0}
    assert latency_max_us(["{", "not json", "}"]) == {}
    assert latency_max_us([]) == {}
