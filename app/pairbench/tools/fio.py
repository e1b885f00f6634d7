"""fio: parameters, the argv of a run on the pair's server host, device safety checks, parsers."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from functools import partial
from typing import Final

from pairbench.domain import LineSource
from pairbench.domain.quantities import size_bytes
from pairbench.tools import fio_jobfile
from pairbench.tools.base import (
    Capabilities,
    CollectedFile,
    CommandContext,
    Commands,
    HostCheck,
    ParamError,
    Parser,
    Tool,
    ToolPreset,
    first_line_capabilities,
)
from pairbench.tools.fio_auto import FioAutoParser
from pairbench.tools.fio_devices import IN_USE_SCRIPT as IN_USE_SCRIPT
from pairbench.tools.fio_devices import device_host_check
from pairbench.tools.fio_devices import in_use_check_argv as in_use_check_argv
from pairbench.tools.fio_devices import mounted_device_check_argv as mounted_device_check_argv
from pairbench.tools.fio_devices import refuse_if_in_use as refuse_if_in_use
from pairbench.tools.fio_devices import refuse_if_mounted as refuse_if_mounted
from pairbench.tools.fio_histogram import fio_run_analyses
from pairbench.tools.fio_jobenv import JobEnvParam
from pairbench.tools.fio_jobfile import JobNameParam, JobTextParam, run_paths, run_text
from pairbench.tools.fio_jobhost import job_file_check
from pairbench.tools.fio_jobtext import parse_job_file
from pairbench.tools.fio_logs import log_analyses, log_prefixes
from pairbench.tools.fio_param_kinds import ChoiceParam, ConfirmParam, OptionalIntParam
from pairbench.tools.fio_param_kinds import PathParam as PathParam
from pairbench.tools.fio_paths import directory_check, file_check
from pairbench.tools.params import Param, is_true, report_interval, resolve_params
from pairbench.tools.provenance_readers import read_fio

NAME = "fio"
DEBIAN_PACKAGE = "fio"
VERSION_ARGV = ["fio", "--version"]
SERVER_READY_TEXT = None  # no server: fio runs alone on the pair's server host
DEFAULT_PORT = 0  # no port either
# Where test files go when neither ``directory`` nor a work directory is at hand. The engine
# normally gives the run a private work directory (``needs_workdir``), removed afterwards with
# the test files in it: fio refuses a ``--directory`` that does not exist.
DEFAULT_DIRECTORY = "/tmp/pairbench-fio"

READ_WORKLOADS: Final = frozenset({"read", "randread"})
MIXED_WORKLOADS: Final = frozenset({"randrw", "rw"})
WORKLOADS: Final = ("read", "write", "randread", "randwrite", "randrw", "rw")
IOENGINES: Final = ("libaio", "io_uring", "sync", "psync", "posixaio")
DEFAULT_RWMIXREAD = "70"

_SIZE_RE: Final = re.compile(r"(\d{1,15})([kKmMgG]?)")
# Character devices that are memory or consoles, never storage.
_NOT_STORAGE: Final = frozenset({"/dev/mem", "/dev/kmem", "/dev/port", "/dev/kmsg"})


PARAMS: dict[str, Param] = {
    p.name: p
    for p in (
        ChoiceParam("rw", "choice", "randread", "workload (--rw)", choices=WORKLOADS),
        OptionalIntParam(
            "rwmixread",
            "int",
            "",
            f"percentage of reads, rw=randrw|rw only (default {DEFAULT_RWMIXREAD})",
            minimum=0,
            maximum=100,
        ),
        Param("bs", "size", "4k", "block size (--bs)"),
        Param("iodepth", "int", "32", "I/Os in flight per job", minimum=1, maximum=4096),
        Param("numjobs", "int", "1", "parallel jobs (--numjobs)", minimum=1, maximum=256),
        Param("runtime", "int", "60", "seconds (--runtime)", minimum=1, maximum=7 * 86400),
        Param("size", "size", "1G", "file size per job, or the device region (--size)"),
        Param("direct", "bool", "true", "O_DIRECT, bypass the page cache (--direct)"),
        ChoiceParam("ioengine", "choice", "libaio", "I/O engine (--ioengine)", choices=IOENGINES),
        PathParam(
            "directory",
            "path",
            "",
            "existing directory for the test files (default: a private temporary directory, "
            "removed after the run)",
        ),
        PathParam(
            "device",
            "path",
            "",
            "a block device to test instead of files (--filename); writes DESTROY its data",
            under="/dev/",
        ),
        PathParam(
            "file",
            "path",
            "",
            "a test file kept after the run (created when missing; an existing one needs "
            "confirm_destroy, a link is refused) instead of files in a private directory",
        ),
        Param("time_based", "bool", "true", "run for runtime even when size is done"),
        Param(
            "refill_buffers",
            "bool",
            "false",
            "new random data for every write, scrambled (--refill_buffers --scramble_buffers=1)",
        ),
        Param(
            "norandommap",
            "bool",
            "false",
            "random I/O without fio's block map or a repeatable sequence "
            "(--norandommap --randrepeat=0)",
        ),
        Param("group_reporting", "bool", "true", "report the jobs as one (--group_reporting)"),
        Param("ramp", "int", "0", "seconds before measuring", minimum=0, maximum=3600),
        report_interval("status_interval", "--status-interval"),
        ConfirmParam(
            "confirm_destroy",
            "text",
            "",
            "the device (or an existing file's) path again, to confirm that the run destroys "
            "its data",
        ),
        JobNameParam(
            "jobfile",
            "jobfile",
            "",
            "your own fio job file instead of the options above (its name; the CLI's "
            "--set jobfile=PATH and the Job file… button read it); only directory applies too",
        ),
        JobTextParam("jobfile_text", "jobtext", "", "the job file's text, checked before a run"),
        JobEnvParam(
            "jobfile_env",
            "jobenv",
            "",
            "values of the job file's ${VAR}s, NAME=value apart by blanks (the CLI's --set "
            "env.NAME=value); they are written into the file that runs",
        ),
    )
}


def _size_bytes(name: str, text: str) -> int:
    match = _SIZE_RE.fullmatch(text)
    if match is None:
        raise ParamError(f"{name} must be a size such as 4k, 128K or 1G, got {text!r}")
    number = int(size_bytes(text, bare="iec"))  # fio's k, m, g: powers of 1024
    if number <= 0:
        raise ParamError(f"{name} must be greater than 0, got {text!r}")
    return number


def writes(rw: str) -> bool:
    """True if the workload writes (every ``rw`` but read and randread)."""
    return rw not in READ_WORKLOADS


def resolve(params: Mapping[str, str]) -> dict[str, str]:
    """Checked parameters with defaults filled in (``resolve(resolve(p)) == resolve(p)``).

    ``directory``, ``file`` and ``device`` exclude each other; a write workload on a device
    needs ``confirm_destroy`` equal to the device path (an existing ``file`` needs it equal to
    the file's path: checked on the host, ``target_check``); ``rwmixread`` goes with mixed
    workloads only (it resolves to ``""`` for the others).
    """
    resolved = resolve_params(PARAMS, params)
    if resolved["jobfile"] or resolved["jobfile_text"]:
        return fio_jobfile.resolve_job_file(resolved, {n: p.default for n, p in PARAMS.items()})
    if resolved["jobfile_env"]:
        raise ParamError("jobfile_env (env.NAME=value) applies to a job file only")
    # no job file: not stored with the run
    del resolved["jobfile"], resolved["jobfile_text"], resolved["jobfile_env"]
    rw = resolved["rw"]
    if rw in MIXED_WORKLOADS:
        resolved["rwmixread"] = resolved["rwmixread"] or DEFAULT_RWMIXREAD
    elif resolved["rwmixread"]:
        raise ParamError(f"rwmixread applies only to rw=randrw or rw=rw, not rw={rw}")
    if _size_bytes("bs", resolved["bs"]) > 2**30:
        raise ParamError(f"bs must be at most 1G, got {resolved['bs']!r}")
    _size_bytes("size", resolved["size"])
    device, directory, file = resolved["device"], resolved["directory"], resolved["file"]
    if sum(map(bool, (device, directory, file))) > 1:
        raise ParamError(
            "give one of directory (test files), file (a kept test file) or device (a raw "
            "device), not several"
        )
    if file.startswith("/dev/"):
        raise ParamError(f"file {file} is under /dev: test a device with device=..., not file")
    if device:
        if device in _NOT_STORAGE:
            raise ParamError(f"device {device} is not a storage device")
        if writes(rw) and resolved["confirm_destroy"] != device:
            raise ParamError(
                f"rw={rw} writes to {device} directly and DESTROYS the data on it (file "
                f"systems, partition table, everything). If that is what you want, add "
                f"--set confirm_destroy={device}"
            )
    elif file and resolved["confirm_destroy"] not in ("", file):
        raise ParamError(
            f"confirm_destroy must be the file's path ({file}), got {resolved['confirm_destroy']!r}"
        )
    elif not file and resolved["confirm_destroy"]:
        raise ParamError("confirm_destroy applies only together with device or file")
    return resolved


def capabilities(version_output: str) -> Capabilities:
    """What the installed fio can do, from ``fio --version`` (``fio-3.33``)."""
    return first_line_capabilities(version_output)


def expected_seconds(params: Mapping[str, str]) -> float:
    """How long a run should take, for progress bars (file layout time not included)."""
    if params.get("jobfile_text"):
        return fio_jobfile.expected_seconds(run_text(params))
    return float(params["runtime"]) + float(params["ramp"])


def _fio_path(path: str) -> str:
    """A path as fio options want it: ':' separates several files, so escape it."""
    return path.replace(":", "\\:")


def commands(params: Mapping[str, str], caps: Capabilities, ctx: CommandContext) -> Commands:
    """argv of fio on the server host: json+ documents every second, then the final one.

    Test files go to the run's work directory, which the engine makes inside ``directory``
    when one is given, else in the temporary directory (removed after the run, or by the
    tool's watchdog if Pairbench dies); a ``device`` is given as ``--filename`` (read
    workloads add ``--readonly``, fio's own guard against writes). ``--eta=never`` keeps
    progress lines out of the output even on a terminal. A job file (``jobfile``) runs
    instead of the options (``fio_jobfile.job_file_commands``).
    """
    if params.get("jobfile_text"):
        directory = ctx.workdir or params["directory"] or DEFAULT_DIRECTORY
        return fio_jobfile.job_file_commands(
            params, ctx, _fio_path(directory), status_interval_option(params)
        )
    rw = params["rw"]
    argv = [
        "fio",
        "--name=pairbench",
        "--output-format=json+",
        status_interval_option(params),
        "--eta=never",
        f"--rw={rw}",
        f"--bs={params['bs']}",
        f"--iodepth={params['iodepth']}",
        f"--numjobs={params['numjobs']}",
        f"--runtime={params['runtime']}",
    ]
    if is_true(params["time_based"]):
        argv.append("--time_based")
    argv += [
        f"--size={params['size']}",
        f"--direct={1 if is_true(params['direct']) else 0}",
        f"--ioengine={params['ioengine']}",
    ]
    device = params["device"]
    if device:
        argv.append(f"--filename={_fio_path(device)}")
        if not writes(rw):
            argv.append("--readonly")
    elif params["file"]:
        argv.append(f"--filename={_fio_path(params['file'])}")
    else:
        # The engine makes the run's work directory inside ``directory`` when one is given
        # (``pairbench.TAG.*``), so the test files are the run's own, removed with it.
        directory = ctx.workdir or params["directory"] or DEFAULT_DIRECTORY
        argv.append(f"--directory={_fio_path(directory)}")
    if rw in MIXED_WORKLOADS:
        argv.append(f"--rwmixread={params['rwmixread'] or DEFAULT_RWMIXREAD}")
    if is_true(params["refill_buffers"]):
        argv += ["--refill_buffers", "--scramble_buffers=1"]
    if is_true(params["norandommap"]) and rw.startswith("rand"):
        argv += ["--norandommap", "--randrepeat=0"]
    if is_true(params["group_reporting"]):
        argv.append("--group_reporting")
    if params["ramp"] != "0":
        argv.append(f"--ramp_time={params['ramp']}")
    return Commands(
        client=argv,
        server=None,
        run_on="server",
        parse=(LineSource.CLIENT_OUT, LineSource.CLIENT_ERR),
    )


def status_interval_option(params: Mapping[str, str]) -> str:
    """``--status-interval``: whole seconds as a number, else in ms (fio reads "100ms")."""
    seconds = Decimal(params.get("status_interval") or "1")
    if seconds == seconds.to_integral_value():
        return f"--status-interval={int(seconds)}"
    return f"--status-interval={int(seconds * 1000)}ms"


def parser(params: Mapping[str, str], caps: Capabilities) -> Parser:
    """A parser for the run's output: json+ documents on stdout, errors on stderr, as the
    run asks for; any other form fio may print is read too (``FioAutoParser``)."""
    return FioAutoParser(float(params.get("status_interval") or 1))


# ---------------------------------------------------------------------- saved outputs


# The parser of saved outputs is the live one: it tells the form from the lines.
FioFileParser = FioAutoParser


def file_parser() -> Parser:
    """A parser for ``pairbench parse|import fio FILE``: detects the form (``FioAutoParser``)."""
    return FioFileParser()


def device_check(params: Mapping[str, str]) -> HostCheck | None:
    """Before a run on a raw device: refuse it when it (or anything on it) is in use."""
    return device_host_check(params["device"]) if params.get("device") else None


def target_check(params: Mapping[str, str]) -> HostCheck | None:
    """The check on the host before fio starts, by target: a device in use; a kept test
    file that is a link, in an unsafe folder, or exists unconfirmed; a ``directory`` (where
    the run's work directory is made) missing, read-only or others may change; every path
    outside the work directory a job file opens (``fio_jobhost.job_file_check``)."""
    if params.get("jobfile_text"):
        return job_file_check(run_paths(params), params)
    if params.get("file"):
        rw, confirm = params.get("rw", ""), params.get("confirm_destroy", "")
        size = _size_bytes("size", params["size"])
        return file_check(params["file"], writes=writes(rw), size=size, confirm=confirm)
    if params.get("directory"):
        return directory_check(params["directory"])
    return device_check(params)


def job_file_logs(
    params: Mapping[str, str], files: Mapping[str, CollectedFile]
) -> dict[str, dict[str, object]]:
    """A job file's own logs brought back from the work directory (``fio_logs``)."""
    if not params.get("jobfile_text"):
        return {}
    return log_analyses(log_prefixes(parse_job_file(run_text(params))), files)


PRESETS = (
    ToolPreset(
        "fio 4k random read QD32",
        {"rw": "randread", "bs": "4k", "iodepth": "32", "runtime": "60"},
        "fio-snia-pts-nvme-oci-vs-aws.txt: IOPS at small blocks, 32 outstanding I/Os",
    ),
    ToolPreset(
        "fio 1M sequential read",
        {"rw": "read", "bs": "1M", "iodepth": "32", "runtime": "60"},
        "fio-snia-pts-nvme-oci-vs-aws.txt: throughput at 1024 KiB blocks",
    ),
)


TOOL = Tool(
    name=NAME,
    debian_package=DEBIAN_PACKAGE,
    version_argv=VERSION_ARGV,
    server_ready_text=SERVER_READY_TEXT,
    default_port=DEFAULT_PORT,
    params=PARAMS,
    resolve=resolve,
    capabilities=capabilities,
    expected_seconds=expected_seconds,
    commands=commands,
    parser=parser,
    provenance=partial(read_fio, PARAMS),
    presets=PRESETS,
    needs_workdir=True,
    file_parser_factory=file_parser,
    server_only=True,
    host_check=target_check,
    workdir_parent=lambda params: params.get("directory", ""),
    run_analyses=fio_run_analyses,
    collected_analyses=lambda params, files: job_file_logs(params, files),
    interval_param="status_interval",
    tied={"rw": ("rwmixread",)},
)
