"""Typed records from the SQL views of kb/views.sql: objects with their properties, and affordance evidence."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from kari.bench.model import ObjectRecord, Property


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
    """Objects with at least one typed property (predicate not NULL), sorted by id; parts from object_parts."""
    props = con.execute("SELECT DISTINCT object, part, predicate, value FROM object_property "
                        "WHERE predicate IS NOT NULL ORDER BY ALL").fetchall()
    by_object: dict[str, list[Property]] = {}
    for obj, part, predicate, value in props:
        by_object.setdefault(obj, []).append(Property(part, predicate, value))
    parts: dict[str, list[str]] = {}
    for obj, part in con.execute("SELECT DISTINCT object, part FROM object_parts ORDER BY ALL").fetchall():
        if obj in by_object:
            parts.setdefault(obj, []).append(part)
    return [ObjectRecord(id=obj, description=obj.replace("_", " "), parts=tuple(parts.get(obj, ())),
                         properties=tuple(p)) for obj, p in by_object.items()]


def affordance_evidence(con: duckdb.DuckDBPyConnection, verbs: list[str] | None = None) -> list[AffordanceEvidence]:
    """Rows of the affordance_evidence view (optionally only some verbs), ordered by verb, object, file, line."""
    where, params = "", []
    if verbs is not None:
        where, params = "WHERE list_contains(?, verb)", [list(verbs)]
    rows = con.execute("SELECT verb, object, polarity, raw, relation, source, weight, edge_id, file, line "
                       f"FROM affordance_evidence {where} ORDER BY verb, object, file, line", params).fetchall()
    return [AffordanceEvidence(*row) for row in rows]
