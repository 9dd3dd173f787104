"""The per-predicate vocabulary: canonical values, synonyms, an is-a taxonomy, exclusive groups and banned terms.

Shipped as TSV files in ``data/vocabulary/`` (values, synonyms, isa, exclusive, banned; docs/formats.md), stored
in a KB database (table ``vocabulary``, kb/vocabulary.sql) and open to new words: :meth:`Vocabulary.canonicalise`
reads a raw word as a known value (exact, a synonym, or a word form such as a plural or a British spelling) or,
when it knows none, adds it as a new value of its predicate with its provenance. Nothing is dropped and an
unknown word is never an error; banned terms (dynamic behaviour, affordance adjectives) never become values.

>>> v = Vocabulary.from_rows(values=[("MADE_OF", "metal"), ("MADE_OF", "steel"), ("MADE_OF", "rigid_material")],
...                          isa=[("MADE_OF", "steel", "metal"), ("MADE_OF", "metal", "rigid_material")],
...                          synonyms=[("MADE_OF", "metallic", "metal")])
>>> v.normalise("MADE_OF", " Metallic ")
'metal'
>>> v.satisfies("MADE_OF", "steel", "rigid_material")
True
>>> v.canonicalise("MADE_OF", "Kevlar", "objects.jsonl:3")
Resolution(value='kevlar', how='added', raw='Kevlar')
>>> v.provenance("MADE_OF", "kevlar")
'objects.jsonl:3'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from kari.io.sql import count
from kari.vocab.morphology import lemma, variants
from kari.core.terms import PREDICATES, Predicate, normalise_term
from kari.errors import KariError, unknown
from kari.io.dbfile import connect
from kari.io.fingerprint import folder_input, query_digest, table_input
from kari.io.text import iter_text_lines
from kari.resources import asset_path

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

VOCAB_FILES = {"values": ("predicate", "value", "description"), "synonyms": ("predicate", "synonym", "value"),
               "isa": ("predicate", "child", "parent"), "banned": ("term", "kind")}
OPTIONAL_VOCAB_FILES = {"exclusive": ("predicate", "group", "value")}
SHIPPED = "shipped"
"""The provenance of the values of the shipped vocabulary files."""
_ROW_ORDER = {"value": 0, "synonym": 1, "isa": 2, "banned": 3, "exclusive": 4, "part": 5}
PART_NOUN = "part"
"""The ``vocabulary`` table's row kind of a SHAPE value that is a part's name (a part noun)."""
KEPT_ANCESTORS = 1024
"""Ancestor sets up to this size are kept once computed; larger ones (deep taxonomies) are computed when asked."""


class IsaRowError(Exception):
    """The row (``index``) of :meth:`Vocabulary.add_isa_rows` that could not be added, and why (``error``)."""

    def __init__(self, index: int, error: KariError) -> None:
        super().__init__(error.message)
        self.index = index
        self.error = error


class Resolution(NamedTuple):
    """How a raw word was read: ``how`` is ``exact``, ``synonym``, ``variant`` (a word form of a known value),
    ``added`` (a new value) or ``banned`` (``value`` None: never a value)."""

    value: str | None
    how: str
    raw: str


@dataclass
class Vocabulary:
    """Canonical values per predicate with synonyms, a transitive is-a taxonomy, exclusive groups and banned terms."""

    _values: dict[str, dict[str, str]] = field(default_factory=dict)  # predicate -> value -> provenance
    _synonyms: dict[tuple[str, str], str] = field(default_factory=dict)  # (predicate, synonym) -> value
    _parents: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (predicate, child) -> parents
    _banned: dict[str, str] = field(default_factory=dict)  # term -> kind
    _exclusive: dict[tuple[str, str], str] = field(default_factory=dict)  # (predicate, value) -> group
    _part_nouns: set[str] = field(default_factory=set)  # SHAPE values read from a part's name
    _has_child: set[tuple[str, str]] = field(default_factory=set, repr=False)  # (predicate, value) some value is-a
    _ancestors: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict, repr=False)
    _value_sets: dict[str, frozenset[str]] = field(default_factory=dict, repr=False, compare=False)
    _memos: dict[str, dict[Any, Any]] = field(default_factory=dict, repr=False, compare=False)
    _lookups: dict[tuple[str, str, bool], Resolution | None] = field(default_factory=dict, repr=False,
                                                                     compare=False)
    # which cached lookups a new value or synonym can change: misses and word-form readings per predicate, and
    # synonym readings per (predicate, term); an exact reading never changes (values are never removed)
    _fragile: dict[str, set[tuple[str, str, bool]]] = field(default_factory=dict, repr=False, compare=False)
    _by_term: dict[tuple[str, str], set[tuple[str, str, bool]]] = field(default_factory=dict, repr=False,
                                                                        compare=False)

    # --- construction -------------------------------------------------------------------------------------
    @classmethod
    def from_rows(cls, values: Iterable[tuple[str, str]] = (), synonyms: Iterable[tuple[str, str, str]] = (),
                  isa: Iterable[tuple[str, str, str]] = (), banned: Iterable[tuple[str, str]] = (),
                  exclusive: Iterable[tuple[str, str, str]] = ()) -> Vocabulary:
        """Build a vocabulary from rows (predicate, value), (predicate, synonym, value), (predicate, child, parent),
        (term, kind) and (predicate, group, value)."""
        vocab = cls()
        for predicate, value in values:
            vocab.add_value(predicate, value, SHIPPED)
        for predicate, synonym, value in synonyms:
            vocab.add_synonym(predicate, synonym, value)
        try:
            vocab.add_isa_rows(list(isa))
        except IsaRowError as exc:
            raise exc.error from None
        for term, kind in banned:
            vocab.add_banned(term, kind)
        for predicate, group, value in exclusive:
            vocab.add_exclusive(predicate, group, value)
        return vocab

    @classmethod
    def load(cls, root: str | Path | None = None) -> Vocabulary:
        """Load the TSV files in ``root`` (default: the shipped ``data/vocabulary``); ``exclusive.tsv`` is optional.
        A bad row (unknown value, an is-a cycle, a wrong column count) is an error naming its FILE:LINE."""
        folder = Path(root) if root is not None else asset_path("data", "vocabulary")
        vocab = cls()
        adders = {"values": lambda r: vocab.add_value(r[0], r[1], SHIPPED),
                  "synonyms": lambda r: vocab.add_synonym(r[0], r[1], r[2]),
                  "isa": lambda r: vocab.add_isa(r[0], r[1], r[2]),
                  "banned": lambda r: vocab.add_banned(r[0], r[1]),
                  "exclusive": lambda r: vocab.add_exclusive(r[0], r[1], r[2])}
        files = {**VOCAB_FILES, **{name: columns for name, columns in OPTIONAL_VOCAB_FILES.items()
                                   if (folder / f"{name}.tsv").is_file()}}
        rows = {name: _read_tsv(folder / f"{name}.tsv", columns) for name, columns in files.items()}
        for name in ("values", "synonyms", "isa", "banned", "exclusive"):
            path = folder / f"{name}.tsv"
            if name == "isa":   # in bulk: one cycle check for the whole taxonomy (linear in its size)
                try:
                    vocab.add_isa_rows([(r[0], r[1], r[2]) for _, r in rows[name]])
                except IsaRowError as exc:
                    raise KariError(exc.error.message, file=str(path), line=rows[name][exc.index][0],
                                    code=exc.error.code) from None
                continue
            for line, row in rows.get(name, ()):
                try:
                    adders[name](row)
                except KariError as exc:
                    raise KariError(exc.message, file=str(path), line=line, code=exc.code) from None
        return vocab

    @classmethod
    def from_db(cls, con: DuckDBPyConnection) -> Vocabulary:
        """Read the vocabulary stored by :meth:`to_db` (table ``vocabulary``) from a DuckDB connection."""
        import duckdb

        try:
            rows = con.execute("SELECT kind, predicate, term, value, provenance FROM vocabulary").fetchall()
        except duckdb.Error as exc:        # another table than kari's: the database was changed by hand
            raise KariError(f"the table 'vocabulary' cannot be read as kari's: {exc}".splitlines()[0],
                            code="kb-damaged") from None
        vocab = cls()
        try:
            vocab._add_rows(sorted(rows, key=lambda r: _ROW_ORDER.get(r[0], 5)))
        except KariError as exc:
            if exc.code == "vocab-db":
                raise
            raise KariError(f"table 'vocabulary': {exc.message}", code="vocab-db") from None
        return vocab

    def _add_rows(self, rows: Iterable[tuple[Any, ...]]) -> None:
        """Add ``(kind, predicate, term, value, provenance)`` rows of the ``vocabulary`` table."""
        vocab = self
        rows = list(rows)
        for kind, predicate, term, value, provenance in rows:
            if kind == "value":
                vocab.add_value(predicate, term, provenance or "")
            elif kind == "synonym":
                vocab.add_synonym(predicate, term, value)
            elif kind == "isa":
                continue              # in bulk below: one cycle check for the whole taxonomy
            elif kind == "banned":
                vocab.add_banned(term, value)
            elif kind == "exclusive":
                vocab.add_exclusive(predicate, value, term)
            elif kind == PART_NOUN:
                vocab.add_part_noun(term)
            else:
                raise KariError(f"unknown vocabulary row kind {kind!r} in table 'vocabulary'", code="vocab-db")
        try:
            vocab.add_isa_rows([(predicate, term, value) for kind, predicate, term, value, _ in rows if kind == "isa"])
        except IsaRowError as exc:
            raise exc.error from None

    def to_db(self, con: DuckDBPyConnection) -> int:
        """Store the vocabulary in the DuckDB table ``vocabulary`` (kb/vocabulary.sql; its rows replaced, columns
        as :meth:`rows`) in one transaction; returns the number of rows."""
        from kari.io.transaction import transaction

        with transaction(con):
            return self.write_table(con)

    def write_table(self, con: DuckDBPyConnection) -> int:
        """Replace the rows of the DuckDB table ``vocabulary`` (created if missing) inside the caller's transaction,
        in one bulk insert; returns the number of rows."""
        rows = self.rows()
        con.execute(asset_path("kb", "vocabulary.sql").read_text(encoding="utf-8"))
        con.execute("DELETE FROM vocabulary")
        if rows:
            columns = [[r[name] for r in rows] for name in ("kind", "predicate", "term", "value", "provenance")]
            con.execute("INSERT INTO vocabulary (kind, predicate, term, value, provenance) "
                        "SELECT unnest($1), unnest($2), unnest($3), unnest($4), unnest($5)", columns)
        return len(rows)

    def copy(self) -> Vocabulary:
        """An independent copy: words later added to either one do not reach the other (caches start empty)."""
        return Vocabulary(_values={p: dict(v) for p, v in self._values.items()}, _synonyms=dict(self._synonyms),
                          _parents={k: set(v) for k, v in self._parents.items()}, _banned=dict(self._banned),
                          _has_child=set(self._has_child),
                          _exclusive=dict(self._exclusive), _part_nouns=set(self._part_nouns))

    def validate(self) -> list[str]:
        """Consistency problems: is-a cycles, synonyms that shadow a canonical value, banned canonical values,
        a value and its is-a ancestor in one exclusive group."""
        problems = []
        cycle = self._first_cycle(self._parents)
        if cycle is not None:
            problems.append(f"{cycle[0]}: is-a cycle through {' -> '.join(cycle[1])}")
        for (predicate, synonym), value in sorted(self._synonyms.items()):
            if synonym in self._values.get(predicate, {}) and synonym != value:
                problems.append(f"{predicate}: synonym {synonym!r} -> {value!r} shadows a canonical value")
        for predicate in PREDICATES:
            for value in sorted(self.values(predicate)):
                if value in self._banned:
                    problems.append(f"{predicate}: canonical value {value!r} is banned ({self._banned[value]})")
        for (predicate, value), group in sorted(self._exclusive.items()):
            for ancestor in sorted(self.ancestors(predicate, value) - {value}):
                if self._exclusive.get((predicate, ancestor)) == group:
                    problems.append(f"{predicate}: {value!r} is-a {ancestor!r}, both in exclusive group {group!r}")
        return problems

    # --- extension (loaders and the Auditor) --------------------------------------------------------------------
    def add_value(self, predicate: str, value: str, provenance: str = "") -> str:
        """Add a canonical value (normalised) and return it; a value already known keeps its provenance."""
        _check_predicate(predicate)
        canonical = normalise_term(value)
        if not canonical:
            raise KariError(f"empty {predicate} value {value!r}", code="vocab-value")
        known = self._values.setdefault(predicate, {})
        if canonical not in known:
            known[canonical] = provenance
            self._value_sets.pop(predicate, None)
            self._changed(predicate, canonical)
        return canonical

    def add_synonym(self, predicate: str, synonym: str, value: str) -> None:
        """Map ``synonym`` to the existing canonical ``value`` of ``predicate``."""
        canonical = normalise_term(value)
        if not self.has_value(predicate, canonical):
            raise KariError(f"synonym {synonym!r} points to unknown {predicate} value {value!r}", code="vocab-synonym")
        term = normalise_term(synonym)
        self._synonyms[(predicate, term)] = canonical
        self._changed(predicate, term)

    def add_isa(self, predicate: str, child: str, parent: str) -> None:
        """Declare ``child`` is-a ``parent`` (both must be values of ``predicate``). A link that would close an
        is-a cycle (``parent`` is already-a ``child``, or ``child`` is ``parent``) is refused."""
        for term in (child, parent):
            if not self.has_value(predicate, normalise_term(term)):
                raise KariError(f"is-a names unknown {predicate} value {term!r}", code="vocab-isa")
        low, high = normalise_term(child), normalise_term(parent)
        if high in self._parents.get((predicate, low), ()):
            return
        if self._closes_cycle(predicate, low, high):
            raise self._cycle_error(predicate, low, high)
        self._link(predicate, low, high)

    def _link(self, predicate: str, low: str, high: str) -> None:
        self._parents.setdefault((predicate, low), set()).add(high)
        self._has_child.add((predicate, high))
        self._ancestors.clear()
        self._memos.clear()

    def _closes_cycle(self, predicate: str, low: str, high: str) -> bool:
        """Would ``low`` is-a ``high`` close a cycle (``low`` already an ancestor of ``high``)? A value nothing
        is-a, or a parent that is-a nothing, closes none: O(1) for a taxonomy read child after parent or parent
        after child; otherwise a walk up from ``high``."""
        if low == high:
            return True
        if (predicate, low) not in self._has_child or not self._parents.get((predicate, high)):
            return False
        return self._isa_path(predicate, high, low) is not None

    def _cycle_error(self, predicate: str, low: str, high: str) -> KariError:
        path = [low, *(self._isa_path(predicate, high, low) or [high])]
        cycle = " -> ".join(path if len(path) <= 12 else [*path[:6], f"... ({len(path) - 12} more)", *path[-6:]])
        return KariError(f"{predicate}: is-a {low} -> {high} would close a cycle ({cycle})", code="vocab-isa-cycle")

    def add_isa_rows(self, rows: list[tuple[str, str, str]]) -> None:
        """:meth:`add_isa` for many ``(predicate, child, parent)`` rows at once, in time linear in the
        taxonomy: the links are made first and the whole graph is checked for a cycle once. A bad row raises
        :class:`IsaRowError` with its index (the first row, in order, that names an unknown value or closes a
        cycle); nothing of the rows is then kept."""
        normal: list[tuple[str, str, str]] = []
        for index, (predicate, child, parent) in enumerate(rows):
            for term in (child, parent):
                if not self.has_value(predicate, normalise_term(term)):
                    raise IsaRowError(index, KariError(f"is-a names unknown {predicate} value {term!r}",
                                                       code="vocab-isa"))
            normal.append((predicate, normalise_term(child), normalise_term(parent)))
        graph = {key: set(parents) for key, parents in self._parents.items()}
        for predicate, low, high in normal:
            graph.setdefault((predicate, low), set()).add(high)
        if any(low == high for _, low, high in normal) or self._first_cycle(graph) is not None:
            index = self._first_cycle_row(normal)
            kept = ({k: set(v) for k, v in self._parents.items()}, set(self._has_child))
            for before in normal[:index]:       # the rows before it, to name the cycle it closes
                self._link(*before)
            error = self._cycle_error(*normal[index])
            self._parents, self._has_child = kept
            self._ancestors.clear()
            raise IsaRowError(index, error)
        self._parents = graph
        self._has_child.update((predicate, high) for predicate, _, high in normal)
        self._ancestors.clear()
        self._memos.clear()

    def _first_cycle_row(self, rows: list[tuple[str, str, str]]) -> int:
        """The index of the first row whose link, after the rows before it, closes a cycle (a binary search
        over prefixes, each checked in linear time)."""
        def cyclic(count: int) -> bool:
            graph = {key: set(parents) for key, parents in self._parents.items()}
            for predicate, low, high in rows[:count]:
                if low == high:
                    return True
                graph.setdefault((predicate, low), set()).add(high)
            return self._first_cycle(graph) is not None

        low, high = 1, len(rows)          # cyclic(high) holds, cyclic(0) does not
        while low < high:
            middle = (low + high) // 2
            if cyclic(middle):
                high = middle
            else:
                low = middle + 1
        return low - 1

    @staticmethod
    def _first_cycle(graph: dict[tuple[str, str], set[str]]) -> tuple[str, list[str]] | None:
        """A cycle of the is-a ``graph`` ((predicate, child) -> parents) as (predicate, the values on it), or
        None: one iterative depth-first walk over every value (linear in the graph)."""
        state: dict[tuple[str, str], int] = {}         # 1: on the walk's path, 2: done
        for start in sorted(graph):
            if start in state:
                continue
            predicate = start[0]
            path = [start[1]]
            stack = [(start, iter(sorted(graph.get(start, ()))))]
            state[start] = 1
            while stack:
                node, parents = stack[-1]
                step = next(parents, None)
                if step is None:
                    state[node] = 2
                    stack.pop()
                    path.pop()
                    continue
                key = (predicate, step)
                if state.get(key) == 1:
                    return predicate, [*path[path.index(step):], step]
                if key not in state:
                    state[key] = 1
                    path.append(step)
                    stack.append((key, iter(sorted(graph.get(key, ())))))
        return None

    def _isa_path(self, predicate: str, start: str, goal: str) -> list[str] | None:
        """The is-a chain from ``start`` up to ``goal`` (both included), or None when ``goal`` is not an
        ancestor of ``start`` (a depth-first walk over the parents only: no cache is needed or changed)."""
        came_from: dict[str, str | None] = {start: None}
        stack = [start]
        while stack:
            current = stack.pop()
            if current == goal:
                path = [current]
                while (previous := came_from[path[-1]]) is not None:
                    path.append(previous)
                return path[::-1]
            for parent in self._parents.get((predicate, current), ()):
                if parent not in came_from:
                    came_from[parent] = current
                    stack.append(parent)
        return None

    def add_banned(self, term: str, kind: str) -> None:
        """Ban ``term`` as an atom value (``kind``: ``dynamic`` or ``affordance_adjective``)."""
        self._banned[normalise_term(term)] = kind
        self._memos.clear()         # lookups never read the banned terms

    def add_exclusive(self, predicate: str, group: str, value: str) -> None:
        """Declare ``value`` a member of the mutually exclusive ``group`` of ``predicate`` (an object is at most
        one of small / medium / large): a rule branch never requires two values of one group."""
        canonical = normalise_term(value)
        if not self.has_value(predicate, canonical):
            raise KariError(f"exclusive group {group!r} names unknown {predicate} value {value!r}",
                            code="vocab-exclusive")
        self._exclusive[(predicate, canonical)] = normalise_term(group)

    def add_part_noun(self, value: str) -> None:
        """Record that the SHAPE value ``value`` is a part's name (``opening``, ``cover``): a part noun is a shape,
        never the affordance verb it resembles (:func:`kari.rules.check_rule`, the Auditor)."""
        canonical = normalise_term(value)
        if not self.has_value(Predicate.SHAPE, canonical):
            raise KariError(f"part noun {value!r} is not a SHAPE value", code="vocab-part")
        self._part_nouns.add(canonical)

    def is_part_noun(self, predicate: str, value: str) -> bool:
        """Is ``predicate:value`` a SHAPE value read from a part's name?"""
        return predicate == Predicate.SHAPE and value in self._part_nouns

    def _changed(self, predicate: str, term: str) -> None:
        """``term`` became a value or synonym of ``predicate``: forget the cached lookups that can change (misses
        and word-form readings of the predicate, synonym readings of ``term``) and the closed object views.
        Each cached entry is forgotten at most once per change that concerns it: adding n words costs O(n)."""
        for key in self._fragile.pop(predicate, ()):
            self._lookups.pop(key, None)
        for key in self._by_term.pop((predicate, term), ()):
            self._lookups.pop(key, None)
        self._memos.clear()

    # --- reading words ------------------------------------------------------------------------------------------
    def lookup(self, predicate: str, raw: str, *, forms: bool = True) -> Resolution | None:
        """The known value ``raw`` denotes for ``predicate``: itself (``exact``), through the synonym table
        (``synonym``) or, with ``forms``, through a word form (``variant``: a plural, a British spelling, an
        adjective, a leading ``has_`` or a trailing ``_weight``...); None when no form is known. Adds nothing."""
        key = (predicate, raw, forms)
        if key in self._lookups:
            return self._lookups[key]
        term = normalise_term(raw)
        found = self._known(predicate, term)
        result: Resolution | None = None
        if found is not None:
            result = Resolution(found, "exact" if found == term else "synonym", raw)
        elif forms and term:
            for form in variants(term):
                found = self._known(predicate, form)
                if found is not None:
                    result = Resolution(found, "variant", raw)
                    break
        self._lookups[key] = result
        if result is None or result.how == "variant":
            self._fragile.setdefault(predicate, set()).add(key)
        elif result.how == "synonym":
            self._by_term.setdefault((predicate, term), set()).add(key)
        return result

    def _known(self, predicate: str, term: str) -> str | None:
        if term in self._values.get(predicate, {}):
            return term
        return self._synonyms.get((predicate, term))

    def normalise(self, predicate: str, raw: str) -> str | None:
        """The canonical value ``raw`` denotes for ``predicate`` (word forms included), or None when unknown."""
        found = self.lookup(predicate, raw)
        return None if found is None else found.value

    def canonicalise(self, predicate: str, raw: str, provenance: str = "") -> Resolution:
        """Read the raw word ``raw`` as a value of ``predicate``: a known value (:meth:`lookup`), ``banned``
        (value None), or else a NEW value in its :func:`~kari.vocab.morphology.lemma` form, added with
        ``provenance`` (file:line); a new compound whose last word is a known value is-a that value
        (``forged_iron`` is-a ``iron``). An unknown word is never an error."""
        _check_predicate(predicate)
        found = self.lookup(predicate, raw)
        if found is not None:
            return found
        term = normalise_term(raw)
        base = lemma(term) if term else term
        if not term or self.banned_reason(term) is not None or self.banned_reason(base) is not None:
            return Resolution(None, "banned", raw)
        value = self.add_value(predicate, base, provenance)
        self._link_head(predicate, value)
        return Resolution(value, "added", raw)

    def _link_head(self, predicate: str, value: str) -> None:
        """A compound value is-a its head word when that is a known value: forged_iron is-a iron."""
        head = value.rpartition("_")[2]
        if head and head != value and not self._parents.get((predicate, value)):
            known = self.lookup(predicate, head)
            parent = known.value if known is not None else None
            if parent is not None and parent != value and not self.is_a(predicate, parent, value):
                self.add_isa(predicate, value, parent)

    def link_compounds(self) -> None:
        """Link every added compound value without a parent to its head word (words added later, such as a
        part ``wheel`` after ``bicycle_wheel``, are linked too)."""
        for predicate, value, _ in self.added_values():
            self._link_head(predicate, value)

    # --- queries --------------------------------------------------------------------------------------------
    def values(self, predicate: str) -> frozenset[str]:
        """Canonical values of ``predicate`` (one set, built again only after a value was added)."""
        found = self._value_sets.get(predicate)
        if found is None:
            found = self._value_sets[predicate] = frozenset(self._values.get(predicate, {}))
        return found

    def has_value(self, predicate: str, value: str) -> bool:
        """Is ``value`` (as written) a canonical value of ``predicate``? (cheaper than ``value in values(p)``)"""
        return value in self._values.get(predicate, ())

    def provenance(self, predicate: str, value: str) -> str | None:
        return self._values.get(predicate, {}).get(value)

    def added_values(self) -> list[tuple[str, str, str]]:
        """Every ``(predicate, value, provenance)`` that did not come with the shipped files, sorted."""
        return sorted((p, v, prov) for p in PREDICATES for v, prov in self._values.get(p, {}).items() if prov != SHIPPED)

    def ancestors(self, predicate: str, value: str) -> frozenset[str]:
        """``value`` and every value it is-a (transitively), computed when asked. Only small sets are kept
        (:data:`KEPT_ANCESTORS`): a deep taxonomy (a 20,000-long chain) is never held as its closure."""
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
            cached = frozenset(seen)
            if len(cached) <= KEPT_ANCESTORS:
                self._ancestors[key] = cached
        return cached

    def is_a(self, predicate: str, value: str, ancestor: str) -> bool:
        """Is ``ancestor`` ``value`` or one of the values it is-a? Looked up, never a closure built: a value
        nothing is-a is no other value's ancestor; a walk up from ``value`` stops where it finds ``ancestor``."""
        if value == ancestor:
            return True
        if (predicate, ancestor) not in self._has_child:
            return False
        cached = self._ancestors.get((predicate, value))
        if cached is not None:
            return ancestor in cached
        seen = {value}
        stack = [value]
        while stack:
            for parent in self._parents.get((predicate, stack.pop()), ()):
                if parent == ancestor:
                    return True
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        return False

    def memo(self, name: str) -> dict[Any, Any]:
        """A cache for results derived from the vocabulary (e.g. closed object views), emptied by every change."""
        return self._memos.setdefault(name, {})

    def satisfies(self, predicate: str, fact_value: str, rule_value: str) -> bool:
        """Does a fact ``predicate:fact_value`` make the atom ``predicate:rule_value`` true?"""
        return self.is_a(predicate, fact_value, rule_value)

    def exclusive_group(self, predicate: str, value: str) -> str | None:
        """The exclusive group of ``value`` (e.g. ``size_class`` for ``small``), or None."""
        return self._exclusive.get((predicate, value))

    def exclusive_pairs(self) -> list[tuple[str, str, str]]:
        """Every ``(predicate, group, value)`` membership, sorted."""
        return sorted((p, g, v) for (p, v), g in self._exclusive.items())

    def isa_pairs(self) -> list[tuple[str, str, str]]:
        """Every direct (predicate, child, parent) edge, sorted."""
        return sorted((p, c, parent) for (p, c), parents in self._parents.items() for parent in parents)

    def synonym_pairs(self) -> list[tuple[str, str, str]]:
        return sorted((p, s, v) for (p, s), v in self._synonyms.items())

    def predicates_of(self, value: str) -> frozenset[str]:
        """Predicates for which ``value`` is a canonical value or a synonym (word forms not tried)."""
        return frozenset(p for p in PREDICATES if self.lookup(p, value, forms=False) is not None)

    def banned_reason(self, value: str) -> str | None:
        """``'dynamic'`` or ``'affordance_adjective'`` when ``value`` may never be an atom value, else None."""
        return self._banned.get(normalise_term(value))

    def rows(self) -> list[dict[str, Any]]:
        """One row per value, synonym, is-a edge, banned term, exclusive membership and part noun (the ``vocabulary``
        table)."""
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
        out += [{"kind": "exclusive", "predicate": p, "term": v, "value": g, "provenance": "exclusive"}
                for p, g, v in self.exclusive_pairs()]
        out += [{"kind": PART_NOUN, "predicate": Predicate.SHAPE.value, "term": v, "value": v, "provenance": PART_NOUN}
                for v in sorted(self._part_nouns)]
        return out


