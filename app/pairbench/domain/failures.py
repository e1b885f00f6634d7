"""The failures every layer raises and every front end reads: typed, carrying their data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pairbench.domain.timestamps import time_text


class TransportError(Exception):
    """A host could not run what was asked; the message names the host and what to do."""

    def __init__(self, message: str = "", *, host: str = "") -> None:
        super().__init__(message)
        self.host = host


class ToolMissingError(TransportError):
    """The program is not installed on the host (``program`` on ``host``, for a front end to
    offer what installs it)."""

    def __init__(self, message: str, *, program: str = "", host: str = "") -> None:
        super().__init__(message, host=host)
        self.program = program


class AuthFailedError(TransportError):
    """The host refused the login."""


class ConnectionLostError(TransportError):
    """The SSH connection dropped while in use."""


class NoCommonAlgorithmError(TransportError):
    """Client and server share no algorithm of one kind (host key type, key exchange, ...).

    OpenSSH's sshd just closes the connection then ("Connection lost"); asyncssh as a server
    says "Unable to find compatible server host key". ``offered`` are the server's algorithms
    of that kind (from its KEXINIT), ``accepted`` ours.
    """

    def __init__(
        self, host_name: str, kind: str, offered: Sequence[str], accepted: Sequence[str], hint: str
    ) -> None:
        super().__init__(
            f"host {host_name}: no {kind} in common with the server: it offers "
            f"{_algorithm_list(offered)}; Pairbench accepts {_algorithm_list(accepted)}{hint}",
            host=host_name,
        )
        self.kind = kind
        self.offered = list(offered)
        self.accepted = list(accepted)


def _algorithm_list(names: Sequence[str]) -> str:
    """Algorithm names for a message; OpenSSH certificate variants summed up at the end."""
    plain = [n for n in names if "-cert-v01@openssh.com" not in n]
    certificates = len(plain) < len(names)
    if not plain:
        return ", ".join(names) or "none"
    return ", ".join(plain) + (" (and their certificates)" if certificates else "")


class HostKeyUnknownError(TransportError):
    """The host presented a key nobody has accepted yet (``fingerprint``, ``key_line``)."""

    def __init__(self, host_name: str, fingerprint: str, key_line: str) -> None:
        super().__init__(
            f"host {host_name}: unknown host key {fingerprint}; check it, then accept it "
            "(--accept-new-host-key on the command line)",
            host=host_name,
        )
        self.fingerprint = fingerprint
        self.key_line = key_line


class HostKeyChangedError(TransportError):
    """The host presented a key other than the pinned one: possibly an attack.

    ``remedy`` is the explicit step that trusts the new key (the default: forget the pinned
    key, then accept the new one at the next connection).
    """

    def __init__(
        self,
        host_name: str,
        expected: Sequence[str],
        presented: str,
        *,
        refusing: str = "refusing to connect",
        remedy: str | None = None,
    ) -> None:
        step = remedy or (
            f"remove the pinned key (pairbench hosts forget-key {host_name}) and connect again"
        )
        super().__init__(
            f"host {host_name}: HOST KEY CHANGED — expected {', '.join(expected)}, "
            f"got {presented}; {refusing}. If the change is legitimate, {step}",
            host=host_name,
        )
        self.expected = list(expected)
        self.presented = presented


class HostBusyError(Exception):
    """A host is in use by another Pairbench run; the message says which and by whom."""

    def __init__(self, host: str, holder: Mapping[str, object]) -> None:
        self.host = host
        self.holder = dict(holder)
        super().__init__(f"host {host} is busy: {describe_holder(holder)}")


def describe_holder(holder: Mapping[str, object]) -> str:
    """ "in use by another Pairbench run (iperf3 on pair lab; `pairbench run`, pid 4242,
    library /home/me/lab.sqlite, started 14:02:11; its run 6 there)": the program, its
    library file, pid and start time; a run number only with the library it belongs to
    (never to be read as a run of this library)."""
    parts = []
    if holder.get("tool") and holder.get("pair"):
        parts.append(f"{holder['tool']} on pair {holder['pair']}")
    where = []
    if holder.get("program"):
        where.append(str(holder["program"]))
    if holder.get("pid"):
        where.append(f"pid {holder['pid']}")
    if holder.get("library"):
        where.append(f"library {holder['library']}")
    started = holder.get("started_at")
    if isinstance(started, int | float):
        where.append(f"started {time_text(started, '%H:%M:%S')}")
    if where:
        parts.append(", ".join(where))
    if holder.get("run_id") and holder.get("library"):
        parts.append(f"its run {holder['run_id']} there")
    detail = f" ({'; '.join(parts)})" if parts else ""
    return (
        f"in use by another Pairbench run{detail}; wait for it to end or cancel it where it "
        "was started"
    )


class HostInUseError(Exception):
    """Another controller's run is still running on the host."""


