"""The network lab: namespaces joined by a shaped link, each running its own sshd (DESIGN §5)."""

from pairbench.lab.errors import LabError
from pairbench.lab.shaping import Shaping, parse_shaping

__all__ = ["LabError", "Shaping", "parse_shaping"]
