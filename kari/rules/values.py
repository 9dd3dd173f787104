"""The values a rule brings with it: what a rules file needs to be read outside the database it was induced in.

A KB database's vocabulary grows with the KB's words (``kari kb load``), a benchmark's and the Auditor's: a
part ``fur`` becomes a SHAPE value there although the shipped vocabulary knows ``fur`` only as a material. A rule
induced in that database (``SHAPE:fur``) would be refused elsewhere as ill-typed. So ``kari induce`` records in
each rule's metadata (``values``, kept in the ``.jsonl`` twin of a ``.kari`` file; docs/formats.md) every atom
value the shipped vocabulary does not hold for its predicate, and every part noun, with its provenance.
Reading the rule (:func:`kari.domain.canon.canonical_rule`, :func:`kari.rules.check_file`) applies the record to
the vocabulary the rule is read into (a copy per file for ``rules check``; never the shipped files): the value
is a value of its predicate, and a part noun a shape.

>>> from kari.vocab.vocabulary import Vocabulary
>>> from kari.rules.ast import Atom, Rule
>>> home = Vocabulary.load()
>>> _ = home.add_value("SHAPE", "fur", "kb.tsv:7"); home.add_part_noun("fur")
>>> [v.to_json() for v in introduced_values(Rule("stroke", Atom("SHAPE", "fur")), home)]
[{'predicate': 'SHAPE', 'value': 'fur', 'provenance': 'kb.tsv:7', 'part': True}]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kari.core.terms import PREDICATES, normalise_term
from kari.vocab.vocabulary import SHIPPED, Vocabulary
from kari.errors import KariError
from kari.rules.ast import Rule

VALUES_KEY = "values"
"""The rule metadata key of the recorded values."""

MEND = ("a rules file induced in a KB database reads that database's vocabulary: give it as --db, or keep the "
        ".jsonl that kari induce wrote beside the rules (it records the values the rules introduced)")
"""What to do about a value another predicate holds, said where a rule is refused for it."""


def induced_by_kari(rule: Rule) -> bool:
    """Was ``rule`` written by ``kari induce`` (its metadata, or the comment it writes above a ``.kari`` rule)?
    Only such a rule is told the mend for a value its database reads otherwise (:data:`MEND`)."""
    meta = rule.metadata or {}
    return any(k in meta for k in ("run", "backend", VALUES_KEY)) or any(
        str(c).startswith("induced by kari induce") for c in meta.get("comments") or ())


@dataclass(frozen=True)
class RuleValue:
    """A value a rule uses that the shipped vocabulary does not hold for its predicate, or a part noun."""

    predicate: str
    value: str
    provenance: str = ""
    part: bool = False  # a SHAPE value read from a part's name

    def to_json(self) -> dict[str, Any]:
        return {"predicate": self.predicate, "value": self.value, "provenance": self.provenance, "part": self.part}


def introduced_values(rule: Rule, vocab: Vocabulary) -> list[RuleValue]:
    """The atom values of ``rule`` that ``vocab`` (the one it was induced in) did not get from the shipped files,
    and its part nouns, each once, in atom order."""
    out: dict[tuple[str, str], RuleValue] = {}
    for atom in rule.atoms():
        key = (atom.predicate, atom.value)
        if key in out or not vocab.has_value(*key):
            continue
        provenance = vocab.provenance(*key) or ""
        part = vocab.is_part_noun(*key)
        if provenance != SHIPPED or part:
            out[key] = RuleValue(atom.predicate, atom.value, "" if provenance == SHIPPED else provenance, part)
    return list(out.values())


def with_values(rule: Rule, vocab: Vocabulary) -> Rule:
    """``rule`` with its :func:`introduced_values` in its metadata (none: the metadata as it was)."""
    values = introduced_values(rule, vocab)
    if not values:
        return rule
    return Rule(rule.affordance, rule.body, {**rule.metadata, VALUES_KEY: [v.to_json() for v in values]},
                rule.branch_metadata)


def recorded_values(rule: Rule) -> dict[tuple[str, str], RuleValue]:
    """The values recorded in ``rule``'s metadata by ``(PREDICATE, value)``; a malformed record is an error
    naming the rule."""
    raw = (rule.metadata or {}).get(VALUES_KEY)
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise rule.error(f"metadata {VALUES_KEY!r} must be a list of objects", "rule-values")
    out: dict[tuple[str, str], RuleValue] = {}
    for item in raw:
        if not (isinstance(item, Mapping) and isinstance(item.get("predicate"), str)
                and isinstance(item.get("value"), str) and item["predicate"] in PREDICATES
                and normalise_term(item["value"]) == item["value"] and item["value"]):
            raise rule.error(f"metadata {VALUES_KEY!r}: each entry needs a predicate of {', '.join(PREDICATES)} and "
                             f"a snake_case value, got {item!r}", "rule-values")
        value = RuleValue(item["predicate"], item["value"], str(item.get("provenance") or ""),
                          bool(item.get("part")))
        out[(value.predicate, value.value)] = value
    return out


def apply_value(vocab: Vocabulary, value: RuleValue, source: str) -> str:
    """Make ``value`` a value of its predicate in ``vocab`` (added with its provenance, or ``source``, when the
    vocabulary does not read it as one already) and mark a part noun; returns the canonical value."""
    found = vocab.lookup(value.predicate, value.value)
    canonical = found.value if found is not None and found.value is not None else \
        vocab.add_value(value.predicate, value.value, value.provenance or source)
    if value.part and value.predicate == "SHAPE":
        vocab.add_part_noun(canonical)
    return canonical


def vocabulary_for(rules: Iterable[Rule], vocab: Vocabulary) -> Vocabulary:
    """A copy of ``vocab`` with the values every rule of one file records applied (``vocab`` itself is left as
    it is): what ``kari rules check`` checks that file against."""
    recorded = [(rule, value) for rule in rules for value in recorded_values(rule).values()]
    if not recorded:
        return vocab
    copy = vocab.copy()
    for rule, value in recorded:
        try:
            apply_value(copy, value, f"rule {rule.affordance}")
        except KariError as exc:
            raise rule.error(f"metadata {VALUES_KEY!r}: {exc.message}", "rule-values") from None
    return copy
