"""What ssh reads about this side of a connection: home, user name, uid, host name, environment."""

from __future__ import annotations

import os
import pwd
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pairbench.remote.ssh_config.reader import ConfigFile

SYSTEM_CONFIG = "/etc/ssh/ssh_config"


@dataclass(frozen=True, slots=True)
class ClientEnv:
    """The local facts ssh's resolution depends on (tests give their own).

    ssh takes the home and user name from the password database; Pairbench takes the home
    from ``$HOME`` like the rest of Pairbench (the same directory unless HOME was changed).
    """

    home: str
    user: str
    uid: int
    hostname: str
    environ: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def current(cls) -> ClientEnv:
        """This process's user, home, host name and environment."""
        uid = os.getuid()
        try:
            entry = pwd.getpwuid(uid)
            user, pw_home = entry.pw_name, entry.pw_dir
        except KeyError:
            user, pw_home = os.environ.get("USER", ""), "/"
        home = os.environ.get("HOME") or pw_home
        return cls(home, user, uid, socket.gethostname(), dict(os.environ))


def config_files(
    path: str | Path | None, env: ClientEnv, system_config: str = SYSTEM_CONFIG
) -> tuple[ConfigFile, ...]:
    """The files ssh reads: ``-F FILE`` alone, else ``~/.ssh/config`` then the system's.

    The user's file must be readable (an import of nothing is an error); ssh skips a
    missing ``~/.ssh/config`` silently.
    """
    if path is not None:
        return (ConfigFile(str(path), user_config=True, required=True),)
    user_file = f"{env.home.rstrip('/')}/.ssh/config"
    return (
        ConfigFile(user_file, user_config=True, check_perm=True, required=True),
        ConfigFile(system_config, user_config=False),
    )
