"""Group KB affordance verbs that mean the same before induction: one rule per group (method.md 2).

KB sources write verbs as they please (``cutting``, ``cut``, ``cut_bread``, ``as_a_cutting_instrument``); most
have one positive object, too few to induce anything from. Grouping pools their positives. Methods:

* ``wordnet`` (the default): the phrase's head word (:func:`kari.induce.verbs.content_words`) read with WordNet
  3.0's verb lemmas and irregular forms, a noun head mapped to the verb it derives from (``decoration`` ->
  ``decorate``), a light verb with its object; then every head of one first WordNet sense together (``keep``,
  ``hold`` and ``maintain`` share one); needs ``data/wordnet/`` (shipped, WordNet licence);
* ``lemma``: the head word in its base form, with the object after a light verb (:func:`kari.induce.verbs.head_key`);
  a base form counts only when the KB itself writes it (no dictionary);
* ``embedding``: all-MiniLM-L6-v2 sentence embeddings of the phrases, clustered greedily: phrases in order of
  positives (most first) join the cluster whose mean vector is most similar when that similarity is at least
  ``threshold`` (0.8 by default), else start one; needs the ``embed`` extra;
* ``none``: every verb as written.

The default is the one whose matched rules scored best on held-out benchmark labels with the same coverage, on
the bundled and on the outside KB / benchmark pair (``benchmarks/bench_grouping.py``, README). A group's name is
the head key (``lemma``), the commonest head of its members (``wordnet``) or its member with
the most positives (``embedding``, ties: the shorter, then alphabetical). Each group keeps its member verbs,
their words as the sources wrote them and their positives (:class:`VerbMember`), which the rule's metadata
records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from kari.errors import KariError, choice
from kari.core.induce_config import DEFAULT_GROUPING, GROUP_THRESHOLD, GROUPINGS, Grouping
from kari.induce import wordnet
from kari.induce.inputs import Evidence
from kari.induce.kbcontext import KBContext
from kari.induce.senses import sense_keys
from kari.induce.targets import object_head
from kari.induce.verbs import LIGHT, STOP, content_words, head_key, lexicon_of
from kari.rules.syntax import KEYWORDS
from kari.vocab.morphology import singular

if TYPE_CHECKING:
    from kari.embeddings import Embedder

DEFAULT_GROUP_THRESHOLD = GROUP_THRESHOLD


@dataclass(frozen=True)
class VerbMember:
    """One KB verb of a group: its snake-case id, its words as the sources wrote them, its positive objects, and
    the KB's statements of it as the relation reads them (``used for cleaning``: :func:`statements`)."""

    verb: str
    raw: tuple[str, ...]
    positives: int
    statements: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"verb": self.verb, "raw": list(self.raw), "positives": self.positives,
                **({"statements": list(self.statements)} if self.statements else {})}


@dataclass(frozen=True)
class VerbGroup:
    """Verbs read as one affordance (``verb`` names it)."""

    verb: str
    members: tuple[str, ...]


def check_grouping(method: str, threshold: float = DEFAULT_GROUP_THRESHOLD) -> None:
    """A :class:`KariError` for an unknown method or a threshold outside [0, 1]."""
    choice(method, GROUPINGS, "verb grouping", code="induce-config")
    if not 0.0 <= threshold <= 1.0:
        raise KariError(f"the grouping threshold must be in [0, 1], got {threshold:g}", code="induce-config")