def load_vocabulary(source: str | Path | None = None) -> Vocabulary:
    """The vocabulary from ``source``: None = the shipped TSV files, a folder of TSV files, or a DuckDB
    database file holding a ``vocabulary`` table (a KB database; the shipped files when it has none)."""
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
        con = connect(path, read_only=True)
    except duckdb.Error as exc:
        raise KariError(f"not a DuckDB database: {exc}".splitlines()[0], file=str(path), code="vocab-db") from None
    try:
        return db_vocabulary(con)
    except KariError as exc:
        if exc.file is None:
            raise KariError(exc.message, file=str(path), code=exc.code) from None
        raise
    finally:
        con.close()


def open_vocabulary(folder: str | Path | None = None, db: str | Path | None = None) -> Vocabulary:
    """The vocabulary a command works with: the one stored in the KB database ``db`` (the shipped one while it
    stores none), or a folder of TSV files, or the shipped files. Giving both is an error."""
    if folder is not None and db is not None:
        raise KariError("give either --vocab FOLDER or --db DATABASE, not both", code="vocab-source")
    if db is not None and not Path(db).is_file():
        raise KariError("KB database not found", file=str(db), code="missing-file")
    return load_vocabulary(db if db is not None else folder)


def db_vocabulary(con: DuckDBPyConnection) -> Vocabulary:
    """The vocabulary stored in a KB database connection, or the shipped one when it stores none yet."""
    exists = count(con, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'vocabulary'")
    rows = count(con, "SELECT count(*) FROM vocabulary") if exists else 0
    return Vocabulary.from_db(con) if rows else Vocabulary.load()


def vocabulary_digest(con: DuckDBPyConnection) -> str:
    """The fingerprint of the vocabulary a KB database connection stores (:func:`db_vocabulary` reads it): its
    rows as a set, provenance aside (``none`` when it has no vocabulary table)."""
    exists = count(con, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'vocabulary'")
    return query_digest(con, "SELECT kind, predicate, term, value FROM vocabulary") if exists else "none"


def vocabulary_fingerprint(folder: str | Path | None = None, db: str | Path | None = None) -> dict[str, Any]:
    """The content fingerprint (:mod:`kari.io.fingerprint`) of the vocabulary :func:`open_vocabulary` opens:
    the rows a KB database stores, or the files of a vocabulary folder (the shipped one by default)."""
    if db is not None:
        con = connect(Path(db), read_only=True)
        try:
            return table_input("the KB database's vocabulary", db, {"vocabulary": vocabulary_digest(con)})
        finally:
            con.close()
    names = [f"{name}.tsv" for name in (*VOCAB_FILES, *OPTIONAL_VOCAB_FILES)]
    if folder is None:
        return folder_input("the shipped vocabulary", asset_path("data", "vocabulary"), names)
    return folder_input("the vocabulary", folder, names)


def _check_predicate(predicate: str) -> None:
    if predicate not in PREDICATES:
        raise unknown("predicate", predicate, PREDICATES, code="vocab-predicate")


def _read_tsv(path: Path, columns: tuple[str, ...]) -> list[tuple[int, list[str]]]:
    """``(line, fields)`` of each row of a vocabulary TSV file after its header (a BOM is fine; ``#`` lines and
    blank lines are skipped); a wrong header or column count is an error naming FILE:LINE."""
    if not path.is_file():
        raise KariError("vocabulary file not found", file=str(path), code="missing-file")
    rows: list[tuple[int, list[str]]] = []
    header = True
    for number, text in iter_text_lines(path, "vocabulary file"):
        row = text.split("\t")
        if header:
            if tuple(row[: len(columns)]) != columns:
                raise KariError(f"expected header {' '.join(columns)}", file=str(path), line=number,
                                code="vocab-header")
            header = False
            continue
        if not text.strip() or row[0].startswith("#"):
            continue
        if len(row) < len(columns) - (1 if columns[-1] == "description" else 0):
            raise KariError(f"expected {len(columns)} columns, got {len(row)}", file=str(path), line=number,
                            code="vocab-columns")
        rows.append((number, row))
    if header:
        raise KariError(f"expected header {' '.join(columns)}", file=str(path), line=1, code="vocab-header")
    return rows
