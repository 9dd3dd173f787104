"""Tool choice as a solver query: rank a scene's (entity, part) pairs for the goal's affordance with clingo.

The query (``solver/creativity.lp``) takes each candidate part alone as an object, so the strict PART reading
(:func:`kari.domain.objects.evaluate_rule` with ``"strict"``) asks whether *that part* satisfies the affordance's
KARI rule; the entity as a whole is a second object, for the fallback when no part does by itself. Among the
usable candidates weak constraints prefer, in order: a part that satisfies the rule itself, the part its entity
binds, an accessible part, a safe part, the most typical use (the KB's normal use, then emergency level 5..1),
then a seeded tie-break. The answer is CreativityBench's (entity, part, how to use) plus the proof: the rule
branch, the part's attributes (raw text kept) that satisfy each of its atoms and the KB edge ids the branch was
induced from (its metadata's ``edges``); the how-to-use is built from
that proof, the part's state and KB affordances and the task (:mod:`kari.creativity.instructions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kari.creativity.instructions import how_to_use
from kari.creativity.model import Task
from kari.creativity.scene import Candidate, entity_object
from kari.domain.objects import object_view
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError
from kari.rules.ast import Atom, Rule
from kari.rules.printer import to_text
from kari.solver.compile import compile_rule
from kari.solver.control import number, solve
from kari.solver.facts import asp_fact, object_facts, taxonomy_facts

TIME_LIMIT = 10.0


@dataclass(frozen=True)
class Answer:
    """A solver's answer in CreativityBench's form, with how it was found."""

    entity: str
    part: str
    how_to_use: str
    affordance: str | None = None
    reading: str = "none"  # part | entity | none (no candidate satisfies the rule: no answer) | llm
    proof: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"gold_entity": self.entity, "gold_part": self.part, "how_to_use": self.how_to_use,
                "affordance": self.affordance, "reading": self.reading, "proof": self.proof, **self.extra}


def typicality(candidate: Candidate, affordance_words: set[str]) -> int:
    """The best typicality of the part's KB affordances that name the goal's affordance words (0: none)."""
    best = 0
    for aff in candidate.affordances:
        if affordance_words & set(aff.action.lower().replace("_", " ").split()):
            best = max(best, aff.typicality)
    return best


def program(candidates: Sequence[Candidate], rule: Rule, vocab: Vocabulary, affordance_words: set[str]) -> str:
    """The facts and compiled rule of one task for ``solver/creativity.lp``."""
    entities = list(dict.fromkeys(c.entity for c in candidates))
    wholes = [entity_object(e, [c for c in candidates if c.entity == e]) for e in entities]
    objects = [c.object for c in candidates] + wholes
    lines = [object_facts(objects, vocab), taxonomy_facts(vocab), *compile_rule(rule, 0, "strict"), asp_fact("goal", 0)]
    n = len(candidates)
    index = {e: i for i, e in enumerate(entities)}
    for o, cand in enumerate(candidates):
        lines.append(f"{asp_fact('cand', o, index[cand.entity])} {asp_fact('order', o, cand.order)}")
        if cand.state.accessible is False:
            lines.append(asp_fact("inaccessible", o))
        if cand.state.safe is False:
            lines.append(asp_fact("unsafe", o))
        level = typicality(cand, affordance_words)
        if level:
            lines.append(asp_fact("typicality", o, level))
    lines += [asp_fact("whole", i, n + i) for i in range(len(entities))]
    return "\n".join(lines)


def choose(candidates: Sequence[Candidate], rule: Rule, vocab: Vocabulary, affordance_words: set[str],
           time_limit: float = TIME_LIMIT) -> tuple[int | None, str, int | None]:
    """``(candidate index, reading, branch)`` of the best candidate; ``(None, "none", None)`` when none is usable."""
    if not candidates:
        return None, "none", None
    outcome = solve([program(candidates, rule, vocab, affordance_words)], ["facts.lp", "creativity.lp"],
                    time_limit=time_limit, what="creativity query")
    if outcome.timed_out:
        raise KariError(f"the creativity query did not finish in {time_limit:g} s", code="solver-timeout")
    chosen = next((a[1] for a in outcome.atoms if a[0] == "choose"), None)
    if chosen is None:
        return None, "none", None
    part_branch = next((a[2] for a in outcome.atoms if a[0] == "part_branch"), None)
    if part_branch is not None:
        return number(chosen), "part", number(part_branch)
    entity_branch = next((a[2] for a in outcome.atoms if a[0] == "entity_branch"), None)
    return number(chosen), "entity", None if entity_branch is None else number(entity_branch)


def proof(candidate: Candidate, rule: Rule, branch: int, vocab: Vocabulary, reading: str,
          entity_candidates: Sequence[Candidate] = ()) -> dict[str, Any]:
    """The rule branch and, for each of its atoms, the part's attribute that makes it true."""
    body = rule.branches()[branch]
    facts = [(c, r) for c in (entity_candidates or [candidate]) for r in c.readings]
    shapes = {c.part: c for c in (entity_candidates or [candidate])}
    support = []
    for atom in dict.fromkeys(body.atoms()):
        support.append(_support(atom, facts, shapes, vocab))
    return {"reading": reading, "rule": rule.affordance, "branch": branch, "branch_text": to_text(body),
            "attributes": support, "edges": branch_edges(rule, branch)}


