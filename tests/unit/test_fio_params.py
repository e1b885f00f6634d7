"""fio parameters, argv, the raw-device safety rules and the Tool entry."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairbench.domain import LineSource
from pairbench.tools import fio
from pairbench.tools.base import Capabilities, CommandContext, ParamError
from pairbench.tools.fio_auto import FioAutoParser
from pairbench.tools.fio_json import FioJsonParser
from parser_checks import fixture_text
from testkit import require, require_program

CAPS = Capabilities(version="fio-3.33", version_tuple=(3, 33))
CTX = CommandContext("10.0.0.2", 0, "/tmp/pairbench.abcd1234")
LSBLK = fixture_text("sysinfo", "lsblk_J.out")


def argv(**given: str) -> list[str]:
    """fio's argv with a work directory where the engine makes it: inside ``directory``."""
    params = fio.resolve(given)
    ctx = CTX
    if params["directory"]:
        ctx = CommandContext("10.0.0.2", 0, f"{params['directory']}/pairbench.pb.x.abcd1234")
    return fio.commands(params, CAPS, ctx).client


# --------------------------------------------------------------------------- defaults and argv


def test_defaults() -> None:
    assert fio.resolve({}) == {
        "rw": "randread",
        "rwmixread": "",
        "bs": "4k",
        "iodepth": "32",
        "numjobs": "1",
        "runtime": "60",
        "size": "1G",
        "direct": "true",
        "ioengine": "libaio",
        "directory": "",
        "device": "",
        "file": "",
        "time_based": "true",
        "refill_buffers": "false",
        "norandommap": "false",
        "group_reporting": "true",
        "ramp": "0",
        "status_interval": "1",
        "confirm_destroy": "",
    }


def test_default_argv_uses_the_runs_work_directory() -> None:
    assert argv() == [
        "fio",
        "--name=pairbench",
        "--output-format=json+",
        "--status-interval=1",
        "--eta=never",
        "--rw=randread",
        "--bs=4k",
        "--iodepth=32",
        "--numjobs=1",
        "--runtime=60",
        "--time_based",
        "--size=1G",
        "--direct=1",
        "--ioengine=libaio",
        "--directory=/tmp/pairbench.abcd1234",
        "--group_reporting",
    ]


def test_commands_run_on_the_server_without_a_server_process() -> None:
    cmds = fio.commands(fio.resolve({}), CAPS, CTX)
    assert cmds.server is None
    assert cmds.run_on == "server"
    assert cmds.parse == (LineSource.CLIENT_OUT, LineSource.CLIENT_ERR)
    assert cmds.files == {} and dict(cmds.env) == {}


def test_without_a_work_directory_the_fixed_default_is_used() -> None:
    cmds = fio.commands(fio.resolve({}), CAPS, CommandContext("x", 0, ""))
    assert "--directory=/tmp/pairbench-fio" in cmds.client


def test_every_parameter_reaches_the_argv() -> None:
    got = argv(
        rw="randrw",
        rwmixread="30",
        bs="128k",
        iodepth="64",
        numjobs="4",
        runtime="300",
        size="10G",
        direct="false",
        ioengine="io_uring",
        directory="/mnt/nvme:1/bench",
        time_based="no",
        group_reporting="off",
        ramp="5",
    )
    assert got == [
        "fio",
        "--name=pairbench",
        "--output-format=json+",
        "--status-interval=1",
        "--eta=never",
        "--rw=randrw",
        "--bs=128k",
        "--iodepth=64",
        "--numjobs=4",
        "--runtime=300",
        "--size=10G",
        "--direct=0",
        "--ioengine=io_uring",
        # The run's own folder in the directory; fio splits on ':' unless escaped.
        "--directory=/mnt/nvme\\:1/bench/pairbench.pb.x.abcd1234",
        "--rwmixread=30",
        "--ramp_time=5",
    ]


def test_rwmixread_defaults_to_70_for_mixed_workloads_only() -> None:
    assert fio.resolve({"rw": "randrw"})["rwmixread"] == "70"
    assert "--rwmixread=70" in argv(rw="rw")
    assert not any(a.startswith("--rwmixread") for a in argv(rw="randwrite"))
    with pytest.raises(ParamError, match="only to rw=randrw or rw=rw"):
        fio.resolve({"rw": "read", "rwmixread": "50"})


