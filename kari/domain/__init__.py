"""kari's domain core: what "object o has PRED:value" means, owned in one place.

- :mod:`kari.domain.terms`: the predicate and dimension enums, :class:`~kari.domain.terms.Question`, ``History``
  and the one spelling normaliser;
- :mod:`kari.domain.morphology`: the word forms tried when a word is not a known value;
- :mod:`kari.domain.vocabulary`: canonical values, synonyms, the is-a taxonomy, exclusive groups, banned terms,
  open to new words;
- :mod:`kari.domain.canon`: benchmark and KB objects read into canonical values (raw words kept);
- :mod:`kari.domain.objects`: the closed object view (is-a closure, parts as SHAPE facts), the any-part and
  strict readings of a rule, and what answers imply.

The ASP side reads the same facts through :mod:`kari.solver.facts` (the one writer of ASP facts) and
``solver/facts.lp``; a property test keeps the two readings equal. The package spans three layers (terms at
the bottom, the vocabulary beside the rule language, the readings above it); its face loads names on first
use, so importing :mod:`kari.domain.terms` imports nothing else.
"""

from kari.exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.domain.terms": ("PREDICATES", "WHOLE", "Dimension", "History", "Predicate", "Question", "normalise_term"),
    "kari.domain.vocabulary": ("Resolution", "Vocabulary", "db_vocabulary", "load_vocabulary", "open_vocabulary"),
    "kari.domain.canon": ("CanonReport", "canonical_objects", "canonical_rule", "canonical_rules"),
    "kari.domain.objects": ("ObjectView", "answered", "base_facts", "check_semantics", "evaluate_rule",
                            "has_property", "object_view", "rule_holds", "rule_status"),
})
