"""What makes a rule branch true for the objects it was induced from: per object, per atom, the facts that make
the atom true with the KB edges behind each.

A fact carries its own edges (:class:`kari.core.benchmark.Property`: the edge that states it and, for a part's
property, the edge that makes the part; an ``inferred`` fact the edges it was completed from) and a part-name
fact the edges that make the part (``ObjectRecord.part_edges``). :func:`branch_provenance` walks the branch on
each object with :func:`kari.explain.proof.explain` (the reading the branch was induced under), so the facts it
cites are exactly the proof's, is-a steps included: ``MADE_OF:metal`` holds for a knife by its blade's
``MADE_OF:steel``, stated by edge ``e12``. ``kari induce`` records the result in each branch's metadata
(``provenance``; docs/formats.md), and :func:`kari.explain.induced.induced_from` reads it back for
``kari explain`` and the reports.

>>> from kari.core.benchmark import ObjectRecord, Property
>>> from kari.vocab.vocabulary import Vocabulary
>>> from kari.rules.ast import Atom
>>> v = Vocabulary.from_rows(values=[("MADE_OF", "steel"), ("MADE_OF", "metal")], isa=[("MADE_OF", "steel", "metal")])
>>> knife = ObjectRecord("knife", parts=("blade",), properties=(Property("blade", "MADE_OF", "steel", edges=("e12",)),))
>>> atom_provenance(Atom("MADE_OF", "metal"), knife, v)
{'MADE_OF:metal': [{'part': 'blade', 'value': 'steel', 'origin': 'property', 'edges': ['e12']}]}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kari.core.benchmark import ObjectRecord
from kari.core.terms import Semantics
from kari.vocab.vocabulary import Vocabulary
from kari.explain.proof import explain
from kari.rules.ast import Node, Rule


class FactEdges:
    """:class:`kari.explain.proof.Evidence` read off the object itself: the edges its facts carry."""

    def lookup(self, obj: ObjectRecord, part: str, predicate: str, value: str, origin: str) -> list[dict[str, Any]]:
        if origin == "part-name":
            ids: Sequence[str] = obj.edges_of_part(part)
        else:
            ids = list(dict.fromkeys(e for p in obj.properties if (p.part, p.predicate, p.value) ==
                                     (part, predicate, value) for e in p.edges))
        return [{"kind": "kb-edge", "edge_id": e} for e in ids]


def atom_provenance(branch: Node, obj: ObjectRecord, vocab: Vocabulary,
                    semantics: str = Semantics.ANY_PART) -> dict[str, list[dict[str, Any]]]:
    """Per atom of ``branch`` (``PREDICATE:value``) that holds on ``obj``: the facts that make it true, each
    ``{part, value, origin, edges}`` (``origin``: ``property``, ``inferred`` or ``part-name``; ``edges`` left out
    when the fact carries none, as a benchmark's facts); {} when the branch does not hold."""
    proof = explain(Rule("branch", branch), obj, vocab, semantics, FactEdges())
    if not proof.covered:
        return {}
    out: dict[str, list[dict[str, Any]]] = {}
    for node in proof.branches[0].tree.atoms():
        if not node.holds or node.atom is None:
            continue
        found = out.setdefault(node.atom, [])
        for s in node.support:
            edges = [str(e["edge_id"]) for e in s.evidence if e.get("edge_id") is not None]
            entry = {"part": s.part, "value": s.value, "origin": s.origin, **({"edges": edges} if edges else {})}
            if entry not in found:
                found.append(entry)
    return out


def branch_provenance(branch: Node, positives: Sequence[ObjectRecord], positive_edges: Mapping[str, Sequence[str]],
                      vocab: Vocabulary, semantics: str = Semantics.ANY_PART
                      ) -> tuple[list[dict[str, Any]], list[str]]:
    """The provenance of ``branch`` on the ``positives`` it covers: one ``{object, edges, atoms}`` per positive
    (``edges``: what makes it a positive, from ``positive_edges``; ``atoms``: :func:`atom_provenance`), and
    every KB edge cited, sorted."""
    entries: list[dict[str, Any]] = []
    cited: set[str] = set()
    for obj in positives:
        atoms = atom_provenance(branch, obj, vocab, semantics)
        if not atoms:
            continue
        own = list(dict.fromkeys(positive_edges.get(obj.id, ())))
        entries.append({"object": obj.id, **({"edges": own} if own else {}), "atoms": atoms})
        cited.update(own)
        cited.update(e for supports in atoms.values() for s in supports for e in s.get("edges", ()))
    return entries, sorted(cited)
