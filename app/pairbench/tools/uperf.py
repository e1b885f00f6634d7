"""uperf: parameters, the latency or throughput profile (or the user's own), slave and master
argv, its parser."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from pairbench.tools import uperf_custom_params as custom
from pairbench.tools.base import (
    Capabilities,
    CommandContext,
    Commands,
    ParamError,
    Parser,
    Tool,
    ToolPreset,
    parse_version_tuple,
)
from pairbench.tools.params import Param, is_true, report_interval, resolve_params
from pairbench.tools.provenance_readers import read_uperf
from pairbench.tools.uperf_profiles import (
    LATENCY_DEFAULTS,
    PROTOCOLS,
    THROUGHPUT_DEFAULTS,
    Profile,
    latency_profile,
    size_bytes,
    throughput_profile,
)
from pairbench.tools.uperf_text import UperfTextParser

NAME = "uperf"
DEBIAN_PACKAGE = "uperf"
INSTALL_COMMAND = "build it from https://github.com/uperf/uperf (no Debian package)"
VERSION_ARGV = ["uperf", "-V"]
SERVER_READY_TEXT: str | None = None  # the slave prints nothing when ready: wait for its port
DEFAULT_PORT = 20000
PROFILE_FILE = "profile.xml"
PROFILES = ("latency", "throughput")
# The timed transaction is the profile's second one: "Txn2" in uperf's progress and raw lines.
MAIN_TXN = 2
# Flowops per iteration of the timed transaction of the profiles a saved output may name on
# its "Starting ... running profile:NAME" line (uperf lower-cases the name): Pairbench's
# latency profile, uperf's own workloads/netperf.xml (write + read) and iperf.xml (count=10).
# Pairbench's throughput profile is not here: its count is a run parameter.
FILE_PROFILES: dict[str, int] = {"pairbench-latency": 2, "netperf": 2, "iperf": 10}
# What uperf spends besides the timed transaction: ~1 s of barrier wait before it, connect,
# disconnect and the statistics exchange after it.
OVERHEAD_S = 3.0

PARAMS: dict[str, Param] = {
    p.name: p
    for p in (
        Param("profile", "name", "latency", "latency (request/response) or throughput (bulk)"),
        Param("protocol", "name", "tcp", "tcp or udp"),
        Param("size", "size", "0", "bytes per write (and read), 0 = 90 latency / 8k throughput"),
        Param(
            "count",
            "int",
            "10",
            "writes per iteration (throughput profile only)",
            minimum=1,
            maximum=10**6,
        ),
        Param("threads", "int", "0", "threads, 0 = 1 latency / 8 throughput", maximum=1024),
        Param("wndsz", "size", "0", "socket buffer size, 0 = 50k latency / 500k throughput"),
        Param("nodelay", "bool", "true", "set TCP_NODELAY"),
        Param(
            "duration", "int", "10", "seconds of the timed transaction", minimum=1, maximum=86400
        ),
        report_interval(
            high=10, note="; uperf's master also sees a transaction end only this often"
        ),
        *custom.PARAMS,
    )
}


def resolve(params: Mapping[str, str]) -> dict[str, str]:
    """Checked parameters with the profile's defaults filled in (idempotent). A profile of the
    user's (``profile_xml``) keeps only what applies to it (``uperf_custom_params``)."""
    resolved = resolve_params(PARAMS, params)
    if resolved["profile_xml"] or resolved["profile_file"]:
        return custom.resolve_custom(resolved, {n: p.default for n, p in PARAMS.items()})
    for name in custom.NAMES:
        if resolved[name]:
            raise ParamError(f"{name} applies only with a profile file (profile_file=PATH)")
        del resolved[name]  # no profile of the user's: not stored with the run
    profile = resolved["profile"] = resolved["profile"].lower()
    if profile not in PROFILES:
        raise ParamError(
            f"profile must be one of {', '.join(PROFILES)}, got {profile!r}; to run a profile "
            "file of your own, give its path: --set profile_file=PATH (or the Profile file… "
            "button in the window)"
        )
    protocol = resolved["protocol"] = resolved["protocol"].lower()
    if protocol not in PROTOCOLS:
        raise ParamError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}")
    defaults = LATENCY_DEFAULTS if profile == "latency" else THROUGHPUT_DEFAULTS
    if resolved["size"] == "0":
        resolved["size"] = defaults.size
    if resolved["wndsz"] == "0":
        resolved["wndsz"] = defaults.wndsz
    if resolved["threads"] == "0":
        resolved["threads"] = str(defaults.threads)
    size_bytes(resolved["size"], "size")
    size_bytes(resolved["wndsz"], "wndsz")
    _profile(resolved, "localhost")  # every remaining check (UDP datagram size, ...)
    return resolved


def capabilities(version_output: str) -> Capabilities:
    """What the installed uperf is, from ``uperf -V`` ("Uperf Version 1.0.8")."""
    lines = version_output.strip().splitlines()
    first = next((line for line in lines if "version" in line.lower()), lines[0] if lines else "")
    return Capabilities(version=first.strip(), version_tuple=parse_version_tuple(first))


def expected_seconds(params: Mapping[str, str]) -> float:
    """How long a run should take, for progress bars."""
    if params.get("profile_xml"):
        return custom.shape(params, "localhost").seconds + OVERHEAD_S
    return float(params["duration"]) + OVERHEAD_S


