"""The WordNet 3.0 tables kari ships in ``data/wordnet/`` (WordNet licence), read once per process.

* the verb tables of ``data/build/wordnet_verbs.py``: each verb lemma's first sense, the irregular verb forms,
  the verb a noun derives from (:func:`verb_tables`);
* the sense tables of ``data/build/wordnet_senses.py``: every sense of every verb lemma with its tagged count,
  each verb synset's lexicographer file, hypernyms, sentence frames, words and gloss (:func:`verb_senses`,
  :func:`verb_synset`); every physical sense of every noun lemma and each such synset's hypernyms and words
  (:func:`noun_senses`, :func:`noun_synset`); the adverb lemmas (:func:`is_adverb`).

Synsets are named by their 8-digit offset (``01262954``: skin, peel, pare). Nothing here chooses a sense
(:mod:`kari.induce.senses` does).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from kari.errors import KariError
from kari.induce.verbs import base_form
from kari.resources import asset_path

TRANSITIVE_FRAMES = frozenset({8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 20, 21, 24, 25, 30, 31})
"""WordNet's sentence frames with a direct object (``frames.vrb``: 8 "Somebody ----s something", ...)."""


@dataclass(frozen=True)
class VerbSense:
    """One sense of a verb lemma: its synset, WordNet's sense number and its tagged count."""

    synset: str
    rank: int
    tags: int


@dataclass(frozen=True)
class VerbSynset:
    """A verb synset: lexicographer file (``verb.contact``), hypernyms, frame numbers, words, gloss."""

    synset: str
    lexname: str
    hypernyms: tuple[str, ...]
    frames: frozenset[int]
    words: tuple[str, ...]
    gloss: str

    @property
    def transitive(self) -> bool:
        """Does some frame of the synset take a direct object?"""
        return bool(self.frames & TRANSITIVE_FRAMES)


@dataclass(frozen=True)
class NounSynset:
    """A physical noun synset: lexicographer file (``noun.artifact``), hypernyms (physical ones), words."""

    synset: str
    lexname: str
    hypernyms: tuple[str, ...]
    words: tuple[str, ...]


def _rows(name: str) -> list[list[str]]:
    return [line.split("\t") for line in _rows_unsplit(name)]


def _rows_unsplit(name: str) -> list[str]:
    """The data lines of a table (header and blank lines left out)."""
    path = asset_path("data", "wordnet", name)
    if not path.is_file():
        raise KariError("a WordNet table is missing (rebuild data/wordnet/ with data/build/wordnet_verbs.py and "
                        "data/build/wordnet_senses.py)", file=str(path), code="missing-file")
    return [line for line in Path(path).read_text(encoding="utf-8").splitlines()[1:] if line]


def _pairs(name: str) -> list[tuple[str, str]]:
    """Each data row of a table as (its first cell, the rest of the line unsplit)."""
    rows = []
    for row in _rows_unsplit(name):
        key, _, rest = row.partition("\t")
        rows.append((key, rest))
    return rows


def _split(cell: str) -> tuple[str, ...]:
    return tuple(cell.split(",")) if cell else ()


@lru_cache(maxsize=1)
def verb_tables() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """``(verb lemma -> first synset, irregular form -> lemma, noun -> verb)`` (``data/build/wordnet_verbs.py``)."""
    tables = [{row[0]: row[1] for row in _rows(name)} for name in ("verbs.tsv", "verb_forms.tsv", "noun_verbs.tsv")]
    return tables[0], tables[1], tables[2]


def verb_lemma(word: str, *spellings: str) -> str | None:
    """``word`` as a WordNet verb lemma: an irregular form's lemma, itself, a spelling candidate WordNet knows, or
    the verb a noun derives from (``word`` or, failing that, one of ``spellings``: a plural's singular); None when
    WordNet reads it as no verb."""
    verbs, forms, nouns = verb_tables()
    if word in forms:
        return forms[word]
    if word in verbs:
        return word
    lemma = base_form(word, verbs.__contains__)
    if lemma in verbs:
        return lemma
    return next((nouns[w] for w in (word, *spellings) if w in nouns), None)


@lru_cache(maxsize=1)
def _verb_senses() -> dict[str, tuple[VerbSense, ...]]:
    out: dict[str, list[VerbSense]] = {}
    for lemma, synset, rank, tags in _rows("verb_senses.tsv"):
        out.setdefault(lemma, []).append(VerbSense(synset, int(rank), int(tags)))
    return {lemma: tuple(sorted(senses, key=lambda s: s.rank)) for lemma, senses in out.items()}


def verb_senses(lemma: str) -> tuple[VerbSense, ...]:
    """Every sense of the verb ``lemma`` (WordNet's underscores: ``make_noise``), most frequent first."""
    return _verb_senses().get(lemma, ())


@lru_cache(maxsize=1)
def _verb_synsets() -> dict[str, VerbSynset]:
    return {row[0]: VerbSynset(row[0], row[1], _split(row[2]), frozenset(int(f) for f in _split(row[3])),
                               _split(row[4]), row[5]) for row in _rows("verb_synsets.tsv")}


def verb_synset(synset: str) -> VerbSynset:
    """The verb synset of offset ``synset``."""
    return _verb_synsets()[synset]


# The noun tables are large (about 150,000 lemmas and 60,000 synsets) and a run reads few of their rows: each row
# is kept as read and parsed on first use.
@lru_cache(maxsize=1)
def _noun_senses() -> dict[str, str]:
    return dict(_pairs("noun_senses.tsv"))


@lru_cache(maxsize=None)
def noun_senses(lemma: str) -> tuple[tuple[int, str], ...]:
    """The physical senses of the noun ``lemma`` as ``(sense number, synset)``, most frequent first."""
    senses = _noun_senses().get(lemma)
    if not senses:
        return ()
    return tuple((int(rank), synset) for rank, _, synset in (s.partition(":") for s in senses.split(",")))


@lru_cache(maxsize=1)
def _noun_synsets() -> dict[str, str]:
    return dict(_pairs("noun_synsets.tsv"))


@lru_cache(maxsize=None)
def noun_synset(synset: str) -> NounSynset | None:
    """The physical noun synset of offset ``synset`` (None for an offset that is none)."""
    rest = _noun_synsets().get(synset)
    if rest is None:
        return None
    lexname, hypernyms, words = rest.split("\t")
    return NounSynset(synset, lexname, _split(hypernyms), _split(words))


@lru_cache(maxsize=1)
def _adverbs() -> frozenset[str]:
    return frozenset(row[0] for row in _rows("adverbs.tsv"))


def is_adverb(word: str) -> bool:
    """Is ``word`` an adverb lemma of WordNet (``accurately``)?"""
    return word in _adverbs()


def is_verb(lemma: str) -> bool:
    """Is ``lemma`` a verb lemma of WordNet?"""
    return lemma in _verb_senses()
