"""The KB-gap ledger: a fact the KB does not state appears with the games it decides, a contradicted one never,
and stating the fact removes it and covers the game; checked on a hand-written benchmark and, for random rules
and objects, against a brute-force search over every fact a KB could add."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from solver_fixtures import VALUES, objects, rules, vocab

from kari.core.benchmark import ObjectRecord, Property
from kari.cli import run
from kari.domain.objects import rule_holds
from kari.explain.proof import explain
from kari.report.ledger import Fact, GameRules, GameStatus, kb_gap_ledger, with_facts
from kari.report.ledger_store import write_ledger

V = vocab()
AFFORDANCES = ("pierce", "contain", "bounce", "cut", "roll", "float", "burn", "wrap")
RULES_TEXT = "pierce := AND(SHAPE:pointed, MADE_OF:metal)\ncontain := AND(SHAPE:hollow, MADE_OF:fabric)\n"
OBJECTS = {
    "fork": ([], [("whole", "SHAPE", "pointed"), ("whole", "MADE_OF", "steel")]),  # covered
    "awl": ([], [("whole", "SHAPE", "pointed"), ("whole", "SIZE", "small")]),  # MADE_OF unknown: one fact
    "stake": ([], [("whole", "SHAPE", "pointed"), ("whole", "MADE_OF", "wood")]),  # wood, not metal: blocked
    "sack": ([], [("whole", "MADE_OF", "cotton")]),  # SHAPE unknown: one fact (cotton is-a fabric)
    "pebble": ([], [("whole", "SIZE", "small")]),  # SHAPE and MADE_OF unknown: two facts
    "jar": (["lid"], [("whole", "MADE_OF", "fabric")]),  # its part's name is a shape: SHAPE:hollow is false
    "ball": ([], [("whole", "SHAPE", "round")]),  # bounce has no rule
    "needle": ([], [("whole", "SHAPE", "pointed")]),  # MADE_OF unknown: one fact
}
GAMES = [("g1", "fork", "pierce"), ("g2", "awl", "pierce"), ("g3", "awl", "pierce"), ("g4", "stake", "pierce"),
         ("g5", "sack", "contain"), ("g6", "pebble", "contain"), ("g7", "jar", "contain"), ("g8", "ball", "bounce"),
         ("g9", "needle", "pierce")]


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def write_bench(root: Path, extra: dict[str, list[tuple[str, str, str]]] | None = None) -> Path:
    """The hand-written benchmark; ``extra``: facts to state on top (object -> facts)."""
    root.mkdir(parents=True, exist_ok=True)
    extra = extra or {}
    _jsonl(root / "objects.jsonl", [
        {"id": name, "description": name, "parts": parts,
         "properties": [{"part": p, "predicate": k, "value": v} for p, k, v in props + extra.get(name, [])]}
        for name, (parts, props) in OBJECTS.items()])
    _jsonl(root / "affordances.jsonl", [{"id": a, "description": f"can {a}"} for a in AFFORDANCES])
    positive = {(o, t) for _, o, t in GAMES}
    _jsonl(root / "labels.jsonl", [{"object": o, "affordance": a, "label": (o, a) in positive}
                                   for o in OBJECTS for a in AFFORDANCES])
    _jsonl(root / "games.jsonl", [{"id": g, "object": o, "target": t,
                                   "candidates": list(AFFORDANCES[i % 8:] + AFFORDANCES[:i % 8])}
                                  for i, (g, o, t) in enumerate(GAMES)])
    return root


def _coverage(tmp: Path, bench: Path, out: str = "gaps.csv") -> tuple[Path, Path]:
    rules = tmp / "rules.kari"
    rules.write_text(RULES_TEXT)
    db, ledger = tmp / "cov.duckdb", tmp / out
    assert run(["coverage", "--rules", str(rules), "--db", str(db), "--bench", str(bench), "--rule-match", "exact",
                "--ledger", str(ledger)]) == 0
    return db, ledger


def _status(db: Path) -> dict[str, str]:
    with duckdb.connect(str(db), read_only=True) as con:
        return dict(con.execute("SELECT game, status FROM kb_gap_games").fetchall())


def test_a_missing_fact_is_a_gap_with_its_games_and_a_contradicted_one_is_not(tmp_path):
    bench = write_bench(tmp_path / "bench")
    db, ledger = _coverage(tmp_path, bench)
    rows = list(csv.DictReader(ledger.open()))
    got = [(r["rank"], r["target"], r["object"], r["part"], r["predicate"], r["value"], r["games"]) for r in rows]
    assert got == [("1", "pierce", "awl", "whole", "MADE_OF", "metal", "2"),
                   ("2", "pierce", "needle", "whole", "MADE_OF", "metal", "1"),  # its atom decides 3 games in all
                   ("3", "contain", "sack", "whole", "SHAPE", "hollow", "1")]
    assert rows[0]["game_ids"] == "g2 g3" and rows[0]["branch"] == "0"
    assert rows[0]["object_source"].endswith("objects.jsonl:2")  # where the fact would be stated
    assert _status(db) == {"g1": "covered", "g2": "one-fact", "g3": "one-fact", "g4": "blocked", "g5": "one-fact",
                           "g6": "more-facts", "g7": "blocked", "g8": "no-rule", "g9": "one-fact"}
    with duckdb.connect(str(db), read_only=True) as con:
        view = con.execute("SELECT rule, predicate, value, objects, games FROM kb_gap_atoms").fetchall()
        assert view == [("pierce", "MADE_OF", "metal", 2, 3), ("contain", "SHAPE", "hollow", 1, 1)]
        assert con.execute("SELECT games FROM kb_gap_status WHERE status = 'one-fact'").fetchone() == (4,)
        assert con.execute("SELECT game_ids, semantics FROM kb_gaps WHERE rank = 1").fetchone() == (["g2", "g3"],
                                                                                                  "any-part")
    again = write_ledger(tmp_path / "rules.kari", db, bench)  # the library call behind --ledger
    assert [(a.rule, a.predicate, a.value, a.objects, a.games) for a in again.atoms] == view
    assert again.summary() | {"by_status": None} == {"semantics": "any-part", "rows": 3, "facts": 3, "atoms": 2,
                                                     "objects": 3, "targets": 2, "games": 9, "games_decidable": 4,
                                                     "by_status": None}


def test_stating_the_fact_removes_the_gap_and_covers_the_games(tmp_path):
    bench = write_bench(tmp_path / "bench", {"awl": [("whole", "MADE_OF", "metal")]})
    db, ledger = _coverage(tmp_path, bench, "gaps.jsonl")
    rows = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert [(r["object"], r["predicate"], r["value"], r["games"]) for r in rows] == [  # a tie: by target
        ("sack", "SHAPE", "hollow", 1), ("needle", "MADE_OF", "metal", 1)]
    status = _status(db)
    assert status["g2"] == status["g3"] == "covered" and status["g4"] == "blocked"
    with duckdb.connect(str(db), read_only=True) as con:  # the solver agrees: the games are covered now
        assert con.execute("SELECT game FROM game_rule_match WHERE target_covers_object ORDER BY game").fetchall() == [
            ("g1",), ("g2",), ("g3",)]


def test_ledger_options_are_checked_before_any_work(tmp_path):
    bench = write_bench(tmp_path / "bench")
    rules = tmp_path / "rules.kari"
    rules.write_text(RULES_TEXT)
    db = tmp_path / "cov.duckdb"
    assert run(["coverage", "--rules", str(rules), "--db", str(db), "--bench", str(bench), "--rule-match", "exact",
                "--ledger", str(tmp_path / "gaps.txt")]) == 2
    assert not db.exists()
    assert run(["coverage", "--rules", str(rules), "--db", str(db), "--ledger", str(tmp_path / "gaps.csv")]) == 2


def test_the_report_has_a_ledger_section_of_its_rules_run(tmp_path):
    bench = write_bench(tmp_path / "bench")
    rules = tmp_path / "rules.kari"
    rules.write_text(RULES_TEXT)
    play = tmp_path / "play"
    assert run(["play", "--out", str(play), "--bench", str(bench), "--questioner", "greedy-ig", "--rules", str(rules),
                "--rule-match", "exact", "--quiet"]) == 0
    out = tmp_path / "report"
    assert run(["report", str(play), "--out", str(out)]) == 0
    text = (out / "report.md").read_text()
    assert "## KB-gap ledger" in text and "| 1 | pierce | pierce | awl | whole | MADE_OF:metal | 2 | 0 |" in text
    assert "| pierce | MADE_OF:metal | 2 | 3 |" in text
    data = json.loads((out / "report.json").read_text())["kb_gaps"]
    assert data["games_decidable"] == 4 and data["rows"] == 3 and data["by_status"]["more-facts"] == 1
    rows = list(csv.DictReader((out / "kb_gaps.csv").open()))
    assert [(r["object"], r["games"]) for r in rows] == [("awl", "2"), ("needle", "1"), ("sack", "1")]


# --- against a brute-force search, for random rules and objects -------------------------------------------------

def _brute_force(rule, obj, semantics):
    """Every single fact (a place, a predicate, a vocabulary value) that makes the rule cover the object, among
    those the object says nothing against: an atom of the rule with that value is read at that place (the whole
    object; under strict a PART variable's atom on a real part) and the object states nothing of its predicate
    where the atom reads (anywhere for the whole, a part's name being a SHAPE; on the part itself)."""
    parts = list(dict.fromkeys([*obj.parts, *(p.part for p in obj.properties if p.part != "whole")]))
    anywhere = {p.predicate for p in obj.properties} | ({"SHAPE"} if parts else set())
    found = set()
    for place in ["whole", *parts]:
        for predicate, values in VALUES.items():
            if place == "whole":
                said = predicate in anywhere
            else:
                said = any(p.predicate == predicate and p.part == place for p in obj.properties) or predicate == "SHAPE"
            for value in values:
                read_here = any((a.predicate, a.value) == (predicate, value)
                                and (place == "whole") == (semantics == "any-part" or a.role == "whole")
                                for a in rule.atoms())
                if said or not read_here:
                    continue
                fact = Fact(place, predicate, value)
                if rule_holds(rule, with_facts(obj, (fact,)), V, semantics):
                    found.add(fact)
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules(), objects(), st.sampled_from(["any-part", "strict"]))
def test_the_ledger_equals_a_brute_force_search(rule, obj, semantics):
    obj = ObjectRecord("o", parts=obj.parts, properties=obj.properties, source="bench/objects.jsonl:1")
    ledger = kb_gap_ledger([GameRules("g", "o", "t", (rule,))], {"o": obj}, V, semantics)
    (game,) = ledger.games
    decided = {d.fact for d in game.decisions}
    if rule_holds(rule, obj, V, semantics):
        assert game.status == GameStatus.COVERED and not ledger.rows
        return
    assert decided == _brute_force(rule, obj, semantics)
    assert {Fact(r.part, r.predicate, r.value) for r in ledger.rows} == decided
    assert (game.status == GameStatus.ONE_FACT) == bool(decided)
    if semantics == "any-part":  # every gap is an atom the proof calls unknown, never false
        proof = explain(rule, obj, V, semantics)
        unknown = {n.atom for b in proof.branches for n in b.tree.atoms() if n.status == "unknown"}
        false = {n.atom for b in proof.branches for n in b.tree.atoms() if n.status == "false"}
        assert {f.atom for f in decided} <= unknown and not {f.atom for f in decided} & false
    if game.status == GameStatus.BLOCKED:  # no set of facts of unknown predicates helps either
        everything = [Fact("whole", p, v) for p, v in {(a.predicate, a.value) for a in rule.atoms()}
                      if not any(q.predicate == p for q in obj.properties) and not (p == "SHAPE" and obj.parts)]
        assert semantics == "strict" or not rule_holds(rule, with_facts(obj, everything), V, semantics)


def test_a_game_needs_one_of_its_rules_and_ranks_by_games():
    pointed = ObjectRecord("awl", properties=(Property("whole", "SHAPE", "pointed"),))
    from kari.rules import parse_rule
    from kari.rules.ast import Rule

    rule = Rule("pierce", parse_rule("AND(SHAPE:pointed, MADE_OF:metal)"))
    games = [GameRules(f"g{i}", "awl", "pierce", (rule,)) for i in range(3)] + [GameRules("n", "awl", "cut", ())]
    ledger = kb_gap_ledger(games, {"awl": pointed}, V)
    assert [(r.rank, r.atom, r.games, r.game_ids) for r in ledger.rows] == [(1, "MADE_OF:metal", 3, ("g0", "g1", "g2"))]
    assert ledger.summary()["by_status"] == {"covered": 0, "one-fact": 3, "more-facts": 0, "blocked": 0, "no-rule": 1}
    with pytest.raises(KeyError):
        kb_gap_ledger([GameRules("x", "ghost", "pierce", (rule,))], {"awl": pointed}, V)
