"""A KB verb phrase's WordNet verb sense, chosen from the phrase, its sentences and its positive objects.

WordNet lists several senses for most verbs (``play``: a game, an instrument, a role...); a KB phrase names one.
:func:`choose_sense` scores each sense of the phrase's head lemma by a simplified Lesk overlap: the content
words of the phrase (``playing hockey``), of its KB edges' sentences, and the names of its positive objects
with the words of their WordNet classes (:func:`object_classes`: a harmonica is a free-reed instrument, a wind
instrument, a musical instrument), against each sense's words, gloss and examples and its hypernyms' words
("play on an instrument; The band played all night long"). A sense whose frames take no direct object loses a
point when the phrase has one (``peel a label`` is not "come off in flakes"). Ties go to the sense tagged most
often in WordNet's concordance, then to WordNet's order, so a phrase with nothing to go on gets the first sense.

An object's own sense (:func:`object_sense`) is the synset a WordNet sentence of its edges names
(``WordNet mouse.n.04: ...``), else its most frequent sense when that sense is in the KB's domain (the
lexicographer file most of the KB's objects' most frequent senses are in, :func:`kb_domain`: in a KB about pets
a dog is the animal), else its first artifact, food or substance sense (a KB of affordances is mostly about things
people use: the computer mouse, not the rodent), else its first physical sense.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from kari.vocab.morphology import singular
from kari.induce import wordnet
from kari.induce.inputs import Evidence
from kari.induce.kbcontext import KBContext
from kari.induce.targets import FUNCTION_WORDS, LeftOut, Phrase, phrase_of, verb_lemma, words_of

OBJECT_LEXNAMES = ("noun.artifact", "noun.food", "noun.substance", "noun.object", "noun.plant")
"""The lexicographer files an object's sense is looked for in first, in this order of preference."""
MARGIN = 2
"""Context words a sense must share beyond the most frequent sense's to be chosen instead of it."""
CLASS_DEPTH = 3
"""Hypernym levels of a positive whose words join a phrase's context."""
_SENSE_NAME = re.compile(r"\b([a-z0-9_'.-]+)\.n\.(\d\d)\b")


@dataclass(frozen=True)
class SenseChoice:
    """The sense chosen for a phrase: its synset (None when the head has no WordNet sense), its overlap score and
    the context words it shared."""

    synset: str | None
    overlap: int
    shared: tuple[str, ...]


def _stem(word: str) -> str:
    """A crude shared form for overlap counting (``instruments`` ~ ``instrument``, ``cutting`` ~ ``cut``)."""
    word = singular(word) or word
    if word.endswith("ing") or word.endswith("ed"):
        return verb_lemma(word) or word
    return word


def content(words: Iterable[str]) -> frozenset[str]:
    """The content words of ``words`` in their shared form (function words and one-letter words out)."""
    return frozenset(_stem(w) for w in words if w not in FUNCTION_WORDS and len(w) > 1 and not w.isdigit())


@lru_cache(maxsize=None)
def _signature(synset: str) -> frozenset[str]:
    sense = wordnet.verb_synset(synset)
    words = [*words_of(sense.gloss), *(w for lemma in sense.words for w in lemma.split("_"))]
    for parent in sense.hypernyms:
        words += [w for lemma in wordnet.verb_synset(parent).words for w in lemma.split("_")]
    return content(words)


