"""Free-text part attributes read into KARI atoms, and a part's state (accessible, safe).

``attributes.tsv`` (next to this module) says which predicates each CreativityBench attribute can give (material
-> MADE_OF, thickness and weight -> SIZE, moisture -> SURFACE, ...; visibility, availability, internal and
elasticity give none). A text is read in three steps, the raw text always kept:

1. **lexicon**: word n-grams (longest first, a word after "not" / "non" / "no" skipped) looked up in the KB's
   value lexicon (``kb/value_lexicon.tsv``: ``sharp`` -> ``SHAPE:sharp_edge``) and in the vocabulary (values,
   synonyms, word forms) of the attribute's predicates;
2. **phrase**: a short material phrase no known value matched is read by :meth:`Vocabulary.canonicalise` (a new
   value with the entity's FILE:LINE as provenance; ``zinc-plated steel`` is-a ``steel``);
3. **embedding** (optional, an :class:`~kari.embeddings.Embedder`): an attribute still without an atom is matched
   to the nearest value of its predicates by MiniLM cosine when it reaches the threshold.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from kari.core.benchmark import ObjectRecord, Property
from kari.core.terms import PREDICATES, normalise_term
from kari.kb.maps import read_lexicon
from kari.vocab.vocabulary import Vocabulary

if TYPE_CHECKING:
    from kari.embeddings import Embedder

ATTRIBUTE_TABLE = Path(__file__).with_name("attributes.tsv")
EMBED_THRESHOLD = 0.6
MAX_NGRAM = 3
MAX_PHRASE_WORDS = 3
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'-]*")
_NEGATIONS = {"not", "non", "no", "without", "never", "nor"}
_SKIP = {"na", "n/a", "none", "the", "a", "an", "and", "or", "of", "with", "to", "in", "on", "at", "for", "by",
         "is", "it", "its", "very", "slightly", "moderate", "moderately", "highly", "fairly", "somewhat", "quite",
         "partially", "partly", "fully", "mostly", "that", "this", "from", "as", "be", "can", "has", "have"}


@dataclass(frozen=True, slots=True)
class AtomReading:
    """One atom read from an attribute text: ``how`` is ``lexicon``, ``phrase`` or ``embedding``."""

    attribute: str
    predicate: str
    value: str
    raw: str
    how: str
    score: float = 1.0


@dataclass(frozen=True, slots=True)
class PartState:
    """What a part's state says for tool choice: None when the state does not say."""

    accessible: bool | None
    safe: bool | None


@lru_cache(maxsize=1)
def attribute_predicates() -> dict[str, tuple[tuple[str, ...], str]]:
    """``attribute -> (predicates, how)`` from ``attributes.tsv``."""
    out: dict[str, tuple[tuple[str, ...], str]] = {}
    with ATTRIBUTE_TABLE.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            predicates = tuple(row["predicates"].split())
            assert all(p in PREDICATES for p in predicates), row
            out[row["attribute"]] = (predicates, row["how"])
    return out


@lru_cache(maxsize=1)
def value_lexicon() -> dict[str, list[tuple[str, str]]]:
    """The KB's value lexicon: ``raw -> [(predicate, value)]``."""
    out: dict[str, list[tuple[str, str]]] = {}
    for raw, predicate, value in read_lexicon():
        out.setdefault(normalise_term(raw), []).append((predicate, value))
    return out


def _words(text: str) -> list[str]:
    return [w.lower().strip("'-") for w in _WORD.findall(text)]


def mine_text(attribute: str, text: str, predicates: Sequence[str], vocab: Vocabulary) -> list[AtomReading]:
    """Atoms named in ``text`` by the lexicon and the vocabulary (step 1), longest n-gram first."""
    words = _words(text)
    lexicon = value_lexicon()
    found: list[AtomReading] = []
    i = 0
    while i < len(words):
        if words[i] in _NEGATIONS:
            i += 2
            continue
        taken = 0
        for n in range(min(MAX_NGRAM, len(words) - i), 0, -1):
            gram = words[i:i + n]
            if any(w in _NEGATIONS for w in gram) or (n == 1 and (gram[0] in _SKIP or len(gram[0]) < 3)):
                continue
            raw = " ".join(gram)
            term = normalise_term(raw)
            hits = [(p, v) for p, v in lexicon.get(term, ()) if p in predicates]
            if not hits:
                for predicate in predicates:
                    got = vocab.lookup(predicate, term, forms=n == 1 and len(term) >= 4)
                    if got is not None and got.value is not None:
                        hits.append((predicate, got.value))
            if hits:
                found += [AtomReading(attribute, p, v, raw, "lexicon") for p, v in hits]
                taken = n
                break
        i += taken or 1
    return _first_per_atom(found)


