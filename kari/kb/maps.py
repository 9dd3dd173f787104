"""The two small TSV maps the KB views read: ``kb/relation_map.tsv`` and ``kb/value_lexicon.tsv``.

Both are TAB-separated with a header line (``relation role``; ``raw predicate value``) and are copied into the
tables ``relation_map`` and ``value_lexicon`` by every writable :func:`kari.kb.store.open_db` (when they changed).
"""

from __future__ import annotations

from enum import StrEnum
import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from kari.errors import KariError, unknown
from kari.kb.textfile import iter_lines
from kari.resources import asset_path
from kari.core.terms import PREDICATES

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

class Role(StrEnum):
    """What a KB relation means to kari (``kb/relation_map.tsv``'s ``role`` column)."""

    MADE_OF = "made_of"
    HAS_PROPERTY = "has_property"
    HAS_PART = "has_part"
    PART_OF = "part_of"
    AFFORDANCE_POS = "affordance_pos"
    AFFORDANCE_NEG = "affordance_neg"


ROLES: tuple[str, ...] = tuple(Role)


def default_relation_map() -> Path:
    return asset_path("kb", "relation_map.tsv")


def default_lexicon() -> Path:
    return asset_path("kb", "value_lexicon.tsv")


def read_tsv(path: Path, header: tuple[str, ...]) -> list[tuple[int, tuple[str, ...]]]:
    """Rows of a small TSV with the given header, as ``(line, fields)``; blank lines skipped."""
    if not path.is_file():
        raise KariError("file not found", file=str(path), code="missing-file")
    rows: list[tuple[int, tuple[str, ...]]] = []
    for number, text in iter_lines(path):
        fields = tuple(text.split("\t"))
        if number == 1:
            if fields != header:
                raise KariError(f"expected the header {' '.join(header)}", file=str(path), line=1, code="kb-header")
            continue
        if not text.strip():
            continue
        if len(fields) != len(header) or not all(f.strip() for f in fields):
            raise KariError(f"expected {len(header)} non-empty columns", file=str(path), line=number,
                            code="kb-columns")
        rows.append((number, fields))
    return rows


def read_relation_map(path: Path | None = None) -> list[tuple[str, str]]:
    """``(relation, role)`` pairs; a role outside :data:`ROLES` raises ``FILE:LINE``."""
    path = path or default_relation_map()
    out = []
    for number, (relation, role) in read_tsv(path, ("relation", "role")):
        if role not in ROLES:
            raise unknown("role", role, ROLES, file=str(path), line=number, code="kb-map")
        out.append((relation, role))
    return out


def read_lexicon(path: Path | None = None) -> list[tuple[str, str, str]]:
    """``(raw, predicate, value)`` triples. The shipped lexicon may be absent (then empty: every term is
    untyped); an explicit ``path`` must exist."""
    if path is None:
        path = default_lexicon()
        if not path.is_file():
            return []
    out = []
    for number, (raw, predicate, value) in read_tsv(path, ("raw", "predicate", "value")):
        if predicate not in PREDICATES:
            raise unknown("predicate", predicate, PREDICATES, file=str(path), line=number, code="kb-lexicon")
        out.append((raw, predicate, value))
    return out


def refresh_maps(con: DuckDBPyConnection, relation_map: Path | None = None, lexicon: Path | None = None) -> None:
    """Replace the contents of the ``relation_map`` and ``value_lexicon`` tables (inside the caller's transaction)
    unless they already hold exactly these rows (their digest is kept in ``kari_meta``): an open that changes
    nothing writes nothing."""
    relations = read_relation_map(relation_map)
    terms = read_lexicon(lexicon)
    digest = hashlib.sha256(json.dumps([relations, terms]).encode()).hexdigest()
    if con.execute("SELECT value FROM kari_meta WHERE key = 'maps_sha256'").fetchone() == (digest,):
        return
    con.execute("INSERT OR REPLACE INTO kari_meta VALUES ('maps_sha256', ?)", [digest])
    con.execute("DELETE FROM relation_map")
    con.execute("DELETE FROM value_lexicon")
    for table, rows in (("relation_map", relations), ("value_lexicon", terms)):
        if rows:
            columns = [list(column) for column in zip(*rows)]
            unnests = ", ".join("unnest(?)" for _ in columns)
            con.execute(f"INSERT INTO {table} SELECT {unnests}", columns)
