"""The per-predicate vocabulary: canonical values, synonyms, an is-a taxonomy and banned terms.

Shipped as TSV files in ``data/vocabulary/`` (values, synonyms, isa, banned; see docs/formats.md), stored in the
KB database (table ``vocabulary``) and extended by the Auditor.

Normalisation: lower-case, trim, spaces and hyphens to ``_``, then the synonym table. ``Metal`` and ``metal``
are the same value; ``metallic`` is a synonym only if ``synonyms.tsv`` says so (it does, for MADE_OF).

>>> v = Vocabulary.from_rows(values=[("MADE_OF", "metal"), ("MADE_OF", "steel"), ("MADE_OF", "rigid_material")],
...                          isa=[("MADE_OF", "steel", "metal"), ("MADE_OF", "metal", "rigid_material")],
...                          synonyms=[("MADE_OF", "metallic", "metal")])
>>> v.normalise("MADE_OF", " Metallic ")
'metal'
>>> v.satisfies("MADE_OF", "steel", "rigid_material")
True
>>> v.satisfies("MADE_OF", "metal", "steel")
False
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.resources import asset_path
from kari.rules.ast import PREDICATES

VOCAB_FILES = {"values": ("predicate", "value", "description"), "synonyms": ("predicate", "synonym", "value"),
               "isa": ("predicate", "child", "parent"), "banned": ("term", "kind")}

_SEPARATORS = re.compile(r"[\s\-]+")


def fold_spelling(raw: str) -> str:
    """Lower case, runs of spaces and hyphens to one ``_`` (what the JSON rule reader applies to values)."""
    return _SEPARATORS.sub("_", raw.strip().lower())


@lru_cache(maxsize=1 << 16)
def normalise_term(raw: str) -> str:
    """Spelling normalisation shared by every lookup: ``' Sharp-Edge '`` -> ``'sharp_edge'``."""
    return fold_spelling(raw).strip("_")


@dataclass
class Vocabulary:
    """Canonical values per predicate with synonyms, a transitive is-a taxonomy and banned terms."""

    _values: dict[str, dict[str, str]] = field(default_factory=dict)  # predicate -> value -> provenance
    _synonyms: dict[tuple[str, str], str] = field(default_factory=dict)  # (predicate, synonym) -> value
    _parents: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (predicate, child) -> parents
    _banned: dict[str, str] = field(default_factory=dict)  # term -> kind
    _ancestors: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict, repr=False)
    _memos: dict[str, dict[Any, Any]] = field(default_factory=dict, repr=False, compare=False)

    # --- construction -------------------------------------------------------------------------------------
    @classmethod
    def from_rows(cls, values: Iterable[tuple[str, str]] = (), synonyms: Iterable[tuple[str, str, str]] = (),
                  isa: Iterable[tuple[str, str, str]] = (), banned: Iterable[tuple[str, str]] = ()) -> Vocabulary:
        """Build a vocabulary from rows (predicate, value), (predicate, synonym, value), (predicate, child, parent)."""
        vocab = cls()
        for predicate, value in values:
            vocab.add_value(predicate, value, "shipped")
        for predicate, synonym, value in synonyms:
            vocab.add_synonym(predicate, synonym, value)
        for predicate, child, parent in isa:
            vocab.add_isa(predicate, child, parent)
        for term, kind in banned:
            vocab._banned[normalise_term(term)] = kind
        return vocab

    @classmethod
    def load(cls, root: str | Path | None = None) -> Vocabulary:
        """Load the TSV files in ``root`` (default: the shipped ``data/vocabulary``)."""
        folder = Path(root) if root is not None else asset_path("data", "vocabulary")
        rows = {name: _read_tsv(folder / f"{name}.tsv", columns) for name, columns in VOCAB_FILES.items()}
        return cls.from_rows(
            values=[(r[0], r[1]) for r in rows["values"]],
            synonyms=[(r[0], r[1], r[2]) for r in rows["synonyms"]],
            isa=[(r[0], r[1], r[2]) for r in rows["isa"]],
            banned=[(r[0], r[1]) for r in rows["banned"]],
        )

    @classmethod
    def from_db(cls, con: Any, table: str = "vocabulary") -> Vocabulary:
        """Read a vocabulary stored by :meth:`to_db` from a DuckDB connection."""
        import duckdb

        try:
            rows = con.execute(f"SELECT kind, predicate, term, value, provenance FROM {table}").fetchall()
        except duckdb.Error as exc:
            raise KariError(f"cannot read table {table!r}: {exc}".splitlines()[0], code="vocab-db") from None
        vocab = cls()
        order = {"value": 0, "synonym": 1, "isa": 2, "banned": 3}
        for kind, predicate, term, value, provenance in sorted(rows, key=lambda r: order.get(r[0], 4)):
            if kind == "value":
                vocab.add_value(predicate, term, provenance or "")
            elif kind == "synonym":
                vocab.add_synonym(predicate, term, value)
            elif kind == "isa":
                vocab.add_isa(predicate, term, value)
            elif kind == "banned":
                vocab._banned[normalise_term(term)] = value
            else:
                raise KariError(f"unknown vocabulary row kind {kind!r} in table {table!r}", code="vocab-db")
        return vocab

    def to_db(self, con: Any, table: str = "vocabulary") -> int:
        """Store the vocabulary in DuckDB table ``table`` (replacing its rows, columns as :meth:`rows`);
        returns the number of rows."""
        rows = self.rows()
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute(f"CREATE TABLE IF NOT EXISTS {table} (kind VARCHAR NOT NULL, predicate VARCHAR, "
                        "term VARCHAR NOT NULL, value VARCHAR NOT NULL, provenance VARCHAR)")
            con.execute(f"DELETE FROM {table}")
            if rows:
                con.executemany(f"INSERT INTO {table} (kind, predicate, term, value, provenance) VALUES (?, ?, ?, ?, ?)",
                                [(r["kind"], r["predicate"], r["term"], r["value"], r["provenance"]) for r in rows])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        return len(rows)

    def validate(self) -> list[str]:
        """Consistency problems: is-a cycles, synonyms that shadow a canonical value, banned canonical values."""
        problems = []
        for (predicate, child), parents in sorted(self._parents.items()):
            for parent in sorted(parents):
                if child in self.ancestors(predicate, parent):
                    problems.append(f"{predicate}: is-a cycle through {child!r} and {parent!r}")
        for (predicate, synonym), value in sorted(self._synonyms.items()):
            if synonym in self._values.get(predicate, {}) and synonym != value:
                problems.append(f"{predicate}: synonym {synonym!r} -> {value!r} shadows a canonical value")
        for predicate in PREDICATES:
            for value in sorted(self.values(predicate)):
                if value in self._banned:
                    problems.append(f"{predicate}: canonical value {value!r} is banned ({self._banned[value]})")
        return problems

    # --- extension (the Auditor) ----------------------------------------------------------------------------
    def add_value(self, predicate: str, value: str, provenance: str = "") -> str:
        """Add a canonical value (normalised); returns it."""
        _check_predicate(predicate)
        canonical = normalise_term(value)
        self._values.setdefault(predicate, {}).setdefault(canonical, provenance)
        return canonical

    def add_synonym(self, predicate: str, synonym: str, value: str) -> None:
        """Map ``synonym`` to the existing canonical ``value`` of ``predicate``."""
        canonical = normalise_term(value)
        if canonical not in self.values(predicate):
            raise KariError(f"synonym {synonym!r} points to unknown {predicate} value {value!r}", code="vocab-synonym")
        self._synonyms[(predicate, normalise_term(synonym))] = canonical

    def add_isa(self, predicate: str, child: str, parent: str) -> None:
        """Declare ``child`` is-a ``parent`` (both must be values of ``predicate``)."""
        for term in (child, parent):
            if normalise_term(term) not in self.values(predicate):
                raise KariError(f"is-a names unknown {predicate} value {term!r}", code="vocab-isa")
        self._parents.setdefault((predicate, normalise_term(child)), set()).add(normalise_term(parent))
        self._ancestors.clear()
        self._memos.clear()

    # --- queries --------------------------------------------------------------------------------------------
    def values(self, predicate: str) -> frozenset[str]:
        """Canonical values of ``predicate``."""
        return frozenset(self._values.get(predicate, {}))

    def has_value(self, predicate: str, value: str) -> bool:
        """Is ``value`` (as written) a canonical value of ``predicate``? (cheaper than ``value in values(p)``)"""
        return value in self._values.get(predicate, ())

    def provenance(self, predicate: str, value: str) -> str | None:
        return self._values.get(predicate, {}).get(value)

    def normalise(self, predicate: str, raw: str) -> str | None:
        """The canonical value ``raw`` denotes for ``predicate``, or None when it is unknown."""
        term = normalise_term(raw)
        if term in self._values.get(predicate, {}):
            return term
        return self._synonyms.get((predicate, term))

    def ancestors(self, predicate: str, value: str) -> frozenset[str]:
        """``value`` and every value it is-a (transitively)."""
        key = (predicate, value)
        cached = self._ancestors.get(key)
        if cached is None:
            seen: set[str] = set()
            stack = [value]
            while stack:
                current = stack.pop()
                if current not in seen:
                    seen.add(current)
                    stack.extend(self._parents.get((predicate, current), ()))
            cached = self._ancestors[key] = frozenset(seen)
        return cached

    def memo(self, name: str) -> dict[Any, Any]:
        """A cache for results derived from the taxonomy (e.g. closed object views), emptied by :meth:`add_isa`."""
        return self._memos.setdefault(name, {})

    def satisfies(self, predicate: str, fact_value: str, rule_value: str) -> bool:
        """Does a fact ``predicate:fact_value`` make the atom ``predicate:rule_value`` true?"""
        return rule_value in self.ancestors(predicate, fact_value)

    def isa_pairs(self) -> list[tuple[str, str, str]]:
        """Every direct (predicate, child, parent) edge, sorted."""
        return sorted((p, c, parent) for (p, c), parents in self._parents.items() for parent in parents)

    def synonym_pairs(self) -> list[tuple[str, str, str]]:
        return sorted((p, s, v) for (p, s), v in self._synonyms.items())

    def predicates_of(self, value: str) -> frozenset[str]:
        """Predicates for which ``value`` (normalised, synonyms applied) is known."""
        return frozenset(p for p in PREDICATES if self.normalise(p, value) is not None)

    def banned_reason(self, value: str) -> str | None:
        """``'dynamic'`` or ``'affordance_adjective'`` when ``value`` may never be an atom value, else None."""
        return self._banned.get(normalise_term(value))

    def rows(self) -> list[dict[str, Any]]:
        """One row per value, synonym and is-a edge (the ``vocabulary`` table of the KB database)."""
        out: list[dict[str, Any]] = []
        for predicate in PREDICATES:
            for value, prov in sorted(self._values.get(predicate, {}).items()):
                out.append({"kind": "value", "predicate": predicate, "term": value, "value": value, "provenance": prov})
        out += [{"kind": "synonym", "predicate": p, "term": s, "value": v, "provenance": "synonym"}
                for p, s, v in self.synonym_pairs()]
        out += [{"kind": "isa", "predicate": p, "term": c, "value": parent, "provenance": "isa"}
                for p, c, parent in self.isa_pairs()]
        out += [{"kind": "banned", "predicate": None, "term": t, "value": k, "provenance": "banned"}
                for t, k in sorted(self._banned.items())]
        return out


def load_vocabulary(source: str | Path | None = None) -> Vocabulary:
    """The vocabulary from ``source``: None = the shipped TSV files, a folder of TSV files, or a DuckDB
    database file holding a ``vocabulary`` table (the KB database)."""
    if source is None:
        return Vocabulary.load()
    path = Path(source)
    if path.is_dir():
        return Vocabulary.load(path)
    if not path.is_file():
        raise KariError("vocabulary not found (expected a folder of TSV files or a DuckDB file)", file=str(path),
                        code="missing-file")
    import duckdb

    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        raise KariError(f"not a DuckDB database: {exc}".splitlines()[0], file=str(path), code="vocab-db") from None
    try:
        return Vocabulary.from_db(con)
    finally:
        con.close()


def _check_predicate(predicate: str) -> None:
    if predicate not in PREDICATES:
        raise KariError(f"unknown predicate {predicate!r} (expected one of {', '.join(PREDICATES)})", code="vocab-predicate")


def _read_tsv(path: Path, columns: tuple[str, ...]) -> list[list[str]]:
    if not path.is_file():
        raise KariError("vocabulary file not found", file=str(path), code="missing-file")
    rows: list[list[str]] = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if header is None or tuple(header[: len(columns)]) != columns:
            raise KariError(f"expected header {' '.join(columns)}", file=str(path), line=1, code="vocab-header")
        for row in reader:
            if not row or row[0].startswith("#"):
                continue
            if len(row) < len(columns) - (1 if columns[-1] == "description" else 0):
                raise KariError(f"expected {len(columns)} columns, got {len(row)}", file=str(path),
                                line=reader.line_num, code="vocab-columns")
            rows.append(row)
    return rows
