"""Golden tests: every fio 3.33 output form, read from captures recorded on local files.

The captures are ``tests/data/captures/fio/NAME.out`` (stdout and stderr together; ``NAME.cmd``
holds the command line). Every expected summary number below is the figure fio printed in that
capture, on the line quoted in the comment above it (the last report's, in a
``--status-interval`` stream; the JSON document's in a mix with JSON, as that is what the
parser reports then), in base units. Where the summary combines several printed figures, the
expression combines them as the parser's documentation defines (IOPS and bandwidth summed,
latency means weighted, percentiles the maximum).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.domain import Record, Summary
from pairbench.tools.base import Capabilities, Parser
from pairbench.tools.feed import feed_text
from pairbench.tools.fio_auto import NO_HISTOGRAMS_REASON, NO_INTERVALS_REASON, FioAutoParser
from pairbench.tools.fio_json import FioJsonParser
from pairbench.tools.fio_terse import FioTerseParser, terse_version
from pairbench.tools.fio_text import FioTextParser
from pairbench.tools.registry import TOOLS
from parser_checks import assert_records_well_formed, feed_all, series_of
from parser_contract import Goldens, VersionCheck

CAPTURES = Path(__file__).resolve().parents[1] / "data" / "captures" / "fio"
FIO = TOOLS["fio"]
CAPS = Capabilities(version="fio-3.33", version_tuple=(3, 33))
KiB, MiB = 1024.0, 1024.0**2
ONE_REPORT = NO_INTERVALS_REASON
NO_HISTOGRAMS = NO_HISTOGRAMS_REASON


@dataclass(frozen=True)
class Golden:
    """What a capture must parse to: the form, how many reports fio printed (one per
    ``--status-interval`` and the final one), why the summary is incomplete, and the summary
    (``None``: present, but computed from merged json+ histograms, see test_fio_json)."""

    form: str
    reports: int
    reason: str | None
    values: dict[str, float | None]


def capture_text(name: str) -> str:
    return (CAPTURES / name).read_bytes().decode("utf-8", "replace")


def live_parser() -> Parser:
    """The parser the engine makes for a live run (the form is not a run parameter: fio's
    options choose it, so the live parser tells it from the lines as the file parser does)."""
    return FIO.parser(FIO.resolve({}), CAPS)


# --------------------------------------------------------------------------- the golden table

GOLDEN: dict[str, Golden] = {
    "json_randread_j2.out": Golden(
        form="json",
        reports=1,
        reason=ONE_REPORT,
        values={
            # last document, jobs[0, 1].read: "iops" : 41835.388204
            # 41846.384538
            "read_iops": 41835.388204 + 41846.384538,
            # "bw_bytes" : 171357750
            # 171402791
            "read_bytes_per_s": 171357750 + 171402791,
            # lat_ns "N", "mean" : 125548, 381398.555246
            # 125581, 381277.482653
            "read_lat_mean_us": (381398.555246 * 125548 + 381277.482653 * 125581)
            / (125548 + 125581)
            / 1e3,
            # clat_ns percentile "50.000000" : 224256
            # 224256
            "read_lat_p50_us": max(224256, 224256) / 1e3,
            # clat_ns percentile "99.000000" : 4227072
            # 4227072
            "read_lat_p99_us": max(4227072, 4227072) / 1e3,
            # clat_ns percentile "99.900000" : 28704768
            # 29229056
            "read_lat_p999_us": max(28704768, 29229056) / 1e3,
            # clat_ns percentile "99.990000" : 39059456
            # 34865152
            "read_lat_p9999_us": max(39059456, 34865152) / 1e3,
        },
    ),
    "json_si1_two_jobs.out": Golden(
        form="json --status-interval",
        reports=4,
        reason=NO_HISTOGRAMS.format(form="json"),
        values={
            # last document, jobs[0].read: "iops" : 51348.318348
            "read_iops": 51348.318348,
            # "bw_bytes" : 210322711
            "read_bytes_per_s": 210322711,
            # lat_ns "N", "mean" : 154199, 310891.527572
            "read_lat_mean_us": 310891.527572 / 1e3,
            # clat_ns percentile "50.000000" : 203776
            "read_lat_p50_us": 203776 / 1e3,
            # clat_ns percentile "99.000000" : 585728
            "read_lat_p99_us": 585728 / 1e3,
            # clat_ns percentile "99.900000" : 29229056
            "read_lat_p999_us": 29229056 / 1e3,
            # clat_ns percentile "99.990000" : 32636928
            "read_lat_p9999_us": 32636928 / 1e3,
            # last document, jobs[1].write: "iops" : 24123.292236
            "write_iops": 24123.292236,
            # "bw_bytes" : 98809004
            "write_bytes_per_s": 98809004,
            # lat_ns "N", "mean" : 72394, 662579.935547
            "write_lat_mean_us": 662579.935547 / 1e3,
            # clat_ns percentile "50.000000" : 246784
            "write_lat_p50_us": 246784 / 1e3,
            # clat_ns percentile "99.000000" : 4882432
            "write_lat_p99_us": 4882432 / 1e3,
            # clat_ns percentile "99.900000" : 32636928
            "write_lat_p999_us": 32636928 / 1e3,
            # clat_ns percentile "99.990000" : 37486592
            "write_lat_p9999_us": 37486592 / 1e3,
        },
    ),
    "jsonplus_randrw70_j2_group.out": Golden(
        form="json+",
        reports=1,
        reason=ONE_REPORT,
        values={
            # last document, jobs[0].read: "iops" : 49117.102216
            "read_iops": 49117.102216,
            # "bw_bytes" : 201183650
            "read_bytes_per_s": 201183650,
            # lat_ns "N", "mean" : 148481, 421727.177780
            "read_lat_mean_us": 421727.177780 / 1e3,
            # clat_ns percentile "50.000000" : 261120
            "read_lat_p50_us": 261120 / 1e3,
            # clat_ns percentile "99.000000" : 2056192
            "read_lat_p99_us": 2056192 / 1e3,
            # clat_ns percentile "99.900000" : 30277632
            "read_lat_p999_us": 30277632 / 1e3,
            # clat_ns percentile "99.990000" : 33816576
            "read_lat_p9999_us": 33816576 / 1e3,
            # last document, jobs[0].write: "iops" : 21039.034072
            "write_iops": 21039.034072,
            # "bw_bytes" : 86175883
            "write_bytes_per_s": 86175883,
            # lat_ns "N", "mean" : 63601, 533693.227685
            "write_lat_mean_us": 533693.227685 / 1e3,
            # clat_ns percentile "50.000000" : 342016
            "write_lat_p50_us": 342016 / 1e3,
            # clat_ns percentile "99.000000" : 3194880
            "write_lat_p99_us": 3194880 / 1e3,
            # clat_ns percentile "99.900000" : 31064064
            "write_lat_p999_us": 31064064 / 1e3,
            # clat_ns percentile "99.990000" : 34865152
            "write_lat_p9999_us": 34865152 / 1e3,
        },
    ),
    "jsonplus_si1_randread_j2.out": Golden(
        form="json+ --status-interval",
        reports=4,
        reason=None,
        values={
            # last document, jobs[0, 1].read: "iops" : 51032.322559
            # 51221.592802
            "read_iops": 51032.322559 + 51221.592802,
            # "bw_bytes" : 209028393
            # 209803644
            "read_bytes_per_s": 209028393 + 209803644,
            # lat_ns "N", "mean" : 153148, 312781.864295
            # 153716, 311702.615304
            "read_lat_mean_us": (312781.864295 * 153148 + 311702.615304 * 153716)
            / (153148 + 153716)
            / 1e3,
            # several json+ entries: from their merged histograms (test_fio_json)
            "read_lat_p50_us": None,
            # several json+ entries: from their merged histograms (test_fio_json)
            "read_lat_p99_us": None,
            # several json+ entries: from their merged histograms (test_fio_json)
            "read_lat_p999_us": None,
            # several json+ entries: from their merged histograms (test_fio_json)
            "read_lat_p9999_us": None,
        },
    ),
    "minimal_write_j1.out": Golden(
        form="terse v3",
        reports=1,
        reason=ONE_REPORT,
        values={
            # write: io KiB, bw KiB/s, IOPS, runtime ms = 580180;193328;48332;3001
            "write_iops": 48332,
            "write_bytes_per_s": (193328) * KiB,
            # write: lat min, max, mean, stdev (usec) = 34;29141;330.338523;1248.246041
            "write_lat_mean_us": 330.338523,
            # 50.000000%=156
            "write_lat_p50_us": 156,
            # 99.000000%=3686
            "write_lat_p99_us": 3686,
            # 99.900000%=22937
            "write_lat_p999_us": 22937,
        },
    ),
    "normal_json_randread_j2.out": Golden(
        form="json,normal",
        reports=1,
        reason=ONE_REPORT,
        values={
            # last document, jobs[0, 1].read: "iops" : 48299.900033
            # 47993.002333
            "read_iops": 48299.900033 + 47993.002333,
            # "bw_bytes" : 197836390
            # 196579337
            "read_bytes_per_s": 197836390 + 196579337,
            # lat_ns "N", "mean" : 144948, 330584.699865
            # 144027, 332585.335069
            "read_lat_mean_us": (330584.699865 * 144948 + 332585.335069 * 144027)
            / (144948 + 144027)
            / 1e3,
            # clat_ns percentile "50.000000" : 236544
            # 236544
            "read_lat_p50_us": max(236544, 236544) / 1e3,
            # clat_ns percentile "99.000000" : 962560
            # 1384448
            "read_lat_p99_us": max(962560, 1384448) / 1e3,
            # clat_ns percentile "99.900000" : 26345472
            # 25821184
            "read_lat_p999_us": max(26345472, 25821184) / 1e3,
            # clat_ns percentile "99.990000" : 31850496
            # 32112640
            "read_lat_p9999_us": max(31850496, 32112640) / 1e3,
        },
    ),
    "normal_json_si1_randrw70_j2_group.out": Golden(
        form="json,normal --status-interval",
        reports=4,
        reason=NO_HISTOGRAMS.format(form="json"),
        values={
            # last document, jobs[0].read: "iops" : 58301.460823
            "read_iops": 58301.460823,
            # "bw_bytes" : 238802783
            "read_bytes_per_s": 238802783,
            # lat_ns "N", "mean" : 175604, 356848.598870
            "read_lat_mean_us": 356848.598870 / 1e3,
            # clat_ns percentile "50.000000" : 240640
            "read_lat_p50_us": 240640 / 1e3,
            # clat_ns percentile "99.000000" : 970752
            "read_lat_p99_us": 970752 / 1e3,
            # clat_ns percentile "99.900000" : 28704768
            "read_lat_p999_us": 28704768 / 1e3,
            # clat_ns percentile "99.990000" : 32636928
            "read_lat_p9999_us": 32636928 / 1e3,
            # last document, jobs[0].write: "iops" : 24987.383798
            "write_iops": 24987.383798,
            # "bw_bytes" : 102348324
            "write_bytes_per_s": 102348324,
            # lat_ns "N", "mean" : 75262, 445383.467354
            "write_lat_mean_us": 445383.467354 / 1e3,
            # clat_ns percentile "50.000000" : 296960
            "write_lat_p50_us": 296960 / 1e3,
            # clat_ns percentile "99.000000" : 2056192
            "write_lat_p99_us": 2056192 / 1e3,
            # clat_ns percentile "99.900000" : 29229056
            "write_lat_p999_us": 29229056 / 1e3,
            # clat_ns percentile "99.990000" : 32636928
            "write_lat_p9999_us": 32636928 / 1e3,
        },
    ),
    "normal_randread_j2.out": Golden(
        form="normal",
        reports=1,
        reason=ONE_REPORT,
        values={
            # read: IOPS=32.6k, BW=127MiB/s (134MB/s)(382MiB/3001msec)
            # read: IOPS=32.2k, BW=126MiB/s (132MB/s)(378MiB/3001msec)
            "read_iops": 32.6e3 + 32.2e3,
            # READ: bw=253MiB/s (266MB/s), 126MiB/s-127MiB/s (132MB/s-134MB/s) ...
            "read_bytes_per_s": 253 * MiB,
            # lat (usec): min=104, max=36808, avg=489.36, stdev=2247.50
            # lat (usec): min=46, max=33707, avg=494.95, stdev=2215.51
            # issued rwts: total=97874,0,0,0 short=0,0,0,0 dropped=0,0,0,0
            # issued rwts: total=96726,0,0,0 short=0,0,0,0 dropped=0,0,0,0
            "read_lat_mean_us": ((489.36) * 97874 + (494.95) * 96726) / (97874 + 96726),
            # | 30.00th=[  153], 40.00th=[  165], 50.00th=[  180], 60.00th=[  198],
            # | 30.00th=[  155], 40.00th=[  167], 50.00th=[  180], 60.00th=[  198],
            "read_lat_p50_us": max(180, 180),
            # | 99.00th=[ 4293], 99.50th=[ 7701], 99.90th=[32900], 99.95th=[34866],
            # | 99.00th=[ 4293], 99.50th=[ 8848], 99.90th=[32375], 99.95th=[32900],
            "read_lat_p99_us": max(4293, 4293),
            # | 99.00th=[ 4293], 99.50th=[ 7701], 99.90th=[32900], 99.95th=[34866],
            # | 99.00th=[ 4293], 99.50th=[ 8848], 99.90th=[32375], 99.95th=[32900],
            "read_lat_p999_us": max(32900, 32375),
        },
    ),
    "normal_randrw70_j2_group.out": Golden(
        form="normal",
        reports=1,
        reason=ONE_REPORT,
        values={
            # read: IOPS=34.6k, BW=135MiB/s (142MB/s)(406MiB/3003msec)
            "read_iops": 34.6e3,
            # READ: bw=135MiB/s (142MB/s), 135MiB/s-135MiB/s (142MB/s-142MB/s) ...
            "read_bytes_per_s": 135 * MiB,
            # lat (usec): min=26, max=34727, avg=600.14, stdev=2176.96
            "read_lat_mean_us": 600.14,
            # | 30.00th=[  273], 40.00th=[  326], 50.00th=[  383], 60.00th=[  437],
            "read_lat_p50_us": 383,
            # | 99.00th=[ 2933], 99.50th=[25822], 99.90th=[28705], 99.95th=[31065],
            "read_lat_p99_us": 2933,
            # | 99.00th=[ 2933], 99.50th=[25822], 99.90th=[28705], 99.95th=[31065],
            "read_lat_p999_us": 28705,
            # write: IOPS=14.9k, BW=58.2MiB/s (61.0MB/s)(175MiB/3003msec); 0 zone resets
            "write_iops": 14.9e3,
            # WRITE: bw=58.2MiB/s (61.0MB/s), 58.2MiB/s-58.2MiB/s (61.0MB/s-61.0MB/s) ...
            "write_bytes_per_s": 58.2 * MiB,
            # lat (usec): min=81, max=34731, avg=750.31, stdev=2240.95
            "write_lat_mean_us": 750.31,
            # | 30.00th=[  375], 40.00th=[  441], 50.00th=[  498], 60.00th=[  553],
            "write_lat_p50_us": 498,
            # | 99.00th=[ 4359], 99.50th=[26084], 99.90th=[28967], 99.95th=[31327],
            "write_lat_p99_us": 4359,
            # | 99.00th=[ 4359], 99.50th=[26084], 99.90th=[28967], 99.95th=[31327],
            "write_lat_p999_us": 28967,
        },
    ),
    "normal_si1_randread_j2.out": Golden(
        form="normal --status-interval",
        reports=4,
        reason=NO_HISTOGRAMS.format(form="normal"),
        values={
            # read: IOPS=33.2k, BW=130MiB/s (136MB/s)(389MiB/3001msec)
            # read: IOPS=32.9k, BW=128MiB/s (135MB/s)(385MiB/3001msec)
            "read_iops": 33.2e3 + 32.9e3,
            # READ: bw=258MiB/s (270MB/s), 128MiB/s-130MiB/s (135MB/s-136MB/s) ...
            "read_bytes_per_s": 258 * MiB,
            # lat (usec): min=50, max=38354, avg=480.84, stdev=2362.56
            # lat (usec): min=50, max=36913, avg=485.64, stdev=2358.57
            # issued rwts: total=99548,0,0,0 short=0,0,0,0 dropped=0,0,0,0
            # issued rwts: total=98620,0,0,0 short=0,0,0,0 dropped=0,0,0,0
            "read_lat_mean_us": ((480.84) * 99548 + (485.64) * 98620) / (99548 + 98620),
            # | 30.00th=[  141], 40.00th=[  149], 50.00th=[  157], 60.00th=[  167],
            # | 30.00th=[  143], 40.00th=[  151], 50.00th=[  159], 60.00th=[  169],
            "read_lat_p50_us": max(157, 159),
            # | 99.00th=[ 4293], 99.50th=[ 8291], 99.90th=[33817], 99.95th=[35390],
            # | 99.00th=[ 4621], 99.50th=[ 8225], 99.90th=[33817], 99.95th=[34866],
            "read_lat_p99_us": max(4293, 4621),
            # | 99.00th=[ 4293], 99.50th=[ 8291], 99.90th=[33817], 99.95th=[35390],
            # | 99.00th=[ 4621], 99.50th=[ 8225], 99.90th=[33817], 99.95th=[34866],
            "read_lat_p999_us": max(33817, 33817),
        },
    ),
    "normal_si1_randrw70_j2_group.out": Golden(
        form="normal --status-interval",
        reports=4,
        reason=NO_HISTOGRAMS.format(form="normal"),
        values={
            # read: IOPS=44.2k, BW=173MiB/s (181MB/s)(518MiB/3001msec)
            "read_iops": 44.2e3,
            # READ: bw=173MiB/s (181MB/s), 173MiB/s-173MiB/s (181MB/s-181MB/s) ...
            "read_bytes_per_s": 173 * MiB,
            # lat (usec): min=25, max=36635, avg=467.73, stdev=2199.88
            "read_lat_mean_us": 467.73,
            # | 30.00th=[  131], 40.00th=[  139], 50.00th=[  151], 60.00th=[  174],
            "read_lat_p50_us": 151,
            # | 99.00th=[ 4228], 99.50th=[10290], 99.90th=[32375], 99.95th=[33424],
            "read_lat_p99_us": 4228,
            # | 99.00th=[ 4228], 99.50th=[10290], 99.90th=[32375], 99.95th=[33424],
            "read_lat_p999_us": 32375,
            # write: IOPS=18.9k, BW=74.0MiB/s (77.6MB/s)(222MiB/3001msec); 0 zone resets
            "write_iops": 18.9e3,
            # WRITE: bw=74.0MiB/s (77.6MB/s), 74.0MiB/s-74.0MiB/s (77.6MB/s-77.6MB/s) ...
            "write_bytes_per_s": 74.0 * MiB,
            # lat (usec): min=67, max=36702, avg=593.45, stdev=2166.05
            "write_lat_mean_us": 593.45,
            # | 30.00th=[  155], 40.00th=[  169], 50.00th=[  196], 60.00th=[  281],
            "write_lat_p50_us": 196,
            # | 99.00th=[ 4686], 99.50th=[ 7504], 99.90th=[32375], 99.95th=[33817],
            "write_lat_p99_us": 4686,
            # | 99.00th=[ 4686], 99.50th=[ 7504], 99.90th=[32375], 99.95th=[33817],
            "write_lat_p999_us": 32375,
        },
    ),
    "normal_si1_two_jobs.out": Golden(
        form="normal --status-interval",
        reports=4,
        reason=NO_HISTOGRAMS.format(form="normal"),
        values={
            # read: IOPS=48.7k, BW=190MiB/s (200MB/s)(571MiB/3001msec)
            "read_iops": 48.7e3,
            # READ: bw=190MiB/s (200MB/s), 190MiB/s-190MiB/s (200MB/s-200MB/s) ...
            "read_bytes_per_s": 190 * MiB,
            # lat (usec): min=56, max=33047, avg=327.66, stdev=1634.95
            "read_lat_mean_us": 327.66,
            # | 30.00th=[  141], 40.00th=[  151], 50.00th=[  159], 60.00th=[  172],
            "read_lat_p50_us": 159,
            # | 99.00th=[ 1811], 99.50th=[ 4015], 99.90th=[29754], 99.95th=[30540],
            "read_lat_p99_us": 1811,
            # | 99.00th=[ 1811], 99.50th=[ 4015], 99.90th=[29754], 99.95th=[30540],
            "read_lat_p999_us": 29754,
            # write: IOPS=4701, BW=18.4MiB/s (19.3MB/s)(55.1MiB/3001msec); 0 zone resets
            "write_iops": 4701,
            # WRITE: bw=18.4MiB/s (19.3MB/s), 18.4MiB/s-18.4MiB/s (19.3MB/s-19.3MB/s) ...
            "write_bytes_per_s": 18.4 * MiB,
            # lat (usec): min=42, max=40299, avg=3401.19, stdev=5727.79
            "write_lat_mean_us": 3401.19,
            # | 30.00th=[  619], 40.00th=[  750], 50.00th=[ 1106], 60.00th=[ 2507],
            "write_lat_p50_us": 1106,
            # | 99.00th=[31589], 99.50th=[34866], 99.90th=[39584], 99.95th=[40109],
            "write_lat_p99_us": 31589,
            # | 99.00th=[31589], 99.50th=[34866], 99.90th=[39584], 99.95th=[40109],
            "write_lat_p999_us": 39584,
        },
    ),
    "normal_two_jobs.out": Golden(
        form="normal",
        reports=1,
        reason=ONE_REPORT,
        values={
            # read: IOPS=46.5k, BW=182MiB/s (190MB/s)(546MiB/3004msec)
            "read_iops": 46.5e3,
            # READ: bw=182MiB/s (190MB/s), 182MiB/s-182MiB/s (190MB/s-190MB/s) ...
            "read_bytes_per_s": 182 * MiB,
            # lat (usec): min=106, max=31855, avg=343.14, stdev=1695.32
            "read_lat_mean_us": 343.14,
            # | 30.00th=[  149], 40.00th=[  157], 50.00th=[  167], 60.00th=[  180],
            "read_lat_p50_us": 167,
            # | 99.00th=[ 1778], 99.50th=[ 3523], 99.90th=[29492], 99.95th=[30540],
            "read_lat_p99_us": 1778,
            # | 99.00th=[ 1778], 99.50th=[ 3523], 99.90th=[29492], 99.95th=[30540],
            "read_lat_p999_us": 29492,
            # write: IOPS=6862, BW=26.8MiB/s (28.1MB/s)(80.5MiB/3003msec); 0 zone resets
            "write_iops": 6862,
            # WRITE: bw=26.8MiB/s (28.1MB/s), 26.8MiB/s-26.8MiB/s (28.1MB/s-28.1MB/s) ...
            "write_bytes_per_s": 26.8 * MiB,
            # lat (usec): min=37, max=44927, avg=2330.20, stdev=4919.22
            "write_lat_mean_us": 2330.20,
            # | 30.00th=[  515], 40.00th=[  586], 50.00th=[  709], 60.00th=[  922],
            "write_lat_p50_us": 709,
            # | 99.00th=[31327], 99.50th=[33817], 99.90th=[38536], 99.95th=[39060],
            "write_lat_p99_us": 31327,
            # | 99.00th=[31327], 99.50th=[33817], 99.90th=[38536], 99.95th=[39060],
            "write_lat_p999_us": 38536,
        },
    ),
    "normal_write_j1.out": Golden(
        form="normal",
        reports=1,
        reason=ONE_REPORT,
        values={
            # write: IOPS=43.0k, BW=168MiB/s (176MB/s)(505MiB/3001msec); 0 zone resets
            "write_iops": 43.0e3,
            # WRITE: bw=168MiB/s (176MB/s), 168MiB/s-168MiB/s (176MB/s-176MB/s) ...
            "write_bytes_per_s": 168 * MiB,
            # lat (usec): min=42, max=28349, avg=371.00, stdev=1374.20
            "write_lat_mean_us": 371.00,
            # | 30.00th=[  145], 40.00th=[  153], 50.00th=[  161], 60.00th=[  176],
            "write_lat_p50_us": 161,
            # | 99.00th=[ 3752], 99.50th=[ 5080], 99.90th=[24249], 99.95th=[25297],
            "write_lat_p99_us": 3752,
            # | 99.00th=[ 3752], 99.50th=[ 5080], 99.90th=[24249], 99.95th=[25297],
            "write_lat_p999_us": 24249,
        },
    ),
    "terse_json_two_jobs.out": Golden(
        form="terse v3,json",
        reports=1,
        reason=ONE_REPORT,
        values={
            # last document, jobs[0].read: "iops" : 46230.923026
            "read_iops": 46230.923026,
            # "bw_bytes" : 189361860
            "read_bytes_per_s": 189361860,
            # lat_ns "N", "mean" : 138739, 345241.994472
            "read_lat_mean_us": 345241.994472 / 1e3,
            # clat_ns percentile "50.000000" : 254976
            "read_lat_p50_us": 254976 / 1e3,
            # clat_ns percentile "99.000000" : 497664
            "read_lat_p99_us": 497664 / 1e3,
            # clat_ns percentile "99.900000" : 27394048
            "read_lat_p999_us": 27394048 / 1e3,
            # clat_ns percentile "99.990000" : 30015488
            "read_lat_p9999_us": 30015488 / 1e3,
            # last document, jobs[1].write: "iops" : 31019.993336
            "write_iops": 31019.993336,
            # "bw_bytes" : 127057892
            "write_bytes_per_s": 127057892,
            # lat_ns "N", "mean" : 93091, 514827.413015
            "write_lat_mean_us": 514827.413015 / 1e3,
            # clat_ns percentile "50.000000" : 272384
            "write_lat_p50_us": 272384 / 1e3,
            # clat_ns percentile "99.000000" : 3981312
            "write_lat_p99_us": 3981312 / 1e3,
            # clat_ns percentile "99.900000" : 28966912
            "write_lat_p999_us": 28966912 / 1e3,
            # clat_ns percentile "99.990000" : 30015488
            "write_lat_p9999_us": 30015488 / 1e3,
        },
    ),
    "terse_normal_si1_randread_j2.out": Golden(
        form="terse v3,normal --status-interval",
        reports=4,
        reason=NO_HISTOGRAMS.format(form="normal"),
        values={
            # read: IOPS=47.8k, BW=187MiB/s (196MB/s)(561MiB/3001msec)
            # read: IOPS=48.4k, BW=189MiB/s (198MB/s)(567MiB/3001msec)
            "read_iops": 47.8e3 + 48.4e3,
            # READ: bw=376MiB/s (394MB/s), 187MiB/s-189MiB/s (196MB/s-198MB/s) ...
            "read_bytes_per_s": 376 * MiB,
            # lat (usec): min=93, max=29327, avg=333.72, stdev=1322.25
            # lat (usec): min=95, max=30053, avg=330.01, stdev=1306.21
            # issued rwts: total=143547,0,0,0 short=0,0,0,0 dropped=0,0,0,0
            # issued rwts: total=145173,0,0,0 short=0,0,0,0 dropped=0,0,0,0
            "read_lat_mean_us": ((333.72) * 143547 + (330.01) * 145173) / (143547 + 145173),
            # | 30.00th=[  215], 40.00th=[  231], 50.00th=[  241], 60.00th=[  251],
            # | 30.00th=[  215], 40.00th=[  231], 50.00th=[  241], 60.00th=[  251],
            "read_lat_p50_us": max(241, 241),
            # | 99.00th=[  971], 99.50th=[ 3982], 99.90th=[24511], 99.95th=[25822],
            # | 99.00th=[  816], 99.50th=[ 3916], 99.90th=[24511], 99.95th=[25560],
            "read_lat_p99_us": max(971, 816),
            # | 99.00th=[  971], 99.50th=[ 3982], 99.90th=[24511], 99.95th=[25822],
            # | 99.00th=[  816], 99.50th=[ 3916], 99.90th=[24511], 99.95th=[25560],
            "read_lat_p999_us": max(24511, 24511),
        },
    ),
    "terse_v2_desc_randrw70_j2_group.out": Golden(
        form="terse v2",
        reports=1,
        reason=ONE_REPORT,
        values={
            # read: io KiB, bw KiB/s, IOPS, runtime ms = 484228;161355;40338;3001
            "read_iops": 40338,
            "read_bytes_per_s": (161355) * KiB,
            # read: lat min, max, mean, stdev (usec) = 23;42580;509.089571;2221.649298
            "read_lat_mean_us": 509.089571,
            # 50.000000%=175
            "read_lat_p50_us": 175,
            # 99.000000%=4227
            "read_lat_p99_us": 4227,
            # 99.900000%=33423
            "read_lat_p999_us": 33423,
            # write: io KiB, bw KiB/s, IOPS, runtime ms = 207300;69076;17269;3001
            "write_iops": 17269,
            "write_bytes_per_s": (69076) * KiB,
            # write: lat min, max, mean, stdev (usec) = 60;42623;659.375061;2426.222580
            "write_lat_mean_us": 659.375061,
            # 50.000000%=226
            "write_lat_p50_us": 226,
            # 99.000000%=4751
            "write_lat_p99_us": 4751,
            # 99.900000%=33816
            "write_lat_p999_us": 33816,
        },
    ),
    "terse_v2_randread_j2.out": Golden(
        form="terse v2",
        reports=1,
        reason=ONE_REPORT,
        values={
            # read: io KiB, bw KiB/s, IOPS, runtime ms = 368756;122877;30719;3001
            # 331756;110548;27637;3001
            "read_iops": 30719 + 27637,
            "read_bytes_per_s": (122877 + 110548) * KiB,
            # read: lat min, max, mean, stdev (usec) = 108;36158;519.585481;2278.966606
            # 110;37200;577.132997;2420.216826
            "read_lat_mean_us": (519.585481 * 30719 * 3001 + 577.132997 * 27637 * 3001)
            / (30719 * 3001 + 27637 * 3001),
            # 50.000000%=201
            # 50.000000%=209
            "read_lat_p50_us": max(201, 209),
            # 99.000000%=4358
            # 99.000000%=4947
            "read_lat_p99_us": max(4358, 4947),
            # 99.900000%=34340
            # 99.900000%=32899
            "read_lat_p999_us": max(34340, 32899),
        },
    ),
    "terse_v2_si1_two_jobs.out": Golden(
        form="terse v2 --status-interval",
        reports=4,
        reason=NO_HISTOGRAMS.format(form="terse"),
        values={
            # read: io KiB, bw KiB/s, IOPS, runtime ms = 507160;168997;42249;3001
            "read_iops": 42249,
            "read_bytes_per_s": (168997) * KiB,
            # read: lat min, max, mean, stdev (usec) = 110;30944;377.613717;1570.812107
            "read_lat_mean_us": 377.613717,
            # 50.000000%=197
            "read_lat_p50_us": 197,
            # 99.000000%=1712
            "read_lat_p99_us": 1712,
            # 99.900000%=28180
            "read_lat_p999_us": 28180,
            # write: io KiB, bw KiB/s, IOPS, runtime ms = 141720;47224;11806;3001
            "write_iops": 11806,
            "write_bytes_per_s": (47224) * KiB,
            # write: lat min, max, mean, stdev (usec) = 34;35791;1353.889700;3299.394672
            "write_lat_mean_us": 1353.889700,
            # 50.000000%=468
            "write_lat_p50_us": 468,
            # 99.000000%=25296
            "write_lat_p99_us": 25296,
            # 99.900000%=32112
            "write_lat_p999_us": 32112,
        },
    ),
    "terse_v3_randrw70_j2_group.out": Golden(
        form="terse v3",
        reports=1,
        reason=ONE_REPORT,
        values={
            # read: io KiB, bw KiB/s, IOPS, runtime ms = 454628;151039;37759;3010
            "read_iops": 37759,
            "read_bytes_per_s": (151039) * KiB,
            # read: lat min, max, mean, stdev (usec) = 24;36910;550.933423;2234.202921
            "read_lat_mean_us": 550.933423,
            # 50.000000%=305
            "read_lat_p50_us": 305,
            # 99.000000%=4177
            "read_lat_p99_us": 4177,
            # 99.900000%=32112
            "read_lat_p999_us": 32112,
            # write: io KiB, bw KiB/s, IOPS, runtime ms = 195112;64821;16205;3010
            "write_iops": 16205,
            "write_bytes_per_s": (64821) * KiB,
            # write: lat min, max, mean, stdev (usec) = 116;36936;686.113631;2316.412014
            "write_lat_mean_us": 686.113631,
            # 50.000000%=419
            "write_lat_p50_us": 419,
            # 99.000000%=5013
            "write_lat_p99_us": 5013,
            # 99.900000%=32112
            "write_lat_p999_us": 32112,
        },
    ),
    "terse_v3_si1_randread_j2.out": Golden(
        form="terse v3 --status-interval",
        reports=4,
        reason=NO_HISTOGRAMS.format(form="terse"),
        values={
            # read: io KiB, bw KiB/s, IOPS, runtime ms = 375764;125004;31251;3006
            # 389968;129816;32454;3004
            "read_iops": 31251 + 32454,
            "read_bytes_per_s": (125004 + 129816) * KiB,
            # read: lat min, max, mean, stdev (usec) = 95;35020;510.603401;2295.301315
            # 94;35928;491.895157;2247.078508
            "read_lat_mean_us": (510.603401 * 31251 * 3006 + 491.895157 * 32454 * 3004)
            / (31251 * 3006 + 32454 * 3004),
            # 50.000000%=177
            # 50.000000%=175
            "read_lat_p50_us": max(177, 175),
            # 99.000000%=4423
            # 99.000000%=4423
            "read_lat_p99_us": max(4423, 4423),
            # 99.900000%=32636
            # 99.900000%=32112
            "read_lat_p999_us": max(32636, 32112),
        },
    ),
    "terse_v3_two_jobs.out": Golden(
        form="terse v3",
        reports=1,
        reason=ONE_REPORT,
        values={
            # read: io KiB, bw KiB/s, IOPS, runtime ms = 601872;200557;50139;3001
            "read_iops": 50139,
            "read_bytes_per_s": (200557) * KiB,
            # read: lat min, max, mean, stdev (usec) = 92;34522;318.258422;1613.720031
            "read_lat_mean_us": 318.258422,
            # 50.000000%=179
            "read_lat_p50_us": 179,
            # 99.000000%=823
            "read_lat_p99_us": 823,
            # 99.900000%=29491
            "read_lat_p999_us": 29491,
            # write: io KiB, bw KiB/s, IOPS, runtime ms = 57780;19253;4813;3001
            "write_iops": 4813,
            "write_bytes_per_s": (19253) * KiB,
            # write: lat min, max, mean, stdev (usec) = 36;40421;3322.157958;5714.036957
            "write_lat_mean_us": 3322.157958,
            # 50.000000%=1044
            "write_lat_p50_us": 1044,
            # 99.000000%=33161
            "write_lat_p99_us": 33161,
            # 99.900000%=39059
            "write_lat_p999_us": 39059,
        },
    ),
    "terse_v4_two_jobs.out": Golden(
        form="terse v4",
        reports=1,
        reason=ONE_REPORT,
        values={
            # read: io KiB, bw KiB/s, IOPS, runtime ms = 569384;189731;47432;3001
            "read_iops": 47432,
            "read_bytes_per_s": (189731) * KiB,
            # read: lat min, max, mean, stdev (usec) = 102;33427;336.308513;1610.064723
            "read_lat_mean_us": 336.308513,
            # 50.000000%=181
            "read_lat_p50_us": 181,
            # 99.000000%=1044
            "read_lat_p99_us": 1044,
            # 99.900000%=29229
            "read_lat_p999_us": 29229,
            # write: io KiB, bw KiB/s, IOPS, runtime ms = 83664;27860;6965;3003
            "write_iops": 6965,
            "write_bytes_per_s": (27860) * KiB,
            # write: lat min, max, mean, stdev (usec) = 34;44863;2295.394788;4760.538984
            "write_lat_mean_us": 2295.394788,
            # 50.000000%=667
            "write_lat_p50_us": 667,
            # 99.000000%=30539
            "write_lat_p99_us": 30539,
            # 99.900000%=37486
            "write_lat_p999_us": 37486,
        },
    ),
    "terse_v5_randread_j2.out": Golden(
        form="terse v5",
        reports=1,
        reason=ONE_REPORT,
        values={
            # read: io KiB, bw KiB/s, IOPS, runtime ms = 331444;110444;27611;3001
            # 339072;112986;28246;3001
            "read_iops": 27611 + 28246,
            "read_bytes_per_s": (110444 + 112986) * KiB,
            # read: lat min, max, mean, stdev (usec) = 106;40310;577.707092;2455.328338
            # 108;36285;565.182177;2391.058465
            "read_lat_mean_us": (577.707092 * 27611 * 3001 + 565.182177 * 28246 * 3001)
            / (27611 * 3001 + 28246 * 3001),
            # 50.000000%=193
            # 50.000000%=191
            "read_lat_p50_us": max(193, 191),
            # 99.000000%=4816
            # 99.000000%=4947
            "read_lat_p99_us": max(4816, 4947),
            # 99.900000%=34340
            # 99.900000%=33161
            "read_lat_p999_us": max(34340, 33161),
        },
    ),
    "terse_v5_si1_randrw70_j2_group.out": Golden(
        form="terse v5 --status-interval",
        reports=4,
        reason=NO_HISTOGRAMS.format(form="terse"),
        values={
            # read: io KiB, bw KiB/s, IOPS, runtime ms = 453852;151233;37808;3001
            "read_iops": 37808,
            "read_bytes_per_s": (151233) * KiB,
            # read: lat min, max, mean, stdev (usec) = 26;37285;549.863807;2216.528285
            "read_lat_mean_us": 549.863807,
            # 50.000000%=195
            "read_lat_p50_us": 195,
            # 99.000000%=4292
            "read_lat_p99_us": 4292,
            # 99.900000%=32374
            "read_lat_p999_us": 32374,
            # write: io KiB, bw KiB/s, IOPS, runtime ms = 194628;64854;16213;3001
            "write_iops": 16213,
            "write_bytes_per_s": (64854) * KiB,
            # write: lat min, max, mean, stdev (usec) = 70;37310;684.751176;2303.252054
            "write_lat_mean_us": 684.751176,
            # 50.000000%=309
            "write_lat_p50_us": 309,
            # 99.000000%=4292
            "write_lat_p99_us": 4292,
            # 99.900000%=33423
            "write_lat_p999_us": 33423,
        },
    ),
    # A job file of several groups (fio-examples' tiobench-example.fio, capped: four
    # stonewall groups of two jobs): each group's figures under group<N>_, nothing run-wide.
    "groups_json_si1_tiobench.out": Golden(
        form="json --status-interval",
        reports=5,
        reason=NO_HISTOGRAMS.format(form="json"),
        values={
            # last document, jobs[0, 1].write (groupid 0): "iops" : 9760.479042
            # 10184.446660
            "group0_write_iops": 9760.479042 + 10184.446660,
            # "bw_bytes" : 39978922
            # 41715493
            "group0_write_bytes_per_s": 39978922 + 41715493,
            # lat_ns "N", "mean" : 9780, 101712.464622
            # 10215, 97417.275869
            "group0_write_lat_mean_us": (101712.464622 * 9780 + 97417.275869 * 10215)
            / (9780 + 10215)
            / 1e3,
            # clat_ns percentile "50.000000" : 70144
            # 67072
            "group0_write_lat_p50_us": max(70144, 67072) / 1e3,
            # clat_ns percentile "99.000000" : 1003520
            # 1187840
            "group0_write_lat_p99_us": max(1003520, 1187840) / 1e3,
            # clat_ns percentile "99.900000" : 4112384
            # 4489216
            "group0_write_lat_p999_us": max(4112384, 4489216) / 1e3,
            # clat_ns percentile "99.990000" : 7438336
            # 5537792
            "group0_write_lat_p9999_us": max(7438336, 5537792) / 1e3,
            # last document, jobs[2, 3].write (groupid 1): "iops" : 11013.944223
            # 11024.950100
            "group1_write_iops": 11013.944223 + 11024.950100,
            # "bw_bytes" : 45113115
            # 45158195
            "group1_write_bytes_per_s": 45113115 + 45158195,
            # lat_ns "N", "mean" : 11058, 90121.707904
            # 11047, 90049.051960
            "group1_write_lat_mean_us": (90121.707904 * 11058 + 90049.051960 * 11047)
            / (11058 + 11047)
            / 1e3,
            # clat_ns percentile "50.000000" : 62208
            # 61696
            "group1_write_lat_p50_us": max(62208, 61696) / 1e3,
            # clat_ns percentile "99.000000" : 1155072
            # 1155072
            "group1_write_lat_p99_us": max(1155072, 1155072) / 1e3,
            # clat_ns percentile "99.900000" : 3522560
            # 3751936
            "group1_write_lat_p999_us": max(3522560, 3751936) / 1e3,
            # clat_ns percentile "99.990000" : 5210112
            # 5144576
            "group1_write_lat_p9999_us": max(5210112, 5144576) / 1e3,
            # last document, jobs[4, 5].read (groupid 2): "iops" : 9284.715285
            # 9219.780220
            "group2_read_iops": 9284.715285 + 9219.780220,
            # "bw_bytes" : 38030193
            # 37764219
            "group2_read_bytes_per_s": 38030193 + 37764219,
            # lat_ns "N", "mean" : 9294, 107156.316764
            # 9229, 107937.225593
            "group2_read_lat_mean_us": (107156.316764 * 9294 + 107937.225593 * 9229)
            / (9294 + 9229)
            / 1e3,
            # clat_ns percentile "50.000000" : 70144
            # 70144
            "group2_read_lat_p50_us": max(70144, 70144) / 1e3,
            # clat_ns percentile "99.000000" : 995328
            # 1028096
            "group2_read_lat_p99_us": max(995328, 1028096) / 1e3,
            # clat_ns percentile "99.900000" : 5406720
            # 5079040
            "group2_read_lat_p999_us": max(5406720, 5079040) / 1e3,
            # clat_ns percentile "99.990000" : 12255232
            # 12124160
            "group2_read_lat_p9999_us": max(12255232, 12124160) / 1e3,
            # last document, jobs[6, 7].read (groupid 3): "iops" : 9777.222777
            # 9808.383234
            "group3_read_iops": 9777.222777 + 9808.383234,
            # "bw_bytes" : 40047504
            # 40175137
            "group3_read_bytes_per_s": 40047504 + 40175137,
            # lat_ns "N", "mean" : 9787, 101351.591090
            # 9828, 100925.955942
            "group3_read_lat_mean_us": (101351.591090 * 9787 + 100925.955942 * 9828)
            / (9787 + 9828)
            / 1e3,
            # clat_ns percentile "50.000000" : 60672
            # 60160
            "group3_read_lat_p50_us": max(60672, 60160) / 1e3,
            # clat_ns percentile "99.000000" : 946176
            # 929792
            "group3_read_lat_p99_us": max(946176, 929792) / 1e3,
            # clat_ns percentile "99.900000" : 6324224
            # 5996544
            "group3_read_lat_p999_us": max(6324224, 5996544) / 1e3,
            # clat_ns percentile "99.990000" : 10551296
            # 12124160
            "group3_read_lat_p9999_us": max(10551296, 12124160) / 1e3,
        },
    ),
    "groups_jsonplus_tiobench.out": Golden(
        form="json+",
        reports=1,
        reason=ONE_REPORT,
        values={
            # last document, jobs[0, 1].write (groupid 0): "iops" : 9228.771229
            # 9540.459540
            "group0_write_iops": 9228.771229 + 9540.459540,
            # "bw_bytes" : 37801046
            # 39077722
            "group0_write_bytes_per_s": 37801046 + 39077722,
            # lat_ns "N", "mean" : 9238, 107074.753193
            # 9550, 103845.279581
            "group0_write_lat_mean_us": (107074.753193 * 9238 + 103845.279581 * 9550)
            / (9238 + 9550)
            / 1e3,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group0_write_lat_p50_us": None,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group0_write_lat_p99_us": None,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group0_write_lat_p999_us": None,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group0_write_lat_p9999_us": None,
            # last document, jobs[2, 3].write (groupid 1): "iops" : 10980.019980
            # 9752.247752
            "group1_write_iops": 10980.019980 + 9752.247752,
            # "bw_bytes" : 44974161
            # 39945206
            "group1_write_bytes_per_s": 44974161 + 39945206,
            # lat_ns "N", "mean" : 10991, 90357.363206
            # 9762, 101801.046814
            "group1_write_lat_mean_us": (90357.363206 * 10991 + 101801.046814 * 9762)
            / (10991 + 9762)
            / 1e3,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group1_write_lat_p50_us": None,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group1_write_lat_p99_us": None,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group1_write_lat_p999_us": None,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group1_write_lat_p9999_us": None,
            # last document, jobs[4, 5].read (groupid 2): "iops" : 8163.184080
            # 9425.574426
            "group2_read_iops": 8163.184080 + 9425.574426,
            # "bw_bytes" : 33436401
            # 38607152
            "group2_read_bytes_per_s": 33436401 + 38607152,
            # lat_ns "N", "mean" : 8204, 121701.151999
            # 9435, 105400.122734
            "group2_read_lat_mean_us": (121701.151999 * 8204 + 105400.122734 * 9435)
            / (8204 + 9435)
            / 1e3,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group2_read_lat_p50_us": None,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group2_read_lat_p99_us": None,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group2_read_lat_p999_us": None,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group2_read_lat_p9999_us": None,
            # last document, jobs[6, 7].read (groupid 3): "iops" : 8527.472527
            # 7639.360639
            "group3_read_iops": 8527.472527 + 7639.360639,
            # "bw_bytes" : 34928527
            # 31290821
            "group3_read_bytes_per_s": 34928527 + 31290821,
            # lat_ns "N", "mean" : 8536, 116522.700914
            # 7647, 129913.607951
            "group3_read_lat_mean_us": (116522.700914 * 8536 + 129913.607951 * 7647)
            / (8536 + 7647)
            / 1e3,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group3_read_lat_p50_us": None,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group3_read_lat_p99_us": None,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group3_read_lat_p999_us": None,
            # several json+ entries: from their merged histograms (test_fio_groups)
            "group3_read_lat_p9999_us": None,
        },
    ),
    "groups_json_gr_tiobench.out": Golden(
        form="json",
        reports=1,
        reason=ONE_REPORT,
        values={
            # last document, jobs[0].write (groupid 0): "iops" : 14858.141858
            "group0_write_iops": 14858.141858,
            # "bw_bytes" : 60858949
            "group0_write_bytes_per_s": 60858949,
            # lat_ns "N", "mean" : 14873, 132959.577758
            "group0_write_lat_mean_us": 132959.577758 / 1e3,
            # clat_ns percentile "50.000000" : 56064
            "group0_write_lat_p50_us": 56064 / 1e3,
            # clat_ns percentile "99.000000" : 2932736
            "group0_write_lat_p99_us": 2932736 / 1e3,
            # clat_ns percentile "99.900000" : 8585216
            "group0_write_lat_p999_us": 8585216 / 1e3,
            # clat_ns percentile "99.990000" : 31064064
            "group0_write_lat_p9999_us": 31064064 / 1e3,
            # last document, jobs[1].write (groupid 1): "iops" : 16478.087649
            "group1_write_iops": 16478.087649,
            # "bw_bytes" : 67494247
            "group1_write_bytes_per_s": 67494247,
            # lat_ns "N", "mean" : 16544, 119966.772667
            "group1_write_lat_mean_us": 119966.772667 / 1e3,
            # clat_ns percentile "50.000000" : 42240
            "group1_write_lat_p50_us": 42240 / 1e3,
            # clat_ns percentile "99.000000" : 2146304
            "group1_write_lat_p99_us": 2146304 / 1e3,
            # clat_ns percentile "99.900000" : 9371648
            "group1_write_lat_p999_us": 9371648 / 1e3,
            # clat_ns percentile "99.990000" : 19267584
            "group1_write_lat_p9999_us": 19267584 / 1e3,
            # last document, jobs[2].read (groupid 2): "iops" : 13257.485030
            "group2_read_iops": 13257.485030,
            # "bw_bytes" : 54302658
            "group2_read_bytes_per_s": 54302658,
            # lat_ns "N", "mean" : 13284, 149462.638588
            "group2_read_lat_mean_us": 149462.638588 / 1e3,
            # clat_ns percentile "50.000000" : 67072
            "group2_read_lat_p50_us": 67072 / 1e3,
            # clat_ns percentile "99.000000" : 2965504
            "group2_read_lat_p99_us": 2965504 / 1e3,
            # clat_ns percentile "99.900000" : 8585216
            "group2_read_lat_p999_us": 8585216 / 1e3,
            # clat_ns percentile "99.990000" : 12910592
            "group2_read_lat_p9999_us": 12910592 / 1e3,
            # last document, jobs[3].read (groupid 3): "iops" : 15797.405190
            "group3_read_iops": 15797.405190,
            # "bw_bytes" : 64706171
            "group3_read_bytes_per_s": 64706171,
            # lat_ns "N", "mean" : 15829, 125836.459410
            "group3_read_lat_mean_us": 125836.459410 / 1e3,
            # clat_ns percentile "50.000000" : 72192
            "group3_read_lat_p50_us": 72192 / 1e3,
            # clat_ns percentile "99.000000" : 1515520
            "group3_read_lat_p99_us": 1515520 / 1e3,
            # clat_ns percentile "99.900000" : 7503872
            "group3_read_lat_p999_us": 7503872 / 1e3,
            # clat_ns percentile "99.990000" : 15269888
            "group3_read_lat_p9999_us": 15269888 / 1e3,
        },
    ),
    "groups_normal_si1_tiobench.out": Golden(
        form="normal --status-interval",
        reports=5,
        reason=NO_HISTOGRAMS.format(form="normal"),
        values={
            # write: IOPS=10.3k, BW=40.3MiB/s (42.2MB/s)(40.3MiB/1002msec); 0 zone resets
            # write: IOPS=10.4k, BW=40.5MiB/s (42.4MB/s)(40.5MiB/1001msec); 0 zone resets
            "group0_write_iops": 10.3e3 + 10.4e3,
            # WRITE: bw=80.7MiB/s (84.6MB/s), 40.3MiB/s-40.5MiB/s (42.2MB/s-42.4MB/s) ...
            "group0_write_bytes_per_s": 80.7 * MiB,
            # lat (usec): min=14, max=12125, avg=96.48, stdev=377.94
            # lat (usec): min=15, max=9034, avg=95.93, stdev=362.66
            # issued rwts: total=0,10326,0,0 short=0,0,0,0 dropped=0,0,0,0
            # issued rwts: total=0,10370,0,0 short=0,0,0,0 dropped=0,0,0,0
            "group0_write_lat_mean_us": ((96.48) * 10326 + (95.93) * 10370) / (10326 + 10370),
            # | 30.00th=[   39], 40.00th=[   47], 50.00th=[   56], 60.00th=[   65],
            # | 30.00th=[   39], 40.00th=[   47], 50.00th=[   56], 60.00th=[   66],
            "group0_write_lat_p50_us": max(56, 56),
            # | 99.00th=[ 1500], 99.50th=[ 3032], 99.90th=[ 5014], 99.95th=[ 5538],
            # | 99.00th=[ 1565], 99.50th=[ 2999], 99.90th=[ 4948], 99.95th=[ 5538],
            "group0_write_lat_p99_us": max(1500, 1565),
            # | 99.00th=[ 1500], 99.50th=[ 3032], 99.90th=[ 5014], 99.95th=[ 5538],
            # | 99.00th=[ 1565], 99.50th=[ 2999], 99.90th=[ 4948], 99.95th=[ 5538],
            "group0_write_lat_p999_us": max(5014, 4948),
            # write: IOPS=10.8k, BW=42.2MiB/s (44.2MB/s)(42.2MiB/1001msec); 0 zone resets
            # write: IOPS=10.5k, BW=40.9MiB/s (42.9MB/s)(41.0MiB/1001msec); 0 zone resets
            "group1_write_iops": 10.8e3 + 10.5e3,
            # WRITE: bw=83.1MiB/s (87.1MB/s), 40.9MiB/s-42.2MiB/s (42.9MB/s-44.2MB/s) ...
            "group1_write_bytes_per_s": 83.1 * MiB,
            # lat (usec): min=14, max=8161, avg=91.79, stdev=272.71
            # lat (usec): min=15, max=8128, avg=94.69, stdev=289.50
            # issued rwts: total=0,10808,0,0 short=0,0,0,0 dropped=0,0,0,0
            # issued rwts: total=0,10484,0,0 short=0,0,0,0 dropped=0,0,0,0
            "group1_write_lat_mean_us": ((91.79) * 10808 + (94.69) * 10484) / (10808 + 10484),
            # | 30.00th=[   45], 40.00th=[   53], 50.00th=[   60], 60.00th=[   69],
            # | 30.00th=[   45], 40.00th=[   54], 50.00th=[   63], 60.00th=[   71],
            "group1_write_lat_p50_us": max(60, 63),
            # | 99.00th=[ 1205], 99.50th=[ 1926], 99.90th=[ 3949], 99.95th=[ 4752],
            # | 99.00th=[ 1287], 99.50th=[ 1942], 99.90th=[ 4015], 99.95th=[ 5080],
            "group1_write_lat_p99_us": max(1205, 1287),
            # | 99.00th=[ 1205], 99.50th=[ 1926], 99.90th=[ 3949], 99.95th=[ 4752],
            # | 99.00th=[ 1287], 99.50th=[ 1942], 99.90th=[ 4015], 99.95th=[ 5080],
            "group1_write_lat_p999_us": max(3949, 4015),
            # read: IOPS=9097, BW=35.5MiB/s (37.3MB/s)(35.6MiB/1001msec)
            # read: IOPS=7998, BW=31.2MiB/s (32.8MB/s)(31.3MiB/1001msec)
            "group2_read_iops": 9097 + 7998,
            # READ: bw=66.8MiB/s (70.0MB/s), 31.2MiB/s-35.5MiB/s (32.8MB/s-37.3MB/s) ...
            "group2_read_bytes_per_s": 66.8 * MiB,
            # lat (usec): min=23, max=9953, avg=109.32, stdev=357.71
            # lat (usec): min=29, max=6420, avg=124.42, stdev=383.09
            # issued rwts: total=9107,0,0,0 short=0,0,0,0 dropped=0,0,0,0
            # issued rwts: total=8006,0,0,0 short=0,0,0,0 dropped=0,0,0,0
            "group2_read_lat_mean_us": ((109.32) * 9107 + (124.42) * 8006) / (9107 + 8006),
            # | 30.00th=[   58], 40.00th=[   62], 50.00th=[   68], 60.00th=[   74],
            # | 30.00th=[   64], 40.00th=[   68], 50.00th=[   73], 60.00th=[   78],
            "group2_read_lat_p50_us": max(68, 73),
            # | 99.00th=[ 1254], 99.50th=[ 2638], 99.90th=[ 5538], 99.95th=[ 6063],
            # | 99.00th=[ 1614], 99.50th=[ 3458], 99.90th=[ 5735], 99.95th=[ 5866],
            "group2_read_lat_p99_us": max(1254, 1614),
            # | 99.00th=[ 1254], 99.50th=[ 2638], 99.90th=[ 5538], 99.95th=[ 6063],
            # | 99.00th=[ 1614], 99.50th=[ 3458], 99.90th=[ 5735], 99.95th=[ 5866],
            "group2_read_lat_p999_us": max(5538, 5735),
            # read: IOPS=9016, BW=35.2MiB/s (36.9MB/s)(35.3MiB/1001msec)
            # read: IOPS=9130, BW=35.7MiB/s (37.4MB/s)(35.7MiB/1002msec)
            "group3_read_iops": 9016 + 9130,
            # READ: bw=70.9MiB/s (74.3MB/s), 35.2MiB/s-35.7MiB/s (36.9MB/s-37.4MB/s) ...
            "group3_read_bytes_per_s": 70.9 * MiB,
            # lat (usec): min=27, max=9715, avg=110.10, stdev=349.81
            # lat (usec): min=20, max=10680, avg=108.80, stdev=349.69
            # issued rwts: total=9026,0,0,0 short=0,0,0,0 dropped=0,0,0,0
            # issued rwts: total=9149,0,0,0 short=0,0,0,0 dropped=0,0,0,0
            "group3_read_lat_mean_us": ((110.10) * 9026 + (108.80) * 9149) / (9026 + 9149),
            # | 30.00th=[   52], 40.00th=[   60], 50.00th=[   69], 60.00th=[   77],
            # | 30.00th=[   52], 40.00th=[   59], 50.00th=[   68], 60.00th=[   76],
            "group3_read_lat_p50_us": max(69, 68),
            # | 99.00th=[ 1270], 99.50th=[ 2638], 99.90th=[ 4817], 99.95th=[ 7177],
            # | 99.00th=[ 1336], 99.50th=[ 2868], 99.90th=[ 5014], 99.95th=[ 6259],
            "group3_read_lat_p99_us": max(1270, 1336),
            # | 99.00th=[ 1270], 99.50th=[ 2638], 99.90th=[ 4817], 99.95th=[ 7177],
            # | 99.00th=[ 1336], 99.50th=[ 2868], 99.90th=[ 5014], 99.95th=[ 6259],
            "group3_read_lat_p999_us": max(4817, 5014),
        },
    ),
    "groups_terse_tiobench.out": Golden(
        form="terse v3",
        reports=1,
        reason=ONE_REPORT,
        values={
            # f1 write: io KiB, bw KiB/s, IOPS, runtime ms = 42264;42095;10523;1004
            # f1 write: io KiB, bw KiB/s, IOPS, runtime ms = 42188;42019;10504;1004
            "group0_write_iops": 10523 + 10504,
            "group0_write_bytes_per_s": (42095 + 42019) * KiB,
            # f1 write: lat min, max, mean, stdev (usec) = 19;9082;94.467582;405.204767
            # f1 write: lat min, max, mean, stdev (usec) = 20;8872;94.555120;341.481069
            "group0_write_lat_mean_us": (94.467582 * 10523 * 1004 + 94.555120 * 10504 * 1004)
            / (10523 * 1004 + 10504 * 1004),
            # 50.000000%=55
            # 50.000000%=61
            "group0_write_lat_p50_us": max(55, 61),
            # 99.000000%=888
            # 99.000000%=1056
            "group0_write_lat_p99_us": max(888, 1056),
            # 99.900000%=6455
            # 99.900000%=5013
            "group0_write_lat_p999_us": max(6455, 5013),
            # f2 write: io KiB, bw KiB/s, IOPS, runtime ms = 38088;38049;9512;1001
            # f2 write: io KiB, bw KiB/s, IOPS, runtime ms = 41800;41716;10429;1002
            "group1_write_iops": 9512 + 10429,
            "group1_write_bytes_per_s": (38049 + 41716) * KiB,
            # f2 write: lat min, max, mean, stdev (usec) = 21;9410;104.060342;384.290395
            # f2 write: lat min, max, mean, stdev (usec) = 22;7824;95.159730;321.047452
            "group1_write_lat_mean_us": (104.060342 * 9512 * 1001 + 95.159730 * 10429 * 1002)
            / (9512 * 1001 + 10429 * 1002),
            # 50.000000%=68
            # 50.000000%=61
            "group1_write_lat_p50_us": max(68, 61),
            # 99.000000%=774
            # 99.000000%=577
            "group1_write_lat_p99_us": max(774, 577),
            # 99.900000%=5668
            # 99.900000%=4685
            "group1_write_lat_p999_us": max(5668, 4685),
            # f3 read: io KiB, bw KiB/s, IOPS, runtime ms = 44032;43988;10997;1001
            # f3 read: io KiB, bw KiB/s, IOPS, runtime ms = 43716;43628;10907;1002
            "group2_read_iops": 10997 + 10907,
            "group2_read_bytes_per_s": (43988 + 43628) * KiB,
            # f3 read: lat min, max, mean, stdev (usec) = 26;6749;90.469650;314.244374
            # f3 read: lat min, max, mean, stdev (usec) = 18;6675;91.198196;317.504587
            "group2_read_lat_mean_us": (90.469650 * 10997 * 1001 + 91.198196 * 10907 * 1002)
            / (10997 * 1001 + 10907 * 1002),
            # 50.000000%=63
            # 50.000000%=63
            "group2_read_lat_p50_us": max(63, 63),
            # 99.000000%=329
            # 99.000000%=354
            "group2_read_lat_p99_us": max(329, 354),
            # 99.900000%=5144
            # 99.900000%=5275
            "group2_read_lat_p999_us": max(5144, 5275),
            # f4 read: io KiB, bw KiB/s, IOPS, runtime ms = 30352;30321;7580;1001
            # f4 read: io KiB, bw KiB/s, IOPS, runtime ms = 23656;23632;5908;1001
            "group3_read_iops": 7580 + 5908,
            "group3_read_bytes_per_s": (30321 + 23632) * KiB,
            # f4 read: lat min, max, mean, stdev (usec) = 29;9158;130.828387;522.326940
            # f4 read: lat min, max, mean, stdev (usec) = 42;9324;168.079342;632.817351
            "group3_read_lat_mean_us": (130.828387 * 7580 * 1001 + 168.079342 * 5908 * 1001)
            / (7580 * 1001 + 5908 * 1001),
            # 50.000000%=67
            # 50.000000%=81
            "group3_read_lat_p50_us": max(67, 81),
            # 99.000000%=2932
            # 99.000000%=3981
            "group3_read_lat_p99_us": max(2932, 3981),
            # 99.900000%=7503
            # 99.900000%=8159
            "group3_read_lat_p999_us": max(7503, 8159),
        },
    ),
}


def test_every_capture_has_a_golden_entry_and_a_cmd() -> None:
    names = sorted(p.name for p in CAPTURES.glob("*.out"))
    assert names == sorted(GOLDEN)
    for name in names:
        cmd = (CAPTURES / name).with_suffix(".cmd").read_text()
        assert "# exit status: 0" in cmd and "fio-3.33" in cmd
        assert f"> {CAPTURES}/{name} 2>&1" in cmd or f"/{name} 2>&1" in cmd


def _check_summary(summary: Summary, golden: Golden) -> None:
    assert summary.form == golden.form
    assert summary.reason == golden.reason
    assert summary.complete is (golden.reason is None)
    assert summary.error is None
    assert summary.values.keys() == golden.values.keys()
    for key, value in golden.values.items():
        if value is not None:
            assert summary.values[key] == pytest.approx(value, rel=1e-9), key


def check_golden(name: str, records: list[Record], summary: Summary) -> None:
    """The file parser's output of a capture is its golden (run by test_parser_contract)."""
    _check_summary(summary, GOLDEN[name])
    assert_records_well_formed(records)
    if name.startswith("groups_"):
        check_groups_records(name, records)
        return
    sums = [r for r in records if r.stream == "sum"]
    assert [r.t for r in sums] == sorted({r.t for r in sums})  # one per report, in order
    golden = GOLDEN[name]
    if golden.form.startswith("terse") and "," not in golden.form and golden.reports == 1:
        # A report's end shows only when the next one begins: one report gives no records.
        assert records == []
    else:
        # One record per report, or fewer when a report came less than 100 ms after the last.
        assert golden.reports - 1 <= len(sums) <= golden.reports
    streams = {r.stream for r in records}
    several = "two_jobs" in name or ("_j2" in name and "group" not in name)
    assert streams <= ({"sum", "reader.0", "writer.1"} if "two_jobs" in name else streams)
    assert (streams - {"sum"} != set()) is (several and bool(records))


