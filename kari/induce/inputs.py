"""Evidence for induction: per affordance verb, its positive objects (with properties) and known negatives.

Two sources: a benchmark directory (``--bench``: positives and negatives from ``labels.jsonl``, properties from
``objects.jsonl``) or the KB database (``--db``: affordance edges and object properties from the KB views).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kari.bench.reader import read_labelled
from kari.core.benchmark import Benchmark, ObjectRecord, object_to_json
from kari.domain.canon import canonical_objects
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError


class Weights(Mapping[str, float]):
    """Object weights of one affordance's evidence: its own (``own``, e.g. pooled kin) over ``base`` weights the
    whole input shares (the implicit negatives' weights), with a content digest computed once per base."""

    def __init__(self, base: Mapping[str, float], own: Mapping[str, float] | None = None,
                 base_digest: str | None = None) -> None:
        self.base = base
        self.own = dict(own or {})
        self._base_digest = base_digest
        self._length: int | None = None
        self._base_units: tuple[Callable[[float], int], dict[str, int]] | None = None

    def __getitem__(self, key: str) -> float:
        return self.own[key] if key in self.own else self.base[key]

    def __iter__(self) -> Iterator[str]:
        yield from self.own
        yield from (k for k in self.base if k not in self.own)

    def __len__(self) -> int:
        if self._length is None:
            self._length = len(self.own) + sum(1 for k in self.base if k not in self.own)
        return self._length

    def __bool__(self) -> bool:
        return bool(self.own) or bool(self.base)

    # Mapping.get's overloads, narrowed to the one this mapping of floats needs
    def get(self, key: str, default: float | None = None) -> float | None:  # type: ignore[override]
        own = self.own.get(key)
        return own if own is not None else self.base.get(key, default)

    def with_own(self, own: Mapping[str, float]) -> Weights:
        """The same base with other own weights (the base's digest and rounded units shared)."""
        out = Weights(self.base, own, self.base_digest())
        out._base_units = self._base_units
        return out

    def in_units(self, ids: Sequence[str], step: Callable[[float], int]) -> list[int]:
        """The weights of ``ids`` (1 when absent) rounded by ``step``, the base's rounding done once."""
        if self._base_units is None or self._base_units[0] is not step:
            self._base_units = (step, {k: step(v) for k, v in self.base.items()})
        base, own = self._base_units[1], {k: step(v) for k, v in self.own.items()}
        full = step(1.0)
        return [own[i] if i in own else base.get(i, full) for i in ids]

    def base_digest(self) -> str:
        if self._base_digest is None:
            payload = json.dumps(sorted((k, round(v, 4)) for k, v in self.base.items()))
            self._base_digest = hashlib.sha256(payload.encode()).hexdigest()[:16]
        return self._base_digest

    def digest(self) -> str:
        """A digest of every weight (part of the evidence fingerprint)."""
        own = json.dumps(sorted((k, round(v, 4)) for k, v in self.own.items()))
        return hashlib.sha256(f"{self.base_digest()}|{own}".encode()).hexdigest()[:16]


@dataclass(frozen=True)
class KinLink:
    """Why a KB object was pooled with a group's stated ``positive`` (:mod:`kari.induce.pooling`): ``relation``
    ``part`` (one of the positive's parts), ``parent`` (``via`` the KB's is-a edge id or the WordNet link
    ``wordnet:<child synset>><parent synset>``) or ``sibling`` (``via`` the KB parent the two share)."""

    positive: str
    relation: str
    via: str | None = None

    def to_json(self) -> dict[str, str]:
        """``{"of": positive, "as": relation, "via": ...}`` (``via`` left out for a part)."""
        return {"of": self.positive, "as": self.relation, **({"via": self.via} if self.via else {})}


@dataclass(frozen=True)
class Evidence:
    """What the loop knows about one affordance.

    KB input may add positive-unlabelled evidence: ``pooled`` kin of the positives (their is-a parents, siblings
    and parts, :mod:`kari.induce.pooling`), weighed positives that are never rule targets nor negatives, and
    ``weights`` (object id -> weight in [0, 1], 1 when absent: :mod:`kari.induce.puweights`) that the offline
    Proposer's counts use; ``inferred`` holds each object's facts completed from its classes
    (:class:`kari.induce.completion.InferredFact`, with the KB edges they came from).

    ``edges`` maps a positive's id to the KB edges that make it one (its affordance edges; for a part-level KB
    the affordance's enabling attributes too); the edges behind its facts are the facts' own
    (``Property.edges``; an inferred fact's, its sources). It is empty for benchmark input, whose labels carry no
    edge ids. ``universe`` holds every object
    of the input (the closed-world negatives are drawn from it). ``closed_world`` is set on evidence
    restricted to some objects (:func:`kari.induce.folds.restrict`) so that ``auto`` keeps the choice made on
    the full input.
    """

    affordance: str
    description: str
    positives: tuple[ObjectRecord, ...]
    labelled_negatives: tuple[ObjectRecord, ...]
    universe: tuple[ObjectRecord, ...] = ()
    edges: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    closed_world: bool | None = None  # how ``auto`` reads negatives; None: from the labelled negatives present
    raw: tuple[str, ...] = ()  # the verb's words as the KB's sources wrote them (KB input)
    members: tuple[Any, ...] = ()  # the KB verbs grouped into this one (kari.induce.grouping.VerbMember)
    grouping: str | None = None  # the grouping method that made ``members``
    part_level: bool = False  # each positive is one part alone: the rule's branches are PART(x, ...)
    pooled: tuple[ObjectRecord, ...] = ()  # KB kin of the positives (kari.induce.pooling): weighed positives
    weights: Mapping[str, float] = field(default_factory=dict)  # object id -> weight (1 when absent; PU evidence)
    pooled_from: Mapping[str, tuple[KinLink, ...]] = field(default_factory=dict)  # pooled kin -> how it is kin
    inferred: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)  # object id -> its inferred facts

    def uses_closed_world(self, source: str) -> bool:
        """Do the known negatives by ``source`` come from the closed world (every non-positive object)?"""
        if source == "auto":
            return self.closed_world if self.closed_world is not None else not self.labelled_negatives
        return source == "closed-world"

    def negatives(self, source: str) -> tuple[ObjectRecord, ...]:
        """Known negatives by ``source`` (see :class:`kari.core.induce_config.InduceConfig`)."""
        if not self.uses_closed_world(source):
            return self.labelled_negatives
        positive = {o.id for o in (*self.positives, *self.pooled)}
        return tuple(o for o in self.universe if o.id not in positive)

    def fingerprint(self) -> str:
        """A digest of the evidence (part of the run's cache key)."""
        fields: list[Any] = [
            self.affordance,
            [object_to_json(o) for o in self.positives],
            sorted(o.id for o in self.labelled_negatives),
            len(self.universe),
        ]
        if self.members:
            fields.append([m.verb for m in self.members])
        if self.part_level:
            fields.append("part-level")
        if self.pooled:
            fields.append(sorted(o.id for o in self.pooled))
        if self.weights:
            fields.append(self.weights.digest() if isinstance(self.weights, Weights)
                          else sorted((k, round(v, 4)) for k, v in self.weights.items()))
        payload = json.dumps(fields, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


def select(
    evidence: Mapping[str, Evidence], affordances: Sequence[str] = (), limit: int | None = None, source: str = "input"
) -> list[Evidence]:
    """Evidence for the requested ``affordances`` (all, sorted, when empty), first ``limit`` of them.

    Affordances without positive objects are skipped: there is nothing to induce from.
    """
    unknown = [a for a in affordances if a not in evidence]
    if unknown:
        raise KariError(f"unknown affordance {unknown[0]!r} (not in {source})", code="induce-affordance")
    chosen = list(dict.fromkeys(affordances)) if affordances else sorted(evidence)
    usable = [evidence[a] for a in chosen if evidence[a].positives]
    if affordances and not usable:
        raise KariError(f"affordance {chosen[0]!r} has no positive objects in {source}", code="induce-affordance")
    return usable[:limit] if limit else usable


def from_bench(root: str | Path, vocab: Vocabulary) -> dict[str, Evidence]:
    """Evidence per affordance of a (structurally valid) benchmark directory, its words read through ``vocab``."""
    return bench_evidence(read_labelled(root, vocab))


def bench_evidence(bench: Benchmark) -> dict[str, Evidence]:
    """Evidence per affordance of a benchmark already read (its words canonical), from its labels."""
    universe = tuple(bench.objects[k] for k in sorted(bench.objects))
    out: dict[str, Evidence] = {}
    labels_path = str(Path(bench.root) / "labels.jsonl")
    for aff_id in sorted(bench.affordances):
        objects = []
        for ids in (bench.positives(aff_id), bench.negatives(aff_id)):
            missing = [i for i in ids if i not in bench.objects]
            if missing:
                raise KariError(f"label names unknown object {missing[0]!r}", file=labels_path, code="induce-input")
            objects.append(tuple(bench.objects[i] for i in dict.fromkeys(ids)))
        out[aff_id] = Evidence(aff_id, bench.affordances[aff_id].description, objects[0], objects[1], universe)
    return out


def from_db(path: str | Path, vocab: Vocabulary) -> dict[str, Evidence]:
    """Evidence per affordance verb from a KB database built by ``kari kb load``, its words read through ``vocab``.

    Positives and negatives come from the ``affordance_evidence`` view, properties from ``object_property``;
    each positive's ``edges`` are its affordance edges, and every fact carries the edges that state it
    (``Property.edges``, ``ObjectRecord.part_edges``).
    (:func:`kari.induce.partkb.from_part_kb` reads the CreativityBench part affordances of the same database.)
    """
    from kari.kb import affordance_evidence, objects_from_db, open_db

    if not Path(path).is_file():
        raise KariError("KB database not found", file=str(path), code="missing-file")
    con = open_db(path, read_only=True)
    try:
        objects = {o.id: o for o in canonical_objects(objects_from_db(con), vocab)[0]}
        rows = [(r.verb, r.object, r.polarity == "positive", r.edge_id, r.raw) for r in affordance_evidence(con)]
    finally:
        con.close()
    return group_evidence(objects, rows)


def group_evidence(
    objects: Mapping[str, ObjectRecord],
    rows: Sequence[tuple[Any, ...]],
) -> dict[str, Evidence]:
    """Group ``(verb, object, positive, edge_id[, raw words])`` rows into :class:`Evidence` (objects without
    properties are left out: there is nothing to induce from; an object both positive and negative counts as
    positive); each positive's ``edges`` are its affordance edges (its facts carry their own)."""
    universe = tuple(objects[k] for k in sorted(objects))
    pos: dict[str, dict[str, list[str]]] = {}
    neg: dict[str, set[str]] = {}
    raw: dict[str, dict[str, None]] = {}
    for verb, obj, positive, edge, *words in rows:
        if obj not in objects:
            continue
        if words and words[0]:
            raw.setdefault(verb, {})[str(words[0])] = None
        if positive:
            pos.setdefault(verb, {}).setdefault(obj, []).append(edge)
        else:
            neg.setdefault(verb, set()).add(obj)
    out: dict[str, Evidence] = {}
    for verb in sorted(set(pos) | set(neg)):
        p = pos.get(verb, {})
        edges = {o: tuple(dict.fromkeys(e)) for o, e in p.items()}
        negatives = tuple(objects[o] for o in sorted(neg.get(verb, ())) if o not in p)
        out[verb] = Evidence(verb, "", tuple(objects[o] for o in sorted(p)), negatives, universe, edges,
                             raw=tuple(sorted(raw.get(verb, {}))))
    return out
