"""The lab's names and addresses: the single lab unchanged, each multi-lab pair its own, and each
lab instance (``PAIRBENCH_LAB_INSTANCE``) sharing nothing with the default lab or another."""

from __future__ import annotations

import io
import ipaddress
from pathlib import Path

import asyncssh
import pytest

from pairbench.cli.environment import Environment
from pairbench.cli.main import run_cli
from pairbench.lab import Shaping
from pairbench.lab.errors import LabError
from pairbench.lab.info import LabHost, LabInfo
from pairbench.lab.instance import ENV, MAX_INSTANCE, LabInstance, current
from pairbench.lab.pair_shaping import shaping_tags
from pairbench.lab.pairs import index_of, pair_paths
from pairbench.lab.topology import (
    IFNAMSIZ,
    MAX_PAIRS,
    PairTopology,
    multi_index,
    pair_topology,
    single,
)
from pairbench.services.hosts import get_host, get_pair, pinned_host_keys
from pairbench.services.lab_hosts import register_labs
from pairbench.services.library import open_library

DEFAULT = LabInstance()
SINGLE = single(DEFAULT)
LAB_NETWORK = ipaddress.ip_network("10.213.0.0/16")
MULTI_NETWORK = ipaddress.ip_network("10.214.0.0/16")
ALL = (SINGLE, *(pair_topology(k, DEFAULT) for k in range(1, MAX_PAIRS + 1)))
INSTANCES = [LabInstance(n) for n in range(MAX_INSTANCE + 1)]


