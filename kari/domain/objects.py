"""What "object o has PRED:value" means: the closed object view, the two readings of a rule, and answers.

Base facts (:func:`base_facts`): every property ``(part, PRED, value)`` of the object, plus one SHAPE fact per
real part, on that part: a part named ``blade`` gives ``SHAPE:bladed`` ("has a blade-like part", the
vocabulary's reading of the part name, :func:`part_shape`). The closed view (:func:`object_view`) adds every
is-a ancestor (``MADE_OF:steel`` gives ``MADE_OF:metal``); the *whole* of an object has the union of every
part's facts and the facts stated on ``whole``; a real part has its own facts only.

Readings of a rule (:func:`evaluate_rule`):

* ``any-part`` (the paper's Validator): every atom, under PART or not, holds if the whole object has the fact;
* ``strict``: a PART variable binds one real part (distinct variables bind distinct parts) and its atoms must
  all hold on that part; atoms on ``whole`` read the whole-object facts.

``solver/facts.lp`` states the same closure for clingo over the facts :mod:`kari.solver.facts` writes from
:func:`base_facts`; a property test keeps both readings equal.

>>> from kari.core.benchmark import ObjectRecord, Property
>>> from kari.vocab.vocabulary import Vocabulary
>>> v = Vocabulary.from_rows(values=[("MADE_OF", "steel"), ("MADE_OF", "metal"), ("SHAPE", "bladed")],
...                          isa=[("MADE_OF", "steel", "metal")])
>>> knife = ObjectRecord("knife", parts=("blade",), properties=(Property("blade", "MADE_OF", "steel"),))
>>> view = object_view(knife, v)
>>> ("MADE_OF", "metal") in view.whole, ("SHAPE", "bladed") in view.parts["blade"]
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import cast

from kari.core.benchmark import ObjectRecord
from kari.vocab.morphology import lemma
from kari.core.terms import PREDICATES, WHOLE, History, Predicate, Question, Semantics, normalise_term
from kari.vocab.vocabulary import Vocabulary
from kari.errors import choice
from kari.rules.ast import Atom, Node, Or, Part, Rule

Fact = tuple[str, str]
"""``(PREDICATE, value)``."""

SEMANTICS: tuple[str, ...] = tuple(Semantics)
"""The two readings of PART, by name (:class:`~kari.core.terms.Semantics`)."""


def check_semantics(semantics: str) -> str:
    """``semantics`` when it names a reading, else a :class:`KariError`."""
    return choice(semantics, Semantics, "semantics", code="semantics")


@dataclass(frozen=True, slots=True)
class ObjectView:
    """An object's facts with the taxonomy applied: the whole-object union and the facts of each real part."""

    id: str
    whole: frozenset[Fact]
    parts: dict[str, frozenset[Fact]]
    part_names: tuple[str, ...]


def object_parts(obj: ObjectRecord) -> tuple[str, ...]:
    """The object's real parts: its ``parts`` list, then parts only named by properties; never ``whole``."""
    seen: dict[str, None] = {}
    for name in (*obj.parts, *(p.part for p in obj.properties)):
        if name != WHOLE:
            seen.setdefault(name, None)
    return tuple(seen)


def part_shape(part: str, vocab: Vocabulary) -> str:
    """The SHAPE value a part name stands for: the vocabulary's reading (``blade`` -> ``bladed``,
    ``handles`` -> ``handled``), else the part name's lemma (``wheels`` -> ``wheel``)."""
    return vocab.normalise(Predicate.SHAPE, part) or lemma(normalise_term(part)) or normalise_term(part)


def base_facts(obj: ObjectRecord, vocab: Vocabulary) -> list[tuple[str, str, str]]:
    """The object's ``(part, PREDICATE, value)`` facts before the taxonomy: its properties (of the four
    predicates) and one ``(p, SHAPE, part_shape(p))`` per real part p."""
    facts = [(p.part, p.predicate, p.value) for p in obj.properties if p.predicate in PREDICATES]
    facts += [(name, Predicate.SHAPE.value, part_shape(name, vocab)) for name in object_parts(obj)]
    return list(dict.fromkeys(facts))


def object_view(obj: ObjectRecord, vocab: Vocabulary) -> ObjectView:
    """The closed view of ``obj``, memoised per vocabulary (emptied whenever the vocabulary changes): games ask
    for the same representatives' views on every turn."""
    by_identity = vocab.memo("object_view_by_identity")
    held = by_identity.get(id(obj))
    if held is not None and held[0] is obj:  # the entry holds obj, so its id cannot have been reused
        return cast(ObjectView, held[1])
    cache = vocab.memo("object_view")
    view = cache.get(obj)  # an equal object seen before (hashing a record walks all its properties)
    if view is None:
        view = cache[obj] = _close(obj, vocab)
    by_identity[id(obj)] = (obj, view)
    return view


