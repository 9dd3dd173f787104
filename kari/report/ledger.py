"""The KB-gap ledger: the facts a KB could state to decide games, a to-do list for KB curation (method.md 4).

A game (hidden object o, target affordance t) is **covered by its rule** when a rule matched to t covers o
(the per-game ``target_rule_covers_object`` fact). For a game whose matched rule does not cover o, a **gap** is
one missing fact ``(part, PREDICATE, value)`` such that

* the object states nothing for that predicate where the atom is read (the whole object under ``any-part``,
  any of its parts or the whole; the bound part under ``strict``): the atom's proof says ``unknown``, reason
  ``nothing-stated`` (:mod:`kari.explain.proof`). An object that states another value of the predicate (another
  material, another shape, a part whose name is a shape) makes the atom *false*, never a gap;
* ``PREDICATE:value`` is an atom of a matched rule (the fact is the atom's own value, the weakest fact that makes
  it true; stating a value below it in the taxonomy does the same); and
* stating that one fact makes a matched rule cover o: the rule's verdict for the target flips from not covered
  to covered. The fact **decides** the game.

The check is exact: the fact is added to the object and the rule is evaluated again with the evaluator the
games, the solver's property test and the proofs agree with (:func:`kari.domain.objects.evaluate_rule`); the
branch that then holds is recorded. Each game gets a status: ``covered`` (the rule covers o already),
``no-rule`` (t has no matched rule: a rule gap, not a KB gap), ``one-fact`` (some single gap decides it: the
*games decidable*), ``more-facts`` (no single fact does, but stating every unknown atom of the rules together
would), ``blocked`` (no set of unknown facts can: every branch has an atom the object contradicts, or under
``strict`` the object has no part to bind). Rules never negate, so stating facts can only make more branches
hold, and ``more-facts`` / ``blocked`` are exact too.

The ledger has one row per (target, rule, object, part, predicate, value) that decides at least one game,
ranked by the number of games it decides (ties: by the games its rule atom decides over all objects), and the
same gaps grouped by rule atom. :mod:`kari.report.ledger_store` writes it (DuckDB tables ``kb_gaps``
and ``kb_gap_games`` of ``kb/ledger.sql``, CSV or JSONL) and reads its games from a coverage database or a run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from kari.core.benchmark import ObjectRecord, Property
from kari.domain.objects import base_facts, check_semantics, evaluate_rule, object_parts, object_view
from kari.core.terms import WHOLE, Semantics
from kari.io.escape import md_row
from kari.vocab.vocabulary import Vocabulary
from kari.rules.ast import Rule


class GameStatus:
    """What stating facts can do for one game (see the module docstring)."""

    COVERED = "covered"
    NO_RULE = "no-rule"
    ONE_FACT = "one-fact"
    MORE_FACTS = "more-facts"
    BLOCKED = "blocked"
    ALL = (COVERED, ONE_FACT, MORE_FACTS, BLOCKED, NO_RULE)


@dataclass(frozen=True)
class GameRules:
    """One game with the rules matched to its target (canonical, best first; empty when none matched)."""

    game: str
    object: str
    target: str
    rules: tuple[Rule, ...]


@dataclass(frozen=True, order=True)
class Fact:
    """A fact a KB could state: ``predicate:value`` of ``part`` ('whole' or a part name) of an object."""

    part: str
    predicate: str
    value: str

    @property
    def atom(self) -> str:
        return f"{self.predicate}:{self.value}"


@dataclass(frozen=True)
class Decision:
    """A fact that decides a game: the rule that then covers the object and the branch that then holds."""

    fact: Fact
    rule: str
    branch: int


@dataclass(frozen=True)
class GameGaps:
    """One game's status and the single facts that decide it (empty unless ``one-fact``)."""

    game: str
    object: str
    target: str
    rule: str | None  # the target's best matched rule
    status: str
    decisions: tuple[Decision, ...] = ()
    unknown: int = 0  # distinct unknown facts its rules ask of the object (strict: per part); 0 if covered/no rule


@dataclass(frozen=True)
class LedgerRow:
    """One gap: a fact of one object that decides ``games`` games of one target through one rule."""

    rank: int
    target: str
    rule: str
    object: str
    part: str
    predicate: str
    value: str
    games: int
    branch: int  # the branch of ``rule`` that holds once the fact is stated (the lowest)
    game_ids: tuple[str, ...]
    object_source: str = ""  # FILE:LINE of the object, where the fact would be stated

    @property
    def atom(self) -> str:
        return f"{self.predicate}:{self.value}"

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "game_ids": list(self.game_ids)}