def choose_sense(phrase: Phrase, sentences: Sequence[str] = (), classes: Iterable[str] = ()) -> SenseChoice:
    """The sense of ``phrase``'s head (module docstring); ``classes``: the positives' names and class words.

    WordNet's senses are fine-grained and a Lesk overlap is weak evidence, so the choice is conservative: the
    most frequent sense (most tagged, then WordNet's order) unless another sense shares at least
    :data:`MARGIN` more context words with the phrase than it does (``play in a band``: the instrument sense,
    not the game's)."""
    senses = wordnet.verb_senses(phrase.head)
    if not senses:
        return SenseChoice(None, 0, ())
    own = {w for part in phrase.head.split("_") for w in content([part])}
    context = (content(phrase.rest) | content(w for s in sentences for w in words_of(s))
               | content(classes)) - own
    transitive = phrase.transitive
    scored = []
    for sense in senses:
        shared = tuple(sorted(context & _signature(sense.synset)))
        frame = -1 if transitive and not wordnet.verb_synset(sense.synset).transitive else 0
        scored.append((len(shared) + frame, sense, shared))
    default = max(scored, key=lambda item: (item[1].tags, -item[1].rank))
    best = max(scored, key=lambda item: (item[0], item[1].tags, -item[1].rank))
    chosen = best if best[0] >= default[0] + MARGIN else default
    return SenseChoice(chosen[1].synset, len(chosen[2]), chosen[2])


def noun_lemmas(name: str) -> list[str]:
    """WordNet noun lemmas an object id may be (``frying_pan``; ``shoes`` -> ``shoe``; ``arm_chair`` ->
    ``armchair``), those WordNet knows, in this order."""
    forms = [name, singular(name) or name, name.replace("_", ""), (singular(name) or name).replace("_", "")]
    if "_" in name:
        head, _, last = name.rpartition("_")
        forms.append(f"{head}_{singular(last) or last}")
    return [f for f in dict.fromkeys(forms) if wordnet.noun_senses(f)]


def kb_domain(objects: Iterable[str]) -> str | None:
    """The lexicographer file most of ``objects``' most frequent physical senses are in (ties: the earlier of
    :data:`OBJECT_LEXNAMES`, then by name), None when WordNet knows none of them."""
    counts: dict[str, int] = {}
    for name in objects:
        lemmas = noun_lemmas(name)
        found = wordnet.noun_synset(wordnet.noun_senses(lemmas[0])[0][1]) if lemmas else None
        if found is not None:
            counts[found.lexname] = counts.get(found.lexname, 0) + 1
    if not counts:
        return None
    order = {lexname: i for i, lexname in enumerate(OBJECT_LEXNAMES)}
    return min(counts, key=lambda lexname: (-counts[lexname], order.get(lexname, len(order)), lexname))


def object_sense(name: str, sentences: Sequence[str] = (), domain: str | None = None) -> str | None:
    """The WordNet synset of the KB object ``name`` (module docstring; ``domain`` the KB's, :func:`kb_domain`),
    None when WordNet has no physical noun of that name."""
    lemmas = noun_lemmas(name)
    if not lemmas:
        return None
    for sentence in sentences:
        for lemma, number in _SENSE_NAME.findall(sentence.lower()):
            if lemma in lemmas or lemma.replace("-", "_") in lemmas:
                for rank, synset in wordnet.noun_senses(lemma.replace("-", "_")):
                    if rank == int(number):
                        return synset
    senses = [s for lemma in lemmas for _, s in wordnet.noun_senses(lemma)]
    first = wordnet.noun_synset(senses[0])
    if domain is not None and first is not None and first.lexname == domain:
        return senses[0]
    for lexname in OBJECT_LEXNAMES:
        for synset in senses:
            found = wordnet.noun_synset(synset)
            if found is not None and found.lexname == lexname:
                return synset
    return senses[0]


def hypernym_levels(synset: str, depth: int) -> list[list[str]]:
    """The hypernyms of a noun synset level by level (level 1: its parents), at most ``depth`` levels."""
    levels: list[list[str]] = []
    current = [synset]
    seen = {synset}
    for _ in range(depth):
        step = []
        for node in current:
            found = wordnet.noun_synset(node)
            for parent in found.hypernyms if found is not None else ():
                if parent not in seen:
                    seen.add(parent)
                    step.append(parent)
        if not step:
            break
        levels.append(step)
        current = step
    return levels


