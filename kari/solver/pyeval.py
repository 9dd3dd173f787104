"""The plain Python coverage of rules: the independent twin of the ASP path (same rows, same witness).

Both start from the same canonical facts; this one evaluates rules with the domain core's readings
(:func:`kari.domain.objects.evaluate_rule`), the ASP path with clingo over ``solver/facts.lp``.
"""

from __future__ import annotations

from collections.abc import Sequence

from kari.core.benchmark import ObjectRecord
from kari.domain.canon import canonical_rules
from kari.domain.objects import check_roles, check_semantics, evaluate_rule, object_view
from kari.vocab.vocabulary import Vocabulary
from kari.rules.ast import Rule
from kari.core.solver_types import CoverageRow, coverage_row, gc_paused
from kari.core.terms import Semantics


def python_coverage(rules: Sequence[Rule], objects: Sequence[ObjectRecord], vocab: Vocabulary,
                    semantics: str = Semantics.ANY_PART) -> list[CoverageRow]:
    """Coverage of every rule x object in plain Python (rows in rule order, then object order)."""
    check_semantics(semantics)
    canonical = canonical_rules(rules, vocab)
    for rule in canonical:
        check_roles(rule)
    views = [object_view(obj, vocab) for obj in objects]
    with gc_paused():
        return [coverage_row(rule.affordance, view.id, *evaluate_rule(rule, view, semantics), n)
                for n, rule in enumerate(canonical) for view in views]