@given(
    st.fixed_dictionaries(
        {},
        optional={
            "rw": st.sampled_from(fio.WORKLOADS),
            "rwmixread": st.sampled_from(["", "0", "70", "100"]),
            "numjobs": st.sampled_from(["1", "16"]),
            "directory": st.sampled_from(["", "/srv/x"]),
            "ramp": st.sampled_from(["0", "3"]),
        },
    )
)
@settings(max_examples=100, deadline=None, database=None)
def test_resolve_is_idempotent(given_params: dict[str, str]) -> None:
    try:
        once = fio.resolve(given_params)
    except ParamError:
        return
    assert fio.resolve(once) == once


def test_device_read_workload_needs_no_confirmation_and_is_read_only() -> None:
    got = argv(device="/dev/nvme0n1", rw="randread")
    assert "--filename=/dev/nvme0n1" in got and "--readonly" in got
    assert not any(a.startswith("--directory") for a in got)
    assert "--readonly" not in argv(
        device="/dev/nvme0n1", rw="write", confirm_destroy="/dev/nvme0n1"
    )


@pytest.mark.parametrize("rw", ["write", "randwrite", "randrw", "rw"])
def test_device_write_workloads_need_the_device_path_confirmed(rw: str) -> None:
    with pytest.raises(ParamError, match="DESTROYS the data") as info:
        fio.resolve({"device": "/dev/sdb", "rw": rw})
    assert "confirm_destroy=/dev/sdb" in str(info.value)
    with pytest.raises(ParamError, match="DESTROYS"):
        fio.resolve({"device": "/dev/sdb", "rw": rw, "confirm_destroy": "/dev/sdc"})
    with pytest.raises(ParamError, match="DESTROYS"):
        fio.resolve({"device": "/dev/sdb", "rw": rw, "confirm_destroy": "yes"})
    resolved = fio.resolve({"device": "/dev/sdb", "rw": rw, "confirm_destroy": "/dev/sdb"})
    assert "--filename=/dev/sdb" in fio.commands(resolved, CAPS, CTX).client


def test_directory_and_device_exclude_each_other() -> None:
    for params in (
        {"directory": "/srv", "device": "/dev/sdb"},
        {"directory": "/srv", "file": "/srv/test.dat"},
        {"file": "/srv/test.dat", "device": "/dev/sdb"},
    ):
        with pytest.raises(ParamError, match="not several"):
            fio.resolve(params)
    with pytest.raises(ParamError, match="under /dev"):
        fio.resolve({"file": "/dev/sdb"})
    with pytest.raises(ParamError, match="only together with device"):
        fio.resolve({"confirm_destroy": "/dev/sdb"})


def test_a_kept_file_and_the_pts_data_options_reach_the_argv() -> None:
    got = argv(rw="randwrite", file="/srv/a:b.dat", refill_buffers="yes", norandommap="yes")
    assert "--filename=/srv/a\\:b.dat" in got
    assert not any(a.startswith("--directory") for a in got)
    assert got[-5:-1] == [
        "--refill_buffers",
        "--scramble_buffers=1",
        "--norandommap",
        "--randrepeat=0",
    ]
    # norandommap is for random I/O only; sequential jobs keep fio's defaults
    sequential = argv(rw="write", file="/srv/t.dat", refill_buffers="yes", norandommap="yes")
    assert "--norandommap" not in sequential and "--refill_buffers" in sequential


def test_a_device_path_with_a_colon_is_escaped() -> None:
    dev = "/dev/disk/by-path/pci-0000:00:1f.2-ata-1"
    assert f"--filename={dev.replace(':', chr(92) + ':')}" in argv(device=dev)


