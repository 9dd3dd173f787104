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
``solver/facts.lp``; a property test keeps the two readings equal. Import from the submodules (this package
imports nothing, so that :mod:`kari.rules.ast` can use :mod:`kari.domain.terms`).
"""