def branch_edges(rule: Rule, branch: int) -> list[str]:
    """The KB edge ids behind ``branch`` of ``rule`` (``kari induce --db`` writes them in the branch's metadata:
    for a CreativityBench KB ``cb:SCENARIO+ENTITY/PART#affordanceN[/attributeM]`` and ``...#ATTRIBUTE``); empty
    for a rule without them."""
    meta = rule.branch_metadata[branch] if branch < len(rule.branch_metadata) else {}
    return [str(e) for e in meta.get("edges") or ()]


def _support(atom: Atom, facts: list[tuple[Candidate, Any]], shapes: dict[str, Candidate],
             vocab: Vocabulary) -> dict[str, Any]:
    for cand, reading in facts:
        if reading.predicate == atom.predicate and vocab.satisfies(atom.predicate, reading.value, atom.value):
            return {"atom": f"{atom.predicate}:{atom.value}", "part": cand.part, "attribute": reading.attribute,
                    "value": reading.value, "raw": reading.raw, "how": reading.how}
    for part, cand in shapes.items():  # a part's name is a SHAPE fact of that part
        if atom.predicate == "SHAPE" and (atom.predicate, atom.value) in object_view(cand.object, vocab).parts[part]:
            return {"atom": f"{atom.predicate}:{atom.value}", "part": part, "attribute": "part name",
                    "value": atom.value, "raw": part, "how": "part"}
    return {"atom": f"{atom.predicate}:{atom.value}", "part": None, "attribute": None, "value": None, "raw": None,
            "how": "unsupported"}


class SymbolicSolver:
    """Answers tasks from their candidates and the affordance rules (canonical, by affordance id)."""

    name = "symbolic"

    def __init__(self, rules: Sequence[Rule], vocab: Vocabulary, time_limit: float = TIME_LIMIT) -> None:
        self.rules = {r.affordance: r for r in rules}
        self.vocab = vocab
        self.time_limit = time_limit

    def answer(self, task: Task, candidates: Sequence[Candidate], affordance: str | None,
               temperature: float = 0.0) -> Answer:
        """The best candidate of ``task`` for ``affordance``'s rule (``temperature`` is ignored: the solver is
        deterministic)."""
        rule = self.rules.get(affordance) if affordance else None
        if rule is None or affordance is None:
            return Answer("", "", "", affordance, "none", None, {"reason": "no rule for the goal's affordance"})
        words = set(affordance.replace("_", " ").split())
        index, reading, branch = choose(candidates, rule, self.vocab, words, self.time_limit)
        if index is None:
            return Answer("", "", "", affordance, "none", None,
                          {"reason": "no candidate part or entity satisfies the rule"})
        chosen = candidates[index]
        siblings = [c for c in candidates if c.entity == chosen.entity] if reading == "entity" else []
        made = proof(chosen, rule, branch, self.vocab, reading, siblings) if branch is not None else None
        return Answer(chosen.entity, chosen.part, how_to_use(chosen, task, affordance, made), affordance, reading,
                      made)