@dataclass(frozen=True)
class AtomGaps:
    """One atom of one rule over the ledger: the objects it is missing on and the distinct games it decides."""

    rule: str
    predicate: str
    value: str
    objects: int
    games: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Ledger:
    """The ranked gaps, every game's status, the gaps grouped by rule atom and how the rules were read."""

    rows: tuple[LedgerRow, ...]
    games: tuple[GameGaps, ...]
    semantics: str = Semantics.ANY_PART
    atoms: tuple[AtomGaps, ...] = ()

    def status_counts(self) -> dict[str, int]:
        return {s: sum(1 for g in self.games if g.status == s) for s in GameStatus.ALL}

    def summary(self) -> dict[str, Any]:
        """The ledger's size: rows, distinct facts and atoms, objects, and the games by status."""
        counts = self.status_counts()
        return {"semantics": self.semantics, "rows": len(self.rows),
                "facts": len({(r.object, r.part, r.predicate, r.value) for r in self.rows}),
                "atoms": len({(r.predicate, r.value) for r in self.rows}),
                "objects": len({r.object for r in self.rows}), "targets": len({r.target for r in self.rows}),
                "games": len(self.games), "games_decidable": counts[GameStatus.ONE_FACT],
                "by_status": counts}

    def line(self) -> str:
        """The ledger's size in one sentence (``kari coverage --ledger`` and the pipeline print it)."""
        size = self.summary()
        return (f"KB-gap ledger: {size['rows']} gaps ({size['facts']} facts of {size['objects']} objects, "
                f"{size['atoms']} atoms) decide {size['games_decidable']} of {size['games']} games")

    def to_json(self, top: int | None = None) -> dict[str, Any]:
        """``summary`` and the first ``top`` rows (all when None): what ``report.json`` holds."""
        return {**self.summary(), "top": [r.to_json() for r in self.rows[:top]],
                "shown": min(len(self.rows), top) if top is not None else len(self.rows),
                "top_atoms": [a.to_json() for a in self.atoms[:top]]}


def unknown_facts(rule: Rule, obj: ObjectRecord, vocab: Vocabulary, semantics: str = Semantics.ANY_PART) -> list[Fact]:
    """The atoms of ``rule`` the object states nothing about, each as the fact that would make it true, in rule
    order: under ``any-part`` on the whole when no part states the predicate; under ``strict`` an atom of a PART
    variable on every part that states nothing of it (a whole-object atom as under ``any-part``)."""
    stated = base_facts(obj, vocab)
    anywhere = {predicate for _, predicate, _ in stated}
    on_part = {(part, predicate) for part, predicate, _ in stated}
    found: dict[Fact, None] = {}
    for atom in rule.atoms():
        if semantics == Semantics.ANY_PART or atom.role == WHOLE:
            if atom.predicate not in anywhere:
                found.setdefault(Fact(WHOLE, atom.predicate, atom.value))
        else:
            for part in object_parts(obj):
                if (part, atom.predicate) not in on_part:
                    found.setdefault(Fact(part, atom.predicate, atom.value))
    return list(found)


def with_facts(obj: ObjectRecord, facts: Iterable[Fact]) -> ObjectRecord:
    """``obj`` with ``facts`` stated as properties."""
    extra = tuple(Property(f.part, f.predicate, f.value) for f in facts)
    return replace(obj, properties=(*obj.properties, *extra))


def _first_cover(rules: Sequence[Rule], obj: ObjectRecord, vocab: Vocabulary, semantics: str) -> tuple[str, int] | None:
    view = object_view(obj, vocab)
    for rule in rules:
        covered, branch, _ = evaluate_rule(rule, view, semantics)
        if covered:
            return rule.affordance, int(branch or 0)
    return None


def game_gaps(game: GameRules, obj: ObjectRecord, vocab: Vocabulary, semantics: str = Semantics.ANY_PART) -> GameGaps:
    """The status of one game and the single facts that decide it (see the module docstring)."""
    best = game.rules[0].affordance if game.rules else None
    base = GameGaps(game.game, game.object, game.target, best, GameStatus.NO_RULE)
    if not game.rules:
        return base
    if _first_cover(game.rules, obj, vocab, semantics) is not None:
        return replace(base, status=GameStatus.COVERED)
    candidates = list(dict.fromkeys(f for rule in game.rules for f in unknown_facts(rule, obj, vocab, semantics)))
    decisions = []
    for fact in candidates:
        hit = _first_cover(game.rules, with_facts(obj, (fact,)), vocab, semantics)
        if hit is not None:
            decisions.append(Decision(fact, *hit))
    if decisions:
        status = GameStatus.ONE_FACT
    elif candidates and _first_cover(game.rules, with_facts(obj, candidates), vocab, semantics) is not None:
        status = GameStatus.MORE_FACTS
    else:
        status = GameStatus.BLOCKED
    return replace(base, status=status, decisions=tuple(decisions), unknown=len(candidates))


