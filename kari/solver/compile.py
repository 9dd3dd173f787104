"""Compile KARI rules to ASP: one ``branch/4`` rule body per OR branch (per disjunct of a nested OR).

Each top-level OR branch is put in disjunctive normal form; every disjunct becomes one ASP rule
``branch(R,B,O,W) :- ...`` whose atoms are ``prop(O,Part,pred,"value")`` literals over ``solver/facts.lp``.

* ``strict``: a PART variable becomes an ASP variable ranging over the object's real parts (``part(O,X)``);
  all PART variables bound together in one disjunct name pairwise distinct parts; atoms on ``whole`` read the
  whole-object union.  ``W`` is the part bound to the disjunct's first PART variable (pre-order).
* ``any-part`` (the paper's Validator): every atom reads the whole-object union, PART is transparent and
  ``W`` is ``#sup`` (no single part witnesses the branch).

The is-a taxonomy lives in the facts (``MADE_OF:metal`` holds of steel), so rules need no expansion.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from kari.domain.canon import canonical_rules
from kari.domain.objects import check_semantics
from kari.core.terms import WHOLE, Semantics
from kari.vocab.vocabulary import Vocabulary
from kari.rules.ast import And, Atom, Node, Or, Part, Rule
from kari.solver.facts import ASP_PREDICATE, asp_fact, asp_string, taxonomy_facts

MAX_DISJUNCTS = 256
"""A branch whose normal form has more disjuncts than this is rejected (grounding stays bounded)."""


@dataclass(frozen=True, slots=True)
class Disjunct:
    """One conjunction of a branch's normal form: PART variables in binding order and ``(role, pred, value)``."""

    variables: tuple[str, ...]
    atoms: tuple[tuple[str, str, str], ...]


def branch_disjuncts(rule: Rule, branch: Node, semantics: str) -> list[Disjunct]:
    """The normal form of one branch; PART variables renamed ``X1, X2, ...`` so each is bound once."""
    counter = iter(range(1, 1 << 30))

    def dnf(node: Node, scope: dict[str, str]) -> list[Disjunct]:
        if isinstance(node, Atom):
            if node.role == WHOLE or semantics == Semantics.ANY_PART:
                if node.role != WHOLE and node.role not in scope:
                    raise rule.error(f"atom {node.key} uses undeclared PART variable {node.role!r}", "free-variable")
                return [Disjunct((), ((WHOLE, node.predicate, node.value),))]
            if node.role not in scope:
                raise rule.error(f"atom {node.key} uses undeclared PART variable {node.role!r}", "free-variable")
            return [Disjunct((), ((scope[node.role], node.predicate, node.value),))]
        if isinstance(node, Part):
            if semantics == Semantics.ANY_PART:
                return dnf(node.body, {**scope, node.var: WHOLE})
            var = f"X{next(counter)}"
            return [Disjunct((var, *d.variables), d.atoms) for d in dnf(node.body, {**scope, node.var: var})]
        if isinstance(node, Or):
            return [d for arg in node.args for d in dnf(arg, scope)]
        out = [Disjunct((), ())]
        for arg in node.args:  # And: the product of the arguments' normal forms, in order
            out = [Disjunct(a.variables + b.variables, a.atoms + b.atoms) for a, b in product(out, dnf(arg, scope))]
            if len(out) > MAX_DISJUNCTS:
                raise rule.error(f"a branch expands to more than {MAX_DISJUNCTS} conjunctions", "rule-too-large")
        return out

    result = dnf(branch, {})
    if len(result) > MAX_DISJUNCTS:
        raise rule.error(f"a branch expands to more than {MAX_DISJUNCTS} conjunctions", "rule-too-large")
    return result


def _body(d: Disjunct) -> str:
    literals = [f"prop(O,{asp_string('whole') if role == WHOLE else role},{ASP_PREDICATE[p]},{asp_string(v)})"
                for role, p, v in dict.fromkeys(d.atoms)]
    literals += [f"part(O,{var})" for var in d.variables]
    literals += [f"{a}!={b}" for a, b in combinations(d.variables, 2)]
    return ", ".join(literals) if literals else "obj(O)"


def compile_rule(rule: Rule, number: int, semantics: str) -> list[str]:
    """ASP lines for one (already normalised) rule, numbered ``number``."""
    lines = [f"% rule {number}: {rule.affordance}"]
    for b, branch in enumerate(rule.branches()):
        for d in branch_disjuncts(rule, branch, semantics):
            witness = d.variables[0] if d.variables else "#sup"
            lines.append(f"branch({number},{b},O,{witness}) :- {_body(d)}.")
    return lines


def compile_rule_batch(rules: Sequence[Rule], numbers: Iterable[int], semantics: str) -> str:
    """The rule part of a coverage program for normalised rules."""
    return "\n".join(line for rule, n in zip(rules, numbers) for line in compile_rule(rule, n, semantics))


def compile_rules(rules: Sequence[Rule], vocab: Vocabulary, semantics: str = Semantics.ANY_PART) -> str:
    """The ASP program of ``rules`` (``kari rules compile``): taxonomy facts and one rule body per branch.

    Run it with the fixed encodings and object facts:
    ``python -m clingo solver/facts.lp solver/coverage.lp PROGRAM OBJECT_FACTS``.
    """
    check_semantics(semantics)
    normalised = canonical_rules(rules, vocab)
    header = [f"% kari compiled rules ({len(rules)}), semantics: {semantics}",
              "% run with: python -m clingo solver/facts.lp solver/coverage.lp THIS_FILE OBJECT_FACTS",
              "% vocabulary is-a taxonomy"]
    rule_facts = [asp_fact("rule", n, r.affordance) for n, r in enumerate(normalised)]
    return "\n".join([*header, taxonomy_facts(vocab), *rule_facts,
                      compile_rule_batch(normalised, range(len(normalised)), semantics)]) + "\n"


def disjunct_count(rule: Rule, semantics: str) -> int:
    """Number of ASP rule bodies the rule compiles to (the batch size unit)."""
    return sum(len(branch_disjuncts(rule, b, semantics)) for b in rule.branches())
