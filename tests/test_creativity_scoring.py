"""Scoring equal to CreativityBench's judge, and answers exchanged with it both ways, on files written by hand in
its formats (tests/data/creativity: sample_tasks.json, a runner output and a judge output of it).

The expected values below were worked out by hand from the judge's rules (exact name first, then the word-F1
snap over the task's entities and the snapped entity's judge_output keys; the relation from judge_output)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kari.cli import run
from kari.creativity.exchange import read_samples
from kari.creativity.metrics import relation_of, score
from kari.creativity.model import read_tasks
from kari.creativity.scoring import score_file

DATA = Path(__file__).parent / "data" / "creativity"
TASKS = DATA / "sample_tasks.json"
OUTPUTS = DATA / "outputs" / "sample_tasks__demo-model__static.json"
JUDGED = DATA / "judged_outputs" / "sample_tasks__demo-model__static.json"
T1 = "dining-room-ceramic-fruit-bowl-with-felt-base-3-felt-base-pad-0-iter1-medium-4entity-sample1"
T2 = "garage-steel-coat-rack-with-umbrella-stand-7-drip-tray-1-iter0-low-3entity-sample1"

# (task, sample) -> (best entity, best part, entity correct, part correct, relation)
EXPECTED = {
    (T1, 0): ("ceramic fruit bowl with felt base 3", "bowl_body", True, True, "gold"),   # exact names; the gold part
    # is no judge key, so the snap lands on the first key, but the exact match already made it correct
    (T1, 1): ("ceramic fruit bowl with felt base 3", "bowl_body", True, False, "not similar"),  # 'felt pad': F1 0
    (T1, 2): ("brass candlestick with wax guard 5", "wax_guard", False, False, "similar-2"),
    (T1, 3): ("wall clock with pendulum 2", "felt_base_pad", False, True, "hallucination"),  # no judge keys: the
    # only part candidate is the gold part, and no judge_output entry exists for it
    (T2, 0): ("plastic tool box with tray 2", "lift_out_tray", False, False, "similar-1"),
    (T2, 1): ("steel coat rack with umbrella stand 7", "hooks", True, True, "gold"),     # 'Drip Tray': normalised
    (T2, 2): ("plastic tool box with tray 2", "lid", False, False, "not similar"),       # a name from another scene
}


def _scores() -> dict[tuple[str, int], dict]:
    tasks = {t.id: t for t in read_tasks(TASKS)}
    return {(s.task_id, s.index): score(tasks[s.task_id], s.entity, s.part, s.how_to_use)
            for s in read_samples(OUTPUTS)}


def test_every_sample_scores_as_the_judge_rules_give() -> None:
    got = _scores()
    assert {k: (v["best_entity"], v["best_part"], v["entity_correct"], v["part_correct"], v["relation"])
            for k, v in got.items()} == EXPECTED
    assert [k for k, v in got.items() if v["normalised_only"]] == [(T2, 1)]      # the judge would say part wrong


def test_an_exact_answer_is_gold_even_when_the_snap_would_miss() -> None:
    task = read_tasks(TASKS)[0]
    assert score(task, task.gold.entity, task.gold.part)["relation"] == "gold"
    assert score(task, task.gold.entity, "felt base")["part_correct"] is False        # F1 snaps to bowl_body
    assert score(task, "someone's bowl", task.gold.part)["part_correct"] is True       # exact part: any entity


@pytest.mark.parametrize("entry, relation", [
    ({"similar_affordance": "Yes", "gold_change": "No", "decision_making_difficulty": "3"}, "similar-3"),
    ({"similar_affordance": "Yes", "gold_change": "No", "decision_making_difficulty": "NA"}, "similar"),
    ({"similar_affordance": "Yes", "gold_change": "No", "decision_making_difficulty": "7"}, "similar"),
    ({"similar_affordance": "Yes", "gold_change": "Yes", "decision_making_difficulty": "1"}, "not similar"),
    ({"similar_affordance": "No"}, "not similar"),
    ("NA", "hallucination"),
    (None, "hallucination"),
])
def test_relations_follow_the_judge_definitions(entry: object, relation: str) -> None:
    assert relation_of(entry) == relation


def test_score_reads_a_judge_output_and_agrees_with_it(tmp_path: Path) -> None:
    summary = score_file(JUDGED, TASKS, tmp_path / "out")
    judge = summary["judge"]
    assert judge["samples"] == 2 and judge["agree"] == {"entity_correct": 2, "part_correct": 2, "relation": 2}
    assert judge["disagreements"] == [] and judge["judge_relations"] == {"gold": 1, "similar-1": 1}
    assert judge["rubric"]["environment_condition_covered"] == {"mean": 1.0, "scored": 1, "na": 1}
    assert judge["rubric"]["attributes_grounding"]["mean"] == 1.5 and judge["reasonability_levels"] == {"0": 1}
    rows = [json.loads(line) for line in (tmp_path / "out" / "scores.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and all(all(r["judge"]["agrees"].values()) for r in rows)


def test_score_summarises_a_runner_output_per_temperature(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["creativity", "score", str(OUTPUTS), "--tasks", str(TASKS)]) == 0
    assert "2 of 2 tasks answered: entity correct 0.5, gold correct 0.5" in capsys.readouterr().out
    summary = score_file(OUTPUTS, TASKS)
    assert summary["headline"]["relations"] == {"gold": 1, "similar-1": 1}       # the temperature-0 samples
    assert summary["by_temperature"]["0.3"]["relations"] == {"gold": 1, "not similar": 1}
    assert summary["by_temperature"]["1.0"]["relations"] == {"hallucination": 1}
    assert "judge" not in summary


def test_a_judge_disagreement_is_listed(tmp_path: Path) -> None:
    data = json.loads(JUDGED.read_text())
    data[T2][0]["prediction_relation"] = "similar"
    path = tmp_path / "sample_tasks__m__static.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    judge = score_file(path, TASKS)["judge"]
    assert judge["disagreements"] == [{"task_id": T2, "sample": 0, "field": "relation", "kari": "similar-1",
                                       "judge": "similar", "normalised_only": False}]


@pytest.mark.parametrize("text, message", [("[]", "expected a JSON object"), ('{"t": 3}', "a list of samples"),
                                           ("{", "invalid JSON")])
def test_a_bad_benchmark_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                                          message: str) -> None:
    path = tmp_path / "x.json"
    path.write_text(text, encoding="utf-8")
    assert run(["creativity", "score", str(path), "--tasks", str(TASKS)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and str(path) in err[0]


def test_solve_writes_answers_the_judge_can_read_and_score_reads_them_back(tmp_path: Path, llm_stub: object) -> None:
    """kari's own run, written in the runner's format, reads back to the very scores the run recorded."""
    from llm_server import StubReply

    replies = {0.0: '{"gold_entity": "ceramic fruit bowl with felt base 3", "gold_part": "felt_base_pad", '
                    '"how_to_use": "Tip the bowl and blot."}',
               0.7: 'Hmm.\n{"gold_entity": "plastic tool box with tray 2", "gold_part": "lift out tray", '
                    '"how_to_use": "Stand it in the tray."}'}
    llm_stub.respond = lambda body: StubReply(text=replies[body["temperature"]])  # type: ignore[attr-defined]
    out = tmp_path / "run"
    assert run(["creativity", "solve", "--tasks", str(TASKS), "--solver", "llm", "--out", str(out), "--quiet",
                "--temperature", "0", "--temperature", "0.7", "--base-url", llm_stub.base_url,  # type: ignore
                "--model", "org/stub-model", "--cache-dir", str(tmp_path / "cache")]) == 0
    summary = json.loads((out / "summary.json").read_text())
    written = out / summary["benchmark_outputs"]
    assert written.name == "sample_tasks__org_stub-model__static.json"
    data = json.loads(written.read_text())
    hand = json.loads(OUTPUTS.read_text())
    assert list(data) == [T1, T2] and all(len(v) == 2 for v in data.values())
    assert all(set(s) == set(hand[T1][0]) for v in data.values() for s in v)     # the runner's sample keys
    records = {json.loads(line)["task_id"]: json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()}
    back = score_file(written, TASKS)
    assert back["headline"]["gold_correct_rate"] == summary["gold_correct_rate"] == 0.5
    assert back["by_temperature"] == summary["by_temperature"]
    for sample in read_samples(written):
        kept = records[sample.task_id]["samples"][sample.index]
        assert sample.temperature == kept["temperature"]
        assert score(read_tasks(TASKS)[0 if sample.task_id == T1 else 1], sample.entity, sample.part) == kept["score"]
