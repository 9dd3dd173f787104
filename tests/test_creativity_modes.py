"""The LLM solver's three protocols (static, cot, interactive), its sampling options and its prompts, through a
scripted real-HTTP stub (deterministic) and once through the local llama.cpp server (protocol only)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kari.cli import run
from kari.resources import asset_path

DATA = Path(__file__).parent / "data" / "creativity"
TASKS = DATA / "sample_tasks.json"
BUNDLED = asset_path("data", "creativity")
BOWL = "ceramic fruit bowl with felt base 3"


def _solve(tmp_path: Path, stub: Any, *extra: str, tasks: Path = TASKS, out: str = "run") -> dict[str, Any]:
    argv = ["creativity", "solve", "--tasks", str(tasks), "--solver", "llm", "--out", str(tmp_path / out), "--quiet",
            "--base-url", stub.base_url, "--model", "stub", "--cache-dir", str(tmp_path / "cache"), *extra]
    assert run(argv) == 0
    return json.loads((tmp_path / out / "summary.json").read_text())


def _records(tmp_path: Path, out: str = "run") -> list[dict[str, Any]]:
    return [json.loads(line) for line in (tmp_path / out / "answers.jsonl").read_text().splitlines()]


def test_static_mode_sends_a_system_prompt_and_samples_every_temperature(tmp_path: Path, llm_stub: Any) -> None:
    from llm_server import StubReply

    llm_stub.respond = lambda body: StubReply(
        text=f'I think the felt.\n{{"gold_entity": "{BOWL}", "gold_part": "felt_base_pad", "how_to_use": "Blot."}}'
        if body["temperature"] == 0 else "no idea")
    summary = _solve(tmp_path, llm_stub, "--temperature", "0", "--temperature", "0.3", "--temperature", "0.7")
    bodies = llm_stub.bodies
    assert len(bodies) == 6 and sorted({b["temperature"] for b in bodies}) == [0.0, 0.3, 0.7]
    assert all(b["max_tokens"] == 2048 for b in bodies)                       # the benchmark's output budget
    assert all(b["messages"][0]["role"] == "system" and "creative tool-use" in b["messages"][0]["content"]
               for b in bodies)
    assert all("REQUEST:" in b["messages"][1]["content"] and "[gold part]" not in b["messages"][1]["content"]
               for b in bodies)
    records = _records(tmp_path)
    assert [[s["temperature"] for s in r["samples"]] for r in records] == [[0.0, 0.3, 0.7]] * 2
    first = records[0]["samples"][0]["answer"]
    assert first["reasoning"] == "I think the felt." and first["prompt"]["name"] == "creativity_static"
    assert all("reason" in s["answer"] for r in records for s in r["samples"][1:])   # junk: an empty answer
    assert summary["gold_correct_rate"] == 0.5 and summary["by_temperature"]["0.3"]["answered"] == 0
    assert summary["config"]["temperatures"] == [0.0, 0.3, 0.7]


def test_cot_mode_keeps_the_structured_reasoning(tmp_path: Path, llm_stub: Any) -> None:
    from llm_server import StubReply

    reasoning = {"task_goal": "dry the ring", "success_condition": "no water left", "constraints": ["no cloth"],
                 "candidate_parts": [{"entity": BOWL, "part": "felt_base_pad", "properties": ["absorbent"],
                                      "what_it_allows": ["blotting"], "check": "reachable by tipping"}],
                 "plan": [{"step": 1, "action": "tip and press", "part_used": f"{BOWL}: felt_base_pad",
                           "why_it_works": "felt takes up water"}], "summary": "Felt as a blotter."}
    llm_stub.respond = lambda body: StubReply(text=json.dumps({"reasoning": reasoning, "gold_entity": BOWL,
                                                               "gold_part": "felt_base_pad",
                                                               "how_to_use": "Tip the bowl and press the felt."}))
    summary = _solve(tmp_path, llm_stub, "--mode", "cot", "-n", "1")
    prompt = llm_stub.bodies[0]["messages"][1]["content"]
    assert "Work in this order:" in prompt and '"candidate_parts"' in prompt
    answer = _records(tmp_path)[0]["samples"][0]["answer"]
    assert answer["reasoning"] == reasoning and answer["prompt"]["name"] == "creativity_cot"
    outputs = json.loads((tmp_path / "run" / summary["benchmark_outputs"]).read_text())
    assert summary["benchmark_outputs"].endswith("__stub__cot.json")
    assert next(iter(outputs.values()))[0]["reasoning"] == reasoning
    assert summary["gold_correct_rate"] == 1.0


def _interactive_script(body: dict[str, Any]) -> Any:
    """Explore a real entity, reply junk, explore a missing thing, use an unknown action, then answer."""
    from llm_server import StubReply

    turn = sum(1 for m in body["messages"] if m["role"] == "assistant")
    replies = [f'Let me look.\n{{"action": "explore", "target": "{BOWL.upper()}"}}',
               "hmm, thinking",
               '{"action": "explore", "target": "a spare towel"}',
               '{"action": "jump"}',
               f'Done.\n{{"action": "answer", "gold_entity": "{BOWL}", "gold_part": "felt_base_pad", '
               '"how_to_use": "Tip the bowl and blot the ring with the felt."}']
    return StubReply(text=replies[min(turn, len(replies) - 1)])


def test_interactive_mode_explores_one_thing_per_turn_and_records_every_turn(tmp_path: Path,
                                                                             llm_stub: Any) -> None:
    llm_stub.respond = _interactive_script
    summary = _solve(tmp_path, llm_stub, "--mode", "interactive", "-n", "1")
    bodies = llm_stub.bodies
    assert len(bodies) == 5
    system, first = bodies[0]["messages"][0]["content"], bodies[0]["messages"][1]["content"]
    assert "15 turns" in system and "ONE thing" in system
    listed = [line[4:] for line in first.split("THINGS YOU CAN INSPECT:\n")[1].split("\n\n")[0].splitlines()]
    assert sorted(listed) == sorted([BOWL, "brass candlestick with wax guard 5", "oak sideboard with sliding doors 1",
                                     "wall clock with pendulum 2", "sideboard top with a wet glass ring",
                                     "wine glass"])                  # entities and interactable items only
    assert "felt_base_pad" not in first                              # parts are learnt by inspecting
    feedback = [b["messages"][-1]["content"] for b in bodies[1:]]
    assert feedback[0].startswith(f"Description of {BOWL.upper()}: bowl_body: physical") and "[gold part]" not in \
        feedback[0] and "[14 turns left.]" in feedback[0]
    assert "could not read a JSON action" in feedback[1] and "[13 turns left.]" in feedback[1]
    assert "no 'a spare towel' in the scene" in feedback[2]
    assert 'must be "explore" or "answer"' in feedback[3]
    answer = _records(tmp_path)[0]["samples"][0]["answer"]
    assert answer["turns"] == 5 and [t.get("note") for t in answer["conversation"]] == \
        [None, "unreadable", "not found", "unknown action", None]
    assert answer["conversation"][0]["found"] is True and answer["conversation"][0]["reasoning"] == "Let me look."
    assert summary["gold_correct_rate"] == 1.0 and summary["mean_turns"] == 5
    outputs = json.loads((tmp_path / "run" / summary["benchmark_outputs"]).read_text())
    sample = next(iter(outputs.values()))[0]
    assert sample["answer"]["gold_part"] == "felt_base_pad" and sample["turns"] == 5
    assert [e["round"] for e in sample["conversation_log"]] == [1, 2, 3, 4, 5]


def test_interactive_mode_stops_at_the_turn_budget(tmp_path: Path, llm_stub: Any) -> None:
    from llm_server import StubReply

    llm_stub.respond = lambda body: StubReply(text='{"action": "explore", "target": "wine glass"}')
    summary = _solve(tmp_path, llm_stub, "--mode", "interactive", "--max-turns", "3", "-n", "1")
    assert len(llm_stub.bodies) == 3
    assert "[This is your last turn: give your final answer now.]" in llm_stub.bodies[2]["messages"][-1]["content"]
    answer = _records(tmp_path)[0]["samples"][0]["answer"]
    assert answer["turns"] == 3 and answer["gold_entity"] == "" and "turn budget" in answer["reason"]
    assert summary["relations"] == {"no answer": 1}


def test_a_rerun_answers_from_the_cache_and_refuses_other_sampling(tmp_path: Path, llm_stub: Any,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    llm_stub.respond = _interactive_script
    first = _solve(tmp_path, llm_stub, "--mode", "interactive", "-n", "1")
    _solve(tmp_path, llm_stub, "--mode", "interactive", "-n", "1", out="again")
    assert len(llm_stub.bodies) == 5                      # the second run's five turns all came from the cache
    again = json.loads((tmp_path / "again" / "summary.json").read_text())
    assert again["gold_correct_rate"] == first["gold_correct_rate"] and again["llm_usage"]["cache_hits"] == 5
    capsys.readouterr()
    code = run(["creativity", "solve", "--tasks", str(TASKS), "--solver", "llm", "--out", str(tmp_path / "run"),
                "--quiet", "--base-url", llm_stub.base_url, "--model", "stub", "--mode", "static", "-n", "1"])
    assert code == 2 and "other settings (mode)" in capsys.readouterr().err


@pytest.mark.parametrize("extra, message", [
    (("--mode", "psychic"), "unknown mode"),
    (("--temperature", "0", "--temperature", "0"), "distinct values"),
    (("--temperature", "3"), "not in the range 0<=x<=2"),
    (("--max-turns", "0"), "--max-turns"),
])
def test_bad_sampling_options_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: tuple,
                                          message: str) -> None:
    code = run(["creativity", "solve", "--tasks", str(TASKS), "--solver", "llm", "--model", "m", "--base-url",
                "http://127.0.0.1:9/v1", "--out", str(tmp_path / "out"), *extra])
    assert code == 2 and message in capsys.readouterr().err and not (tmp_path / "out").exists()


def test_the_symbolic_solver_takes_no_sampling_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run(["creativity", "solve", "--tasks", str(TASKS), "--rules", str(BUNDLED / "rules.kari"),
                "--out", str(tmp_path / "out"), "--mode", "cot"])
    assert code == 2 and "deterministic" in capsys.readouterr().err


@pytest.mark.parametrize("mode", ["static", "interactive"])
def test_llm_rules_puts_the_matched_rule_in_every_mode(tmp_path: Path, llm_stub: Any, mode: str) -> None:
    from llm_server import StubReply

    llm_stub.respond = lambda body: StubReply(text='{"action": "answer", "gold_entity": "bicycle", "gold_part": '
                                                   '"chain", "how_to_use": "x"}' if mode == "interactive" else
                                              '{"gold_entity": "bicycle", "gold_part": "chain", "how_to_use": "x"}')
    rules = tmp_path / "rules.kari"       # one affordance each of the first two bundled requests names
    rules.write_text("keep_plants := PART(x, MADE_OF:metal)\nput_bed := PART(x, SHAPE:flat)\n", encoding="utf-8")
    argv = ["creativity", "solve", "--tasks", str(BUNDLED / "tasks.json"), "--rules", str(rules),
            "--solver", "llm+rules", "--mode", mode, "--out", str(tmp_path / "run"), "-n", "2", "--quiet",
            "--base-url", llm_stub.base_url, "--model", "stub", "--cache-dir", str(tmp_path / "cache")]
    assert run(argv) == 0
    prompts = [b["messages"][1]["content"] for b in llm_stub.bodies]
    assert prompts and all("PHYSICAL CONDITION" in p for p in prompts)
    assert all(s["answer"]["rules_in_prompt"] for r in _records(tmp_path) for s in r["samples"])


def test_every_mode_runs_against_the_local_server(tmp_path: Path, llm_server: str) -> None:
    """SmolLM2's answers are junk: only the protocol is checked (records, turns, outputs, token counts)."""
    from llm_server import LLM_SERVER_MODEL

    for mode in ("static", "cot", "interactive"):
        argv = ["creativity", "solve", "--tasks", str(TASKS), "--solver", "llm", "--mode", mode, "--out",
                str(tmp_path / mode), "-n", "1", "--quiet", "--base-url", llm_server, "--model", LLM_SERVER_MODEL,
                "--max-tokens", "96", "--max-turns", "2", "--cache-dir", str(tmp_path / "cache")]
        assert run(argv) == 0, mode
        summary = json.loads((tmp_path / mode / "summary.json").read_text())
        assert summary["tasks"] == 1 and summary["llm_usage"]["calls"] >= 1
        answer = _records(tmp_path, mode)[0]["samples"][0]["answer"]
        assert answer["reading"] == "llm" and (mode != "interactive" or 1 <= answer["turns"] <= 2)