def _close(obj: ObjectRecord, vocab: Vocabulary) -> ObjectView:
    names = object_parts(obj)
    per_part: dict[str, set[Fact]] = {name: set() for name in names}
    whole: set[Fact] = set()
    for part, predicate, value in base_facts(obj, vocab):
        closed = {(predicate, a) for a in vocab.ancestors(predicate, value)}
        whole |= closed
        if part != WHOLE:
            per_part[part] |= closed
    return ObjectView(obj.id, frozenset(whole), {k: frozenset(v) for k, v in per_part.items()}, names)


def has_property(obj: ObjectRecord, predicate: str, value: str, vocab: Vocabulary) -> bool:
    """Does the object have ``predicate:value`` on any part or the whole, with the taxonomy applied?

    The single truth of the KB Oracle, representatives' consistency and the offline Validator."""
    return (predicate, value) in object_view(obj, vocab).whole


# --- the two readings of a rule ---------------------------------------------------------------------------------

_Binding = tuple[dict[str, str], tuple[str, ...]]  # (PART variable -> part, parts bound so far in binding order)


def _strict(rule: Rule, node: Node, view: ObjectView, scope: dict[str, str], bound: tuple[str, ...]) -> Iterator[_Binding]:
    """Every way the strict reading makes ``node`` true, extending the bound parts."""
    if isinstance(node, Atom):
        fact = (node.predicate, node.value)
        if node.role == WHOLE:
            ok = fact in view.whole
        elif node.role in scope:
            ok = fact in view.parts[scope[node.role]]
        else:
            raise rule.error(f"atom {node.key} uses undeclared PART variable {node.role!r}", "free-variable")
        if ok:
            yield scope, bound
    elif isinstance(node, Part):
        for part in view.part_names:
            if part not in bound:
                for _, inner in _strict(rule, node.body, view, {**scope, node.var: part}, (*bound, part)):
                    yield scope, inner
    elif isinstance(node, Or):
        for arg in node.args:
            yield from _strict(rule, arg, view, scope, bound)
    else:
        yield from _strict_all(rule, node.args, view, scope, bound)


def _strict_all(rule: Rule, args: tuple[Node, ...], view: ObjectView, scope: dict[str, str],
                bound: tuple[str, ...]) -> Iterator[_Binding]:
    if not args:
        yield scope, bound
        return
    for next_scope, next_bound in _strict(rule, args[0], view, scope, bound):
        yield from _strict_all(rule, args[1:], view, next_scope, next_bound)


def check_roles(rule: Rule, node: Node | None = None, scope: frozenset[str] = frozenset()) -> None:
    """Raise a :class:`KariError` naming the rule when an atom's role is not declared by an enclosing PART."""
    node = rule.body if node is None else node
    if isinstance(node, Atom):
        if node.role != WHOLE and node.role not in scope:
            raise rule.error(f"atom {node.key} uses undeclared PART variable {node.role!r}", "free-variable")
    elif isinstance(node, Part):
        check_roles(rule, node.body, scope | {node.var})
    else:
        for arg in node.args:
            check_roles(rule, arg, scope)


def evaluate_rule(rule: Rule, view: ObjectView, semantics: str = Semantics.ANY_PART
                  ) -> tuple[bool, int | None, str | None]:
    """``(covered, branch, part)`` of a canonical rule on one object view: the lowest covering OR branch
    (0-based) and, under ``strict``, the smallest part bound to that branch's first PART variable."""
    if semantics == Semantics.ANY_PART:
        def holds(atom: Atom) -> bool:
            return (atom.predicate, atom.value) in view.whole
        for b, branch in enumerate(rule.branches()):
            if branch.evaluate(holds):
                return True, b, None
        return False, None, None
    for b, branch in enumerate(rule.branches()):
        witnesses = [bound[0] if bound else None for _, bound in _strict(rule, branch, view, {}, ())]
        if witnesses:
            parts = [w for w in witnesses if w is not None]
            return True, b, min(parts) if parts else None
    return False, None, None


def rule_holds(rule: Rule, obj: ObjectRecord, vocab: Vocabulary, semantics: str = Semantics.ANY_PART) -> bool:
    """Does the canonical ``rule`` cover ``obj`` under ``semantics``?"""
    return evaluate_rule(rule, object_view(obj, vocab), semantics)[0]


# --- what answers imply -----------------------------------------------------------------------------------------

def answered(question: Question | tuple[str, str], history: History | Mapping[Question, bool],
             vocab: Vocabulary) -> bool | None:
    """What the answers so far say about ``question`` through the taxonomy: "yes" to steel makes metal true,
    "no" to metal makes steel false; None when they say nothing (any-part reading, as the KB Oracle answers)."""
    predicate, value = question
    pairs = history.items() if isinstance(history, Mapping) else history
    for (asked_predicate, asked_value), answer in pairs:
        if asked_predicate != predicate:
            continue
        if answer and vocab.satisfies(predicate, asked_value, value):
            return True
        if not answer and vocab.satisfies(predicate, value, asked_value):
            return False
    return None


def rule_status(node: Node, history: History | Mapping[Question, bool], vocab: Vocabulary) -> bool | None:
    """Three-valued (Kleene) value of a rule body given the answers so far (any-part reading)."""
    return node.evaluate_partial(lambda atom: answered((atom.predicate, atom.value), history, vocab))