class RunError(Exception):
    """A run could not start; nothing was stored. The message says what to do.

    ``cause`` is the typed failure behind it (a ``HostKeyUnknownError``, ``AuthFailedError``,
    ...), for a front end to decide from its type, never from the message.
    """

    @property
    def cause(self) -> BaseException | None:
        """The failure this refusal was raised from, if any."""
        return self.__cause__


class PortInUseError(TransportError):
    """The server port the user chose is in use on ``host`` (``detail``: the tool's words or
    what listens there)."""

    def __init__(self, host: str, port: int, detail: str = "") -> None:
        super().__init__(
            f"host {host}: port {port} is in use{f' ({detail})' if detail else ''}; choose "
            "another port, or leave port unset (0) and Pairbench picks a free one",
            host=host,
        )
        self.port = port


class ToolNotInstalledError(RunError):
    """The run's tool is missing on ``host``; ``installable``: Pairbench can build it there
    (``hosts install-tool``), which a front end offers."""

    def __init__(self, tool: str, host: str, hint: str, *, installable: bool) -> None:
        super().__init__(f"{tool} is not installed on {host}: {hint}")
        self.tool, self.host, self.installable = tool, host, installable


class PairBusyError(RunError):
    """A host of the pair is in use by another Pairbench run (``holder`` says which)."""

    def __init__(self, message: str, host: str, holder: Mapping[str, object]) -> None:
        super().__init__(message)
        self.host = host
        self.holder = dict(holder)


class TargetHoldsDataError(RunError):
    """A storage suite's device holds data it would destroy (``held``: a file system, a
    partition table, ...) and was not forced; a front end may offer to force it."""

    def __init__(self, message: str, host: str, target: str, held: Sequence[str]) -> None:
        super().__init__(message)
        self.host, self.target, self.held = host, target, list(held)


class TargetChangedError(RunError):
    """A running storage suite's target is no longer as the suite checked it (a device now in
    use, its own directory changed or gone): checked before a purge, nothing written; the
    suite stops there (resumable, the resume checks it again)."""


class StalledOutError(Exception):
    """The tool stayed quiet past the run's expected end: the run is ended as stalled."""


class ToolInstallError(Exception):
    """The tool could not be installed; the message says why and what to do."""


class MissingBuildToolsError(ToolInstallError):
    """The host lacks what the build needs: ``programs`` and the ``packages`` that give them."""

    def __init__(self, host: str, tool: str, programs: list[str], packages: list[str], hint: str):
        self.host, self.tool, self.programs, self.packages = host, tool, programs, packages
        super().__init__(
            f"cannot build {tool} on {host}: it lacks {', '.join(programs)}; {hint} "
            "(nothing was uploaded or installed)"
        )


class FieldError(ValueError):
    """A value that cannot be used; ``field`` names the form field it belongs to."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class FormErrors(ValueError):
    """Every field error of one form; the message is the first error's."""

    def __init__(self, errors: Sequence[FieldError]) -> None:
        super().__init__(str(errors[0]))
        self.errors = list(errors)

    def by_field(self) -> dict[str, str]:
        """Field name → message (the first error of each field)."""
        out: dict[str, str] = {}
        for error in self.errors:
            out.setdefault(error.field, str(error))
        return out


class AnalysisError(Exception):
    """A run cannot be analysed (no throughput series); the message says why."""


class UserFileError(ValueError):
    """A file the user named cannot be read as asked: missing, unreadable, not a regular file
    (a FIFO, a device, a directory), or larger than the size allowed for what it should be.
    ``path`` is the file as named; ``os_error`` the system's error when there was one."""

    def __init__(self, message: str, *, path: str = "", os_error: OSError | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.os_error = os_error


class InputRefusedError(ValueError):
    """An input read whole but refused before anything was stored (an import holding no
    result of its tool, an implausible time, a negative or non-finite figure); the message
    says what was read and why it cannot be so."""


class LibraryFullError(Exception):
    """The file system holding the library is full: nothing more can be stored in it.

    ``mount`` is that file system's mount point, ``detail`` its type and device, ``free`` the
    bytes left on it; ``kept`` says what was kept of the work that met it ("run 3 is stored
    as interrupted with its first 120 samples"; "nothing was imported").
    """

    def __init__(self, library: str, mount: str, detail: str, free: int, kept: str = "") -> None:
        self.library, self.mount, self.detail = library, mount, detail
        self.free, self.kept = free, kept
        from pairbench.domain.units import format_quantity  # here: `runs list` needs no units

        shown = f"{mount} ({detail})" if detail else mount
        said = f"; {kept}" if kept else ""
        super().__init__(
            f"the library's disk is full: {shown} has {format_quantity('B', free)} free"
            f"{said}; free space on {mount} and try again"
        )

    def keeping(self, kept: str) -> LibraryFullError:
        """The same failure, saying what was kept."""
        return LibraryFullError(self.library, self.mount, self.detail, self.free, kept)