def group_verbs(positives: Mapping[str, int], method: str = DEFAULT_GROUPING, *,
                threshold: float = DEFAULT_GROUP_THRESHOLD, embedder: Embedder | None = None,
                keys: Mapping[str, tuple[str, str]] | None = None) -> list[VerbGroup]:
    """Groups of the verbs ``positives`` counts (verb -> its number of positive objects), by ``method``, sorted
    by name; every verb is in exactly one group. ``keys`` (``wordnet`` only): each verb's ``(grouping key,
    head)`` as :func:`kari.induce.senses.sense_keys` chose them from the KB; without it, each head's first
    WordNet sense."""
    check_grouping(method, threshold)
    verbs = sorted(positives)
    if method == Grouping.NONE:
        return _unique([VerbGroup(v, (v,)) for v in verbs])
    if method == Grouping.EMBEDDING:
        return _named(_clusters(verbs, positives, threshold, embedder), positives, _largest)
    if method == Grouping.WORDNET:
        keyed = {v: keys[v] if keys is not None and v in keys else _wordnet_key(v) for v in verbs}
        by_key: dict[str, list[str]] = {}
        for verb in verbs:
            by_key.setdefault(keyed[verb][0], []).append(verb)
        heads = {v: keyed[v][1] for v in verbs}
        return _named(list(by_key.values()), positives, lambda members, counts: _commonest(members, counts, heads))
    known = lexicon_of(verbs).__contains__
    by_key = {}
    for verb in verbs:
        by_key.setdefault(head_key(verb, known), []).append(verb)
    return _unique([VerbGroup(key, tuple(members)) for key, members in sorted(by_key.items())])


def _named(clusters: Sequence[Sequence[str]], positives: Mapping[str, int],
           name: Callable[[Sequence[str], Mapping[str, int]], str]) -> list[VerbGroup]:
    return _unique(sorted((VerbGroup(name(c, positives), tuple(sorted(c))) for c in clusters),
                          key=lambda g: (g.verb, g.members)))


STATED_RELATIONS = ("used for",)
"""Relations whose label and a verb's words read as what the KB states of an object (``used for cleaning``)."""


def statements(ev: Evidence, relations: Sequence[str]) -> tuple[str, ...]:
    """A KB verb as its relations state it (``UsedFor`` ``cleaning``: ``used_for_cleaning``), the relations of
    :data:`STATED_RELATIONS` only (a ``ReceivesAction`` phrase already reads as what is done to the object)."""
    words = ev.raw[0] if ev.raw else ev.affordance.replace("_", " ")
    return tuple(dict.fromkeys("_".join(f"{r} {words}".lower().split()) for r in relations if r in STATED_RELATIONS))


def rule_name(name: str) -> str:
    """``name`` as a rule's affordance name: an identifier that is no keyword of the rule language (``part`` ->
    ``part_verb``, ``3d_print`` -> ``v_3d_print``)."""
    text = "".join(c if c.isalnum() or c == "_" else "_" for c in name.lower()).strip("_") or "verb"
    if not (text[0].isalpha() or text[0] == "_"):
        text = f"v_{text}"
    return f"{text}_verb" if text.upper() in KEYWORDS else text


def _unique(groups: list[VerbGroup]) -> list[VerbGroup]:
    """Names made valid rule names (:func:`rule_name`) and unique (``cut``, ``cut_2``) in the given order."""
    seen: Counter[str] = Counter()
    out = []
    for group in groups:
        name = rule_name(group.verb)
        seen[name] += 1
        out.append(replace(group, verb=name if seen[name] == 1 else f"{name}_{seen[name]}"))
    return out


def _largest(members: Sequence[str], positives: Mapping[str, int]) -> str:
    return min(members, key=lambda v: (-positives.get(v, 0), len(v), v))


def _commonest(members: Sequence[str], positives: Mapping[str, int], heads: Mapping[str, str]) -> str:
    weight: Counter[str] = Counter()
    for verb in members:
        weight[heads[verb]] += max(positives.get(verb, 0), 1)
    return min(weight, key=lambda h: (-weight[h], len(h), h))


# --- WordNet ---------------------------------------------------------------------------------------------------

def wordnet_head(word: str) -> str:
    """``word`` as a WordNet verb lemma: an irregular form's lemma, the word itself, a spelling candidate WordNet
    knows, the verb a noun derives from; else the word as written."""
    return wordnet.verb_lemma(word) or word


