"""fio's I/O engines in a job file: those that stay on the host's own files and disks (or do
no I/O at all), and for every other one the reason a job file run by Pairbench refuses it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

# Engines that read and write the host's own files or block devices with the kernel's
# system calls, or do no I/O (null, cpuio): nothing leaves the host, no library or device of
# a special kind is needed.
ACCEPTED: Final = frozenset(
    {
        "sync",
        "psync",
        "vsync",
        "pvsync",
        "pvsync2",
        "libaio",
        "io_uring",
        "posixaio",
        "mmap",
        "splice",
        "null",
        "cpuio",
        "falloc",
        "ftruncate",
        "filecreate",
        "filestat",
        "filedelete",
        "e4defrag",
    }
)
# Engines that change or remove a file whatever the job's rw says (filedelete unlinks,
# ftruncate truncates, falloc allocates and punches holes, e4defrag moves extents,
# filecreate makes files).
DESTRUCTIVE: Final = frozenset({"filedelete", "ftruncate", "falloc", "e4defrag", "filecreate"})

_NETWORK = "its I/O goes over the network ({what}), not to this host's own storage"
_SPECIAL = "it needs {what}, not a file or block device Pairbench checks"

# Why each engine of fio 3.33's list (HOWTO, ioengine) that is not ACCEPTED is refused.
REFUSED: Final[Mapping[str, str]] = {
    "net": _NETWORK.format(what="TCP/UDP: run iperf3, nuttcp or uperf on a pair instead"),
    "netsplice": _NETWORK.format(what="TCP/UDP: run iperf3, nuttcp or uperf on a pair instead"),
    "rdma": _NETWORK.format(what="RDMA"),
    "librpma_apm_client": _NETWORK.format(what="RDMA to persistent memory"),
    "librpma_apm_server": _NETWORK.format(what="RDMA to persistent memory"),
    "librpma_gpspm_client": _NETWORK.format(what="RDMA to persistent memory"),
    "librpma_gpspm_server": _NETWORK.format(what="RDMA to persistent memory"),
    "rados": _NETWORK.format(what="a Ceph cluster"),
    "rbd": _NETWORK.format(what="a Ceph RBD image"),
    "http": _NETWORK.format(what="HTTP: WebDAV, S3 or Swift"),
    "gfapi": _NETWORK.format(what="GlusterFS"),
    "gfapi_async": _NETWORK.format(what="GlusterFS"),
    "libhdfs": _NETWORK.format(what="HDFS"),
    "libiscsi": _NETWORK.format(what="iSCSI"),
    "nbd": _NETWORK.format(what="an NBD server"),
    "nfs": _NETWORK.format(what="NFS through libnfs"),
    "dfs": _NETWORK.format(what="a DAOS pool"),
    "ime_psync": _NETWORK.format(what="DDN's IME burst buffer"),
    "ime_psyncv": _NETWORK.format(what="DDN's IME burst buffer"),
    "ime_aio": _NETWORK.format(what="DDN's IME burst buffer"),
    "sg": _SPECIAL.format(
        what="a SCSI generic device (/dev/sgN): SCSI commands (WRITE SAME, VERIFY ...) sent "
        "past the block layer"
    ),
    "io_uring_cmd": _SPECIAL.format(
        what="an NVMe character device (/dev/ngXnY): passthrough commands past the block layer"
    ),
    "xnvme": _SPECIAL.format(what="the xNVMe library's NVMe backends (SPDK, passthrough)"),
    "libzbc": _SPECIAL.format(what="a zoned SCSI/ATA device through the libzbc library"),
    "mtd": _SPECIAL.format(what="a raw flash device (/dev/mtdN)"),
    "dev-dax": _SPECIAL.format(what="a persistent memory device (/dev/daxN.M)"),
    "pmemblk": _SPECIAL.format(what="a persistent memory pool made by pmempool"),
    "libpmem": _SPECIAL.format(
        what="a file on persistent memory (a DAX file system): on any other file libpmem "
        "refuses it ('does not point to persistent memory')"
    ),
    "libcufile": _SPECIAL.format(what="an NVIDIA GPU and its cuFile (GPUDirect Storage)"),
    "exec": "it runs a program on the host, which a job file run by Pairbench may not do",
    "external": "it loads code from a file on the host (ioengine=external:PATH)",
    "solarisaio": "it is Solaris's: Pairbench's hosts run Linux",
    "windowsaio": "it is Windows's: Pairbench's hosts run Linux",
}
_UNKNOWN = (
    "not one of fio's engines that stay on the host's own storage ({accepted}); an engine "
    "fio does not ship (cpp_null, spdk...) is loaded from a file on the host"
)


def engine_problem(engine: str) -> str | None:
    """Why a job file may not use ``ioengine=engine``, or None when it may."""
    name = engine.strip()
    if name in ACCEPTED:
        return None
    if name.startswith("external"):
        return REFUSED["external"]
    return REFUSED.get(name) or _UNKNOWN.format(accepted=", ".join(sorted(ACCEPTED)))
