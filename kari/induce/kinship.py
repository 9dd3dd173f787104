"""The KB's objects as kin: each object's is-a parents, its siblings and its parts among the KB's own objects.

Two is-a sources, both read at induce time: the KB's is-a edges (ConceptNet ``IsA``, :mod:`kari.induce.kbcontext`)
between two of its objects, and WordNet 3.0's noun hypernyms of each object's sense
(:func:`kari.induce.senses.object_sense`): an object ``pan`` whose sense is the hypernym of ``frying_pan``'s is
a parent of ``frying_pan``, up to :data:`PARENT_DEPTH` levels up. Siblings share a parent (a parent whose KB
children exceed :data:`MAX_CHILDREN` is too broad to say anything of them: ``device``). Parts are the objects a
KB object names as its parts (``knife`` has a part ``blade``, itself a KB object).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kari.core.benchmark import ObjectRecord
from kari.induce.kbcontext import KBContext
from kari.induce.senses import hypernym_levels, object_sense

PARENT_DEPTH = 2
"""WordNet hypernym levels searched for an object's KB parents."""
MAX_CHILDREN = 25
"""A parent with more KB children than this gives no siblings (it is too broad a class)."""


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
    """Parents (nearest first), children, and parts of every KB object (module docstring)."""

    parents: Mapping[str, tuple[IsA, ...]] = field(default_factory=dict)
    children: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    parts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def sibling_links(self, obj: str) -> list[tuple[str, str]]:
        """Each KB object sharing a (not too broad) level-1 parent with ``obj``, with that parent, sorted (a
        sibling may share several)."""
        out: set[tuple[str, str]] = set()
        for link in self.parents.get(obj, ()):
            if link.level == 1 and len(self.children.get(link.parent, ())) <= MAX_CHILDREN:
                out.update((child, link.parent) for child in self.children.get(link.parent, ()) if child != obj)
        return sorted(out)


def kinship(objects: Sequence[ObjectRecord], context: KBContext) -> Kinship:
    """The :class:`Kinship` of ``objects`` (the KB's universe)."""
    ids = {o.id for o in objects}
    sense = {o.id: object_sense(o.id, context.object_sentences.get(o.id, ()), context.domain) for o in objects}
    by_sense: dict[str, list[str]] = {}
    for obj, synset in sorted(sense.items()):
        if synset is not None:
            by_sense.setdefault(synset, []).append(obj)
    parents: dict[str, dict[str, IsA]] = {}
    for child, parent, edge in context.isa:
        if child in ids and parent in ids and child != parent:
            parents.setdefault(child, {}).setdefault(parent, IsA(child, parent, 1, edge))
    for obj, synset in sorted(sense.items()):
        if synset is None:
            continue
        for level, step in enumerate(hypernym_levels(synset, PARENT_DEPTH), start=1):
            for hypernym in step:
                for parent in by_sense.get(hypernym, ()):
                    if parent != obj:
                        parents.setdefault(obj, {}).setdefault(parent, IsA(obj, parent, level,
                                                                            f"wordnet:{synset}>{hypernym}"))
    children: dict[str, set[str]] = {}
    for obj, links in parents.items():
        for link in links.values():
            if link.level == 1:
                children.setdefault(link.parent, set()).add(obj)
    parts = {o.id: tuple(p for p in o.parts if p in ids and p != o.id) for o in objects}
    return Kinship({o: tuple(sorted(v.values(), key=lambda link: (link.level, link.parent)))
                    for o, v in parents.items()},
                   {p: tuple(sorted(c)) for p, c in children.items()},
                   {o: p for o, p in parts.items() if p})
