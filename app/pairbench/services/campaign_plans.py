"""The built-in campaign plans that reproduce the field reports (TOML files shipped in the
package's ``resources/plans``), found by name."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pairbench.analysis.campaign_cells import PlanError

PLANS_DIR = Path(__file__).resolve().parents[1] / "resources" / "plans"


@dataclass(frozen=True, slots=True)
class BuiltinPlan:
    """A shipped plan: its name (the file's stem), title and the report it reproduces."""

    name: str
    path: Path
    title: str
    source: str


def builtin_plans() -> list[BuiltinPlan]:
    """Every shipped plan, by name. A plan's first comment lines hold its title and source
    (``# title: ...``, ``# source: ...``)."""
    plans = []
    for path in sorted(PLANS_DIR.glob("*.toml")):
        meta = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.startswith("#"):
                break
            key, sep, value = line.lstrip("# ").partition(":")
            if sep:
                meta[key.strip()] = value.strip()
        plans.append(BuiltinPlan(path.stem, path, meta.get("title", ""), meta.get("source", "")))
    return plans


def builtin_plan_path(name: str) -> Path:
    """The file of the shipped plan ``name``; ``PlanError`` listing them otherwise."""
    for plan in builtin_plans():
        if plan.name == name:
            return plan.path
    names = ", ".join(p.name for p in builtin_plans())
    raise PlanError(f"no plan file {name!r} and no built-in plan of that name (built-in: {names})")
