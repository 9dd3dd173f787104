"""Evidence from a part-level KB (CreativityBench tables of ``kari creativity load``, kb/creativity.sql).

Each KB part is an object alone (id ``entity/part``, ``scenario+entity/part`` when the KB holds the entity in
several scenarios), its facts the KARI atoms read from its attributes (``cb_part_atoms``). Each of its functional
affordances (``cb_part_affordances``) makes it a positive of that action's verb (the action as written, e.g.
"cover the hot tub", normalised); the closed world of every other part gives the negatives. A positive's edge
ids name the affordance and the enabling attributes the annotation lists for it (``cb_affordance_attributes``);
each fact carries the id of the part's attribute text it was read from (``Property.edges``), e.g. ``cb:kitchen+pot/lid#affordance2``,
``cb:kitchen+pot/lid#affordance2/attribute1``, ``cb:kitchen+pot/lid#material``. Rules induced from this evidence
are about the part that carries the use: :attr:`Evidence.part_level` makes each branch ``PART(x, ...)``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from kari.io.sql import count
from kari.core.benchmark import ObjectRecord, Property
from kari.core.terms import normalise_term
from kari.induce.inputs import Evidence
from kari.rules.ast import Atom, Node, Part
from kari.rules.rewrite import map_atoms

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

CB_TABLES = ("cb_parts", "cb_part_atoms", "cb_part_affordances", "cb_affordance_attributes")
EDGE_PREFIX = "cb:"
PART_VAR = "x"


def has_part_kb(con: DuckDBPyConnection) -> bool:
    """Does the database hold CreativityBench part affordances?"""
    names = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    if not set(CB_TABLES) <= names:
        return False
    return bool(count(con, "SELECT count(*) FROM cb_part_affordances"))


def from_part_kb(path: str | Path) -> dict[str, Evidence]:
    """Evidence per part-affordance verb of the KB database ``path`` (empty when it holds no CreativityBench part
    affordances)."""
    from kari.kb import open_db

    con = open_db(path, read_only=True)
    try:
        return part_evidence(con) if has_part_kb(con) else {}
    finally:
        con.close()


def part_evidence(con: DuckDBPyConnection) -> dict[str, Evidence]:
    """Evidence per part-affordance verb of the CreativityBench tables on ``con`` (module docstring)."""
    parts = [(e, s or "", p) for e, s, p in con.execute(
        "SELECT entity, scenario, part FROM cb_parts ORDER BY entity, scenario, part").fetchall()]
    scenarios: dict[str, set[str]] = {}
    for entity, scenario, _ in parts:
        scenarios.setdefault(entity, set()).add(scenario)

    def object_id(entity: str, scenario: str, part: str) -> str:
        return f"{scenario}+{entity}/{part}" if len(scenarios.get(entity, ())) > 1 else f"{entity}/{part}"

    def edge(entity: str, scenario: str, part: str) -> str:
        return f"{EDGE_PREFIX}{scenario}+{entity}/{part}"

    props: dict[str, dict[Property, Property]] = {}
    for entity, scenario, part, attribute, predicate, value, raw in con.execute(
            "SELECT entity, coalesce(scenario, ''), part, attribute, predicate, value, raw FROM cb_part_atoms "
            "ORDER BY rowid").fetchall():
        oid = object_id(entity, scenario, part)
        ids = (f"{edge(entity, scenario, part)}#{attribute}",) if attribute else ()
        fact = Property(part, predicate, value, raw if raw and raw != value else None, edges=ids)
        known = props.setdefault(oid, {}).get(fact)
        props[oid][fact] = fact if known is None else replace(known, edges=tuple(dict.fromkeys([*known.edges, *ids])))
    objects: dict[str, ObjectRecord] = {}
    for entity, scenario, part in parts:
        oid = object_id(entity, scenario, part)
        objects[oid] = ObjectRecord(oid, parts=(part,), properties=tuple(props.get(oid, {}).values()),
                                    source=edge(entity, scenario, part))
    enabling: dict[tuple[str, str, str, int], list[int]] = {}
    for entity, scenario, part, n, position in con.execute(
            "SELECT entity, coalesce(scenario, ''), part, n, position FROM cb_affordance_attributes "
            "ORDER BY entity, scenario, part, n, position").fetchall():
        enabling.setdefault((entity, scenario, part, n), []).append(position)
    positives: dict[str, dict[str, list[str]]] = {}
    raw_words: dict[str, dict[str, None]] = {}
    for entity, scenario, part, n, action in con.execute(
            "SELECT entity, coalesce(scenario, ''), part, n, action FROM cb_part_affordances "
            "ORDER BY entity, scenario, part, n").fetchall():
        verb = normalise_term(action or "")
        oid = object_id(entity, scenario, part)
        if not verb or oid not in objects:
            continue
        where = f"{edge(entity, scenario, part)}#affordance{n}"
        stated = [where, *(f"{where}/attribute{i}" for i in enabling.get((entity, scenario, part, n), ()))]
        positives.setdefault(verb, {}).setdefault(oid, []).extend(stated)
        raw_words.setdefault(verb, {})[action] = None
    universe = tuple(objects[k] for k in sorted(objects))
    out: dict[str, Evidence] = {}
    for verb in sorted(positives):
        found = positives[verb]
        edges = {o: tuple(dict.fromkeys(ids)) for o, ids in found.items()}
        out[verb] = Evidence(verb, "", tuple(objects[o] for o in sorted(found)), (), universe, edges,
                             closed_world=True, raw=tuple(raw_words[verb]), part_level=True)
    return out


def part_branch(branch: Node) -> Node:
    """``branch`` about the one part an object of part-level evidence is: ``PART(x, branch)``, its atoms bound to
    ``x`` (a branch already of that form is kept). On an object that is one part alone both read the same."""
    if isinstance(branch, Part):
        return branch
    return Part(PART_VAR, map_atoms(branch, lambda a: Atom(a.predicate, a.value, PART_VAR)))
