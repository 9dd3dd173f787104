"""The plain Python evaluator of rule coverage: the independent twin of the ASP path (same rows, same witness).

``any-part`` evaluates the AND/OR tree against the whole-object facts; ``strict`` searches assignments of PART
variables to pairwise distinct real parts, binding variables in pre-order, exactly as ``compile.py`` does.
The witness part is the smallest part bound to the first PART variable of the lowest covering branch.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kari.bench.model import ObjectRecord
from kari.rules.ast import WHOLE, Atom, Node, Or, Part, Rule
from kari.solver.compile import check_semantics, normalise_rule, rule_error
from kari.solver.facts import ObjectView, object_view
from kari.solver.types import CoverageRow, coverage_row, gc_paused
from kari.vocabulary import Vocabulary

_State = tuple[dict[str, str], tuple[str, ...]]  # (PART variable -> part, parts bound so far in binding order)


def _solutions(rule: Rule, node: Node, view: ObjectView, scope: dict[str, str], bound: tuple[str, ...]) -> Iterator[_State]:
    """Every way the strict reading makes ``node`` true, extending the bound parts."""
    if isinstance(node, Atom):
        fact = (node.predicate, node.value)
        if node.role == WHOLE:
            ok = fact in view.whole
        elif node.role in scope:
            ok = fact in view.parts[scope[node.role]]
        else:
            raise rule_error(rule, f"atom {node.key} uses undeclared PART variable {node.role!r}", "free-variable")
        if ok:
            yield scope, bound
    elif isinstance(node, Part):
        for part in view.part_names:
            if part not in bound:
                for _, inner in _solutions(rule, node.body, view, {**scope, node.var: part}, (*bound, part)):
                    yield scope, inner
    elif isinstance(node, Or):
        for arg in node.args:
            yield from _solutions(rule, arg, view, scope, bound)
    else:
        yield from _chain(rule, node.args, view, scope, bound)


def _chain(rule: Rule, args: tuple[Node, ...], view: ObjectView, scope: dict[str, str], bound: tuple[str, ...]) -> Iterator[_State]:
    if not args:
        yield scope, bound
        return
    for next_scope, next_bound in _solutions(rule, args[0], view, scope, bound):
        yield from _chain(rule, args[1:], view, next_scope, next_bound)


def _check_roles(rule: Rule, node: Node, scope: frozenset[str] = frozenset()) -> None:
    if isinstance(node, Atom):
        if node.role != WHOLE and node.role not in scope:
            raise rule_error(rule, f"atom {node.key} uses undeclared PART variable {node.role!r}", "free-variable")
    elif isinstance(node, Part):
        _check_roles(rule, node.body, scope | {node.var})
    else:
        for arg in node.args:
            _check_roles(rule, arg, scope)


def evaluate_rule(rule: Rule, view: ObjectView, semantics: str) -> tuple[bool, int | None, str | None]:
    """``(covered, branch, part)`` of a normalised rule on one object view."""
    if semantics == "any-part":
        def holds(atom: Atom) -> bool:
            return (atom.predicate, atom.value) in view.whole
        for b, branch in enumerate(rule.branches()):
            if branch.evaluate(holds):
                return True, b, None
        return False, None, None
    for b, branch in enumerate(rule.branches()):
        witnesses = [bound[0] if bound else None for _, bound in _solutions(rule, branch, view, {}, ())]
        if witnesses:
            parts = [w for w in witnesses if w is not None]
            return True, b, min(parts) if parts else None
    return False, None, None


def python_coverage(rules: Sequence[Rule], objects: Sequence[ObjectRecord], vocab: Vocabulary,
                    semantics: str = "any-part") -> list[CoverageRow]:
    """Coverage of every rule x object in plain Python (rows in rule order, then object order)."""
    check_semantics(semantics)
    normalised = [normalise_rule(rule, vocab) for rule in rules]
    for rule in normalised:
        _check_roles(rule, rule.body)
    views = [object_view(obj, vocab) for obj in objects]
    with gc_paused():
        return [coverage_row(rule.affordance, view.id, *evaluate_rule(rule, view, semantics), n)
                for n, rule in enumerate(normalised) for view in views]