@pytest.mark.parametrize(
    ("name", "value", "needle"),
    [
        ("rw", "randreed", "one of"),
        ("rw", "read; rm -rf /", "one of"),
        ("ioengine", "libaio --exec_prerun=id", "one of"),
        ("ioengine", "external:/tmp/x.so", "one of"),
        ("rwmixread", "101", "at most 100"),
        ("rwmixread", "-1", "whole number"),
        ("rwmixread", "١٢", "whole number"),
        ("bs", "0", "greater than 0"),
        ("bs", "4k; id", "size"),
        ("bs", "2G", "at most 1G"),
        ("bs", "1" * 40, "size"),
        ("size", "0", "greater than 0"),
        ("size", "99999999999999999999G", "size"),
        ("size", "$(id)", "size"),
        ("iodepth", "0", "at least 1"),
        ("iodepth", "5000", "at most 4096"),
        ("numjobs", "257", "at most 256"),
        ("runtime", "0", "at least 1"),
        ("runtime", "1e9", "whole number"),
        ("ramp", "3601", "at most 3600"),
        ("direct", "maybe", "true or false"),
        ("directory", "relative/path", "absolute path"),
        ("directory", "/tmp/$(id)", "absolute path"),
        ("directory", "/tmp/`id`", "absolute path"),
        ("directory", "/tmp/a b", "absolute path"),
        ("directory", "/tmp/x;rm -rf /", "absolute path"),
        ("directory", "/tmp/x\nid", "absolute path"),
        ("directory", "/tmp/\x00", "absolute path"),
        ("directory", "/tmp/../etc", "normalised"),
        ("directory", "/tmp//x", "normalised"),
        ("directory", "/tmp/x/", "normalised"),
        ("directory", "/" + "a" * 2000, "absolute path"),
        ("directory", "~/bench", "absolute path"),
        ("directory", "--output=/etc/passwd", "absolute path"),
        ("device", "/etc/passwd", "under /dev/"),
        ("device", "/dev/", "normalised"),
        ("device", "/dev", "under /dev/"),
        ("device", "/dev/../etc/shadow", "normalised"),
        ("device", "/dev/sd*", "absolute path"),
        ("device", "sda", "absolute path"),
        ("device", "/dev/mem", "not a storage device"),
        ("confirm_destroy", "/dev/sdb\n", "only together with device"),
        ("confirm_destroy", "x\x1b[2J", "printable"),
        ("confirm_destroy", "x" * 300, "printable"),
        ("colour", "red", "unknown parameter"),
    ],
)
def test_bad_values_are_refused(name: str, value: str, needle: str) -> None:
    with pytest.raises(ParamError, match=needle):
        fio.resolve({name: value})


# --------------------------------------------------------------------------- mounted devices


def test_mounted_device_check_argv() -> None:
    assert fio.mounted_device_check_argv("/dev/nvme0n1") == [
        "lsblk",
        "-J",
        "-o",
        "NAME,MOUNTPOINTS,TYPE",
        "/dev/nvme0n1",
    ]


def test_refuse_if_mounted_on_the_fixture() -> None:
    # vda holds "/" and "/run/netns"; zram0 is "mountpoints": [null] (not mounted).
    with pytest.raises(ParamError, match="vda is mounted on /run/netns, /"):
        fio.refuse_if_mounted(LSBLK, "/dev/vda")
    fio.refuse_if_mounted(LSBLK, "/dev/zram0")
    with pytest.raises(ParamError, match="does not list it"):
        fio.refuse_if_mounted(LSBLK, "/dev/sdz")


def lsblk(*devices: Mapping[str, object]) -> str:
    return json.dumps({"blockdevices": list(devices)})


def test_refuse_if_mounted_looks_at_partitions_and_holders() -> None:
    disk = {"name": "sdb", "mountpoints": [None], "type": "disk"}
    fio.refuse_if_mounted(lsblk(disk), "/dev/sdb")
    # lsblk given a /dev/disk/by-id link lists the device under its kernel name.
    fio.refuse_if_mounted(lsblk(disk), "/dev/disk/by-id/ata-SAMSUNG_X")
    part = {"name": "sdb1", "mountpoints": ["/data"], "type": "part"}
    with pytest.raises(ParamError, match="sdb1 is mounted on /data"):
        fio.refuse_if_mounted(lsblk({**disk, "children": [part]}), "/dev/sdb")
    swap = {"name": "sdb2", "mountpoints": ["[SWAP]"], "type": "part"}
    with pytest.raises(ParamError, match=r"\[SWAP\]"):
        fio.refuse_if_mounted(lsblk({**disk, "children": [swap]}), "/dev/sdb")
    lvm = {"name": "vg-data", "mountpoints": [None], "type": "lvm"}
    pv = {"name": "sdb1", "mountpoints": [None], "type": "part", "children": [lvm]}
    with pytest.raises(ParamError, match=r"vg-data \(lvm\) is built on it"):
        fio.refuse_if_mounted(lsblk({**disk, "children": [pv]}), "/dev/sdb")
    # A bare partition of an unused disk is fine.
    fio.refuse_if_mounted(
        lsblk({**disk, "children": [{**part, "mountpoints": [None]}]}), "/dev/sdb"
    )
    # util-linux before 2.37 says "mountpoint" (one, or null).
    fio.refuse_if_mounted(lsblk({"name": "sdb", "mountpoint": None, "type": "disk"}), "/dev/sdb")
    with pytest.raises(ParamError, match="mounted on /"):
        fio.refuse_if_mounted(lsblk({"name": "sdb", "mountpoint": "/", "type": "disk"}), "/dev/sdb")


