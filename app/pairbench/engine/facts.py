"""Host facts recorded with every run: kernel, OS, CPU, memory, NIC, TCP settings."""

from __future__ import annotations

from pairbench.domain.failures import TransportError
from pairbench.remote.base import Transport

# A constant script (no user input is ever pasted into it); addresses are passed as the
# positional arguments $1 (an address to route to) and $2 (an address the host owns), so they
# are quoted once like every other argv element. The interface is the one owning $2, else the
# one that routes to $1.
FACTS_SCRIPT = r"""
echo "kernel=$(uname -r 2>/dev/null)"
( . /etc/os-release 2>/dev/null && echo "os=$PRETTY_NAME" )
echo "cpu_model=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//')"
echo "cpu_count=$(nproc 2>/dev/null)"
echo "mem_total_kib=$(awk '/MemTotal/ {print $2}' /proc/meminfo 2>/dev/null)"
echo "tcp_congestion_control=$(cat /proc/sys/net/ipv4/tcp_congestion_control 2>/dev/null)"
echo "rmem_max=$(cat /proc/sys/net/core/rmem_max 2>/dev/null)"
echo "wmem_max=$(cat /proc/sys/net/core/wmem_max 2>/dev/null)"
dev=""
[ -n "$2" ] && dev=$(ip -o addr show to "$2" 2>/dev/null | awk '{print $2; exit}')
[ -z "$dev" ] && [ -n "$1" ] && \
  dev=$(ip -o route get "$1" 2>/dev/null | sed -n 's/.* dev \([^ ]*\).*/\1/p')
echo "interface=$dev"
if [ -n "$dev" ]; then
  echo "mtu=$(cat /sys/class/net/$dev/mtu 2>/dev/null)"
  echo "nic_driver=$(ethtool -i "$dev" 2>/dev/null | sed -n 's/^driver: //p')"
fi
"""


def parse_facts(text: str) -> dict[str, str]:
    """``key=value`` lines into a dict, dropping empty values."""
    facts: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and value.strip():
            facts[key.strip()] = value.strip()
    return facts


async def gather_facts(
    transport: Transport, *, route_to: str = "", own_address: str = ""
) -> dict[str, str]:
    """The facts of the host behind ``transport``; best effort, never raises."""
    argv = ["sh", "-c", FACTS_SCRIPT, "sh", route_to, own_address]
    try:
        result = await transport.run(argv, timeout_s=10)
    except (TransportError, TimeoutError, OSError) as exc:
        return {"error": f"could not read host facts: {exc}"}
    return parse_facts(result.stdout)
