"""Which KB verb phrases become rule targets: only those that name something done with, by or to the object.

A KB source writes an affordance as a phrase (``as an abrader``, ``accurately perform placement``, ``it``,
``make noise``, ``peel a label``). :func:`read_phrase` reads one into a :class:`Phrase` -- its head verb as a
WordNet 3.0 verb lemma (a multi-word lemma when WordNet has one: ``make_noise``, ``turn_on``), the words after
it (the verb's object: ``label``) -- or says why it names no action (:class:`LeftOut`):

1. leading function words go (``used for``, ``as a``, ``to``, ``can``, ``be``), then leading adverbs that are
   no verb (``accurately``);
2. the head is read in its base form with WordNet's verb lemmas and irregular forms (``worn`` -> ``wear``), a
   noun head through the verb it derives from (``decoration`` -> ``decorate``, ``abrader`` -> ``abrade``);
3. left out: a head that is a function word (``it``, ``with``, ``be`` alone: :data:`FUNCTION_WORDS`), a phrase of
   adverbs only, a number, and a head with no WordNet verb reading (``corduroy``, ``chemistry``);
4. only edges of the affordance relations reach this step (``UsedFor``: done with the object, ``CapableOf``: by
   it, ``ReceivesAction``: to it; kb/relation_map.tsv): a phrase every edge of which is a negative
   (``NotUsedFor``) is a target only together with positives.

A *light* verb (make, take, keep, put, get, give, do, have, go, let, set, turn) keeps its object's head word, the
last word of the noun phrase after it (``make_food``, ``make percussive noises``: ``make_noise``;
:func:`object_head`); when the pair is a WordNet verb (``make_noise``) and only determiners stand before the
object, the phrase is read as that verb.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from kari.induce import wordnet
from kari.induce.inputs import Evidence
from kari.induce.verbs import LEADING
from kari.vocab.morphology import singular

FUNCTION_WORDS = frozenset({
    # pronouns and determiners
    "i", "me", "my", "mine", "we", "us", "our", "ours", "you", "your", "yours", "he", "him", "his", "she", "her",
    "hers", "it", "its", "they", "them", "their", "theirs", "one", "ones", "oneself", "itself", "themselves",
    "himself", "herself", "myself", "yourself", "someone", "somebody", "something", "anyone", "anything",
    "everyone", "everything", "nothing", "this", "that", "these", "those", "a", "an", "the", "some", "any", "each",
    "every", "all", "both", "either", "neither", "no", "other", "another", "such", "what", "which", "who", "whom",
    "whose", "personx", "persony", "personz",
    # prepositions and particles standing alone
    "about", "above", "across", "after", "against", "along", "among", "around", "at", "before", "behind", "below",
    "beneath", "beside", "between", "beyond", "by", "during", "for", "from", "in", "inside", "into", "near", "of",
    "on", "onto", "outside", "over", "through", "throughout", "to", "toward", "towards", "under", "until", "upon",
    "with", "within", "without", "via", "per",
    # conjunctions
    "and", "or", "but", "nor", "so", "yet", "if", "because", "while", "when", "where", "whether", "than", "as",
    # auxiliaries, the copula, negation
    "be", "am", "is", "are", "was", "were", "been", "being", "have", "has", "had", "having", "do", "does", "did",
    "done", "can", "could", "may", "might", "must", "shall", "should", "will", "would", "not", "very", "too",
    "also", "just", "only", "then", "there", "here",
})
"""Closed-class words: a phrase whose head is one of them names no action (``it``, ``with``, ``be``)."""

DETERMINERS = frozenset({"a", "an", "the", "some", "any", "each", "every", "all", "both", "this", "that", "these",
                         "those", "my", "our", "your", "his", "her", "its", "their", "one's", "other", "another"})
"""Function words that may stand before a verb's object (``peel a label``)."""

LIGHT = frozenset({"make", "take", "keep", "put", "get", "give", "do", "have", "go", "let", "set", "turn"})
"""Verbs whose meaning is in their object (``make_food``); ``play`` is not one here: its senses tell a band's
playing from a game's (:mod:`kari.induce.senses`)."""

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
MAX_LEMMA_WORDS = 3
"""The longest multi-word WordNet verb lemma looked for (``make_noise``, ``put_up_with``)."""


class Reason(StrEnum):
    """Why a KB verb phrase gets no rule."""

    FUNCTION_WORD = "function-word"
    ADVERB = "adverb"
    NUMBER = "number"
    NO_VERB = "no-verb-sense"
    NO_POSITIVE = "no-positive"
    THIN_EVIDENCE = "thin-evidence"   # a verb group resting on fewer KB objects than --min-kb-objects


@dataclass(frozen=True)
class Phrase:
    """A KB verb phrase read as an action: its WordNet head lemma (``light`` set when the head is a light verb
    kept with its object's word), the words after the head, and the phrase's words."""

    head: str
    rest: tuple[str, ...]
    words: tuple[str, ...]
    light: bool = False

    @property
    def key(self) -> str:
        """``head`` or, for a light verb, ``head_object`` (``make_food``; :func:`object_head`)."""
        if self.light:
            head = object_head(self.rest)
            if head is not None:
                return f"{self.head}_{head}"
        return self.head

    @property
    def transitive(self) -> bool:
        """Does the head have a direct object in the phrase (a content word after it, determiners skipped, before any
        preposition)?"""
        for word in self.rest:
            if word in DETERMINERS:
                continue
            if word in FUNCTION_WORDS:
                return False
            if not wordnet.is_adverb(word):
                return True
        return False