@pytest.fixture(autouse=True)
def _default_lab(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the default lab unless they name an instance (a parallel test
    worker has its own instance in its environment)."""
    monkeypatch.delenv(ENV, raising=False)


def _names(topo: PairTopology) -> list[str]:
    return [*topo.namespaces, *topo.root_devs]


def test_the_single_lab_keeps_its_names_and_addresses() -> None:
    assert single() == SINGLE  # the environment names no instance: the default lab
    assert SINGLE.pair == "lab" and SINGLE.index == 0 and SINGLE.zone is None
    client, server = SINGLE.client, SINGLE.server
    assert _names(SINGLE) == ["pbl-client", "pbl-server", "pbl-wan", "pbl-c0", "pbl-s0"]
    assert (client.host_name, server.host_name) == ("lab-client", "lab-server")
    assert (client.address, server.address) == ("10.213.1.2", "10.213.2.2")
    assert (client.root_cidr, server.root_cidr) == ("10.213.1.1/30", "10.213.2.1/30")
    assert (client.data_cidr, server.data_cidr) == ("10.213.0.1/24", "10.213.0.2/24")
    assert SINGLE.wan_namespace == "pbl-wan" and SINGLE.wan_address == "10.213.0.254"
    assert [(p.name, p.peer_address, p.direction, p.queue) for p in SINGLE.ports] == [
        ("client", "10.213.0.1", "forward", 0),
        ("server", "10.213.0.2", "reverse", 1),
    ]
    assert SINGLE.network == LAB_NETWORK


@pytest.mark.parametrize("index", range(1, MAX_PAIRS + 1))
def test_pair_names_follow_the_index(index: int) -> None:
    topo = pair_topology(index)
    assert topo.pair == f"lab{index}" and topo.zone == f"z{index}"
    assert (topo.client.host_name, topo.server.host_name) == (
        f"lab{index}-client",
        f"lab{index}-server",
    )
    assert _names(topo) == [f"pbl-{index}{s}" for s in ("c", "s", "w", "c0", "s0")]
    assert (topo.client.data_cidr, topo.server.data_cidr) == (
        f"10.214.{index}.1/25",
        f"10.214.{index}.2/25",
    )
    assert (topo.client.mgmt_cidr, topo.server.mgmt_cidr) == (
        f"10.214.{index}.130/30",
        f"10.214.{index}.134/30",
    )
    assert topo.wan_address == f"10.214.{index}.126" and topo.network == MULTI_NETWORK
    assert {multi_index(name) for name in _names(topo)} == {index}
    assert index_of(topo.pair) == index
    assert pair_paths(index, Path("/x")).root == Path("/x") / topo.pair


def test_every_name_fits_ifnamsiz_and_none_is_shared() -> None:
    names = [name for topo in ALL for name in _names(topo)]
    assert all(name.startswith("pbl-") and len(name) <= IFNAMSIZ for name in names)
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


def _every_topology(instance: LabInstance) -> list[PairTopology]:
    return [single(instance), *(pair_topology(k, instance) for k in range(1, MAX_PAIRS + 1))]


def test_an_instance_is_chosen_by_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert current({}) == current({ENV: ""}) == current({ENV: "0"}) == DEFAULT
    assert current({ENV: "3"}) == LabInstance(3)
    monkeypatch.setenv(ENV, "4")
    assert single() == single(LabInstance(4)) and pair_topology(2) == pair_topology(2, INSTANCES[4])
    assert multi_index("pbl4-2c0") == 2 and multi_index("pbl-2c0") is None


@pytest.mark.parametrize("text", ["x", "-1", "1.5", str(MAX_INSTANCE + 1), "٣", " 3 4"])
def test_a_bad_instance_is_one_clear_error(text: str) -> None:
    with pytest.raises(LabError, match=f"{ENV} must be a number 0 to {MAX_INSTANCE}, got"):
        current({ENV: text})


def test_an_instance_keeps_the_layout_with_its_own_prefix_and_networks() -> None:
    third = INSTANCES[3]
    assert _names(single(third)) == ["pbl3-client", "pbl3-server", "pbl3-wan", "pbl3-c0", "pbl3-s0"]
    assert single(third).server.data_cidr == "10.219.0.2/24"
    assert pair_topology(5, third).server.data_cidr == "10.220.5.2/25"
    assert (third.state_root, third.multi_root) == (
        Path("/run/pairbench-i3/lab"),
        Path("/run/pairbench-i3/pairs"),
    )
    assert (DEFAULT.state_root, DEFAULT.multi_root) == (
        Path("/run/pairbench-lab"),
        Path("/run/pairbench-lab-pairs"),
    )
    assert (DEFAULT.lock_name, third.lock_name) == ("pairbench-lab", "pairbench-lab.i3")
    assert (DEFAULT.run_dir, third.run_dir) == (None, Path("/run/pairbench-i3"))


def test_no_two_instances_share_a_name_an_address_a_directory_or_a_lock() -> None:
    names: list[str] = []
    hosts_addresses: list[str] = []
    networks = []
    for instance in INSTANCES:
        topologies = _every_topology(instance)
        for topo in topologies:
            for name in _names(topo):
                assert len(name) <= IFNAMSIZ and name.startswith(instance.prefix)
                # a lab's sweep (by prefix) never takes another lab's names
                others = [i for i in INSTANCES if i != instance]
                assert not any(name.startswith(other.prefix) for other in others), name
                names.append(name)
            for node in topo.nodes:
                hosts_addresses += [node.address, node.root_address, node.data_address]
                assert ipaddress.ip_address(node.address) in topo.network
            assert topo.network in (instance.lab_network, instance.multi_network)
        networks += [instance.lab_network, instance.multi_network]
    assert len(set(names)) == len(names)
    assert len(set(hosts_addresses)) == len(hosts_addresses)
    assert all(not a.overlaps(b) for i, a in enumerate(networks) for b in networks[i + 1 :])
    roots = [str(p) for i in INSTANCES for p in (i.state_root, i.multi_root)]
    # no directory is a prefix of another's (processes are found by their directory's name)
    assert not any(a != b and (b + "/").startswith(a + "/") for a in roots for b in roots)
    assert not any("/run/pairbench-lab" in root for root in roots[2:])
    assert len({i.lock_name for i in INSTANCES}) == len(INSTANCES)


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


@pytest.mark.parametrize(
    "argv",
    [["lab", "up"], ["lab", "up", "--pairs", "2"], ["lab", "shape"], ["lab", "status"],
     ["lab", "down"], ["lab", "down", "--pairs"]],
)  # fmt: skip
def test_every_lab_command_refuses_a_bad_instance_in_one_line(
    monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    monkeypatch.setenv(ENV, "second")
    out, err = io.StringIO(), io.StringIO()
    assert run_cli(argv, Environment(stdout=out, stderr=err)) == 1
    assert err.getvalue() == (
        f"pairbench: {ENV} must be a number 0 to {MAX_INSTANCE}, got 'second'\n"
    ), err.getvalue()
    assert out.getvalue() == ""
