"""A real PostgreSQL server for a team library on this machine, in a temporary directory.

Tests and benchmarks share it: Debian's PostgreSQL run as the ``postgres`` OS user (as the
current user when not root), listening on 127.0.0.1 on a free port (and a unix socket in its
directory), with a database ``pairbench``, two writers (``alice``, ``bob``) and a read-only
member (``reader``). Roles as the guide (team-library.md) tells an administrator: writers in
``pairbench_writers`` with CREATE on the schema, readers in ``pairbench_readers``, and default
privileges so the tables a writer creates can be written by every writer and read by every
reader. The superuser's SQL goes through ``psql`` over the unix socket (the lab never imports
a database driver).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Self

from pairbench.lab.errors import LabError
from pairbench.lab.processes import pid_alive
from pairbench.lab.runner import run

DATABASE = "pairbench"
WRITERS = ("alice", "bob")
READERS = ("reader",)
START_TIMEOUT_S = 30.0
INITDB_TIMEOUT_S = 120.0
INSTALL_HINT = "Debian's `postgresql`; make test installs it as root"


def bindir() -> Path | None:
    """The newest installed PostgreSQL's programs (Debian: /usr/lib/postgresql/N/bin)."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def missing() -> str | None:
    """Why a server cannot be run on this machine (what to install), or None when it can."""
    programs = bindir()
    if programs is None or not (programs / "postgres").exists():
        return f"PostgreSQL is not installed ({INSTALL_HINT})"
    for name in ("pg_ctl", "pg_isready", "psql"):
        if not (programs / name).exists():
            return f"PostgreSQL's {name} is missing from {programs} ({INSTALL_HINT})"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "no `postgres` OS user to run PostgreSQL as (root may not)"
        if shutil.which("setpriv") is None:
            return "setpriv (util-linux) is not installed"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TeamServer:
    """One PostgreSQL cluster in a temporary directory; ``url(role)`` reaches it as a role."""

    def __init__(self, programs: Path, root: Path, user: str) -> None:
        self.bindir = programs
        self.root = root
        self.user = user  # the OS user running the server
        self.data = root / "data"
        self.sockets = root / "sockets"
        self.log = root / "server.log"
        self.port = _free_port()
        self._passwords = {role: secrets.token_urlsafe(12) for role in (*WRITERS, *READERS)}
        self._proc: subprocess.Popen[bytes] | None = None
        # Where it listens: loopback, or an address of a lab namespace it runs in (so a test
        # can cut the network between a client and it by setting a lab link down).
        self.address = "127.0.0.1"
        self.netns: str | None = None

    def place(self, netns: str, address: str) -> None:
        """Run (from the next start) in network namespace ``netns``, listening on
        ``address`` (one of that namespace's); the unix socket stays in the directory."""
        self.netns, self.address = netns, address

    @classmethod
    def create(cls, parent: Path | None = None) -> Self:
        """A server object in a new temporary directory (nothing started yet).

        ``LabError`` says what is missing when PostgreSQL cannot run here.
        """
        reason = missing()
        if reason is not None:
            raise LabError(reason)
        programs = bindir()
        assert programs is not None
        user = "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
        root = Path(tempfile.mkdtemp(prefix="pairbench-pg-", dir=parent))
        (root / "sockets").mkdir()
        for path in (root, root / "sockets"):
            shutil.chown(path, user=user, group=pwd.getpwnam(user).pw_gid)
            path.chmod(0o700)
        return cls(programs, root, user)

    # -- addresses ------------------------------------------------------------------------

    def url(self, role: str, *, password: bool = False, dbname: str = DATABASE) -> str:
        """The libpq URL of a database (``pairbench``) as ``role`` (no password by default)."""
        secret = f":{self._passwords[role]}" if password else ""
        return f"postgresql://{role}{secret}@{self.address}:{self.port}/{dbname}"

    def password(self, role: str) -> str:
        return self._passwords[role]

    def admin_conninfo(self, dbname: str = DATABASE) -> str:
        """The superuser's libpq conninfo over the server's unix socket (trusted, no password)."""
        return f"host={self.sockets} port={self.port} user=postgres dbname={dbname}"

    def sql(self, *statements: str, dbname: str = DATABASE) -> str:
        """Run each statement as the superuser (each its own transaction); psql's unaligned
        output (``|`` between columns, a row a line)."""
        argv = [str(self.bindir / "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
        argv += ["-h", str(self.sockets), "-p", str(self.port), "-U", "postgres", "-d", dbname]
        for statement in statements:
            argv += ["-c", statement]
        return run(argv, timeout=START_TIMEOUT_S)

    # -- life cycle -----------------------------------------------------------------------

    def _as_owner(self, argv: list[str]) -> list[str]:
        if os.geteuid() != 0:
            return argv
        return ["setpriv", f"--reuid={self.user}", f"--regid={self.user}", "--init-groups", *argv]

    def init(self) -> None:
        """initdb, then start and create the database and roles (``LabError`` if it fails)."""
        run(
            self._as_owner(
                [
                    str(self.bindir / "initdb"),
                    "-D",
                    str(self.data),
                    "-U",
                    "postgres",
                    "-E",
                    "UTF8",
                    "--locale=C",
                    "--auth-local=trust",
                    "--auth-host=scram-sha-256",
                ]
            ),
            timeout=INITDB_TIMEOUT_S,
        )
        if self.netns is not None:  # members connect from the namespace's networks
            with (self.data / "pg_hba.conf").open("a", encoding="utf-8") as hba:
                hba.write("host all all samenet scram-sha-256\n")
        self.start()
        self._create_roles()

    def start(self) -> None:
        """Start the server (this process is its parent) and wait until it accepts."""
        if self._proc is not None and self._proc.poll() is None:
            return
        argv = [
            str(self.bindir / "postgres"),
            "-D",
            str(self.data),
            "-p",
            str(self.port),
            "-c",
            f"listen_addresses={self.address}",
            "-c",
            f"unix_socket_directories={self.sockets}",
            "-c",
            "fsync=off",  # a killed server keeps what the kernel has; only a crashed OS loses
            "-c",
            "shared_buffers=32MB",
            "-c",
            "max_connections=30",
        ]
        with self.log.open("ab") as log:
            inside = ["ip", "netns", "exec", self.netns] if self.netns else []
            self._proc = subprocess.Popen(
                [*inside, *self._as_owner(argv)],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.root,
            )
        ready = [str(self.bindir / "pg_isready"), "-q", "-h", str(self.sockets)]
        ready += ["-p", str(self.port), "-U", "postgres", "-d", "postgres"]
        deadline = time.monotonic() + START_TIMEOUT_S
        while subprocess.run(ready, check=False, stdin=subprocess.DEVNULL).returncode != 0:
            if self._proc.poll() is not None or time.monotonic() > deadline:
                raise LabError(f"PostgreSQL did not start; its log:\n{self._log_text()}")
            time.sleep(0.05)

    def stop(self) -> None:
        """A fast shutdown (pg_ctl stop -m fast): sessions are ended, the data is kept."""
        if self._proc is None or self._proc.poll() is not None:
            return
        subprocess.run(
            self._as_owner(
                [str(self.bindir / "pg_ctl"), "stop", "-D", str(self.data), "-m", "fast"]
            ),
            check=False,
            capture_output=True,
        )
        try:
            self._proc.wait(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """SIGKILL the postmaster and every process it started (a crash, no shutdown)."""
        proc = self._proc
        if proc is None or proc.poll() is not None:
            return
        children = _children(proc.pid)
        proc.send_signal(signal.SIGKILL)
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + START_TIMEOUT_S
        while any(pid_alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.01)

    def remove(self) -> None:
        """Stop the server and delete its directory."""
        self.stop()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Self:
        """Initialised and running (removed again if that fails)."""
        try:
            self.init()
        except BaseException:
            self.remove()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.remove()

    # -- roles and databases --------------------------------------------------------------

    def grant_read(self, role: str) -> None:
        """SELECT on every table now in the schema (default privileges cover later ones)."""
        self.sql(f'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{role}"')

    def create_database(self, name: str) -> None:
        """Another database, set up for the team as ``pairbench`` is (an empty team library)."""
        self.sql(f'CREATE DATABASE "{name}"', dbname="postgres")
        self.sql(*_schema_grants(), dbname=name)

    def _create_roles(self) -> None:
        statements = [
            "CREATE ROLE pairbench_writers NOLOGIN",
            "CREATE ROLE pairbench_readers NOLOGIN",
        ]
        for role in WRITERS + READERS:
            group = "pairbench_writers" if role in WRITERS else "pairbench_readers"
            statements.append(
                f"CREATE ROLE {role} LOGIN PASSWORD '{self._passwords[role]}' IN ROLE {group}"
            )
        statements.append(f"CREATE DATABASE {DATABASE}")
        self.sql(*statements, dbname="postgres")
        self.sql(*_schema_grants())

    def _log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")
        except OSError:
            return "(no log)"


def _schema_grants() -> list[str]:
    """What a database's owner grants the team's groups (guide: team-library.md)."""
    writers = ", ".join(WRITERS)
    defaults = f"ALTER DEFAULT PRIVILEGES FOR ROLE {writers} IN SCHEMA public"
    return [
        "GRANT USAGE, CREATE ON SCHEMA public TO pairbench_writers",
        "GRANT USAGE ON SCHEMA public TO pairbench_readers",
        f"{defaults} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO pairbench_writers",
        f"{defaults} GRANT USAGE, SELECT ON SEQUENCES TO pairbench_writers",
        f"{defaults} GRANT SELECT ON TABLES TO pairbench_readers",
    ]


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (the server's backends and workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found