@dataclass(frozen=True)
class LeftOut:
    """A KB verb phrase that gets no rule, and why."""

    reason: Reason
    detail: str


def object_head(rest: Sequence[str], skip: frozenset[str] = FUNCTION_WORDS) -> str | None:
    """The head word of a light verb's object, singular: the last word of the first run of words not in ``skip``
    (``make percussive noises``: ``noise``; ``make a yard sale table``: ``table``; ``keep hands warm``:
    ``warm``); a word of ``skip`` (a preposition) ends the run. None when no such word follows."""
    span = _object_span(rest, skip)
    if span is None:
        return None
    word = rest[span[1] - 1]
    return singular(word) or word


def _object_span(rest: Sequence[str], skip: frozenset[str] = FUNCTION_WORDS) -> tuple[int, int] | None:
    """``(start, end)`` of the first run of words of ``rest`` not in ``skip``, None when there is none."""
    start = next((i for i, word in enumerate(rest) if word not in skip), None)
    if start is None:
        return None
    return start, next((i for i in range(start, len(rest)) if rest[i] in skip), len(rest))


def words_of(text: str) -> tuple[str, ...]:
    """The lower-case words of a phrase as written (``cut_bread``, ``Cut bread``, ``one's``)."""
    return tuple(_WORD.findall(text.lower().replace("_", " ")))


def verb_lemma(word: str) -> str | None:
    """``word`` as a WordNet verb lemma: itself, an irregular form's lemma, a spelling candidate WordNet knows, or
    the verb a noun (or its singular) derives from; None when WordNet reads it as no verb."""
    return wordnet.verb_lemma(word, singular(word) or word)


def read_phrase(text: str) -> Phrase | LeftOut:
    """``text`` read as an action (module docstring) or why it is none."""
    words = words_of(text)
    start = 0
    while start < len(words) - 1 and words[start] in LEADING:
        start += 1
    content = words[start:]
    while len(content) > 1 and _adverb_only(content[0]):
        content = content[1:]
    if not content:
        return LeftOut(Reason.FUNCTION_WORD, "no word")
    first = content[0]
    if first in FUNCTION_WORDS:
        return LeftOut(Reason.FUNCTION_WORD, first)
    if first.isdigit():
        return LeftOut(Reason.NUMBER, first)
    if _adverb_only(first):
        return LeftOut(Reason.ADVERB, first)
    head = verb_lemma(first)
    if head is None:
        return LeftOut(Reason.NO_VERB, first)
    for size in range(min(MAX_LEMMA_WORDS, len(content)), 1, -1):  # the longest multi-word lemma first
        lemma = "_".join((head, *content[1:size]))
        if wordnet.is_verb(lemma) and _particle_verb(first, head, content[1:size], content[size:]):
            return Phrase(lemma, content[size:], words)
    light = head in LIGHT and len(content) > 1
    span = _object_span(content[1:]) if light else None
    if span is not None and all(w in DETERMINERS for w in content[1:1 + span[0]]):  # not 'make it sound good'
        lemma = f"{head}_{object_head(content[1:])}"
        if wordnet.is_verb(lemma):  # the light verb and its object's head are one WordNet verb: make (...) noise
            return Phrase(lemma, tuple(content[1 + span[1]:]), words)
    return Phrase(head, content[1:], words, light=light)


def _particle_verb(first: str, head: str, extra: tuple[str, ...], rest: tuple[str, ...]) -> bool:
    """Is ``head`` + ``extra`` a multi-word verb here, not a verb and the start of a prepositional phrase?
    (``turn on``, ``make noise``, ``switch on the light``; not ``worn on a hat``): the extra words name no
    preposition, or the phrase ends after them, or the head is in its base form and an object follows."""
    if not any(w in FUNCTION_WORDS for w in extra) or not rest:
        return True
    return first == head and rest[0] in DETERMINERS


def _adverb_only(word: str) -> bool:
    """An adverb of WordNet that is no verb in any form (``accurately``; ``back`` is a verb too)."""
    return wordnet.is_adverb(word) and verb_lemma(word) is None


def select_targets(evidence: Mapping[str, Evidence]) -> tuple[dict[str, Evidence], list[dict[str, object]]]:
    """The KB verbs whose phrase names an action (:func:`read_phrase` of the first way the sources wrote it, else
    of the verb id), and a record of each verb left out: ``{"verb", "raw", "reason", "detail", "positives"}``."""
    kept: dict[str, Evidence] = {}
    left_out: list[dict[str, object]] = []
    for verb, ev in sorted(evidence.items()):
        reading = phrase_of(ev)
        if isinstance(reading, LeftOut):
            left_out.append({"verb": verb, "raw": list(ev.raw), "reason": str(reading.reason),
                             "detail": reading.detail, "positives": len(ev.positives)})
        else:
            kept[verb] = ev
    return kept, left_out


def phrase_of(ev: Evidence) -> Phrase | LeftOut:
    """The reading of a KB verb's phrase (:func:`read_phrase` of its first raw form, else its id)."""
    return read_phrase(ev.raw[0] if ev.raw else ev.affordance)