def check_groups_records(name: str, records: list[Record]) -> None:
    """A capture of four stonewall groups of two jobs: no "sum"; a stream per group (one
    record per report that advanced it) and, the groups having two jobs each, one per job,
    unless --group_reporting made each group one entry."""
    streams = {r.stream for r in records}
    golden = GOLDEN[name]
    if golden.reports == 1 and golden.form.startswith("terse"):
        assert records == []  # one terse report: its end never shows
        return
    groups = {f"group{g}" for g in range(4)}
    jobs = {"f1.0", "f1.1", "f2.2", "f2.3", "f3.4", "f3.5", "f4.6", "f4.7"}
    assert "sum" not in streams
    assert streams == (groups if "_gr_" in name else groups | jobs)
    for group in groups:
        times = [r.t for r in records if r.stream == group]
        assert times == sorted(set(times)) and 1 <= len(times) <= golden.reports


GOLDENS = Goldens(
    folder=CAPTURES,
    names=tuple(sorted(GOLDEN)),
    check=check_golden,
    live_parser=lambda name: live_parser(),
    parts=(FioTextParser, FioJsonParser, FioTerseParser, FioAutoParser),
    versions=(
        # fio's version, in the JSON document and on terse lines: read as before.
        VersionCheck(banner=r"fio-3\.33", future="fio-99.1"),
        # The terse format's version (2 to 5 in fio 3.33), first field of a terse line.
        VersionCheck(banner=r"(?m)^3;fio-", future="9;fio-", refused=True),
    ),
)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_the_live_parser_reads_every_form_line_by_line(name: str) -> None:
    text = capture_text(name)
    live = live_parser()
    records: list[Record] = []
    for line in text.split("\n"):
        records += live.feed(line)
    summary = live.close()
    _check_summary(summary, GOLDEN[name])
    assert (records, summary) == feed_text(FIO.file_parser(), text)


