"""OpenSSH client configs (``~/.ssh/config``) resolved as OpenSSH 9.2's ``ssh -G`` does.

``config`` lists a config's aliases and resolves each (``resolve``: the passes of ssh.c,
``reader``: the files and blocks, ``match``: Match lines, ``options``: each keyword, ``jump``:
ProxyJump values, ``tokens``: %-tokens and ${VAR}, ``canonical``: host name canonicalization,
``keywords``: what Pairbench does with each keyword).
"""

from pairbench.remote.ssh_config.client_env import ClientEnv
from pairbench.remote.ssh_config.config import (
    SSHConfig,
    SSHConfigEntry,
    open_config,
    parse_ssh_config,
)
from pairbench.remote.ssh_config.jump import JumpSpec
from pairbench.remote.ssh_config.reader import SSHConfigError
from pairbench.remote.ssh_config.resolve import Preset, Resolved

__all__ = [
    "ClientEnv",
    "JumpSpec",
    "Preset",
    "Resolved",
    "SSHConfig",
    "SSHConfigEntry",
    "SSHConfigError",
    "open_config",
    "parse_ssh_config",
]
