"""The KB's objects as kin: each object's is-a parents, its siblings and its parts among the KB's own objects.

Two is-a sources, both read at induce time: the KB's is-a edges (ConceptNet ``IsA``, :mod:`kari.induce.kbcontext`)
between two of its objects, and WordNet 3.0's noun hypernyms of each object's sense
(:func:`kari.induce.senses.object_sense`): an object ``pan`` whose sense is the hypernym of ``frying_pan``'s is
a parent of ``frying_pan``, up to :data:`PARENT_DEPTH` levels up. Siblings share a parent, or a WordNet class up to
:data:`CLASS_DEPTH` levels up whether or not the class is itself a KB object (``sickle`` and ``scythe`` share
``edge_tool``); a parent or class with more than :data:`MAX_CHILDREN` KB members is too broad to say anything of
them (``device``). Parts are the objects a KB object names as its parts (``knife`` has a part ``blade``, itself a
KB object).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from kari.core.benchmark import ObjectRecord
from kari.induce.kbcontext import KBContext
from kari.induce.senses import hypernym_levels, object_sense

PARENT_DEPTH = 2
"""WordNet hypernym levels searched for an object's KB parents."""
CLASS_DEPTH = 4
"""WordNet hypernym levels whose KB members count as an object's siblings. Chosen among 0 (no class siblings) to 8
on the bundled and outside pairs (docs/results.md): gains level off from 4."""
MAX_CHILDREN = 25
"""A parent or class with more KB members than this gives no siblings (it is too broad a class)."""


@dataclass(frozen=True)
class IsA:
    """``child`` is a ``parent`` (both KB objects), ``level`` steps up, by ``how``: ``wordnet:<child synset>><parent
    synset>`` or the id of the KB's is-a edge."""

    child: str
    parent: str
    level: int
    how: str


@dataclass(frozen=True)
class Kinship:
    """Parents (nearest first), children, parts, and WordNet classes (with their KB members) of every KB object
    (module docstring)."""

    parents: Mapping[str, tuple[IsA, ...]] = field(default_factory=dict)
    children: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    parts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    classes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    members: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def siblings(self, obj: str) -> list[str]:
        """The KB objects sharing a (not too broad) level-1 parent or WordNet class with ``obj``, sorted."""
        out: set[str] = set()
        for link in self.parents.get(obj, ()):
            if link.level == 1 and len(self.children.get(link.parent, ())) <= MAX_CHILDREN:
                out.update(self.children.get(link.parent, ()))
        for synset in self.classes.get(obj, ()):
            if len(self.members.get(synset, ())) <= MAX_CHILDREN:
                out.update(self.members.get(synset, ()))
        out.discard(obj)
        return sorted(out)

    def without_classes(self) -> Kinship:
        """This kinship with siblings by KB parents only (no WordNet class siblings)."""
        return replace(self, classes={}, members={})


def kinship(objects: Sequence[ObjectRecord], context: KBContext) -> Kinship:
    """The :class:`Kinship` of ``objects`` (the KB's universe)."""
    ids = {o.id for o in objects}
    sense = {o.id: object_sense(o.id, context.object_sentences.get(o.id, ())) for o in objects}
    by_sense: dict[str, list[str]] = {}
    for obj, synset in sorted(sense.items()):
        if synset is not None:
            by_sense.setdefault(synset, []).append(obj)
    levels = {obj: hypernym_levels(synset, max(PARENT_DEPTH, CLASS_DEPTH))
              for obj, synset in sense.items() if synset is not None}
    parents: dict[str, dict[str, IsA]] = {}
    for child, parent, edge in context.isa:
        if child in ids and parent in ids and child != parent:
            parents.setdefault(child, {}).setdefault(parent, IsA(child, parent, 1, edge))
    for obj, steps in sorted(levels.items()):
        for level, step in enumerate(steps[:PARENT_DEPTH], start=1):
            for hypernym in step:
                for parent in by_sense.get(hypernym, ()):
                    if parent != obj:
                        parents.setdefault(obj, {}).setdefault(parent, IsA(obj, parent, level,
                                                                            f"wordnet:{sense[obj]}>{hypernym}"))
    children: dict[str, set[str]] = {}
    for obj, links in parents.items():
        for link in links.values():
            if link.level == 1:
                children.setdefault(link.parent, set()).add(obj)
    parts = {o.id: tuple(p for p in o.parts if p in ids and p != o.id) for o in objects}
    classes = {obj: tuple(h for step in steps[:CLASS_DEPTH] for h in step) for obj, steps in levels.items()}
    members: dict[str, set[str]] = {}
    for obj, found in classes.items():
        for synset in found:
            members.setdefault(synset, set()).add(obj)
    return Kinship({o: tuple(sorted(v.values(), key=lambda link: (link.level, link.parent)))
                    for o, v in parents.items()},
                   {p: tuple(sorted(c)) for p, c in children.items()},
                   {o: p for o, p in parts.items() if p},
                   {o: c for o, c in classes.items() if c},
                   {c: tuple(sorted(m)) for c, m in members.items()})
