"""A plan's cells: pairs × tests × axis values (crossed, or zipped), kept by the plan's filter
expression, each with the metric its verdict is judged on."""

from __future__ import annotations

import ast
import itertools
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pairbench.analysis.storage_columns import HEADLINE
from pairbench.domain import HostPair
from pairbench.domain.campaign import MAX_CELLS, STORAGE, Cell, Plan, TestPlan
from pairbench.domain.storage import StorageTest


class PlanError(ValueError):
    """A plan that cannot run as written; the message says what to change."""


# A tool's main metric (what a cell's mean, CI and CV are computed on), by parameters.
def main_metric(tool: str, params: Mapping[str, str], probe: str = "") -> str:
    """The summary metric a test is judged on when its plan names none (a storage suite's:
    its headline column)."""
    if probe == STORAGE:
        return HEADLINE[StorageTest(params.get("test", StorageTest.IOPS.value))]
    if tool == "ping":
        return "rtt_avg_ms"
    if tool == "uperf" and params.get("profile", "") in ("latency", "rr", "request_response"):
        return "latency_avg_us"
    if tool == "fio":
        rw = params.get("rw", "read")
        return "write_iops" if rw in ("write", "randwrite", "trim", "randtrim") else "read_iops"
    return "throughput_bps"


def combinations_of(test: TestPlan) -> list[dict[str, str]]:
    """Every parameter set of one test: the cross product of its axes, where the axes named
    together in a ``zip`` group advance together (they must have equal lengths)."""
    zipped = {name for group in test.zip for name in group}
    for name in zipped:
        if name not in test.axes:
            raise PlanError(f"test {test.name!r}: zip names {name!r}, which is not a parameter")
    factors: list[list[dict[str, str]]] = []
    for group in test.zip:
        lengths = {name: len(test.axes[name]) for name in group}
        if len(set(lengths.values())) != 1:
            shown = ", ".join(f"{k} has {n}" for k, n in lengths.items())
            raise PlanError(f"test {test.name!r}: zipped axes need equal lengths ({shown})")
        factors.append(
            [
                dict(zip(group, values, strict=True))
                for values in zip(*(test.axes[n] for n in group), strict=True)
            ]
        )
    for name, values in test.axes.items():
        if name in zipped:
            continue
        if not values:
            raise PlanError(f"test {test.name!r}: the axis {name!r} is an empty list")
        factors.append([{name: value} for value in values])
    count = math.prod(len(factor) for factor in factors)
    if count > MAX_CELLS:  # refused before a list of them is made
        raise PlanError(
            f"test {test.name!r} has {count:,} parameter sets (its axes multiplied); at most "
            f"{MAX_CELLS:,}: narrow the axes or zip some of them"
        )
    combos: list[dict[str, str]] = []
    for parts in itertools.product(*factors):
        merged: dict[str, str] = {}
        for part in parts:
            merged.update(part)
        combos.append(merged)
    return combos


def varying(test: TestPlan) -> list[str]:
    """The parameters of a test that take more than one value (its axes), in plan order."""
    return [name for name, values in test.axes.items() if len(values) > 1]


def expand_cells(plan: Plan, pairs: Sequence[HostPair]) -> list[Cell]:
    """Every cell of the plan over ``pairs`` (already selected), in plan order: pairs outer,
    tests, then axis values; the filter drops cells; ``PlanError`` when none is left or there
    are more than ``MAX_CELLS``."""
    if not pairs:
        raise PlanError("the plan selects no pair")
    if not plan.tests:
        raise PlanError("the plan has no test: add a [[tests]] table")
    keep = compile_filter(plan.filter) if plan.filter.strip() else None
    combos = [(i, test, combinations_of(test)) for i, test in enumerate(plan.tests)]
    total = len(pairs) * sum(len(c) for _, _, c in combos)
    if total > MAX_CELLS:
        raise PlanError(
            f"the plan has {total:,} cells (pairs × tests × axis values); at most "
            f"{MAX_CELLS:,} are allowed: narrow the axes or split the plan"
        )
    cells: list[Cell] = []
    for pair in pairs:
        for number, test, params_list in combos:
            axes = varying(test)
            for params in params_list:
                if keep is not None and not keep(_names(pair, params)):
                    continue
                cells.append(
                    Cell(
                        index=len(cells),
                        pair=pair.name,
                        test=number,
                        test_name=test.name,
                        tool=test.tool,
                        params=params,
                        axes={name: params[name] for name in axes},
                        metric=test.metric or main_metric(test.tool, params, test.probe),
                        probe=test.probe,
                    )
                )
    if not cells:
        raise PlanError(f"the filter {plan.filter!r} removes every cell")
    return cells


def _names(pair: HostPair, params: Mapping[str, str]) -> dict[str, Any]:
    return {
        **params,
        "pair": _Tags({"name": pair.name, **pair.tags}),
        "client": _Tags({"name": pair.client.name, **pair.client.tags}),
        "server": _Tags({"name": pair.server.name, **pair.server.tags}),
    }


class _Tags:
    """``pair.zone``: a tag of a pair or host in a filter ("" when it has no such tag)."""

    def __init__(self, tags: Mapping[str, str]) -> None:
        self.tags = dict(tags)


