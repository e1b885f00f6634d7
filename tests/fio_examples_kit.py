"""The harness of ``tests/integration/test_fio_examples.py``: how an example job file of
Debian's ``fio-examples`` is made to run in a second on this computer (the capping rewrite,
its paths moved into the test's own folder, its devices onto a loop device, its ``${VAR}``s
given values), and fio's own figures of a run (its final JSON document's groups).

**The capping rewrite**: at the end of every job section ``runtime=300ms`` (fio's limit on any
job, time_based or not), and where the job (or its ``[global]``) sets them: ``size`` and
``filesize`` at most ``4m``, ``nrfiles`` at most 16, ``numjobs`` at most 4, ``loops=1``,
``ramp_time=0``, ``startdelay=0`` (fio takes a section's last value).

**The paths**: every absolute path of ``filename``, ``directory`` and ``donorname`` moves under
the example's own folder (``ROOT/tmp/testfile`` for ``/tmp/testfile``; a ``directory`` is made
there, mode 0700, and a file's folder), but ``/dev/null`` and ``/dev/zero``; any other
``/dev/...`` is the test's loop device (given with ``confirm_destroy``); a file that its jobs
only read, giving no size, is made (4 MiB), as the example expects it to exist.
**The variables**: ``ENV`` (``ROOT`` in a value is the example's folder).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from pairbench.tools.fio_jobenv import references, substitute
from pairbench.tools.fio_jobpaths import job_paths, split_names
from pairbench.tools.fio_jobtext import comment_start, option_lines, parse_job_file

CAP_BYTES = 4 * 2**20
# The values of the examples' variables (``ROOT``: the example's own folder).
ENV = {
    "FIO_RW": "randread",
    "FIO_BS": "4k",
    "FIO_IODEPTH": "4",
    "FIO_DIR": "ROOT/fio_dir",
    "GPU_DEV_IDS": "0",
    "POOL": "pool",
    "CONT": "cont",
    "S3_KEY": "key",
    "S3_ID": "id",
    "SSE_KEY": "sse",
    "STORAGE_CLASS": "STANDARD",
    "SWIFT_id": "id",
    "unixsocket": "ROOT/nbd.sock",
    "uri": "nbd://localhost",
}
_PATH_KEYS = ("filename", "directory", "donorname")
_HARMLESS = ("/dev/null", "/dev/zero")
_FIO_PERCENTILES = (
    ("50.000000", "p50"),
    ("99.000000", "p99"),
    ("99.900000", "p999"),
    ("99.990000", "p9999"),
)


def _size(text: str) -> int | None:
    """A fio size (``512m``, ``10G``, ``4096``) in bytes; None for what is not one (``100%``)."""
    m = re.fullmatch(r"(\d+)([kmgt]?)i?b?", text.strip().lower())
    if m is None:
        return None
    return int(m.group(1)) * 1024 ** "_kmgt".index(m.group(2) or "_")


def capped(text: str) -> str:
    """The job file with the capping rewrite (module docstring)."""
    jobs = {job.line: job for job in parse_job_file(text)}
    out: list[str] = []
    pending: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("["):
            out += pending
            job = jobs.get(number)
            pending = _caps(job.options) if job is not None else []
        out.append(line)
    out += pending
    return "\n".join(out) + "\n"


def _caps(options: Any) -> list[str]:
    caps = ["runtime=300ms"]
    for key in ("size", "filesize"):
        size = _size(options.get(key, "")) if key in options else None
        if size is not None and size > CAP_BYTES:
            caps.append(f"{key}=4m")
    for key, limit in (("nrfiles", 16), ("numjobs", 4), ("loops", 1)):
        value = options.get(key, "")
        if value.isdigit() and int(value) > limit:
            caps.append(f"{key}={limit}")
    for key in ("ramp_time", "startdelay"):
        if key in options:
            caps.append(f"{key}=0")
    return caps


def env_for(names: list[str], root: Path) -> dict[str, str]:
    """The values of the variables ``names`` for an example in ``root``."""
    return {name: ENV[name].replace("ROOT", str(root)) for name in names}


def moved(text: str, root: Path, device: str) -> tuple[str, bool]:
    """The job file with its paths moved (module docstring), and whether it uses the device;
    the folders the moved paths need are made."""
    lines = text.split("\n")
    uses_device = False
    for number, raw in option_lines(text):
        cut = comment_start(raw)
        key, sep, value = raw[:cut].partition("=")
        if not sep or key.strip() not in _PATH_KEYS:
            continue
        names = []
        for name in split_names(value):
            if name.startswith("/dev/") and name not in _HARMLESS:
                name, uses_device = device, True
            elif name.startswith("/") and name not in _HARMLESS:
                path = root / name.lstrip("/")
                folder = path if key.strip() == "directory" else path.parent
                folder.mkdir(parents=True, exist_ok=True, mode=0o700)
                name = str(path)
            names.append(name.replace(":", "\\:"))
        lines[number - 1] = f"{key}={':'.join(names)}{raw[cut:]}"
    return "\n".join(lines), uses_device


def make_read_files(text: str, root: Path) -> None:
    """Make (4 MiB) each missing file under ``root`` that the jobs of ``text`` only read,
    giving no size: the example expects it to exist."""
    filled = substitute(text, env_for(references(text), root))
    for use in job_paths(parse_job_file(filled)).files:
        path = Path(use.path)
        if not use.writes and use.needs == 0 and path.is_relative_to(root) and not path.exists():
            path.write_bytes(b"\x5a" * CAP_BYTES)


# --------------------------------------------------------------------------- fio's groups


def fio_percentile(bins: dict[int, float], percent: float) -> float:
    """fio's rule (stat.c): the first bucket whose running count reaches percent % of all."""
    total, seen = sum(bins.values()), 0.0
    for latency in sorted(bins):
        seen += bins[latency]
        if seen >= percent / 100.0 * total:
            return float(latency)
    return float(max(bins))