def _wordnet_key(verb: str) -> tuple[str, str]:
    """``(grouping key, head lemma)``: a light verb with its object, else the head's first WordNet sense."""
    verbs, _, _ = wordnet.verb_tables()
    words = content_words(verb) or [verb]
    head = wordnet_head(words[0])
    if head in LIGHT and len(words) > 1:
        obj = object_head(words[1:], STOP) or singular(words[1]) or words[1]   # take_off: all of it skipped
        key = f"{head}_{obj}"
        return key, key
    return (f"wn:{verbs[head]}" if head in verbs else f"word:{head}"), head


# --- embedding clusters ----------------------------------------------------------------------------------------

def _clusters(verbs: Sequence[str], positives: Mapping[str, int], threshold: float,
              embedder: Embedder | None) -> list[list[str]]:
    """Greedy centroid clustering of the phrases (see the module docstring)."""
    import numpy as np

    if embedder is None:
        from kari.embeddings import Embedder

        embedder = Embedder()
    order = sorted(verbs, key=lambda v: (-positives.get(v, 0), len(v), v))
    vectors = np.asarray(embedder.encode([v.replace("_", " ") for v in order]), dtype=np.float64)
    sums = np.zeros_like(vectors)
    centroids = np.zeros_like(vectors)  # row k: cluster k's mean direction (unit length)
    members: list[list[str]] = []
    for verb, vector in zip(order, vectors):
        k = len(members)
        if k:
            scores = centroids[:k] @ vector
            best = int(np.argmax(scores))
            if scores[best] >= threshold:
                members[best].append(verb)
                sums[best] += vector
                centroids[best] = sums[best] / max(float(np.linalg.norm(sums[best])), 1e-12)
                continue
        members.append([verb])
        sums[k] = vector
        centroids[k] = vector / max(float(np.linalg.norm(vector)), 1e-12)
    return members


# --- evidence ----------------------------------------------------------------------------------------------------

def group_evidence(evidence: Mapping[str, Evidence], method: str = DEFAULT_GROUPING, *,
                   threshold: float = DEFAULT_GROUP_THRESHOLD, embedder: Embedder | None = None,
                   context: KBContext | None = None) -> dict[str, Evidence]:
    """One :class:`Evidence` per group of ``evidence``'s verbs: the members' positives and edges pooled, labelled
    negatives that no member names as positive, and the members (:class:`VerbMember`) recorded. With the KB's
    ``context`` (``wordnet``), each verb's sense is chosen from its sentences and positives
    (:func:`kari.induce.senses.sense_keys`)."""
    counts = {verb: len(ev.positives) for verb, ev in evidence.items()}
    keys = None
    if method == Grouping.WORDNET and context is not None:
        keys = sense_keys(evidence, context)
    out: dict[str, Evidence] = {}
    for group in group_verbs(counts, method, threshold=threshold, embedder=embedder, keys=keys):
        parts = [evidence[v] for v in group.members]
        positives = {o.id: o for ev in parts for o in ev.positives}
        negatives = {o.id: o for ev in parts for o in ev.labelled_negatives if o.id not in positives}
        edges: dict[str, tuple[str, ...]] = {}
        for ev in parts:
            for obj, ids in ev.edges.items():
                edges[obj] = tuple(dict.fromkeys([*edges.get(obj, ()), *ids]))
        members = tuple(VerbMember(ev.affordance, ev.raw, len(ev.positives),
                                   statements(ev, context.verb_relations.get(ev.affordance, ()) if context else ()))
                        for ev in parts)
        first = parts[0]
        out[group.verb] = replace(first, affordance=group.verb, description=first.description,
                                  positives=tuple(positives[k] for k in sorted(positives)),
                                  labelled_negatives=tuple(negatives[k] for k in sorted(negatives)),
                                  edges=edges, raw=(), members=members, grouping=method)
    return out
