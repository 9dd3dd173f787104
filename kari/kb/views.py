"""Typed records from the SQL views of kb/views.sql: objects with their properties, and affordance evidence."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from kari.io.sql import scalar
from kari.core.benchmark import ObjectRecord, Property
from kari.domain.canon import canonical_objects
from kari.io.transaction import transaction
from kari.vocab.vocabulary import db_vocabulary

if TYPE_CHECKING:
    from kari.domain.canon import CanonReport


@dataclass(frozen=True, slots=True)
class AffordanceEvidence:
    """One KB edge saying ``object`` affords (polarity 'positive') or does not afford ('negative') ``verb``."""

    verb: str
    object: str
    polarity: str
    raw: str
    relation: str
    source: str | None
    weight: float | None
    edge_id: str
    file: str
    line: int


def objects_from_db(con: duckdb.DuckDBPyConnection) -> list[ObjectRecord]:
    """Objects with at least one typed property (predicate not NULL) or one part (``X HasA P``, ``P PartOf X``:
    a part is a SHAPE fact of its own), sorted by id; parts from object_parts.

    Values are as the lexicon typed them (read them into the database's vocabulary with
    :func:`kari.domain.canon.canonical_objects`); each object's ``source`` is the FILE:LINE of its own first edge
    (a typed fact of it or a part edge; first by file, then line). A KB with neither typed facts nor parts has no
    objects: that is found first, at a fraction of the cost of the part joins. Each property carries the ids of
    the edges that state it (``Property.edges``: the property edge and, for a part's property, the part edge),
    each part the edges that make it one (``part_edges``)."""
    if not scalar(con, "SELECT EXISTS (SELECT 1 FROM object_facts WHERE predicate IS NOT NULL) "
                       "OR EXISTS (SELECT 1 FROM object_parts)"):
        return []
    props = con.execute("SELECT object, part, predicate, value, "
                        "list(DISTINCT edge_id ORDER BY edge_id), "
                        "list(DISTINCT part_edge_id ORDER BY part_edge_id) FILTER (part_edge_id IS NOT NULL) "
                        "FROM object_property WHERE predicate IS NOT NULL GROUP BY ALL ORDER BY ALL").fetchall()
    by_object: dict[str, list[Property]] = {}
    for obj, part, predicate, value, edges, part_edges in props:
        by_object.setdefault(obj, []).append(Property(part, predicate, value,
                                                      edges=(*(edges or ()), *(part_edges or ()))))
    parts: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    first: dict[str, tuple[str, int]] = {}  # object -> its first edge (file, line), over its facts and parts
    for obj, part, edges, at in con.execute("SELECT object, part, list(DISTINCT edge_id ORDER BY edge_id), "
                                            "min(row(file, line)) FROM object_parts GROUP BY ALL ORDER BY ALL"
                                            ).fetchall():
        parts.setdefault(obj, []).append((part, tuple(edges)))
        first[obj] = min(first.get(obj, at), at)
    for obj, at in con.execute("SELECT subject, min(row(file, line)) FROM object_facts WHERE predicate IS NOT NULL "
                               "GROUP BY subject").fetchall():
        first[obj] = min(first.get(obj, at), at)
    sources = {obj: f"{file}:{line}" for obj, (file, line) in first.items()}
    return [ObjectRecord(id=obj, description=obj.replace("_", " "), parts=tuple(n for n, _ in parts.get(obj, ())),
                         properties=tuple(by_object.get(obj, ())), source=sources.get(obj, ""),
                         part_edges=tuple(parts.get(obj, ())))
            for obj in sorted(by_object.keys() | parts.keys())]


def store_kb_words(con: duckdb.DuckDBPyConnection) -> CanonReport:
    """Read every KB object's words and part names into the database's vocabulary (new words added with their
    FILE:LINE) and store it (table ``vocabulary``), in the caller's transaction when there is one (a load's
    file transaction: the edges and the vocabulary they add are committed together); the report says how the
    words were read."""
    with transaction(con), roles_once(con):
        vocab = db_vocabulary(con)
        _, report = canonical_objects(objects_from_db(con), vocab)
        vocab.write_table(con)
    return report


@contextmanager
def roles_once(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """For the block, the edges kari reads (the view ``kb_roles``: edges whose relation has a role) as a
    temporary table of the same name, which DuckDB reads in place of the view: the object views join the
    edges once instead of once per branch (on a 2,000,000-edge KB with CSKG's relation mix, 0.5 s instead of
    2.5 s of CPU). The views themselves are unchanged."""
    con.execute("CREATE OR REPLACE TEMP TABLE kb_roles AS SELECT * FROM main.kb_roles")
    try:
        yield
    finally:
        con.execute("DROP TABLE IF EXISTS temp.kb_roles")


def affordance_evidence(con: duckdb.DuckDBPyConnection, verbs: list[str] | None = None) -> list[AffordanceEvidence]:
    """Rows of the affordance_evidence view (optionally only some verbs), ordered by verb, object, file, line."""
    where, params = "", []
    if verbs is not None:
        where, params = "WHERE list_contains(?, verb)", [list(verbs)]
    rows = con.execute("SELECT verb, object, polarity, raw, relation, source, weight, edge_id, file, line "
                       f"FROM affordance_evidence {where} ORDER BY verb, object, file, line", params).fetchall()
    return [AffordanceEvidence(*row) for row in rows]
