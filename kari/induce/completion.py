"""An object's properties completed from what the KB says of its classes: a frying pan is a pan, pans are metal.

Default inheritance, at induce time (never in ``kari kb load``): for each predicate (MADE_OF, SHAPE, SIZE,
SURFACE) an object states nothing of, it takes the whole-object facts of that predicate that its nearest KB
parents state (:mod:`kari.induce.kinship`: WordNet hypernyms, the KB's is-a edges), the parents one level up
first, the next level only when no parent one level up states any. What an object states itself is never
overridden, and an inferred fact is never inherited again. Each inferred fact is an :class:`InferredFact`:
marked ``inferred``, with the parent it came from, the is-a link, and the KB edge ids behind it (the parent's
fact edges, and the is-a edge when the link is a KB edge), so a branch can cite it as it cites a stated fact.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kari.core.benchmark import ObjectRecord, Property
from kari.core.terms import PREDICATES, WHOLE
from kari.induce.kinship import Kinship

INFERRED_RAW = "inferred:"
"""The ``raw`` of an inferred property names where it came from (``inferred:pan``)."""


@dataclass(frozen=True)
class InferredFact:
    """A fact an object inherits from a KB parent (module docstring)."""

    object: str
    part: str
    predicate: str
    value: str
    via: str  # the KB parent the fact comes from
    isa: str  # the is-a link: ``wordnet:<child synset>><parent synset>`` or the KB is-a edge id
    edges: tuple[str, ...]  # KB edge ids: the parent's fact edges (+ the is-a edge when it is a KB edge)
    inferred: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"object": self.object, "part": self.part, "predicate": self.predicate, "value": self.value,
                "inferred": True, "via": self.via, "isa": self.isa, "edges": list(self.edges)}


def complete(objects: Sequence[ObjectRecord], kin: Kinship
             ) -> tuple[dict[str, ObjectRecord], dict[str, tuple[InferredFact, ...]]]:
    """``objects`` with their inherited facts added (raw ``inferred:<parent>``), and each object's inferred facts;
    objects that inherit nothing are returned unchanged (the same record)."""
    by_id = {o.id: o for o in objects}
    out: dict[str, ObjectRecord] = {}
    inferred: dict[str, tuple[InferredFact, ...]] = {}
    for obj in objects:
        facts = _inherited(obj, by_id, kin)
        if facts:
            added = tuple(Property(f.part, f.predicate, f.value, f"{INFERRED_RAW}{f.via}", edges=f.edges,
                                   inferred=True) for f in facts)  # cited by a branch with its sources
            out[obj.id] = replace(obj, properties=(*obj.properties, *added))
            inferred[obj.id] = tuple(facts)
        else:
            out[obj.id] = obj
    return out, inferred


def _inherited(obj: ObjectRecord, by_id: Mapping[str, ObjectRecord], kin: Kinship) -> list[InferredFact]:
    stated = {p.predicate for p in obj.properties}
    links = kin.parents.get(obj.id, ())
    out: list[InferredFact] = []
    for predicate in PREDICATES:
        if predicate in stated:
            continue
        for level in sorted({link.level for link in links}):
            found: dict[str, InferredFact] = {}
            for link in (link for link in links if link.level == level):
                parent = by_id.get(link.parent)
                for prop in parent.properties if parent is not None else ():
                    if prop.predicate != predicate or prop.part != WHOLE or _is_inferred(prop):
                        continue
                    edges = prop.edges
                    if not link.how.startswith("wordnet:"):
                        edges = (*edges, link.how)
                    found.setdefault(prop.value, InferredFact(obj.id, WHOLE, predicate, prop.value, link.parent,
                                                              link.how, tuple(dict.fromkeys(edges))))
            if found:
                out += [found[v] for v in sorted(found)]
                break
    return out


def _is_inferred(prop: Property) -> bool:
    return bool(prop.inferred) or (prop.raw is not None and prop.raw.startswith(INFERRED_RAW))
