"""Running commands on hosts: this computer (asyncio subprocesses) and, later, SSH hosts."""
