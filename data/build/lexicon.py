"""kb/value_lexicon.tsv: every raw KB term -> (predicate, canonical value), generated from the vocabulary.

Each canonical value and synonym of a predicate is a raw term of that predicate. A term the vocabulary knows
under several predicates is resolved by :data:`OVERRIDES` (the build fails on an unresolved one), which also
types the raw source words that are not vocabulary entries.
"""

from __future__ import annotations

from kari.core.terms import PREDICATES
from kari.vocab.vocabulary import Vocabulary

OVERRIDES: dict[str, tuple[str, str]] = {
    "hard": ("MADE_OF", "rigid_material"),      # Forbes 'hard' is about rigidity
    "squishy": ("MADE_OF", "soft_material"),    # Forbes 'squishy'
    "tapering": ("SHAPE", "tapered"),
    "feathers": ("MADE_OF", "feather"),
    "light": ("SIZE", "light"),                 # the weight sense (mass from AI2-THOR, Forbes light_weight)
    "soft": ("SURFACE", "soft"),
}


def build_lexicon(vocab: Vocabulary) -> dict[str, tuple[str, str]]:
    """raw term -> (predicate, value)."""
    senses: dict[str, set[tuple[str, str]]] = {}
    for predicate in PREDICATES:
        for value in vocab.values(predicate):
            senses.setdefault(value, set()).add((predicate, value))
    for predicate, synonym, value in vocab.synonym_pairs():
        senses.setdefault(synonym, set()).add((predicate, value))
    lexicon: dict[str, tuple[str, str]] = {}
    for raw, options in senses.items():
        if raw in OVERRIDES:
            continue
        if len(options) > 1:
            raise SystemExit(f"value lexicon: {raw!r} is ambiguous {sorted(options)}; add it to OVERRIDES")
        lexicon[raw] = next(iter(options))
    for raw, (predicate, value) in OVERRIDES.items():
        if value not in vocab.values(predicate):
            raise SystemExit(f"value lexicon: override {raw!r} -> {predicate}:{value} is not a vocabulary value")
        lexicon[raw] = (predicate, value)
    return lexicon


def lexicon_rows(lexicon: dict[str, tuple[str, str]]) -> list[tuple[str, str, str]]:
    return sorted((raw, p, v) for raw, (p, v) in lexicon.items())
