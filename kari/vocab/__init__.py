"""kari's vocabulary: canonical values, synonyms, the is-a taxonomy, exclusive groups and banned terms, open to new
words (:mod:`kari.vocab.vocabulary`), and the word forms tried when a word is not a known value
(:mod:`kari.vocab.morphology`). It sits beside the rule language (:mod:`kari.rules`), above the terms
(:mod:`kari.core.terms`).
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.vocab.vocabulary import Resolution, Vocabulary, db_vocabulary, load_vocabulary, open_vocabulary

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.vocab.vocabulary": ("Resolution", "Vocabulary", "db_vocabulary", "load_vocabulary", "open_vocabulary"),
})
