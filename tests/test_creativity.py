"""CreativityBench in kari: readers, attribute atoms, the clingo tool-choice query, metrics, runs, the LLM solver."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from kari.cli import run
from kari.creativity.attributes import part_state, read_attributes
from kari.creativity.metrics import random_rates, score, snap, word_f1
from kari.creativity.model import description_parts, parse_level, read_file, read_tasks
from kari.creativity.records import read_records
from kari.creativity.scene import scene
from kari.creativity.scene import check_strict
from kari.creativity.symbolic import SymbolicSolver, program
from kari.domain.canon import canonical_rules
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError
from kari.resources import asset_path
from kari.rules import load_rules
from kari.solver.control import solve

BUNDLED = asset_path("data", "creativity")
RULE = "cut := OR(PART(x, AND(SHAPE:sharp_edge, MADE_OF:metal)), AND(SHAPE:sharp_edge, SIZE:hand_sized))\n"


def entity(name: str, parts: dict[str, dict]) -> dict:
    return {"entity_name": name, "scenario": "kitchen",
            "parts": [{"part_name": p, "connected_to": [], "connection": "", **spec} for p, spec in parts.items()]}


def task(task_id: str, entities: dict[str, str], gold: tuple[str, str]) -> dict:
    return {"task_id": task_id, "scenario": "kitchen", "task": "I need to cut a piece of string. What can I use?",
            "entities": [{"name": n, "description": d, "judge_output": {p: {} for p in description_parts(d)}}
                         for n, d in entities.items()],
            "golds": [{"gold_entity": gold[0], "gold_part": gold[1], "gold_affordance": {"affordance": "cut string",
                                                                                         "kari_affordance": "cut"}}],
            "items": [], "environment": "I am in the kitchen."}


SCENE = {"lamp 1": "shade: physical — a thin paper cone, light; state — visible.. base [gold part]: physical — a "
                   "heavy round steel disc with a sharp edge; state — visible and dry..",
         "sofa 2": "cushion: physical — soft foam block; state — visible.. frame: physical — steel frame with a "
                   "sharp edge; state — hidden inside, blocked..",
         "shelf 3": "board: physical — flat wooden board; state — visible.. bracket: physical — small steel "
                    "bracket; state — visible.."}


@pytest.fixture()
def vocab() -> Vocabulary:
    return Vocabulary.load()


@pytest.fixture()
def rules(tmp_path: Path, vocab: Vocabulary) -> list:
    path = tmp_path / "rules.kari"
    path.write_text(RULE, encoding="utf-8")
    return canonical_rules(load_rules(path), vocab)


# --------------------------------------------------------------------------------------------- reading


def test_records_are_read_from_arrays_and_json_lines_with_their_lines(tmp_path: Path) -> None:
    array = tmp_path / "a.json"
    array.write_text('[\n  {"task_id": "a"},\n\n  {"task_id": "b"}\n]\n', encoding="utf-8")
    lines = tmp_path / "b.jsonl"
    lines.write_text('{"entity_name": "x"}\n\n{"entity_name": "y"}\n', encoding="utf-8")
    assert [(r.data, r.line) for r in read_records(array)] == [({"task_id": "a"}, 2), ({"task_id": "b"}, 4)]
    assert [r.line for r in read_records(lines)] == [1, 3]


@pytest.mark.parametrize("text, line, code", [
    ('\n\n {"task_id": \n', 4, "json"),
    ('{"entity_name": "x", "parts": []}\n', 1, "creativity-schema"),
    ('{"other": 1}\n', 1, "creativity-record"),
    ('[1]\n', 1, "json"),
    ('\n\n', 1, "creativity-empty"),
    ('{"entity_name": "x", "parts": [{"part_name": "a", "functional_affordances": [{"affordance": "cut", '
     '"level": "Emergency 9"}]}]}\n', 1, "creativity-schema"),
])
def test_malformed_files_fail_with_their_line(tmp_path: Path, text: str, line: int, code: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(KariError) as err:
        read_file(path)
    assert (err.value.line, err.value.code) == (line, code)
    assert str(path) in str(err.value)


def test_a_task_whose_gold_is_not_in_the_scene_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text(json.dumps([task("t", SCENE, ("nowhere", "x"))]), encoding="utf-8")
    with pytest.raises(KariError, match="gold entity 'nowhere'"):
        read_tasks(path)


def test_levels_and_descriptions_parse() -> None:
    assert parse_level("Normal 0 (intended)") == ("normal", 0)
    assert parse_level("Emergency 3 (rare)") == ("emergency", 3)
    parts = description_parts(SCENE["lamp 1"])
    assert list(parts) == ["shade", "base"] and "[gold part]" not in parts["base"][0]


def test_bundled_files_read(vocab: Vocabulary) -> None:
    entities, _ = read_file(BUNDLED / "entities.jsonl")
    tasks = read_tasks(BUNDLED / "tasks.json")
    assert len(tasks) >= 60 and len(entities) >= 40
    positions = {[e.name for e in t.entities].index(t.gold.entity) for t in tasks}
    assert len(positions) >= 4                                  # the gold at random positions, not always first
    for t in tasks:
        assert t.gold.part in t.entity(t.gold.entity).parts
        assert t.gold.part not in t.entity(t.gold.entity).judge_parts   # as in CreativityBench's own files


# --------------------------------------------------------------------------------------------- atoms and state


def test_attributes_become_atoms_with_their_raw_words(vocab: Vocabulary) -> None:
    got = read_attributes({"material": "zinc-plated steel", "rigidity": "very rigid", "durability": "very fragile",
                           "surface": "not rough, glossy", "elasticity": "non-elastic", "weight": "light"}, vocab)
    atoms = {(r.predicate, r.value): r for r in got}
    assert ("MADE_OF", "steel") in atoms and atoms[("MADE_OF", "steel")].raw == "steel"
    assert {("MADE_OF", "rigid_material"), ("MADE_OF", "brittle_material"), ("SIZE", "light")} <= set(atoms)
    assert ("SURFACE", "rough") not in atoms                        # negated
    new = read_attributes({"material": "phenolic resin"}, vocab, "f.json:3")
    assert [(r.value, r.how) for r in new] == [("phenolic_resin", "phrase")]
    assert vocab.provenance("MADE_OF", "phenolic_resin") == "f.json:3"


def test_state_says_accessible_and_safe() -> None:
    assert part_state({"visibility": "hidden", "availability": "blocked"}).accessible is False
    assert part_state({"visibility": "visible", "availability": "partially blocked"}).accessible is True
    assert part_state({"temperature": "hot"}).safe is False and part_state({"temperature": "slightly hot"}).safe
    assert part_state({}).accessible is None


# --------------------------------------------------------------------------------------------- the solver


def _scene_task(tmp_path: Path) -> object:
    path = tmp_path / "t.json"
    path.write_text(json.dumps([task("t1", SCENE, ("lamp 1", "base"))]), encoding="utf-8")
    return read_tasks(path)[0]


def test_solver_picks_an_accessible_part_that_satisfies_the_rule_with_its_proof(tmp_path: Path, vocab: Vocabulary,
                                                                                rules: list) -> None:
    t = _scene_task(tmp_path)
    candidates = scene(t, vocab)
    satisfied = {(c.entity, c.part) for c in candidates if check_strict(c, rules[0], vocab)}
    assert satisfied == {("lamp 1", "base"), ("sofa 2", "frame")}      # the frame is hidden
    answer = SymbolicSolver(rules, vocab).answer(t, candidates, "cut")
    assert (answer.entity, answer.part, answer.reading) == ("lamp 1", "base", "part")
    assert answer.proof["branch"] == 0 and answer.proof["branch_text"].startswith("PART(x")
    assert {a["atom"]: a["raw"] for a in answer.proof["attributes"]} == {"SHAPE:sharp_edge": "sharp edge",
                                                                         "MADE_OF:metal": "steel"}
    assert score(t, answer.entity, answer.part)["gold_correct"]


def test_solver_abstains_without_a_usable_candidate(tmp_path: Path, vocab: Vocabulary, rules: list) -> None:
    t = _scene_task(tmp_path)
    candidates = [c for c in scene(t, vocab) if c.part in ("shade", "cushion", "board")]
    answer = SymbolicSolver(rules, vocab).answer(t, candidates, "cut")
    assert (answer.entity, answer.reading) == ("", "none")
    assert SymbolicSolver(rules, vocab).answer(t, candidates, "fly").extra["reason"].startswith("no rule")


def test_the_query_agrees_with_the_strict_reading_on_every_bundled_candidate(vocab: Vocabulary) -> None:
    rules = {r.affordance: r for r in canonical_rules(load_rules(BUNDLED / "rules.kari"), vocab)}
    tasks = read_tasks(BUNDLED / "tasks.json")[::9]
    for n, t in enumerate(tasks):
        rule = list(rules.values())[n % len(rules)]
        candidates = scene(t, vocab)
        shown = solve([program(candidates, rule, vocab, set()), "#show ok/1."], ["facts.lp", "creativity.lp"],
                      time_limit=10).atoms
        asp = {a[1] for a in shown if a[0] == "ok"}
        python = {i for i, c in enumerate(candidates) if check_strict(c, rule, vocab)}
        assert asp == python, t.id


# --------------------------------------------------------------------------------------------- metrics


def test_word_f1_snapping_and_random_rates(tmp_path: Path) -> None:
    assert word_f1("LED bulbs (E12)", "led_bulbs") == 1.0
    assert snap("the lamp", ["sofa 2", "lamp 1"]) == "lamp 1"
    assert snap("", ["sofa 2", "lamp 1"]) == "sofa 2"          # as the benchmark's judge: the first of equals
    t = _scene_task(tmp_path)
    assert score(t, "", "")["relation"] == "no answer" and score(t, "", "")["gold_correct"] is False
    assert score(t, "Lamp", "bases")["entity_correct"] and not score(t, "Lamp", "bases")["part_correct"]
    assert score(t, "lamp", "base")["gold_correct"]
    assert random_rates(t) == {"entity": 2 / 6, "gold": 1 / 6}
    assert score(t, "lamp", "base")["relation"] == "gold"
    assert score(t, "sofa", "frame")["relation"] == "not similar"     # judge_output entries without a Yes


# --------------------------------------------------------------------------------------------- CLI runs


def test_load_and_solve_resume_and_refuse_other_settings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "kb.duckdb"
    assert run(["creativity", "load", str(BUNDLED / "entities.jsonl"), str(BUNDLED / "tasks.json"), "--db",
                str(db)]) == 0
    assert run(["creativity", "load", str(BUNDLED / "entities.jsonl"), "--db", str(db)]) == 0   # a reload
    con = duckdb.connect(str(db), read_only=True)
    entities = con.execute("SELECT count(*) FROM cb_entities").fetchone()[0]
    assert entities == len(read_file(BUNDLED / "entities.jsonl")[0])
    assert con.execute("SELECT count(*) FROM cb_tasks").fetchone()[0] == len(read_tasks(BUNDLED / "tasks.json"))
    assert con.execute("SELECT count(*) FROM cb_part_atoms").fetchone()[0] > 0
    assert con.execute("SELECT count(*) FROM cb_task_candidates WHERE NOT in_kb").fetchone()[0] == 0
    con.close()
    out = tmp_path / "run"
    argv = ["creativity", "solve", "--tasks", str(BUNDLED / "tasks.json"), "--rules", str(BUNDLED / "rules.kari"),
            "--db", str(db), "--out", str(out), "--goal", "lexical", "-n", "12", "--quiet"]
    assert run(argv) == 0
    first = json.loads((out / "summary.json").read_text())
    assert {"tasks", "entity_correct_rate", "gold_correct_rate", "random_gold_rate"} <= set(first)
    assert first["tasks"] == 12 and "oracle_affordance" in first and sum(first["relations"].values()) == 12
    lines = (out / "answers.jsonl").read_text().splitlines()
    (out / "answers.jsonl").write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:20])  # a crash mid-line
    assert run(argv) == 0
    again = json.loads((out / "summary.json").read_text())
    assert again == first and len((out / "answers.jsonl").read_text().splitlines()) == 12
    capsys.readouterr()
    assert run([*argv[:-3], "--goal", "oracle", "-n", "12"]) == 2
    assert "other settings (goal)" in capsys.readouterr().err


def test_a_bad_task_file_is_one_line_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "tasks.json"
    bad.write_text('[\n {"task_id": "a", "task": "x", "entities": "no"}\n]\n', encoding="utf-8")
    code = run(["creativity", "solve", "--tasks", str(bad), "--rules", str(BUNDLED / "rules.kari"), "--out",
                str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and f"{bad}:2" in err[0]
    assert not (tmp_path / "out").exists()