def object_classes(name: str, sentences: Sequence[str] = (), depth: int = CLASS_DEPTH,
                   domain: str | None = None) -> list[str]:
    """The object's name words and the words of its WordNet classes up to ``depth`` levels up (its sense in the
    KB's ``domain``, :func:`object_sense`)."""
    words = list(name.split("_"))
    synset = object_sense(name, sentences, domain)
    if synset is not None:
        for level in hypernym_levels(synset, depth):
            for parent in level:
                found = wordnet.noun_synset(parent)
                words += [w for lemma in (found.words if found else ()) for w in lemma.split("_")]
    return words


def sense_keys(evidence: Mapping[str, Evidence], context: KBContext | None = None) -> dict[str, tuple[str, str]]:
    """Per KB verb, ``(grouping key, head)``: ``wn:<synset>`` of the sense :func:`choose_sense` picks from the
    verb's phrase, its edges' sentences and its positives' classes, thin groups pooled into their hypernyms
    (:func:`backoff_keys`); a light verb with its object (``make_food``); a phrase WordNet reads as no verb keeps
    its word (``word:corduroy``)."""
    context = context or KBContext()
    classes: dict[str, tuple[str, ...]] = {}

    def classes_of(name: str) -> tuple[str, ...]:
        if name not in classes:
            classes[name] = tuple(object_classes(name, context.object_sentences.get(name, ()),
                                                 domain=context.domain))
        return classes[name]

    out = {}
    for verb, ev in evidence.items():
        phrase = phrase_of(ev)
        if isinstance(phrase, LeftOut):
            out[verb] = (f"word:{verb}", verb)
            continue
        if phrase.light and phrase.key != phrase.head:
            out[verb] = (f"{LIGHT_KEY}{phrase.head}:{phrase.key}", phrase.key)
            continue
        words = [w for o in ev.positives for w in classes_of(o.id)]
        choice = choose_sense(phrase, context.verb_sentences.get(verb, ()), words)
        out[verb] = (f"wn:{choice.synset}" if choice.synset else f"word:{phrase.head}", phrase.head)
    return backoff_keys(out, {verb: {o.id for o in ev.positives} for verb, ev in evidence.items()})


LIGHT_KEY = "light:"
"""The key of a light verb kept with its object: ``light:make:make_food``."""
POOL_BELOW = 3
"""A verb group with fewer KB positives than this is pooled into its sense's hypernym (:func:`backoff_keys`)."""
BACKOFF_LEVELS = 2
"""Hypernym levels a thin group may climb."""


def backoff_keys(keys: Mapping[str, tuple[str, str]], positives: Mapping[str, set[str]]) -> dict[str, tuple[str, str]]:
    """``keys`` (verb -> ``(wn:<synset>, head)``) with every thin group (fewer than :data:`POOL_BELOW` positives
    among its verbs) moved to its sense's first hypernym, at most :data:`BACKOFF_LEVELS` levels up and never to a
    root of WordNet's verb hierarchy (``change``, ``move``, ``make``: too general to say anything), a thin light
    verb with its object (``put_drink``) to the light verb's most frequent sense (``put``); thin groups
    that meet at one hypernym, or a thin group and a group keyed by that hypernym, become one group. The verbs
    keep their heads (the group's name is still its commonest head)."""
    out = dict(keys)
    for _ in range(BACKOFF_LEVELS):
        members: dict[str, set[str]] = {}
        for verb, (key, _) in out.items():
            members.setdefault(key, set()).update(positives.get(verb, ()))
        moved = False
        for verb, (key, head) in sorted(out.items()):
            if len(members[key]) >= POOL_BELOW:
                continue
            if key.startswith(LIGHT_KEY):  # a thin light verb with its object: the light verb's own sense
                senses = wordnet.verb_senses(key[len(LIGHT_KEY):].partition(":")[0])
                if senses:
                    out[verb] = (f"wn:{max(senses, key=lambda s: (s.tags, -s.rank)).synset}", head)
                    moved = True
                continue
            if not key.startswith("wn:"):
                continue
            parents = wordnet.verb_synset(key[3:]).hypernyms
            if parents and wordnet.verb_synset(parents[0]).hypernyms:
                out[verb] = (f"wn:{parents[0]}", head)
                moved = True
        if not moved:
            break
    return out