def _parse_cli(path: Path, library_path: Path) -> dict[str, object]:
    out, err = io.StringIO(), io.StringIO()
    env = Environment(stdout=out, stderr=err, environ={"PAIRBENCH_LIBRARY": str(library_path)})
    assert run_cli(["parse", "fio", str(path)], env) == 0, err.getvalue()
    payload: dict[str, object] = json.loads(out.getvalue())
    return payload


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_pairbench_parse_detects_the_form(name: str, library_path: Path) -> None:
    golden = GOLDEN[name]
    payload = _parse_cli(CAPTURES / name, library_path)
    assert payload["form"] == golden.form
    assert payload.get("reason") == golden.reason
    assert payload["complete"] is (golden.reason is None)
    summary = payload["summary"]
    assert isinstance(summary, dict) and summary.keys() == golden.values.keys()
    for key, value in golden.values.items():
        if value is not None:
            assert summary[key] == pytest.approx(value, rel=1e-9), key


# --------------------------------------------------------------------------- intervals by hand


def test_normal_stream_intervals_by_hand() -> None:
    # normal_si1_randread_j2.out, the first two dumps of its two jobs:
    #   read: IOPS=37.0k, BW=144MiB/s (151MB/s)(37.0MiB/257msec)  lat ... avg=432.01
    #   issued rwts: total=9519,0,0,0
    #   read: IOPS=41.1k, BW=160MiB/s (168MB/s)(41.0MiB/256msec)  lat ... avg=390.53
    #   issued rwts: total=10517,0,0,0
    #   read: IOPS=35.4k, BW=137MiB/s (144MB/s)(173MiB/1259msec)  lat ... avg=454.25
    #   issued rwts: total=44542,0,0,0
    #   read: IOPS=34.6k, BW=134MiB/s (140MB/s)(169MiB/1259msec)  lat ... avg=462.58
    #   issued rwts: total=43620,0,0,0
    records, _ = feed_text(FIO.file_parser(), capture_text("normal_si1_randread_j2.out"))
    ser = series_of(records)
    job0 = [9519 / 0.257, (44542 - 9519) / (1.259 - 0.257)]
    job1 = [10517 / 0.256, (43620 - 10517) / (1.259 - 0.256)]
    assert [t for t, _ in ser[("sum", "read_iops")][:2]] == [0.257, 1.259]
    assert [v for _, v in ser[("randread.0", "read_iops")][:2]] == pytest.approx(job0)
    assert [v for _, v in ser[("randread.1", "read_iops")][:2]] == pytest.approx(job1)
    assert [v for _, v in ser[("sum", "read_iops")][:2]] == pytest.approx(
        [a + b for a, b in zip(job0, job1, strict=True)]
    )
    # bytes: the interval's I/Os times the dump's mean I/O size (173MiB / 44542)
    assert ser[("randread.0", "read_bytes_per_s")][1][1] == pytest.approx(
        job0[1] * 173 * MiB / 44542
    )
    assert ser[("randread.0", "read_lat_mean_us")][1][1] == pytest.approx(
        (454.25 * 44542 - 432.01 * 9519) / (44542 - 9519)
    )
    lat_sum = ser[("sum", "read_lat_mean_us")][0][1]
    assert lat_sum == pytest.approx((432.01 * 9519 + 390.53 * 10517) / (9519 + 10517))


