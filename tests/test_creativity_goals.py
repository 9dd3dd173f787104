"""Open goals, symbolically: PART rules induced from a CreativityBench KB's part affordances (``kari induce --db``),
goals matched to them by similarity, the fallback below the threshold, and ``creativity solve --tasks`` alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kari.cli import run
from kari.resources import asset_path

BUNDLED = asset_path("data", "creativity")
CUT_TEXT = "I need to cut the string tied around this parcel. Is there anything here I could use?"
PHONE_TEXT = "My phone battery died and I must call home tonight. What could help me?"


def part(name: str, material: str, shape: str, uses: tuple[str, ...] = (), size: str = "hand-sized") -> dict:
    """A part in CreativityBench's assembled-entity form, each use with its enabling attributes."""
    return {"part_name": name, "connected_to": [], "connection": "",
            "physical_attributes": {"shape": shape, "size": size, "material": material, "surface": "smooth"},
            "state_attributes": {"visibility": "visible", "availability": "free"},
            "functional_affordances": [
                {"affordance": use, "use_condition": "hold it firmly", "environment_condition": "NA",
                 "recipient_condition": "a loose string or water in a basin",
                 "attribute": [[f"material: {material}", "physical", "visual", "the material shows"],
                               [f"shape: {shape}", "physical", "visual", "the shape shows"]],
                 "level": "Normal 0 (the usual use)", "example_recipient": "string", "failure_case": "NA"}
                for use in uses]}


KB = [("knife", [part("blade", "steel", "flat with a sharp edge", ("cut the string",)),
                 part("handle", "wood", "long cylindrical")]),
      ("scissors", [part("blades", "steel", "sharp edge", ("cut the string",)), part("grip", "plastic", "looped")]),
      ("saw", [part("teeth", "steel", "serrated sharp edge", ("cut the string",)), part("handle", "wood", "handled")]),
      ("ladle", [part("bowl", "steel", "hollow round bowl", ("scoop up water",)), part("handle", "steel", "long thin")]),
      ("saucepan", [part("pot", "aluminium", "hollow round", ("scoop up water",)),
                    part("handle", "plastic", "long handled")]),
      ("bucket", [part("pail", "plastic", "hollow cylindrical", ("scoop up water",), "large"),
                  part("rim", "plastic", "round")]),
      ("cushion", [part("cover", "cotton", "flat square"), part("filling", "foam", "block")])]

SCENE = {"mug": "cup [gold part]: physical — a hollow round ceramic cup; state — visible.. handle: physical — a "
                "small curved ceramic loop; state — visible..",
         "box cutter": "blade: physical — a thin steel blade with a sharp edge; state — visible.. body: physical — "
                       "a flat plastic case; state — visible..",
         "towel": "cloth: physical — a soft flat cotton sheet; state — visible.."}


def task(task_id: str, text: str, gold: tuple[str, str], scene: dict[str, str] = SCENE) -> dict:
    """A task in CreativityBench's format (the gold entity's judge keys omit the gold part, as in its files)."""
    return {"task_id": task_id, "scenario": "kitchen", "setting": {"scene": "kitchen"}, "task": text,
            "golds": [{"gold_entity": gold[0], "gold_part": gold[1],
                       "gold_affordance": {"affordance": "cut the string", "use_condition": "NA",
                                           "environment_condition": "NA", "recipient_condition": "NA",
                                           "attribute": [], "level": "Normal 0"}}],
            "entities": [{"name": n, "description": d,
                          "judge_output": {p.split(":")[0].replace(" [gold part]", "").strip(): {
                              "similar_affordance": "No", "gold_change": "No", "decision_making_difficulty": "NA"}
                              for p in d.split("..") if p.strip() and "[gold part]" not in p}}
                         for n, d in scene.items()],
            "items": [{"name": "parcel string", "description": "a string", "interactable": True}],
            "environment": "I am in the kitchen.", "solution": {}}


@pytest.fixture()
def part_kb(tmp_path: Path) -> Path:
    entities = tmp_path / "entities.jsonl"
    entities.write_text("\n".join(json.dumps({"entity_name": n, "scenario": "kitchen", "parts": ps})
                                  for n, ps in KB) + "\n", encoding="utf-8")
    db = tmp_path / "kb.duckdb"
    assert run(["creativity", "load", str(entities), "--db", str(db)]) == 0
    return db


