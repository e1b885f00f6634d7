"""What differs between compared runs: their fields flattened to text, the real differences
first, and no row that only sets an empty or default value against an unset one.

A run's fields are its pair, tool and version, parameters, tags, hosts and host facts. A
field differs when its values differ once "not recorded" (``ABSENT``), an empty value and,
for a parameter, the tool's default are read as the same thing: an import that recorded no
parameters against a run that stored ``window=0`` (the default) or ``affinity=`` (unset) is
no difference, and is counted in ``hidden`` instead of listed. Rows are ordered by what
explains a difference best: parameters, then the tool and the hosts, host facts, the user's
tags and labels, and last the bookkeeping tags of suites, campaigns and imports; within each,
fields every run has come before fields some lack.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pairbench.domain import HostPair, Run

ABSENT = "—"

# Host facts in the order a reader looks for them; others follow alphabetically.
FACT_ORDER = (
    "kernel",
    "os",
    "nic_driver",
    "mtu",
    "interface",
    "rmem_max",
    "wmem_max",
    "tcp_congestion_control",
    "cpu_model",
    "cpu_count",
    "mem_total_kib",
)
PARAM = "param "
# Tags Pairbench sets itself to file a run under a suite, a campaign or an import.
BOOKKEEPING_TAGS = ("suite", "campaign", "imported", "probe", "phase")
_SETUP = ("tool", "tool version", "pair", "client host", "server host", "data address")


@dataclass(frozen=True, slots=True)
class DiffRow:
    """A metadata field whose value differs between runs; one value per compared run."""

    field: str
    values: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MetadataDiff:
    """Only the fields that differ; ``same`` counts those identical everywhere, ``hidden``
    those that differ only as unset against empty or the tool's default."""

    run_ids: tuple[int, ...]
    groups: tuple[str, ...]  # the group of each run, parallel to run_ids
    rows: tuple[DiffRow, ...]
    same: int = 0
    hidden: int = 0

    def by_group(self) -> list[tuple[str, dict[str, str]]]:
        """Each differing field with one value per group ("a | b" when a group is mixed)."""
        order = list(dict.fromkeys(self.groups))
        out: list[tuple[str, dict[str, str]]] = []
        for row in self.rows:
            per_group: dict[str, list[str]] = {g: [] for g in order}
            for group, value in zip(self.groups, row.values, strict=True):
                if value not in per_group[group]:
                    per_group[group].append(value)
            out.append((row.field, {g: " | ".join(vs) for g, vs in per_group.items()}))
        return out


def run_fields(run: Run, pair: HostPair | None = None, ran_by: str = "") -> dict[str, str]:
    """The fields a metadata diff looks at, flattened to strings."""
    fields: dict[str, str] = {
        "pair": run.spec.pair,
        "tool": run.spec.tool,
        "tool version": run.tool_version or ABSENT,
        "status": run.status.value,
        "label": run.label or ABSENT,
    }
    if ran_by:
        fields["ran by"] = ran_by
    for key in sorted(run.spec.params):
        fields[f"{PARAM}{key}"] = run.spec.params[key]
    for key in sorted(run.tags):
        fields[f"tag {key}"] = run.tags[key]
    if pair is not None:
        fields["client host"] = f"{pair.client.name} ({pair.client.address})"
        fields["server host"] = f"{pair.server.name} ({pair.server.address})"
        fields["data address"] = pair.target_address
    for role in sorted(run.host_facts, key=lambda r: (r != "client", r)):
        facts = run.host_facts[role]
        order = [k for k in FACT_ORDER if k in facts] + sorted(set(facts) - set(FACT_ORDER))
        for key in order:
            fields[f"{role} {key}"] = facts[key]
    return fields


def _meaning(name: str, value: str, defaults: Mapping[str, str]) -> str:
    """What a value says: unset, empty and (for a parameter) the tool's default alike."""
    if name.startswith(PARAM) and value == ABSENT:
        value = defaults.get(name.removeprefix(PARAM), ABSENT)
    return "" if value in (ABSENT, "") else value.strip()


def _rank(name: str, values: Sequence[str]) -> tuple[int, int]:
    """Where a differing field goes: (what kind of field, some run lacks it)."""
    if name.startswith(PARAM):
        kind = 0
    elif name in _SETUP or name.endswith(" address"):
        kind = 1
    elif name.startswith(("client ", "server ")):
        kind = 2
    elif name.startswith("tag ") and name.removeprefix("tag ").startswith(BOOKKEEPING_TAGS):
        kind = 4
    else:
        kind = 3  # the user's tags, label, status, who ran it
    return kind, int(any(v in (ABSENT, "") for v in values))


def diff_fields(
    per_run: Sequence[Mapping[str, str]],
    groups: Sequence[str],
    run_ids: Sequence[int],
    defaults: Sequence[Mapping[str, str]] = (),
) -> MetadataDiff:
    """The fields whose values differ between runs (``per_run``: each run's ``run_fields``;
    ``defaults``: each run's tool's parameter defaults, name → text, when known)."""
    known = list(defaults) or [{} for _ in per_run]
    names: list[str] = []
    for fields in per_run:
        names += [k for k in fields if k not in names]
    rows: list[DiffRow] = []
    same = hidden = 0
    for name in names:
        values = tuple(fields.get(name, ABSENT) for fields in per_run)
        if len(set(values)) == 1:
            same += 1
        elif len({_meaning(name, v, d) for v, d in zip(values, known, strict=True)}) == 1:
            hidden += 1
        else:
            rows.append(DiffRow(name, values))
    rows.sort(key=lambda row: _rank(row.field, row.values))
    return MetadataDiff(tuple(run_ids), tuple(groups), tuple(rows), same, hidden)