@pytest.mark.parametrize(
    "text",
    ["", "not json", "[]", "{}", '{"blockdevices": []}', '{"blockdevices": [5]}', "[" * 9999],
)
def test_refuse_if_mounted_when_lsblk_is_not_understood(text: str) -> None:
    with pytest.raises(ParamError):
        fio.refuse_if_mounted(text, "/dev/sdb")


# --------------------------------------------------------------------------- the Tool entry


def test_tool_entry() -> None:
    tool = fio.TOOL
    assert tool.name == "fio" and tool.debian_package == "fio"
    assert tool.version_argv == ["fio", "--version"]
    assert tool.server_ready_text is None
    assert tool.needs_workdir is True
    assert tool.params is fio.PARAMS
    assert tool.install_hint == "apt-get install fio"
    # The live parser reads the json+ stream the run asks for, and any other form fio prints.
    assert isinstance(tool.parser(fio.resolve({}), CAPS), FioAutoParser)
    assert isinstance(tool.file_parser(), fio.FioFileParser)
    assert tool.expected_seconds(fio.resolve({"runtime": "30", "ramp": "5"})) == 35.0


def test_capabilities_read_the_version() -> None:
    caps = fio.capabilities("fio-3.33\n")
    assert caps.version == "fio-3.33" and caps.version_tuple == (3, 33)
    assert fio.capabilities("").version_tuple == ()


# --------------------------------------------------------------------------- the real fio


def test_the_argv_runs_with_the_installed_fio(tmp_path: Path) -> None:
    """fio 3.33 prints a json+ document every second with these options, then the final one."""
    require_program("fio")
    params = fio.resolve({"runtime": "2", "size": "16M", "iodepth": "4", "numjobs": "2"})
    cmds = fio.commands(params, CAPS, CommandContext("x", 0, str(tmp_path)))
    done = subprocess.run(cmds.client, capture_output=True, text=True, timeout=60, check=False)
    parser = FioJsonParser()
    records = [r for line in done.stdout.split("\n") for r in parser.feed(line)]
    for line in done.stderr.split("\n"):
        parser.feed(line)
    summary = parser.close()
    if summary.error and "direct" in summary.error:  # a tmpfs /tmp has no O_DIRECT
        pytest.skip(f"O_DIRECT not supported under {tmp_path}: {summary.error}")
    assert done.returncode == 0, done.stderr
    assert summary.complete is True and summary.error is None
    assert parser.documents >= 2  # at least one periodic document and the final one
    assert [r.stream for r in records] == ["sum"] * len(records)  # group_reporting
    assert summary.values["read_iops"] > 0 and summary.values["read_lat_p99_us"] > 0
    assert all("read_lat_p99_us" in r.metrics for r in records)  # json+ histograms
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairbench.0.0", "pairbench.1.0"]


def test_refuse_if_in_use_names_what_uses_the_device() -> None:
    fio.refuse_if_in_use("", "/dev/loop3")  # nothing found: free
    fio.refuse_if_in_use("\n  \n", "/dev/loop3")
    with pytest.raises(ParamError, match=r"in use \(mounted on /srv; held by dm-0\)"):
        fio.refuse_if_in_use("mounted on /srv\nheld by dm-0\n", "/dev/sdb")
    assert fio.in_use_check_argv("/dev/sdb")[-2:] == ["sh", "/dev/sdb"]
    check = fio.device_check(fio.resolve({"device": "/dev/sdb"}))
    assert check is not None and check.argv == fio.in_use_check_argv("/dev/sdb")


def test_the_in_use_script_finds_a_mounted_block_device() -> None:
    """Run for real on this machine: a block device with a file system mounted is in use; a
    path that is no block device makes the script fail (exit status 3), so checks refuse."""
    mounted = [
        (fields[2], fields[4])
        for fields in (
            line.split() for line in Path("/proc/self/mountinfo").read_text().splitlines()
        )
        if Path(f"/sys/dev/block/{fields[2]}").exists()
    ]
    require(bool(mounted), "no block device is mounted on this machine")
    major_minor, mount_point = mounted[0]
    device = f"/dev/{Path(f'/sys/dev/block/{major_minor}').resolve().name}"
    done = subprocess.run(
        fio.in_use_check_argv(device), capture_output=True, text=True, timeout=30, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "mounted on /" in done.stdout, (mount_point, done.stdout)
    with pytest.raises(ParamError, match="in use"):
        fio.refuse_if_in_use(done.stdout, device)
    missing = subprocess.run(
        fio.in_use_check_argv("/dev/pairbench-no-such"), capture_output=True, timeout=30
    )
    assert missing.returncode == 3
