"""Records (one line's values of several metrics) and their samples and series."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pairbench.domain import Record, Sample, Series, expand, group_records, group_samples

THR = ("throughput_bps", "retransmits")


def test_a_record_is_one_sample_per_metric() -> None:
    record = Record("5", 2.0, THR, (1e9, 3.0))
    assert record.samples() == [
        Sample("5", "throughput_bps", 2.0, 1e9),
        Sample("5", "retransmits", 2.0, 3.0),
    ]
    assert expand([record, Record("sum", 2.0, ("rtt_ms",), (0.5,))]) == [
        *record.samples(),
        Sample("sum", "rtt_ms", 2.0, 0.5),
    ]
    assert expand([]) == []


def test_group_records_orders_sum_first_then_first_appearance() -> None:
    records = [
        Record("5", 1.0, THR, (10.0, 1.0)),
        Record("sum", 1.0, ("throughput_bps",), (20.0,)),
        Record("7", 1.0, ("rtt_ms",), (0.1,)),
        Record("5", 2.0, ("cwnd_bytes", "throughput_bps"), (5.0, 11.0)),
        Record("sum-reverse", 2.0, ("throughput_bps",), (3.0,)),
        Record("sum", 2.0, THR, (21.0, 0.0)),
    ]
    assert group_records(records) == [
        Series("sum", "throughput_bps", "bit/s", (1.0, 2.0), (20.0, 21.0)),
        Series("sum", "retransmits", "count", (2.0,), (0.0,)),
        Series("5", "throughput_bps", "bit/s", (1.0, 2.0), (10.0, 11.0)),
        Series("5", "retransmits", "count", (1.0,), (1.0,)),
        Series("7", "rtt_ms", "ms", (1.0,), (0.1,)),
        Series("5", "cwnd_bytes", "B", (2.0,), (5.0,)),
        Series("sum-reverse", "throughput_bps", "bit/s", (2.0,), (3.0,)),
    ]


_METRICS = st.lists(
    st.sampled_from(["throughput_bps", "retransmits", "rtt_ms", "packets"]),
    min_size=1,
    max_size=4,
    unique=True,
).map(tuple)


@st.composite
def _record(draw: st.DrawFn) -> Record:
    metrics = draw(_METRICS)
    values = draw(
        st.lists(st.floats(allow_nan=False), min_size=len(metrics), max_size=len(metrics))
    )
    return Record(
        draw(st.sampled_from(["sum", "5", "7"])), draw(st.floats(0, 99)), metrics, tuple(values)
    )


@given(st.lists(_record(), max_size=20))
def test_group_records_is_group_samples_of_the_expanded_records(records: list[Record]) -> None:
    assert group_records(records) == group_samples(expand(records))