def test_induce_db_on_a_part_level_kb_writes_part_rules_with_edge_ids(tmp_path: Path, part_kb: Path) -> None:
    out = tmp_path / "rules.kari"
    assert run(["induce", "--db", str(part_kb), "--out", str(out)]) == 0
    rules = {r["affordance"]: r for r in map(json.loads, out.with_suffix(".jsonl").read_text().splitlines())}
    assert set(rules) == {"cut", "scoop_up"}     # the KB's actions, grouped by their verb (WordNet's 'scoop up')
    assert out.read_text().count(":= PART(x, ") == 2
    cut = rules["cut"]
    assert cut["rule"]["op"] == "PART" and "SHAPE:sharp_edge" in out.read_text()
    assert sorted(cut["kb_positives"]) == ["knife/blade", "saw/teeth", "scissors/blades"]
    assert [m["raw"] for m in cut["group"]["members"]] == [["cut the string"]]
    edges = cut["branches"][0]["edges"]
    assert "cb:kitchen+knife/blade#affordance1" in edges                    # the affordance
    assert "cb:kitchen+knife/blade#affordance1/attribute2" in edges         # an enabling attribute of it
    assert "cb:kitchen+knife/blade#shape" in edges                          # the attribute text read as atoms
    assert not any("cushion" in e or "handle" in e for e in edges)


def _tasks_file(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([task("cut", CUT_TEXT, ("box cutter", "blade")),
                                task("phone", PHONE_TEXT, ("box cutter", "blade"))], indent=1), encoding="utf-8")
    return path


def _records(folder: Path) -> dict[str, Any]:
    return {r["task_id"]: r for r in map(json.loads, (folder / "answers.jsonl").read_text().splitlines())}


@pytest.mark.embed
def test_goals_match_rules_by_similarity_and_below_the_threshold_fall_back(tmp_path: Path, part_kb: Path) -> None:
    rules = tmp_path / "rules.kari"
    assert run(["induce", "--db", str(part_kb), "--out", str(rules)]) == 0
    out = tmp_path / "run"
    assert run(["creativity", "solve", "--tasks", str(_tasks_file(tmp_path)), "--rules", str(rules), "--goal",
                "rules", "--goal-threshold", "0.5", "--out", str(out), "--quiet"]) == 0
    records = _records(out)
    cut, phone = records["cut"], records["phone"]
    assert cut["goal"]["affordance"] == "cut" and cut["goal"]["fallback"] is False
    assert cut["goal"]["similarity"] >= 0.5 and cut["goal"]["verb"] in ("cut", "cut_the_string")
    answer = cut["samples"][0]["answer"]
    assert (answer["gold_entity"], answer["gold_part"]) == ("box cutter", "blade")
    assert cut["samples"][0]["score"]["gold_correct"]
    assert answer["proof"]["branch_text"] == "PART(x, SHAPE:sharp_edge)"
    assert "SHAPE:sharp_edge" in answer["how_to_use"] and "'sharp edge'" in answer["how_to_use"]  # rule, attribute
    assert phone["goal"]["fallback"] is True and phone["goal"]["similarity"] < 0.5      # no rule is near enough
    assert phone["goal"]["affordance"] in ("cut", "scoop_up")                               # the nearest one is used
    assert phone["samples"][0]["answer"]["gold_entity"] in ("box cutter", "mug")         # and it answers
    summary = json.loads((out / "summary.json").read_text())
    assert summary["goal_rules"] == {"above_threshold": 1, "fallback": 1, "fallback_share": 0.5,
                                     "rank": {"1": 2}}


NO_BLADE = {k: v for k, v in SCENE.items() if k != "box cutter"}   # nothing sharp: the cut rule meets no part


@pytest.mark.embed
def test_when_no_candidate_meets_the_nearest_rule_the_next_nearest_is_tried(tmp_path: Path, part_kb: Path) -> None:
    rules = tmp_path / "rules.kari"
    assert run(["induce", "--db", str(part_kb), "--out", str(rules)]) == 0
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([task("cut", CUT_TEXT, ("mug", "cup"), NO_BLADE)]), encoding="utf-8")
    solve = ["creativity", "solve", "--tasks", str(tasks), "--rules", str(rules), "--goal", "rules", "--quiet"]
    assert run([*solve, "--goal-top-k", "1", "--out", str(tmp_path / "one")]) == 0
    alone = _records(tmp_path / "one")["cut"]
    assert alone["goal"]["affordance"] == "cut" and alone["goal"]["rank"] is None and alone["goal"]["tried"] == ["cut"]
    assert alone["samples"][0]["answer"]["gold_entity"] == ""            # no part of the scene is sharp
    assert run([*solve, "--out", str(tmp_path / "two")]) == 0
    record = _records(tmp_path / "two")["cut"]
    goal = record["goal"]
    assert goal["tried"] == ["cut", "scoop_up"] and goal["rank"] == 2 and goal["affordance"] == "scoop_up"
    assert goal["verb"] in ("scoop_up", "scoop_up_water") and goal["fallback"] is True
    assert 0 < goal["similarity"] < alone["goal"]["similarity"]          # the second nearest, by the matcher
    answer = record["samples"][0]["answer"]
    assert (answer["gold_entity"], answer["gold_part"]) == ("mug", "cup") and answer["proof"]["rule"] == "scoop_up"
    assert "SHAPE:hollow" in answer["proof"]["branch_text"]
    summary = json.loads((tmp_path / "two" / "summary.json").read_text())
    assert summary["goal_rules"]["rank"] == {"2": 1}
    assert json.loads((tmp_path / "one" / "summary.json").read_text())["goal_rules"]["rank"] == {"none": 1}


