"""``kari creativity judge``: the six-field how_to_use rubric and the reasonability level through a scripted
real-HTTP stub, its symbolic fallback, resuming, and its output read back by ``kari creativity score``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kari.cli import run
from kari.creativity.rubric import coverage, grounding, symbolic

DATA = Path(__file__).parent / "data" / "creativity"
TASKS = DATA / "sample_tasks.json"
LOOKUP = DATA / "1_entity_lookup.json"
BOWL = "ceramic fruit bowl with felt base 3"
T1 = "dining-room-ceramic-fruit-bowl-with-felt-base-3-felt-base-pad-0-iter1-medium-4entity-sample1"
T2 = "garage-steel-coat-rack-with-umbrella-stand-7-drip-tray-1-iter0-low-3entity-sample1"
ANSWERS = {"dining": {"gold_entity": BOWL, "gold_part": "felt_base_pad",
                      "how_to_use": "Tip the bowl so the felt faces the ring, press the dry felt on the wet ring and "
                                    "lift; the soft absorbent felt takes up the water."},
           "garage": {"gold_entity": "plastic tool box with tray 2", "gold_part": "lift_out_tray",
                      "how_to_use": "Open the lid, lift the tray out, empty the screws and stand the umbrella in it."}}


def _answer(body: dict[str, Any]) -> Any:
    from llm_server import StubReply

    scene = "dining" if "dining_room" in body["messages"][1]["content"] else "garage"
    return StubReply(text=json.dumps(ANSWERS[scene]))


def _solved(tmp_path: Path, stub: Any) -> Path:
    stub.respond = _answer
    out = tmp_path / "run"
    assert run(["creativity", "solve", "--tasks", str(TASKS), "--solver", "llm", "--out", str(out), "--quiet",
                "--base-url", stub.base_url, "--model", "stub", "--cache-dir", str(tmp_path / "cache")]) == 0
    stub.bodies.clear()
    return out


def _grades(body: dict[str, Any]) -> Any:
    from llm_server import StubReply

    prompt = body["messages"][-1]["content"]
    fields = {f"{k}_reason": f"quoted: {k}" for k in ("environment_condition_covered", "use_condition_covered",
                                                       "recipient_condition_covered", "attributes_grounding",
                                                       "action_feasibility")}
    if "REFERENCE AFFORDANCE" in prompt:
        return StubReply(text=json.dumps({**fields, "environment_condition_covered": 2, "use_condition_covered": 2,
                                          "recipient_condition_covered": "1", "attributes_grounding": 2,
                                          "prediction_correctness_reason": "q", "prediction_correctness": 7,
                                          "action_feasibility": 2}))
    if "THE CHOSEN PART" in prompt:
        return StubReply(text="Grading.\n" + json.dumps({**fields, "environment_condition_covered": "NA",
                                                         "use_condition_covered": 1,
                                                         "recipient_condition_covered": 2,
                                                         "attributes_grounding": 1, "action_feasibility": 2}))
    return StubReply(text='{"prediction_reasonable_reason": "close call", "prediction_reasonable_level": 1}')


def _judge(tmp_path: Path, stub: Any, run_dir: Path, *extra: str) -> dict[str, Any]:
    argv = ["creativity", "judge", str(run_dir), "--quiet", "--base-url", stub.base_url, "--model", "judge-stub",
            "--cache-dir", str(tmp_path / "cache"), "--entities", str(LOOKUP), *extra]
    assert run(argv) == 0
    return json.loads((run_dir / "judge_summary.json").read_text())


def _judgements(run_dir: Path) -> dict[str, dict[str, Any]]:
    return {j["task_id"]: j for j in (json.loads(line) for line in
                                      (run_dir / "judgements.jsonl").read_text().splitlines())}


def test_the_llm_judge_grades_gold_and_other_answers_as_the_benchmark_reads_them(tmp_path: Path,
                                                                                 llm_stub: Any) -> None:
    run_dir = _solved(tmp_path, llm_stub)
    llm_stub.respond = _grades
    summary = _judge(tmp_path, llm_stub, run_dir)
    prompts = [b["messages"][-1]["content"] for b in llm_stub.bodies]
    assert len(prompts) == 3                                    # gold rubric; other rubric + reasonability
    gold_prompt = next(p for p in prompts if "REFERENCE AFFORDANCE" in p)
    assert "blot a small amount of liquid from a hard surface" in gold_prompt and "apply_affordance" in gold_prompt
    other_prompt = next(p for p in prompts if "THE CHOSEN PART" in p)
    assert "lift_out_tray of the plastic tool box with tray 2" in other_prompt
    assert "A shallow open plastic tray with small compartments." in other_prompt   # not in the lookup: description
    reason_prompt = next(p for p in prompts if "COMPARISON" in p)
    assert '"gold_change_reason": "The gold tray is already empty and larger. Keep the gold."' in reason_prompt
    judged = _judgements(run_dir)
    gold = judged[T1]
    assert gold["how"] == "llm" and gold["relation"] == "gold" and gold["reasonability"] is None
    assert gold["rubric"] == {"environment_condition_covered": "NA", "use_condition_covered": 2,   # NA: forced
                              "recipient_condition_covered": 1, "attributes_grounding": 2,
                              "prediction_correctness": 0, "action_feasibility": 2}            # 7 is out of range
    assert gold["invalid_fields"] == ["prediction_correctness"]
    other = judged[T2]
    assert other["relation"] == "similar-1" and other["attributes_from"] == "description"
    assert other["rubric"]["environment_condition_covered"] == "NA" and other["rubric"]["prediction_correctness"] == 0
    assert other["reasonability"] == {"level": 1, "reason": "close call"}
    assert summary["gold"]["use_condition_covered"] == {"mean": 2.0, "scored": 1, "na": 0, "not_scored": 0}
    assert summary["reasonability_levels"] == {"1": 1} and summary["how"] == {"llm": 2}
    assert summary["llm_usage"]["calls"] == 3


def test_the_judges_output_reads_back_and_agrees(tmp_path: Path, llm_stub: Any) -> None:
    from kari.creativity.scoring import score_file

    run_dir = _solved(tmp_path, llm_stub)
    llm_stub.respond = _grades
    summary = _judge(tmp_path, llm_stub, run_dir)
    judged = run_dir / summary["judged_outputs"]
    assert judged.name == "sample_tasks__stub__static.json"
    data = json.loads(judged.read_text())
    sample = data[T2][0]
    assert {"task_uid", "best_matching_entity", "best_matching_part", "entity_correct", "part_correct",
            "prediction_relation", "predicted_entity_part_judge_output", "llm_judge",
            "prediction_reasonability_judge"} <= set(sample)
    assert len(sample["llm_judge"]) == 12 and sample["prediction_reasonability_judge"]["prediction_reasonable_level"] == 1
    back = score_file(judged, TASKS)["judge"]
    assert back["agree"] == {"entity_correct": 2, "part_correct": 2, "relation": 2}
    assert back["rubric"]["action_feasibility"]["mean"] == 2.0


def test_judging_resumes_from_the_cache_and_refuses_other_settings(tmp_path: Path, llm_stub: Any,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = _solved(tmp_path, llm_stub)
    llm_stub.respond = _grades
    _judge(tmp_path, llm_stub, run_dir, "-n", "1")
    assert len(_judgements(run_dir)) == 1
    calls = len(llm_stub.bodies)
    _judge(tmp_path, llm_stub, run_dir)                         # the rest only
    assert len(_judgements(run_dir)) == 2 and len(llm_stub.bodies) == 3
    (run_dir / "judgements.jsonl").unlink()
    _judge(tmp_path, llm_stub, run_dir)                         # all again: every reply from the cache
    assert len(llm_stub.bodies) == 3 and calls >= 1
    capsys.readouterr()
    assert run(["creativity", "judge", str(run_dir), "--judge", "symbolic", "--quiet"]) == 2
    assert "other settings" in capsys.readouterr().err


def test_an_unreadable_judge_reply_falls_back_to_the_symbolic_scorer(tmp_path: Path, llm_stub: Any) -> None:
    from llm_server import StubReply

    run_dir = _solved(tmp_path, llm_stub)
    llm_stub.respond = lambda body: StubReply(text="I would rate it highly!")
    _judge(tmp_path, llm_stub, run_dir)
    judged = _judgements(run_dir)
    gold = judged[T1]
    assert gold["how"] == "symbolic-fallback" and "no readable JSON" in gold["fallback_reason"]
    assert gold["not_scored"] == ["prediction_correctness", "action_feasibility"]
    # an unreadable reasonability reply: level 0, as the benchmark's judge records it (and marked unreadable)
    assert judged[T2]["reasonability"]["level"] == 0 and judged[T2]["reasonability"]["unreadable"]


def test_the_symbolic_judge_scores_what_words_show_and_says_what_it_cannot(tmp_path: Path, llm_stub: Any) -> None:
    run_dir = _solved(tmp_path, llm_stub)
    assert run(["creativity", "judge", str(run_dir), "--judge", "symbolic", "--quiet", "--entities", str(LOOKUP)]) == 0
    assert llm_stub.bodies == []
    judged = _judgements(run_dir)
    gold = judged[T1]
    assert gold["how"] == "symbolic" and gold["rubric"]["environment_condition_covered"] == "NA"
    assert gold["rubric"]["use_condition_covered"] == 1          # tip, bowl, felt, face of the condition's words
    assert gold["rubric"]["attributes_grounding"] == 2           # felt, soft absorbent, dry: 3 of 4 attributes
    assert gold["rubric"]["prediction_correctness"] is None and "needs a judge" in \
        gold["reasons"]["prediction_correctness"]
    other = judged[T2]                                          # the annotation of the tool box tray's use
    assert other["rubric"]["use_condition_covered"] == 2 and other["rubric"]["environment_condition_covered"] == "NA"
    assert other["reasonability"] is None and "needs a judge" in other["reasonability_reason"]
    summary = json.loads((run_dir / "judge_summary.json").read_text())
    assert summary["gold"]["action_feasibility"] == {"mean": None, "scored": 0, "na": 0, "not_scored": 1}


def test_symbolic_scorer_units() -> None:
    assert coverage("Slide the guard off the candle cup", "slide the guard off first")[0] == 2
    assert coverage("Slide the guard off the candle cup", "use the candle")[0] == 1
    assert coverage("Slide the guard off the candle cup", "press it")[0] == 0
    assert grounding(["material: pressed wool felt", "thickness: thin"], "press the wool felt")[0] == 2
    scores, reasons = symbolic("press it", False, None, {"material": "oak", "surface": "smooth oiled"})
    assert scores["use_condition_covered"] is None and "no annotation" in reasons["use_condition_covered"]
    assert scores["attributes_grounding"] == 0


def test_the_judge_needs_a_run_directory_and_an_endpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KARI_LLM_MODEL", raising=False)
    assert run(["creativity", "judge", str(tmp_path), "--judge", "symbolic"]) == 2
    assert "not a 'kari creativity solve' run directory" in capsys.readouterr().err
    (tmp_path / "answers.jsonl").write_text("")
    assert run(["creativity", "judge", str(tmp_path)]) == 2
    assert "no model name" in capsys.readouterr().err