def _profile(params: Mapping[str, str], host: str) -> Profile:
    """The profile (XML and environment) that resolved ``params`` describe, sent to ``host``."""
    if params["profile"] == "latency":
        return latency_profile(
            host,
            protocol=params["protocol"],
            size=params["size"],
            threads=int(params["threads"]),
            duration_s=int(params["duration"]),
            wndsz=params["wndsz"],
            nodelay=is_true(params["nodelay"]),
        )
    return throughput_profile(
        host,
        protocol=params["protocol"],
        size=params["size"],
        count=int(params["count"]),
        threads=int(params["threads"]),
        duration_s=int(params["duration"]),
        wndsz=params["wndsz"],
        nodelay=is_true(params["nodelay"]),
    )


def commands(params: Mapping[str, str], caps: Capabilities, ctx: CommandContext) -> Commands:
    """``uperf -s -P PORT`` (the slave) and the master running the generated profile.

    The profile goes into the run's work directory; its values travel in the environment
    (lower-case names: uperf lower-cases the profile before it reads them). ``-R`` gives one
    raw line per interval (live through a pipe; the default progress output only ends its line
    when a transaction ends), ``-i`` that interval (``interval``, 1 s unless set), ``-a`` every
    table the summary needs.
    """
    resolved = resolve(params)
    if resolved.get("profile_xml"):
        name = resolved["profile_file"]
        xml, env = resolved["profile_xml"], custom.environment(resolved, ctx.target)
    else:
        name = PROFILE_FILE
        profile = _profile(resolved, ctx.target)
        xml, env = profile.xml, dict(profile.env)
    port, interval = str(ctx.port), interval_option(resolved["interval"])
    # The engine first asks with no work directory (to learn where the run happens); the
    # commands it then starts always have one (``Tool.needs_workdir``).
    path = f"{ctx.workdir.rstrip('/')}/{name}" if ctx.workdir else name
    return Commands(
        client=["uperf", "-m", path, "-R", "-i", interval, "-a", "-P", port],
        server=["uperf", "-s", "-P", port],
        env=env,
        files={name: xml},
    )


def interval_option(seconds: str) -> str:
    """uperf's ``-i`` for an ``interval`` in seconds: ``1s`` for whole seconds, else whole
    milliseconds (``100m``: uperf reads a bare ``m`` as milliseconds)."""
    millis = int(Decimal(seconds) * 1000)
    return f"{millis // 1000}s" if millis % 1000 == 0 else f"{millis}m"


def parser(params: Mapping[str, str], caps: Capabilities) -> Parser:
    """A parser for the master's output, told the profile's shape."""
    resolved = resolve(params)
    if resolved.get("profile_xml"):
        shape = custom.shape(resolved, "localhost")
        return UperfTextParser(
            threads=shape.threads,
            ops_per_iteration=shape.ops_per_iteration,
            main_txn=shape.main_txn,
            udp=shape.udp,
        )
    latency = resolved["profile"] == "latency"
    return UperfTextParser(
        threads=int(resolved["threads"]),
        ops_per_iteration=2 if latency else int(resolved["count"]),
        main_txn=MAIN_TXN,
        udp=resolved["protocol"] == "udp",
    )


def file_parser() -> Parser:
    """A parser for a saved master output of any form (see ``UperfTextParser``'s "Forms").

    The profile's shape is unknown: the thread count comes from the output, the flowops per
    iteration from ``FILE_PROFILES`` by the profile's name (else the interval records have no
    latency), and the protocol is taken for TCP (the output does not tell: no ``lost_percent``).
    """
    return UperfTextParser(
        threads=1, ops_per_iteration=None, main_txn=MAIN_TXN, known_profiles=FILE_PROFILES
    )


PRESETS = (
    ToolPreset(
        "uperf latency (90-byte request/response)",
        {"profile": "latency", "protocol": "tcp", "size": "90", "threads": "1", "duration": "30"},
        "uperf-latency-throughput-oci-vs-aws.txt: netperf.xml, 90-byte write + read, 30 s",
    ),
    ToolPreset(
        "uperf throughput (8 threads, 8k writes)",
        {
            "profile": "throughput",
            "protocol": "tcp",
            "size": "8k",
            "count": "10",
            "threads": "8",
            "wndsz": "500k",
            "duration": "30",
        },
        "uperf-latency-throughput-oci-vs-aws.txt: iperf.xml, nthr=8, count=10 size=8k, 30 s",
    ),
)


def bulk_transfer(params: Mapping[str, str]) -> bool:
    """The throughput profile over TCP is a bulk transfer (not the request/response runs)."""
    profile = str(params.get("profile", "latency")).strip().lower()
    protocol = str(params.get("protocol", "tcp")).strip().lower()
    return profile == "throughput" and protocol == "tcp"


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
    provenance=read_uperf,
    presets=PRESETS,
    bulk_transfer=bulk_transfer,
    needs_workdir=True,
    install_command=INSTALL_COMMAND,
    file_parser_factory=file_parser,
    tied={"profile": ("size", "count", "threads", "wndsz"), "protocol": ("nodelay",)},
)