def read_attributes(attributes: Mapping[str, str], vocab: Vocabulary, provenance: str = "",
                    embedder: Embedder | None = None, threshold: float = EMBED_THRESHOLD) -> list[AtomReading]:
    """Every atom the attributes of one part give (steps 1-3 above), without repeats."""
    table = attribute_predicates()
    readings: list[AtomReading] = []
    unmatched: list[tuple[str, str, tuple[str, ...]]] = []
    for attribute, text in attributes.items():
        if attribute not in table or not text or normalise_term(text) in ("na", "n_a", "none"):
            continue
        predicates, how = table[attribute]
        found = mine_text(attribute, text, predicates, vocab)
        if not found and how == "phrase" and 0 < len(_words(text)) <= MAX_PHRASE_WORDS:
            got = vocab.canonicalise(predicates[0], text, provenance)
            if got.value is not None:
                found = [AtomReading(attribute, predicates[0], got.value, text, "phrase")]
        if not found:
            unmatched.append((attribute, text, predicates))
        readings += found
    if embedder is not None and unmatched:
        readings += embed_match(unmatched, vocab, embedder, threshold)
    return _first_per_atom(readings)


def _first_per_atom(readings: Iterable[AtomReading]) -> list[AtomReading]:
    seen: dict[tuple[str, str], AtomReading] = {}
    for reading in readings:
        seen.setdefault((reading.predicate, reading.value), reading)
    return list(seen.values())


def embed_match(unmatched: Sequence[tuple[str, str, tuple[str, ...]]], vocab: Vocabulary, embedder: Embedder,
                threshold: float) -> list[AtomReading]:
    """Step 3: each text's nearest vocabulary value of its predicates, when the cosine reaches ``threshold``."""
    out = []
    for attribute, text, predicates in unmatched:
        keys = {f"{v.replace('_', ' ')}": (p, v) for p in predicates for v in sorted(vocab.values(p))}
        if not keys:
            continue
        best = embedder.best_matches([text], list(keys), threshold, 1)[0]
        for key, score in best:
            predicate, value = keys[key]
            out.append(AtomReading(attribute, predicate, value, text, "embedding", round(score, 4)))
    return out


_HIDDEN = re.compile(r"\bhidden\b|\binaccessible\b|(?<!partially )\bblocked\b|requires? tools?|tool-required",
                     re.IGNORECASE)
_UNSAFE = re.compile(r"(?<!slightly )\bhot\b|\bburning\b|\bsharp (?:internal )?edges?\b|\belectri(?:c|cal) "
                     r"(?:shock|hazard)\b|\blive wires?\b", re.IGNORECASE)
_SAFE_STATE_KEYS = ("visibility", "availability", "temperature", "others", "summary")


def part_state(state: Mapping[str, str]) -> PartState:
    """Accessible unless the state says blocked (``partially blocked``: freed by hand, so accessible) or, when it
    says nothing of availability, hidden; safe unless it says hot (not ``slightly hot``), sharp edges or an
    electrical hazard. None where the state says nothing."""
    texts = [state.get(k, "") for k in _SAFE_STATE_KEYS if state.get(k)]
    texts = [t for t in texts if normalise_term(t) not in ("na", "")]
    if not texts:
        return PartState(None, None)
    availability = state.get("availability", "")
    if normalise_term(availability) in ("na", ""):
        access_text = state.get("visibility", "").strip() or " ".join(texts)
    else:
        access_text = availability
    return PartState(not _HIDDEN.search(access_text), not any(_UNSAFE.search(t) for t in texts))


def part_object(entity: str, part: str, readings: Iterable[AtomReading]) -> ObjectRecord:
    """The part alone as an object (id ``entity/part``, one real part): the strict PART reading then binds
    every PART variable to this part and whole-object atoms read its facts only."""
    properties = tuple(dict.fromkeys(Property(part, r.predicate, r.value, r.raw if r.raw != r.value else None)
                                     for r in readings))
    return ObjectRecord(f"{entity}/{part}", parts=(part,), properties=properties)