@pytest.mark.embed
def test_an_answers_proof_names_the_kb_records_its_rule_branch_was_induced_from(tmp_path: Path,
                                                                                part_kb: Path) -> None:
    rules = tmp_path / "rules.kari"
    assert run(["induce", "--db", str(part_kb), "--out", str(rules)]) == 0
    out = tmp_path / "run"
    assert run(["creativity", "solve", "--tasks", str(_tasks_file(tmp_path)), "--rules", str(rules), "--goal",
                "rules", "--out", str(out), "--quiet"]) == 0
    proof = _records(out)["cut"]["samples"][0]["answer"]["proof"]
    induced = {r["affordance"]: r for r in map(json.loads, rules.with_suffix(".jsonl").read_text().splitlines())}
    assert proof["edges"] == induced["cut"]["branches"][proof["branch"]]["edges"]
    records = {(e, p["part_name"]): p for e, ps in KB for p in ps}
    for edge in proof["edges"]:        # each id names a KB record: scenario+entity/part, then the field
        scenario, _, rest = edge.removeprefix("cb:").partition("+")
        where, _, field = rest.partition("#")
        entity, _, name = where.rpartition("/")
        assert scenario == "kitchen" and (entity, name) in records, edge
        kb_part = records[entity, name]
        if field.startswith("affordance"):
            n, _, attribute = field.removeprefix("affordance").partition("/attribute")
            use = kb_part["functional_affordances"][int(n) - 1]
            assert use["affordance"] == "cut the string"
            assert not attribute or 1 <= int(attribute) <= len(use["attribute"])
        else:
            assert field in kb_part["physical_attributes"], edge
    assert {"cb:kitchen+knife/blade#affordance1", "cb:kitchen+saw/teeth#affordance1"} <= set(proof["edges"])


@pytest.mark.embed
def test_solve_with_only_a_task_file_answers_with_the_shipped_rules(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    tasks = _tasks_file(tmp_path)
    assert run(["creativity", "solve", "--tasks", str(tasks)]) == 0
    out = tmp_path / "runs" / "creativity-tasks-symbolic-rules"
    config = json.loads((out / "config.json").read_text())
    assert Path(config["rules"]) == BUNDLED / "rules.kari" and config["goal"] == "rules"
    records = _records(out)
    assert all(r["goal"]["how"] == "rules" and isinstance(r["goal"]["fallback"], bool) for r in records.values())
    assert any(s["answer"]["gold_entity"] for r in records.values() for s in r["samples"])


def test_the_shipped_rules_are_part_rules_induced_without_the_bundled_gold_entities() -> None:
    heldout = set(json.loads((BUNDLED / "heldout.json").read_text())["gold_entities"])
    rules = [json.loads(line) for line in (BUNDLED / "rules.jsonl").read_text().splitlines()]
    assert len(rules) >= 10 and all(r["input"] == "kb" and r["rule"]["op"] in ("PART", "OR") for r in rules)
    for rule in rules:
        objects = {*rule["kb_positives"], *(o for b in rule["branches"] for o in b["motivated_by"])}
        entities = {o.rpartition("/")[0].rpartition("+")[2].replace(" ", "_") for o in objects}
        assert not entities & heldout, rule["affordance"]


def test_goal_text_words_matches_the_requests_content_words_and_bad_settings_stop_before_the_run(
        tmp_path: Path) -> None:
    from kari.creativity.goals import GoalMapper
    from kari.creativity.model import read_tasks
    from kari.rules.ast import Rule
    from kari.rules.parser import parse_rule

    tasks = read_tasks(_tasks_file(tmp_path))
    rules = [Rule("cut", parse_rule("PART(x, SHAPE:sharp_edge)"))]
    words = GoalMapper({"cut": ""}, "rules", rules=rules, text="words")
    assert words.goal_text(tasks[0]) == "cut string tied parcel"
    assert GoalMapper({"cut": ""}, "rules", rules=rules).goal_text(tasks[0]) == CUT_TEXT
    for bad in (["--goal-text", "verbs"], ["--goal-top-k", "0"]):
        out = tmp_path / f"bad{bad[0]}"
        assert run(["creativity", "solve", "--tasks", str(tmp_path / "tasks.json"), "--out", str(out), *bad]) != 0
        assert not out.exists()
