"""What KB induction reads from a KB database beside the evidence (:func:`kari.induce.inputs.from_db`): the
sentences of each verb's edges (sense choice), the WordNet senses the KB's sentences name for its objects, the
KB's is-a edges (ConceptNet ``IsA``), and how many verbs the KB states for each
object (how well it describes the object's uses). Read once, at induce time (``kari kb load`` is not slowed).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ISA_RELATIONS = ("IsA", "/r/IsA", "is a", "isa", "is_a", "InstanceOf", "/r/InstanceOf")
"""KB relations read as is-a links between objects (not in kb/relation_map.tsv: they are not object facts)."""


@dataclass(frozen=True)
class KBContext:
    """The KB beside its evidence (module docstring).

    ``verb_sentences``: verb -> the sentences of its affordance edges; ``object_sentences``: object -> sentences of
    its edges that name a WordNet noun sense (``WordNet knife.n.01: ...``); ``isa``: ``(child, parent, edge id)``
    between snake-case node labels; ``verb_counts``: object -> distinct verbs the KB states it affords; ``verb_relations``: verb -> the
    readable labels of the relations its positive edges state it with (``used for``, ``capable of``); ``domain``:
    the WordNet lexicographer file most of the KB's objects' most frequent senses are in (``noun.artifact``, or
    ``noun.animal`` for a KB about pets; :func:`kari.induce.senses.kb_domain`), set by the KB input, None
    until then."""

    verb_sentences: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    object_sentences: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    isa: tuple[tuple[str, str, str], ...] = ()
    verb_counts: Mapping[str, int] = field(default_factory=dict)
    verb_relations: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    domain: str | None = None


def read_context(path: str | Path) -> KBContext:
    """The :class:`KBContext` of the KB database ``path``."""
    from kari.kb import open_db

    con = open_db(path, read_only=True)
    try:
        return context_of(con)
    finally:
        con.close()


def context_of(con: Any) -> KBContext:
    """The :class:`KBContext` of an open KB database."""
    verb_sentences: dict[str, dict[str, None]] = {}
    for verb, sentence in con.execute(
            "SELECT a.verb, e.sentence FROM affordance_evidence a JOIN edges e ON e.id = a.edge_id "
            "WHERE e.sentence IS NOT NULL AND a.polarity = 'positive' ORDER BY a.verb, a.file, a.line").fetchall():
        verb_sentences.setdefault(verb, {})[sentence] = None
    object_sentences: dict[str, dict[str, None]] = {}
    for obj, sentence in con.execute(
            "SELECT r.subject, e.sentence FROM kb_roles r JOIN edges e ON e.id = r.edge_id "
            "WHERE regexp_matches(e.sentence, '\\.n\\.[0-9][0-9]') ORDER BY r.subject, r.file, r.line").fetchall():
        object_sentences.setdefault(obj, {})[sentence] = None
    isa_relations = ", ".join(f"'{r}'" for r in ISA_RELATIONS)
    isa = tuple(con.execute(
        "SELECT DISTINCT kari_snake(kari_node_label(node1, node1_label)), kari_snake(kari_node_label(node2, "
        f"node2_label)), coalesce(id, file || ':' || line) FROM edges WHERE relation IN ({isa_relations}) "
        "ORDER BY ALL").fetchall())
    counts = dict(con.execute("SELECT object, count(DISTINCT verb) FROM affordance_evidence "
                              "WHERE polarity = 'positive' GROUP BY object").fetchall())
    relations: dict[str, dict[str, None]] = {}
    for verb, label in con.execute(
            "SELECT DISTINCT a.verb, lower(coalesce(e.relation_label, a.relation)) FROM affordance_evidence a "
            "JOIN edges e ON e.id = a.edge_id WHERE a.polarity = 'positive' ORDER BY ALL").fetchall():
        relations.setdefault(verb, {})[label] = None
    return KBContext({v: tuple(s) for v, s in verb_sentences.items()},
                     {o: tuple(s) for o, s in object_sentences.items()}, isa,
                     {str(k): int(v) for k, v in counts.items()},
                     {v: tuple(r) for v, r in relations.items()})
