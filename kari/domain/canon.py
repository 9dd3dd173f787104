"""Objects read into canonical values: one reading for benchmark and KB objects alike.

Every property value goes through :meth:`Vocabulary.canonicalise`: a known value, synonym or word form keeps
its canonical value with the word as written in ``Property.raw``; an unknown word becomes a new value of its
predicate (provenance: the object's FILE:LINE); a banned term (dynamic behaviour, an affordance adjective) is
kept in ``ObjectRecord.ignored`` and is never a fact. Every part name is read as a SHAPE value too (parts are
SHAPE facts: :func:`kari.domain.objects.part_shape`), so "does it have a handle?" has a canonical question; the
vocabulary records that value as a part noun (:meth:`Vocabulary.add_part_noun`).
Rules are read the same way (:func:`canonical_rule`). :class:`CanonReport` counts what happened, for
``kari bench validate`` and the command summaries.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from kari.core.benchmark import ObjectRecord, Property
from kari.core.terms import PREDICATES, WHOLE, Predicate, normalise_term
from kari.vocab.vocabulary import Vocabulary
from kari.rules.ast import Atom, Rule
from kari.rules.rewrite import map_atoms
from kari.rules.values import MEND, apply_value, induced_by_kari, recorded_values

HOWS = ("exact", "synonym", "variant", "added", "banned")
"""How a word was read (:class:`kari.vocab.vocabulary.Resolution`), in report order."""


@dataclass(frozen=True, slots=True)
class WordEvent:
    """One raw word read: where, as which predicate, into which value (None when banned) and how."""

    source: str
    object: str
    part: str
    predicate: str
    raw: str
    value: str | None
    how: str


@dataclass
class CanonReport:
    """Every word read while canonicalising a set of objects."""

    events: list[WordEvent] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """Occurrences per way of reading (exact, synonym, variant, added, banned)."""
        seen = Counter(e.how for e in self.events)
        return {how: seen[how] for how in HOWS}

    def distinct(self, how: str) -> list[tuple[str, str, str | None, str]]:
        """Distinct ``(predicate, raw, value, first source)`` read in the way ``how``, sorted."""
        first: dict[tuple[str, str, str | None], str] = {}
        for e in self.events:
            if e.how == how:
                first.setdefault((e.predicate, e.raw, e.value), e.source)
        return sorted((p, raw, value, src) for (p, raw, value), src in first.items())

    def summary(self) -> str:
        """One line: ``words: N exact, N synonym, N variant (mapped), N added, N banned``."""
        c = self.counts()
        return (f"{len(self.events)} words: {c['exact']} canonical, {c['synonym'] + c['variant']} mapped "
                f"({c['synonym']} synonyms, {c['variant']} word forms), {c['added']} added as new values, "
                f"{c['banned']} banned")


def canonical_object(obj: ObjectRecord, vocab: Vocabulary, report: CanonReport) -> ObjectRecord:
    """``obj`` with canonical values, its banned words moved to ``ignored``; ``vocab`` learns new words."""
    source = obj.source or obj.id
    kept: dict[Property, Property] = {}  # one per fact; a fact read from several words keeps every edge
    ignored: list[Property] = list(obj.ignored)
    for prop in obj.properties:
        if prop.predicate not in PREDICATES:  # not a kari predicate: never a fact (bench validate reports it)
            ignored.append(prop)
            continue
        raw = prop.raw or prop.value
        found = vocab.canonicalise(prop.predicate, raw, source)
        report.events.append(WordEvent(source, obj.id, prop.part, prop.predicate, raw, found.value, found.how))
        if found.value is None:
            ignored.append(replace(prop, raw=raw))
            continue
        fact = replace(prop, value=found.value, raw=None if raw == found.value else raw)
        first = kept.get(fact)
        if first is None:
            kept[fact] = fact
        elif fact.edges and not set(fact.edges) <= set(first.edges):
            kept[fact] = replace(first, edges=tuple(dict.fromkeys([*first.edges, *fact.edges])),
                                 inferred=first.inferred and fact.inferred)
    for part in dict.fromkeys((*obj.parts, *(p.part for p in obj.properties))):
        if part != WHOLE:
            found = vocab.canonicalise(Predicate.SHAPE, part, source)
            report.events.append(WordEvent(source, obj.id, part, Predicate.SHAPE, part, found.value, found.how))
            if found.value is not None:
                vocab.add_part_noun(found.value)
    return replace(obj, properties=tuple(kept.values()), ignored=tuple(ignored))


def canonical_objects(objects: Sequence[ObjectRecord], vocab: Vocabulary) -> tuple[list[ObjectRecord], CanonReport]:
    """Every object read into canonical values (in order), and the report of how."""
    report = CanonReport()
    canonical = [canonical_object(obj, vocab, report) for obj in objects]
    vocab.link_compounds()
    return canonical, report


def canonical_rule(rule: Rule, vocab: Vocabulary, report: CanonReport | None = None) -> Rule:
    """``rule`` with every atom value read through ``vocab`` like an object's words: a known value, synonym or
    word form becomes its canonical value; a word no predicate knows is added as a new value of the atom's
    predicate (provenance: the rule's FILE:LINE). A value the rule records as one of the vocabulary it was induced
    in (:mod:`kari.rules.values`) is made a value of its predicate first. A value only another predicate knows
    (``MADE_OF:cylindrical``), a banned term or an unknown predicate is an error naming the rule (an ill-typed
    value of a rule ``kari induce`` wrote names the mend: the KB database as ``--db``, or the ``.jsonl`` twin)."""
    source = rule.where()
    recorded = recorded_values(rule)

    def read(atom: Atom) -> Atom:
        if atom.predicate not in PREDICATES:
            raise rule.error(f"unknown predicate {atom.predicate!r} in {atom.key}", "unknown-predicate")
        if not normalise_term(atom.value):
            raise rule.error(f"{atom.key} names no value ({atom.value!r} has no letter or digit)", "empty-value")
        brought = recorded.get((atom.predicate, atom.value))
        if brought is not None:  # the rule says the vocabulary it was induced in holds this value
            apply_value(vocab, brought, source)
        found = vocab.lookup(atom.predicate, atom.value)
        if found is None:
            others = sorted(vocab.predicates_of(atom.value))
            if others:
                mend = f" here ({MEND})" if induced_by_kari(rule) else ""
                raise rule.error(f"{atom.key} is ill-typed: {atom.value!r} is a {' / '.join(others)} value{mend}",
                                 "ill-typed-value")
            found = vocab.canonicalise(atom.predicate, atom.value, source)
        value = found.value
        if value is None:
            raise rule.error(f"{atom.key}: {atom.value!r} is a banned term ({vocab.banned_reason(atom.value)}), "
                             "not a static physical property", "banned-value")
        if report is not None:
            report.events.append(WordEvent(source, rule.affordance, atom.role, atom.predicate, atom.value,
                                           value, found.how))
        return atom if value == atom.value else Atom(atom.predicate, value, atom.role)

    return replace(rule, body=map_atoms(rule.body, read))


def canonical_rules(rules: Sequence[Rule], vocab: Vocabulary, report: CanonReport | None = None) -> list[Rule]:
    """:func:`canonical_rule` of each rule, in order; then every compound value is linked to its head word as
    :func:`canonical_objects` does (a rule's new word ``zorbium`` makes an object's ``blue_zorbium`` is-a it), so
    the vocabulary is complete before any solver reads it: a second run over the stored vocabulary gives the
    same rows."""
    canonical = [canonical_rule(rule, vocab, report) for rule in rules]
    vocab.link_compounds()
    return canonical