def test_terse_stream_intervals_by_hand() -> None:
    # terse_v3_si1_randread_j2.out, io KiB;bw KiB/s;IOPS;runtime ms and the lat mean (usec) of
    # its first two reports (two jobs each):
    #   33896;111500;28641;304 ... 566.914100     36528;120554;30917;303 ... 525.818404
    #   147464;113085;28574;1304 ... 561.080408   159612;122495;30676;1303 ... 522.764972
    records, _ = feed_text(FIO.file_parser(), capture_text("terse_v3_si1_randread_j2.out"))
    ser = series_of(records)
    assert [t for t, _ in ser[("sum", "read_iops")]][:2] == [0.304, 1.304]
    # The first interval is fio's own cumulative figure; the next one differences the KiB.
    assert ser[("randread.0", "read_iops")][0][1] == pytest.approx(28641)
    assert ser[("randread.1", "read_iops")][0][1] == pytest.approx(30917)
    bytes0 = (147464 - 33896) * KiB / (1.304 - 0.304)
    assert ser[("randread.0", "read_bytes_per_s")][1][1] == pytest.approx(bytes0)
    # IOPS: the bytes over the mean I/O size to date, KiB / (IOPS x runtime)
    io_size = 147464 * KiB / (28574 * 1.304)
    assert ser[("randread.0", "read_iops")][1][1] == pytest.approx(bytes0 / io_size)
    assert ser[("randread.0", "read_lat_mean_us")][1][1] == pytest.approx(
        (561.080408 * 147464 - 566.914100 * 33896) / (147464 - 33896)
    )
    assert ser[("randread.1", "read_bytes_per_s")][1][1] == pytest.approx(
        (159612 - 36528) * KiB / (1.303 - 0.303)
    )


