"""kari's domain readings: what "object o has PRED:value" means, owned in one place.

- :mod:`kari.domain.canon`: benchmark and KB objects read into canonical values (raw words kept);
- :mod:`kari.domain.objects`: the closed object view (is-a closure, parts as SHAPE facts), the any-part and
  strict readings of a rule, and what answers imply.

They read the terms (:mod:`kari.core.terms`), the vocabulary (:mod:`kari.vocab`) and the rule language
(:mod:`kari.rules`), one layer below. The ASP side reads the same facts through :mod:`kari.solver.facts` (the one
writer of ASP facts) and ``solver/facts.lp``; a property test keeps the two readings equal.
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.domain.canon import CanonReport, canonical_objects, canonical_rule, canonical_rules
    from kari.domain.objects import (
        ObjectView, answered, base_facts, check_semantics, evaluate_rule, has_property, object_view, rule_holds,
        rule_status
    )

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.domain.canon": ("CanonReport", "canonical_objects", "canonical_rule", "canonical_rules"),
    "kari.domain.objects": ("ObjectView", "answered", "base_facts", "check_semantics", "evaluate_rule",
                            "has_property", "object_view", "rule_holds", "rule_status"),
})