def kb_gap_ledger(games: Iterable[GameRules], objects: Mapping[str, ObjectRecord], vocab: Vocabulary,
                  semantics: str = Semantics.ANY_PART) -> Ledger:
    """The ledger of ``games`` (their objects in ``objects``, read into ``vocab``): every game's status, one row
    per deciding fact and the gaps grouped by rule atom. Rows rank by the games they decide, ties by the distinct
    games their rule atom decides over all objects (the atom worth stating most widely first), then by target,
    object, part, predicate, value; atoms rank by games, then objects. A game whose object is not in
    ``objects`` is an error of the caller (a :class:`KeyError`)."""
    check_semantics(semantics)
    per_game = [game_gaps(g, objects[g.object], vocab, semantics) for g in games]
    grouped: dict[tuple[str, str, str, Fact], list[tuple[str, int]]] = {}
    for gaps in per_game:
        for d in gaps.decisions:
            grouped.setdefault((gaps.target, d.rule, gaps.object, d.fact), []).append((gaps.game, d.branch))
    reach: dict[tuple[str, str, str], tuple[set[str], set[str]]] = {}
    for (_, rule, obj, fact), hits in grouped.items():
        seen_objects, seen_games = reach.setdefault((rule, fact.predicate, fact.value), (set(), set()))
        seen_objects.add(obj)
        seen_games.update(g for g, _ in hits)
    atoms = tuple(sorted((AtomGaps(*key, len(o), len(g)) for key, (o, g) in reach.items()),
                         key=lambda a: (-a.games, -a.objects, a.rule, a.predicate, a.value)))
    atom_games = {(a.rule, a.predicate, a.value): a.games for a in atoms}

    def order(item: tuple[tuple[str, str, str, Fact], list[tuple[str, int]]]) -> tuple[Any, ...]:
        (target, rule, obj, fact), hits = item
        return -len(hits), -atom_games[(rule, fact.predicate, fact.value)], target, obj, fact, rule

    rows = tuple(LedgerRow(rank, target, rule, obj, fact.part, fact.predicate, fact.value, len(hits),
                           min(b for _, b in hits), tuple(sorted(g for g, _ in hits)), objects[obj].source)
                 for rank, ((target, rule, obj, fact), hits) in enumerate(sorted(grouped.items(), key=order), 1))
    return Ledger(rows, tuple(per_game), semantics, atoms)


STATUS_TEXT = {
    GameStatus.COVERED: "the target's matched rule already covers the hidden object",
    GameStatus.ONE_FACT: "one missing fact (an unknown atom) would make the rule cover it: decidable",
    GameStatus.MORE_FACTS: "several missing facts together would, no single one",
    GameStatus.BLOCKED: "no missing fact can: every branch has an atom the object contradicts",
    GameStatus.NO_RULE: "the target has no matched rule (a rule gap, not a KB gap)",
}


def markdown_section(data: Mapping[str, Any] | None, note: str = "") -> list[str]:
    """The report's "KB-gap ledger" section from its ``report.json`` object (``Ledger.to_json``); ``note``
    says why there is none."""
    if data is None:
        return ["## KB-gap ledger", "", note] if note else []
    counts = data["by_status"]
    lines = ["## KB-gap ledger (facts the KB could state, ranked by games they decide)", "",
             f"{data['rows']} gaps ({data['facts']} distinct facts of {data['objects']} objects, {data['atoms']} "
             f"distinct atoms) decide {data['games_decidable']} of {data['games']} games "
             f"({data['semantics']} reading). A gap is a fact the KB does not state for the hidden object (the atom "
             "is unknown, not false: an object that states another value of the predicate is never a gap) and "
             "that alone makes the target's matched rule cover the hidden object.", "",
             "| games | status |", "|---:|---|"]
    lines += [f"| {counts.get(s, 0)} | {s}: {STATUS_TEXT[s]} |" for s in GameStatus.ALL]
    if data["top"]:
        lines += ["", f"Top {data['shown']} of {data['rows']} gaps:", "",
                  "| rank | target | rule | object | part | atom | games | branch |",
                  "|---:|---|---|---|---|---|---:|---:|"]
        lines += [md_row((r["rank"], r["target"], r["rule"], r["object"], r["part"], f"{r['predicate']}:{r['value']}",
                          r["games"], r["branch"])) for r in data["top"]]
    if data.get("top_atoms"):
        lines += ["", "The same gaps by rule atom (the objects it is missing on, the distinct games stating it would "
                      "decide):", "", "| rule | atom | objects | games |", "|---|---|---:|---:|"]
        lines += [md_row((a["rule"], f"{a['predicate']}:{a['value']}", a["objects"], a["games"]))
                  for a in data["top_atoms"]]
    if note:
        lines += ["", note]
    return lines
