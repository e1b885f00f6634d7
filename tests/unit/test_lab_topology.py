"""The lab's names and addresses: the single lab unchanged, each multi-lab pair its own."""

from __future__ import annotations

import ipaddress
from pathlib import Path

import asyncssh
import pytest

from pairbench.lab import Shaping
from pairbench.lab.errors import LabError
from pairbench.lab.info import LabHost, LabInfo
from pairbench.lab.pair_shaping import shaping_tags
from pairbench.lab.pairs import index_of, pair_paths
from pairbench.lab.topology import (
    CLIENT,
    IFNAMSIZ,
    LAB_NETWORK,
    MAX_PAIRS,
    MULTI_NETWORK,
    PREFIX,
    SERVER,
    SINGLE,
    WAN_NAMESPACE,
    WAN_PORTS,
    PairTopology,
    multi_index,
    pair_topology,
)
from pairbench.services.hosts import get_host, get_pair, pinned_host_keys
from pairbench.services.lab_hosts import register_labs
from pairbench.services.library import open_library

ALL = (SINGLE, *(pair_topology(k) for k in range(1, MAX_PAIRS + 1)))


def _names(topo: PairTopology) -> list[str]:
    return [*topo.namespaces, *topo.root_devs]


def test_the_single_lab_keeps_its_names_and_addresses() -> None:
    assert SINGLE.pair == "lab" and SINGLE.index == 0 and SINGLE.zone is None
    assert (SINGLE.client, SINGLE.server) == (CLIENT, SERVER)
    assert _names(SINGLE) == ["pbl-client", "pbl-server", "pbl-wan", "pbl-c0", "pbl-s0"]
    assert (CLIENT.host_name, SERVER.host_name) == ("lab-client", "lab-server")
    assert (CLIENT.address, SERVER.address) == ("10.213.1.2", "10.213.2.2")
    assert (CLIENT.data_cidr, SERVER.data_cidr) == ("10.213.0.1/24", "10.213.0.2/24")
    assert SINGLE.wan_namespace == WAN_NAMESPACE and SINGLE.ports == WAN_PORTS


@pytest.mark.parametrize("index", range(1, MAX_PAIRS + 1))
def test_pair_names_follow_the_index(index: int) -> None:
    topo = pair_topology(index)
    assert topo.pair == f"lab{index}" and topo.zone == f"z{index}"
    assert (topo.client.host_name, topo.server.host_name) == (
        f"lab{index}-client",
        f"lab{index}-server",
    )
    assert _names(topo) == [f"pbl-{index}{s}" for s in ("c", "s", "w", "c0", "s0")]
    assert {multi_index(name) for name in _names(topo)} == {index}
    assert index_of(topo.pair) == index
    assert pair_paths(index, Path("/x")).root == Path("/x") / topo.pair


def test_every_name_fits_ifnamsiz_and_none_is_shared() -> None:
    names = [name for topo in ALL for name in _names(topo)]
    assert all(name.startswith(PREFIX) and len(name) <= IFNAMSIZ for name in names)
    assert len(set(names)) == len(names)
    hosts = [node.host_name for topo in ALL for node in topo.nodes]
    assert len(set(hosts)) == len(hosts)
    assert [multi_index(name) for name in _names(SINGLE)] == [None] * 5


def test_addresses_are_distinct_and_inside_each_labs_network() -> None:
    addresses = []
    for topo in ALL:
        network = LAB_NETWORK if topo.index == 0 else MULTI_NETWORK
        assert topo.network == network
        data = ipaddress.ip_interface(topo.server.data_cidr).network
        assert ipaddress.ip_interface(topo.client.data_cidr).network == data
        assert ipaddress.ip_address(topo.wan_address) in data
        for node in topo.nodes:
            mgmt = ipaddress.ip_interface(node.mgmt_cidr).network
            assert ipaddress.ip_address(node.root_address) in mgmt
            assert not mgmt.overlaps(data)  # the management links never carry data
            assert mgmt.subnet_of(network) and data.subnet_of(network)  # type: ignore[arg-type]
            addresses += [node.address, node.root_address, node.data_address]
        addresses.append(topo.wan_address)
    assert len(set(addresses)) == len(addresses)
    assert not LAB_NETWORK.overlaps(MULTI_NETWORK)


def test_each_lab_owns_only_its_own_names() -> None:
    multi = pair_topology(2)
    for name in _names(SINGLE):
        assert SINGLE.family_owns(name) and not multi.family_owns(name)
    for name in _names(pair_topology(MAX_PAIRS)):
        assert multi.family_owns(name) and not SINGLE.family_owns(name)


@pytest.mark.parametrize("index", [0, -1, MAX_PAIRS + 1])
def test_pair_index_is_bounded(index: int) -> None:
    with pytest.raises(ValueError, match="a lab pair index is 1 to"):
        pair_topology(index)


@pytest.mark.parametrize("name", ["lab", "lab0", f"lab{MAX_PAIRS + 1}", "labx", "prod1"])
def test_other_names_are_not_multi_lab_pairs(name: str) -> None:
    with pytest.raises(LabError, match="is not a lab pair"):
        index_of(name)


def _info(topo: PairTopology, shaping: Shaping) -> LabInfo:
    def host(role: str) -> LabHost:
        node = topo.client if role == "client" else topo.server
        key = asyncssh.generate_private_key("ssh-ed25519")
        return LabHost(
            role=role,
            name=node.host_name,
            namespace=node.namespace,
            address=node.address,
            port=22,
            user="root",
            key_path=f"/run/{topo.pair}/lab_key",
            host_key=" ".join(key.export_public_key("openssh").decode().split()[:2]),
            data_address=node.data_address,
            zone=topo.zone,
        )

    return LabInfo(
        host("client"), host("server"), shaping, "netem", "/run", pair=topo.pair, zone=topo.zone
    )


def test_single_lab_tags_are_unchanged_and_multi_pairs_carry_zone_and_shaping() -> None:
    single = _info(SINGLE, Shaping(rate="100mbit"))
    assert single.tags == {"cloud": "lab"}
    assert dict(single.to_pair().client.tags) == {"lab": "true"}
    assert "zone" not in single.client.to_json()
    shaping = Shaping(rate="100mbit", delay="5ms")
    second = _info(pair_topology(2), shaping)
    assert second.tags == {"cloud": "lab", "lab": "multi", "zone": "z2", **shaping_tags(shaping)}
    pair = second.to_pair()
    assert pair.name == "lab2" and pair.data_address == pair_topology(2).server.data_address
    assert dict(pair.server.tags) == {"lab": "true", "zone": "z2"}
    assert second.to_json()["tags"] == second.tags


def test_register_labs_stores_every_pair_tagged_with_pinned_keys(tmp_path: Path) -> None:
    infos = [_info(pair_topology(k), Shaping(rate=f"{k}00mbit")) for k in (1, 2, 3)]
    with open_library(tmp_path / "l.sqlite") as lib:
        register_labs(lib, infos)
        for info in infos:
            pair = get_pair(lib, info.pair)
            assert dict(pair.tags) == info.tags
            assert pair.tags["rate"] == info.shaping.rate
            for lab_host in (info.client, info.server):
                assert dict(get_host(lib, lab_host.name).tags)["zone"] == info.zone
                assert pinned_host_keys(lib, lab_host.name) == [lab_host.host_key]