_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_ARITH: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Mod: operator.mod,
}
FILTER_HELP = (
    "a filter is a Python-like expression over the test's parameters (streams, duration...), "
    "pair.name / pair.TAG, client.TAG, server.TAG, with == != < <= > >= in, and/or/not, + - * / %"
)


MAX_FILTER_CHARS = 2000
MAX_FILTER_NODES = 500  # names, numbers, operators... of the parsed expression
MAX_FILTER_DEPTH = 50  # operators nested in one another


def compile_filter(text: str) -> Callable[[Mapping[str, Any]], bool]:
    """The plan's ``filter`` as a predicate over a cell's names; ``PlanError`` when it is not
    an expression of the allowed kind, or larger than ``MAX_FILTER_CHARS`` characters,
    ``MAX_FILTER_NODES`` parts or ``MAX_FILTER_DEPTH`` levels (so neither parsing nor
    evaluating it recurses without bound). Numbers written as text compare as numbers."""
    shown_text = text if len(text) <= 80 else text[:77] + "..."
    if len(text) > MAX_FILTER_CHARS:
        raise PlanError(
            f"the filter is {len(text):,} characters long; at most {MAX_FILTER_CHARS:,}"
        )
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise PlanError(f"the filter {shown_text!r} is not an expression: {exc.msg}") from None
    except (RecursionError, MemoryError):  # CPython's parser nests per operator
        raise PlanError(
            f"the filter {shown_text!r} nests too deeply (at most {MAX_FILTER_DEPTH} levels)"
        ) from None
    _check_size(tree, shown_text)
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise PlanError(
                f"the filter {shown_text!r} uses {type(node).__name__}, which is not allowed: "
                f"{FILTER_HELP}"
            )

    def keep(names: Mapping[str, Any]) -> bool:
        return bool(_eval(tree.body, names, text))

    return keep


_ALLOWED = (
    ast.Expression,
    ast.BoolOp,
    ast.And,
    ast.Or,
    ast.UnaryOp,
    ast.Not,
    ast.USub,
    ast.Compare,
    ast.BinOp,
    ast.Name,
    ast.Attribute,
    ast.Constant,
    ast.Tuple,
    ast.List,
    ast.Load,
    *_COMPARE,
    *_ARITH,
)


def _check_size(tree: ast.AST, text: str) -> None:
    """``PlanError`` for an expression of more than ``MAX_FILTER_NODES`` parts or nested
    deeper than ``MAX_FILTER_DEPTH`` (walked without recursion)."""
    count = 0
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_FILTER_NODES or depth > MAX_FILTER_DEPTH:
            raise PlanError(
                f"the filter {text!r} is too large: at most {MAX_FILTER_NODES} parts, "
                f"{MAX_FILTER_DEPTH} levels deep"
            )
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _number(value: Any, text: str) -> float:
    """An operand of arithmetic as a float (a number, or a parameter written as one):
    ``PlanError`` for text, lists and numbers beyond a float, so that arithmetic can neither
    repeat text ("x" * 10**11) nor grow an integer without bound."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PlanError(f"the filter {text!r}: arithmetic on {value!r}, which is not a number")
    try:
        return float(value)
    except OverflowError:
        raise PlanError(f"the filter {text!r}: a number too large for arithmetic") from None


def _value(raw: Any) -> Any:
    """A parameter's text as a number when it is one (so ``streams > 2`` compares numbers)."""
    if isinstance(raw, str):
        try:
            return float(raw)
        except ValueError:
            return raw
    return raw


def _eval(node: ast.AST, names: Mapping[str, Any], text: str) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            known = ", ".join(sorted(k for k in names if not isinstance(names[k], _Tags)))
            raise PlanError(
                f"the filter {text!r} names {node.id!r}, which is not a parameter of every "
                f"test (parameters: {known or 'none'}; tags: pair.TAG, client.TAG, server.TAG)"
            )
        return _value(names[node.id])
    if isinstance(node, ast.Attribute):
        owner = _eval(node.value, names, text) if isinstance(node.value, ast.Name) else None
        if not isinstance(owner, _Tags):
            raise PlanError(f"the filter {text!r}: only pair.TAG, client.TAG, server.TAG")
        return _value(owner.tags.get(node.attr, ""))
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, names, text) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp):
        inner = _eval(node.operand, names, text)
        return (not inner) if isinstance(node.op, ast.Not) else -_number(inner, text)
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_value(_eval(e, names, text)) for e in node.elts)
    if isinstance(node, ast.BinOp):
        return _apply(_ARITH[type(node.op)], node.left, node.right, names, text)
    if isinstance(node, ast.Compare):
        left = _eval(node.left, names, text)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = _eval(comparator, names, text)
            try:
                if not _COMPARE[type(op)](left, right):
                    return False
            except TypeError:
                raise PlanError(f"the filter {text!r} compares {left!r} with {right!r}") from None
            left = right
        return True
    raise PlanError(f"the filter {text!r}: {FILTER_HELP}")  # pragma: no cover (walked above)


def _apply(
    fn: Callable[[Any, Any], Any],
    left: ast.AST,
    right: ast.AST,
    names: Mapping[str, Any],
    text: str,
) -> Any:
    a, b = _number(_eval(left, names, text), text), _number(_eval(right, names, text), text)
    try:
        return fn(a, b)
    except (TypeError, ZeroDivisionError, OverflowError) as exc:
        raise PlanError(f"the filter {text!r}: {exc}") from None