def test_jsonplus_stream_has_per_interval_percentiles() -> None:
    records, summary = feed_text(FIO.file_parser(), capture_text("jsonplus_si1_randread_j2.out"))
    assert summary.complete is True and summary.reason is None
    assert all("read_lat_p99_us" in r.metrics for r in records)


# --------------------------------------------------------------------------- cut short


def test_a_terse_stream_cut_inside_a_report_is_incomplete() -> None:
    lines = capture_text("terse_v3_si1_randread_j2.out").split("\n")
    records, summary = feed_all(FIO.file_parser(), lines[:5])  # reports 1 and 2, and one line
    assert summary.complete is False and summary.reason is None
    assert summary.form == "terse v3 --status-interval"
    whole = feed_text(FIO.file_parser(), "\n".join(lines[:4]))
    assert records == whole[0] and summary.values == whole[1].values  # report 2's figures
    assert len([r for r in records if r.stream == "sum"]) == 2


def test_a_terse_line_cut_short_is_incomplete() -> None:
    line = capture_text("terse_v2_randread_j2.out").split("\n")[0]
    records, summary = feed_all(FIO.file_parser(), [line, line[: len(line) // 2]])
    assert records == [] and summary.complete is False and summary.reason is None
    assert summary.values["read_iops"] == 30719  # the first line's IOPS field


def test_a_normal_stream_cut_inside_a_dump_keeps_the_last_whole_one() -> None:
    lines = capture_text("normal_si1_two_jobs.out").split("\n")
    end = max(i for i, line in enumerate(lines) if line.startswith("Run status group"))
    cut = lines[: end - 5]  # the final dump without its Run status lines
    records, summary = feed_all(FIO.file_parser(), cut)
    assert summary.form == "normal --status-interval"
    assert summary.complete is False and summary.reason is None
    assert len([r for r in records if r.stream == "sum"]) == 3
    third = max(i for i, line in enumerate(cut) if line.startswith("Run status group"))
    _, upto_third = feed_all(FIO.file_parser(), cut[: third + 4])
    assert summary.values == upto_third.values  # the last whole dump's figures
    # read: IOPS=49.1k, BW=192MiB/s (201MB/s)(501MiB/2611msec), the third dump's reader
    assert summary.values["read_iops"] == 49.1e3


def test_terse_version_names_the_version() -> None:
    for name, version in (
        ("terse_v2_randread_j2.out", 2),
        ("minimal_write_j1.out", 3),
        ("terse_v4_two_jobs.out", 4),
        ("terse_v5_randread_j2.out", 5),
    ):
        assert terse_version(capture_text(name).split("\n")[-2]) == version
    assert terse_version("3;fio-3.33;x;0;0") is None  # too few fields
    assert terse_version("reader: (g=0): rw=randread, bs=(R) 4096B-4096B") is None


def test_an_error_field_is_the_error() -> None:
    line = capture_text("terse_v3_two_jobs.out").split("\n")[1]
    fields = line.split(";")
    fields[4] = "5"  # the error field of "3;fio-3.33;reader;0;0;..."
    summary = feed_all(FioTerseParser(), [";".join(fields)])[1]
    assert summary.error == "job reader: error 5"


# --------------------------------------------------------------------------- robustness


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_every_cut_of_a_capture_reads(name: str) -> None:
    lines = capture_text(name).split("\n")
    for cut in range(0, len(lines) + 1, max(1, len(lines) // 40)):
        records, summary = feed_all(FIO.file_parser(), lines[:cut])
        assert_records_well_formed(records)
        assert summary.reason is None or summary.complete is False