def group_figures(entries: list[dict[str, Any]]) -> dict[str, float]:
    """A group's figures from its ``jobs[]`` entries: a group of one entry is that entry's;
    a group of several adds their IOPS and bandwidth (the jobs of a group run at once), weights
    the mean latency by I/Os and takes the percentiles from the merged json+ histograms by
    fio's rule (fio's default percentile list: p50, p99, p99.9, p99.99)."""
    out: dict[str, float] = {}
    for direction in ("read", "write"):
        dirs = [
            e[direction] for e in entries if e[direction]["total_ios"] or e[direction]["io_bytes"]
        ]
        if not dirs:
            continue
        out[f"{direction}_iops"] = math.fsum(d["iops"] for d in dirs)
        out[f"{direction}_bytes_per_s"] = math.fsum(d["bw_bytes"] for d in dirs)
        timed = [d for d in dirs if d["lat_ns"]["N"] > 0]
        if not timed:
            continue
        n = sum(d["lat_ns"]["N"] for d in timed)
        out[f"{direction}_lat_mean_us"] = (
            math.fsum(d["lat_ns"]["mean"] * d["lat_ns"]["N"] for d in timed) / n / 1000.0
        )
        printed = [d for d in timed if d["clat_ns"].get("percentile")]
        for key, name in _FIO_PERCENTILES:
            if len(printed) == 1:
                value = printed[0]["clat_ns"]["percentile"].get(key)
            elif printed:
                merged: dict[int, float] = {}
                for d in printed:
                    for latency, count in d["clat_ns"]["bins"].items():
                        merged[int(latency)] = merged.get(int(latency), 0) + count
                value = fio_percentile(merged, float(key))
            else:
                value = None
            if value is not None:
                out[f"{direction}_lat_{name}_us"] = value / 1000.0
    return out


def fios_groups(doc: dict[str, Any]) -> dict[str, float]:
    """Every group's figures under the names a run stores them by: one group's plain, several
    under ``group<N>_`` and nothing run-wide."""
    groups: dict[int, list[dict[str, Any]]] = {}
    for entry in doc["jobs"]:
        groups.setdefault(int(entry["groupid"]), []).append(entry)
    if len(groups) == 1:
        return group_figures(next(iter(groups.values())))
    return {
        f"group{g}_{name}": value
        for g, entries in sorted(groups.items())
        for name, value in group_figures(entries).items()
    }
