"""CreativityBench figures one can compare: what llm+rules sends (a rule below the threshold marked as such), the
strict match beside the judge's snapping (blind snaps counted and warned), intervals and breakdowns by setting,
and paired comparisons of runs. Tasks: tests/data/creativity/sample_tasks.json (hand-written in the benchmark's
format)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kari.cli import run

DATA = Path(__file__).parent / "data" / "creativity"
TASKS = DATA / "sample_tasks.json"
BOWL = "ceramic fruit bowl with felt base 3"


def _solve(tmp_path: Path, stub: Any, out: str, *extra: str) -> dict[str, Any]:
    argv = ["creativity", "solve", "--tasks", str(TASKS), "--out", str(tmp_path / out), "--quiet", "--base-url",
            stub.base_url, "--model", "stub", "--cache-dir", str(tmp_path / "cache"), *extra]
    assert run(argv) == 0
    return json.loads((tmp_path / out / "summary.json").read_text())


def test_llm_rules_sends_the_nearest_rule_and_marks_one_below_the_threshold(tmp_path: Path, llm_stub: Any) -> None:
    pytest.importorskip("sentence_transformers")  # --goal rules: sentence similarity of the request and rule verbs
    from llm_server import StubReply

    llm_stub.respond = lambda body: StubReply(text=f'{{"gold_entity": "{BOWL}", "gold_part": "felt_base_pad", '
                                                   '"how_to_use": "Press the felt on it."}')
    summary = _solve(tmp_path, llm_stub, "ruled", "--solver", "llm+rules")  # the default goal mapping: rules
    prompts = [b["messages"][1]["content"] for b in llm_stub.bodies]
    records = [json.loads(x) for x in (tmp_path / "ruled" / "answers.jsonl").read_text().splitlines()]
    assert summary["config"]["goal"] == "rules" and len(prompts) == len(records) == 2
    for prompt, record in zip(prompts, records, strict=True):
        sent = record["samples"][0]["answer"]["rule_in_prompt"]
        goal = record["goal"]
        assert sent["rule"] == goal["affordance"] and sent["similarity"] == goal["similarity"]
        assert "PHYSICAL CONDITION" in prompt  # it sends what it claims: a rule, every time
        if goal["fallback"]:
            assert sent["below_threshold"] and "WEAK match" in prompt and f"{goal['similarity']:.2f}" in prompt
        else:
            assert not sent["below_threshold"] and "WEAK match" not in prompt
    below = sum(r["goal"]["fallback"] for r in records)
    assert summary["rules_sent"] == {"with_rule": 2, "without_rule": 0, "below_threshold": below}


def test_a_blind_snap_is_counted_warned_and_the_strict_rate_kept(tmp_path: Path, llm_stub: Any, capsys: Any) -> None:
    from llm_server import StubReply

    # no entity name, a nonsense part: the judge's snapping takes the first-listed entity, the gold in these files
    llm_stub.respond = lambda body: StubReply(text='{"gold_entity": "", "gold_part": "qqq", "how_to_use": "Use it."}')
    summary = _solve(tmp_path, llm_stub, "blind", "--solver", "llm")
    assert summary["entity_correct_rate"] == 1.0 and summary["strict_gold_correct_rate"] == 0.0
    assert summary["blind_snaps"] == {"entity": 2, "entity_onto_gold": 2, "part": 2}
    assert "2 answer(s) name an entity no task entity shares a word with" in capsys.readouterr().err
    low, high = summary["entity_correct_rate_ci"]
    assert low < 1.0 == high  # two tasks: a Wilson interval, not a certainty
    assert set(summary["by_difficulty"]) == {"medium", "low"}
    for group in summary["by_difficulty"].values():
        assert group["tasks"] >= 1 and group["gold_correct_rate_ci"] is not None
    assert sum(g["tasks"] for g in summary["by_entity_count"].values()) == 2
    assert sum(g["tasks"] for g in summary["by_scenario"].values()) == 2


def test_runs_are_compared_pairwise_on_their_tasks(tmp_path: Path, llm_stub: Any) -> None:
    from llm_server import StubReply

    llm_stub.respond = lambda body: StubReply(text=f'{{"gold_entity": "{BOWL}", "gold_part": "felt_base_pad", '
                                                   '"how_to_use": "Press the felt."}')
    _solve(tmp_path, llm_stub, "good", "--solver", "llm")
    llm_stub.respond = lambda body: StubReply(text='{"gold_entity": "wall clock with pendulum 2", "gold_part": '
                                                   '"pendulum", "how_to_use": "Swing it."}')
    _solve(tmp_path, llm_stub, "other", "--solver", "llm", "--no-cache")
    out = tmp_path / "compare"
    assert run(["creativity", "compare", str(tmp_path / "good"), str(tmp_path / "other"), "--resamples", "300",
                "--out", str(out)]) == 0
    data = json.loads((out / "compare.json").read_text())
    comp = data["comparisons"][0]
    assert (comp["a"], comp["b"], comp["tasks"]) == ("good", "other", 2)
    gold = comp["metrics"]["gold_correct"]
    assert gold["a_success_rate"] == 0.5 and gold["pairs"] == 2 and gold["delta_ci"] is not None
    assert gold["discordant"]["b"] == 1  # the task "good" got and "other" lost
    assert "| other vs good | gold |" in (out / "compare.md").read_text()
    assert run(["creativity", "compare", str(tmp_path / "good")]) == 2
