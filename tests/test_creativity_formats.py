"""CreativityBench's own file formats, read as they are: files written by hand in exactly its formats
(tests/data/creativity: a task file shaped like its published sample, its entity lookup, an entity file)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from kari.cli import run
from kari.creativity.model import description_parts, read_file, read_tasks
from kari.creativity.records import read_records
from kari.creativity.scene import scene
from kari.creativity.store import kb_parts, load_creativity, open_kb
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError

DATA = Path(__file__).parent / "data" / "creativity"
TASKS = DATA / "sample_tasks.json"
LOOKUP = DATA / "1_entity_lookup.json"
ENTITIES = DATA / "entities.jsonl"
BOWL = "ceramic fruit bowl with felt base 3"


def test_the_gold_part_comes_from_the_description_when_the_judge_keys_omit_it() -> None:
    task = read_tasks(TASKS)[0]
    gold = task.entity(task.gold.entity)
    assert task.gold.part == "felt_base_pad"
    assert task.gold.part not in gold.judge_parts and task.gold.part in gold.parts
    assert gold.parts == ("bowl_body", "rim", "felt_base_pad") and gold.judge_parts == ("bowl_body", "rim")
    clock = task.entity("wall clock with pendulum 2")
    assert clock.judge_parts == () and len(clock.parts) == 3     # no judge_output: the description's parts


def test_the_gold_part_is_a_candidate_and_in_the_llm_prompt() -> None:
    from kari.creativity.prompting import build_prompt

    task = read_tasks(TASKS)[0]
    candidates = scene(task, Vocabulary.load())
    assert (BOWL, "felt_base_pad") in {(c.entity, c.part) for c in candidates}
    prompt = build_prompt(task)
    assert "  - felt_base_pad: physical: A thin round pad of pressed wool felt" in prompt
    assert "[gold part]" not in prompt


def test_descriptions_split_with_or_without_the_summary_full_stop() -> None:
    garage = read_tasks(TASKS)[1]
    rack = garage.entity(garage.gold.entity)
    assert rack.parts == ("hooks", "pole", "drip_tray")     # segments joined with a single '.'
    texts = rack.part_texts()
    assert texts["drip_tray"] == ("A shallow rectangular galvanised steel tray with a raised lip",
                                  "Visible at the foot; empty; dry")
    assert list(description_parts("a: physical — x.; state — y.. b [gold part]: physical — z; state — w.")) == ["a", "b"]


def test_the_entity_lookup_loads_with_a_line_per_entity() -> None:
    records = list(read_records(LOOKUP))
    assert [r.data["entity_name"] for r in records][:2] == [BOWL, "brass candlestick with wax guard 5"]
    assert records[0].line == 2 and records[1].line > records[0].line
    entities, tasks = read_file(LOOKUP)
    assert len(entities) == 5 and not tasks
    assert {e.scenario for e in entities} == {"dining_room", "garage"}


def test_enabling_attributes_keep_modality_and_explanation(tmp_path: Path) -> None:
    entities, _ = read_file(ENTITIES)
    pad = entities[0].part("felt_base_pad")
    blot = pad.affordances[1]
    assert blot.attributes[0].to_json() == ["felt is fibrous and slightly absorbent", "physical", "text",
                                            "absorbency does not show in a photo"]
    assert blot.to_json()["attribute"][0][2] == "text"
    db = tmp_path / "kb.duckdb"
    load_creativity(db, [LOOKUP, ENTITIES, TASKS])
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute("SELECT statement, kind, modality, explanation FROM cb_affordance_attributes "
                       "WHERE entity = ? AND part = 'felt_base_pad' AND n = 2 ORDER BY position", [BOWL]).fetchall()
    assert rows[0] == ("felt is fibrous and slightly absorbent", "physical", "text",
                       "absorbency does not show in a photo")
    assert rows[2][1:] == ("state", "text", "dryness does not show in a photo")
    parts = con.execute("SELECT parts, judge_parts FROM cb_task_entities WHERE entity = ?", [BOWL]).fetchone()
    assert parts == (["bowl_body", "rim", "felt_base_pad"], ["bowl_body", "rim"])
    missing = con.execute("SELECT DISTINCT entity FROM cb_task_candidates WHERE NOT in_kb").fetchall()
    assert sorted(missing) == [("folding step ladder 4",), ("plastic tool box with tray 2",)]   # not in the lookup
    assert con.execute("SELECT count(*) FROM cb_entities").fetchone()[0] == 5     # a reload replaces, adds nothing
    con.close()


def test_kb_parts_come_with_their_state_and_affordance_conditions(tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    load_creativity(db, [LOOKUP])
    con = open_kb(db)
    try:
        parts = kb_parts(con, [BOWL], "dining_room")
    finally:
        con.close()
    pad = parts[(BOWL, "felt_base_pad")]
    assert pad.state.accessible is True and pad.state_texts["availability"] == "partially blocked"
    assert pad.affordances[1].use_condition == "Tip the bowl so the pad faces out."
    assert pad.affordances[1].attributes[0].modality == "text"
    assert {(r.predicate, r.value) for r in pad.readings} >= {("SIZE", "thin")}


def test_a_kb_part_the_task_does_not_list_joins_the_scene(tmp_path: Path) -> None:
    """A task names some parts; the KB may know more of the same entity (its parts come from both)."""
    task = json.loads(TASKS.read_text())[1]
    entity = task["entities"][0]
    entity["description"] = entity["description"].split(" pole:")[0]          # only 'hooks' left
    entity["judge_output"] = {}
    path = tmp_path / "t.json"
    path.write_text(json.dumps([task]), encoding="utf-8")
    db = tmp_path / "kb.duckdb"
    load_creativity(db, [LOOKUP])
    con = open_kb(db)
    try:
        parsed = read_tasks(path)[0]
        candidates = scene(parsed, Vocabulary.load(), kb_parts(con, [e.name for e in parsed.entities], "garage"))
    finally:
        con.close()
    rack = [c.part for c in candidates if c.entity == parsed.gold.entity]
    assert rack == ["hooks", "pole", "drip_tray"] and all(c.source == "kb" for c in candidates
                                                         if c.entity == parsed.gold.entity)


def test_load_refuses_a_database_an_older_kari_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "old.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE cb_affordance_attributes (entity VARCHAR, part VARCHAR, n INTEGER, statement VARCHAR, "
                "kind VARCHAR)")
    con.close()
    assert run(["creativity", "load", str(LOOKUP), "--db", str(db)]) == 2
    assert "older kari" in capsys.readouterr().err


@pytest.mark.parametrize("text, message", [
    ('{"a": {"entity_name": "x", "parts": [{"part_name": "p", "functional_affordances": [{"affordance": "cut", '
     '"attribute": [["s", "physical", "visual", "why", "extra"]]}]}]}}', "1-4 strings"),
    ('{"a": {"entity_name": "x", "parts": []}}', "has no parts"),
])
def test_a_bad_lookup_entry_names_its_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "1_entity_lookup.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(KariError, match=message) as err:
        read_file(path)
    assert err.value.line == 1


def test_the_symbolic_how_to_use_is_built_from_the_proof_state_kb_and_task(tmp_path: Path) -> None:
    """Not a template: the access step, the proof's attribute words, the KB affordance's conditions and the
    request's recipient all come from the chosen part and the task."""
    from kari.creativity.symbolic import SymbolicSolver
    from kari.domain.canon import canonical_rules
    from kari.rules import load_rules

    vocab = Vocabulary.load()
    rules_file = tmp_path / "rules.kari"
    rules_file.write_text("blot := PART(x, AND(SIZE:thin, SURFACE:soft))\n", encoding="utf-8")
    rules = canonical_rules(load_rules(rules_file), vocab)
    db = tmp_path / "kb.duckdb"
    load_creativity(db, [LOOKUP])
    task = read_tasks(TASKS)[0]
    con = open_kb(db)
    try:
        candidates = scene(task, vocab, kb_parts(con, [e.name for e in task.entities], task.scenario))
    finally:
        con.close()
    answer = SymbolicSolver(rules, vocab).answer(task, candidates, "blot")
    assert (answer.entity, answer.part) == (BOWL, "felt_base_pad")      # the KB's own blotting use ranks it first
    text = answer.how_to_use
    assert text.startswith(f"Use the felt base pad of the {BOWL} on the sideboard top with a wet glass ring")
    assert "It is hidden, partially blocked: free it by hand before use." in text
    assert "its thickness 'thin' (SIZE:thin)" in text and "SURFACE:soft" in text
    assert "before use: Tip the bowl so the pad faces out" in text and "it fails when: Fails on large spills" in text
    other = SymbolicSolver(rules, vocab).answer(task, [c for c in candidates if c.part != "felt_base_pad"], "blot")
    assert other.part == "wax_guard" and "Take care" not in other.how_to_use and "KB's" not in other.how_to_use
