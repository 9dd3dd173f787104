"""``--benchmark-repo DIR``: kari builds CreativityBench's requests with a checkout's own code, request for request.

The checkout is the stand-in of tests/data/creativity/benchmark_repo (the benchmark's layout and function names,
text of its own, other defaults than the real one: ``max_tokens`` 1536, so nothing of kari's own can pass for
it). The stand-in's own ``evaluate.py`` and ``judge.py`` run as the benchmark's scripts run (a subprocess, against
the same local server), and their requests are compared with kari's, body for body.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kari.cli import run

DATA = Path(__file__).parent / "data" / "creativity"
STAND_IN = DATA / "benchmark_repo"


def _reply(body: dict[str, Any]) -> Any:
    """A deterministic model: a rubric for a grading prompt, a level for a weighing prompt, else an answer naming
    the first listed thing (the gold entity in these files) and one of its parts."""
    from llm_server import StubReply

    last = body["messages"][-1]["content"]
    names = re.findall(r"^\* ([^:]+): (\w+):", last, re.M)
    if last.startswith("GRADE") or not names:  # a grading prompt (the stand-in's or kari's own)
        return StubReply(text=json.dumps({"environment_condition_covered": "NA", "use_condition_covered": 2,
                                          "use_condition_covered_reason": "names the felt",
                                          "recipient_condition_covered": 1, "attributes_grounding": 2,
                                          "prediction_correctness": 1, "action_feasibility": 2}))
    if last.startswith("WEIGH"):
        return StubReply(text='{"prediction_reasonable_reason": "close call", "prediction_reasonable_level": 1}')
    entity, part = names[1] if body["temperature"] > 0 and len(names) > 1 else names[0]
    return StubReply(text=f'Looking at it.\n{{"gold_entity": "{entity}", "gold_part": "{part}", '
                          f'"how_to_use": "Use the {part} gently."}}')


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the stand-in with the task file in dataset/ and the entity lookup where its judge reads it."""
    root = tmp_path / "checkout"
    shutil.copytree(STAND_IN, root)
    (root / "dataset").mkdir(exist_ok=True)  # the checkout's task folder (empty in the stand-in: git keeps no empty folder)
    shutil.copy(DATA / "sample_tasks.json", root / "dataset" / "sample_tasks.json")
    (root / "task_creation" / "outputs").mkdir(parents=True)
    shutil.copy(DATA / "1_entity_lookup.json", root / "task_creation" / "outputs" / "1_entity_lookup.json")
    return root


def _benchmark_script(checkout: Path, script: str, stub: Any, **env: str) -> list[dict[str, Any]]:
    """Run the checkout's own script as the benchmark runs it; the request bodies it sent."""
    before = len(stub.bodies)
    done = subprocess.run([sys.executable, str(checkout / "evaluation" / script)], capture_output=True, text=True,
                          env={**os.environ, "VLLM_BASE_URL": stub.base_url, "MAX_WORKERS": "1", **env}, timeout=300)
    assert done.returncode == 0, done.stderr
    return stub.bodies[before:]


def _kari(stub: Any, *argv: str) -> list[dict[str, Any]]:
    before = len(stub.bodies)
    assert run([*argv, "--base-url", stub.base_url, "--no-cache", "--quiet"]) == 0
    return stub.bodies[before:]


def _same_requests(ours: list[dict[str, Any]], theirs: list[dict[str, Any]]) -> None:
    canon = sorted(json.dumps(b, sort_keys=True) for b in theirs)
    assert canon and sorted(json.dumps(b, sort_keys=True) for b in ours) == canon


@pytest.mark.parametrize("mode", ["static", "cot"])
def test_kari_sends_the_benchmark_requests_and_reads_its_answers(checkout: Path, tmp_path: Path, llm_stub: Any,
                                                                   mode: str) -> None:
    llm_stub.respond = _reply
    tasks = checkout / "dataset" / "sample_tasks.json"
    theirs = _benchmark_script(checkout, "evaluate.py", llm_stub, MODEL="m1", MODE=mode, TASK_FILE=str(tasks),
                               OUTPUT_DIR=str(tmp_path / "bench_out"), TEMPERATURES="0.0,0.5")
    ours = _kari(llm_stub, "creativity", "solve", "--tasks", str(tasks), "--solver", "llm", "--mode", mode,
                 "--temperature", "0", "--temperature", "0.5", "--benchmark-repo", str(checkout), "--model", "m1",
                 "--out", str(tmp_path / "kari"))
    _same_requests(ours, theirs)  # system and user text, temperature, max_tokens (the checkout's 1536), model
    assert {b["max_tokens"] for b in ours} == {1536} and len(ours) == 4
    # the answers read from the replies are the benchmark's, in its runner's format
    summary = json.loads((tmp_path / "kari" / "summary.json").read_text())
    mine = json.loads((tmp_path / "kari" / summary["benchmark_outputs"]).read_text())
    bench = json.loads((tmp_path / "bench_out" / f"sample_tasks__m1__{mode}.json").read_text())
    assert mine == bench
    assert summary["prompts"].startswith("benchmark")
    answer = json.loads((tmp_path / "kari" / "answers.jsonl").read_text().splitlines()[0])["samples"][0]["answer"]
    assert answer["prompt"]["wording"] == "benchmark"
    inputs = json.loads((tmp_path / "kari" / "config.json").read_text())["inputs"]["benchmark_repo"]
    assert set(inputs["files"]) == {"models.py", "utils.py", "evaluate.py", "judge.py"}


def test_kari_judges_with_the_benchmark_judge_request_for_request(checkout: Path, tmp_path: Path,
                                                                  llm_stub: Any) -> None:
    llm_stub.respond = _reply
    tasks = checkout / "dataset" / "sample_tasks.json"
    _benchmark_script(checkout, "evaluate.py", llm_stub, MODEL="m1", MODE="static", TASK_FILE=str(tasks),
                      OUTPUT_DIR=str(tmp_path / "bench_out"), TEMPERATURES="0.0,0.5")
    theirs = _benchmark_script(checkout, "judge.py", llm_stub, OUTPUT_DIR=str(tmp_path / "bench_out"),
                               JUDGED_OUTPUT_DIR=str(tmp_path / "bench_judged"), JUDGE_MODEL="j1")
    output = tmp_path / "bench_out" / "sample_tasks__m1__static.json"
    # the benchmark's evaluate.py output, judged by kari with the checkout's judge
    ours = _kari(llm_stub, "creativity", "judge", str(output), "--tasks", str(tasks), "--out", str(tmp_path / "j"),
                 "--benchmark-repo", str(checkout), "--model", "j1")
    _same_requests(ours, theirs)
    assert len(ours) >= 2
    judged = json.loads((tmp_path / "j" / "judged_outputs" / output.name).read_text())
    assert judged == json.loads((tmp_path / "bench_judged" / output.name).read_text())
    summary = json.loads((tmp_path / "j" / "judge_summary.json").read_text())
    assert summary["how"] == {"benchmark judge": 2} and summary["prompts"].startswith("benchmark")
    assert summary["agreement_with_kari"]["judged"] == 2
    # a kari run solved with the checkout, judged with it: the same requests again
    _kari(llm_stub, "creativity", "solve", "--tasks", str(tasks), "--solver", "llm", "--temperature", "0",
          "--temperature", "0.5", "--benchmark-repo", str(checkout), "--model", "m1", "--out", str(tmp_path / "k"))
    again = _kari(llm_stub, "creativity", "judge", str(tmp_path / "k"), "--benchmark-repo", str(checkout),
                  "--model", "j1")
    _same_requests(again, theirs)
    # kari's own judge of the same file: kari's prompts, the benchmark's max_tokens
    own = _kari(llm_stub, "creativity", "judge", str(output), "--tasks", str(tasks), "--out", str(tmp_path / "own"),
                "--model", "j1", "--entities", str(DATA / "1_entity_lookup.json"))
    assert own and {b["max_tokens"] for b in own} == {2048}
    assert json.loads((tmp_path / "own" / "judge_summary.json").read_text())["prompts"].startswith("kari")


def test_a_checkout_is_checked_before_any_work(checkout: Path, tmp_path: Path, llm_stub: Any, capsys: Any) -> None:
    tasks = checkout / "dataset" / "sample_tasks.json"
    base = ["creativity", "solve", "--tasks", str(tasks), "--model", "m1", "--base-url", llm_stub.base_url,
            "--quiet"]
    assert run([*base, "--solver", "llm+rules", "--benchmark-repo", str(checkout), "-o", str(tmp_path / "a")]) == 2
    assert "it is for --solver llm" in capsys.readouterr().err
    assert run([*base, "--solver", "llm", "--benchmark-repo", str(tmp_path), "-o", str(tmp_path / "b")]) == 2
    assert "no evaluation/models.py" in capsys.readouterr().err
    text = (checkout / "evaluation" / "evaluate.py").read_text().replace("def _run_cot(", "def run_cot_renamed(")
    (checkout / "evaluation" / "evaluate.py").write_text(text)
    assert run([*base, "--solver", "llm", "--benchmark-repo", str(checkout), "-o", str(tmp_path / "c")]) == 2
    assert "has no _run_cot" in capsys.readouterr().err
    assert llm_stub.bodies == [] and not (tmp_path / "a").exists()


def test_the_interactive_mode_runs_the_checkout_session_seeded(checkout: Path, tmp_path: Path, llm_stub: Any) -> None:
    from llm_server import StubReply

    def explore_then_answer(body: dict[str, Any]) -> Any:
        asked = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if asked == 0:
            return StubReply(text='Let me look.\n{"action": "explore", "target": "wall clock with pendulum 2"}')
        return StubReply(text='{"action": "answer", "gold_entity": "wall clock with pendulum 2", "gold_part": '
                              '"pendulum", "how_to_use": "Swing it."}')

    llm_stub.respond = explore_then_answer
    tasks = checkout / "dataset" / "sample_tasks.json"
    argv = ["creativity", "solve", "--tasks", str(tasks), "--solver", "llm", "--mode", "interactive", "--max-turns",
            "4", "--benchmark-repo", str(checkout), "--model", "m1"]
    first = _kari(llm_stub, *argv, "--out", str(tmp_path / "a"))
    again = _kari(llm_stub, *argv, "--out", str(tmp_path / "b"))
    assert first == again and len(first) == 4  # the listing's shuffle is seeded per task and sample
    assert all(b["messages"][0]["content"].startswith("Stand-in system text: look at one thing per turn; 4 turns")
               for b in first)  # the checkout's own system prompt, with kari's --max-turns as its MAX_TURNS
    record = json.loads((tmp_path / "a" / "answers.jsonl").read_text().splitlines()[0])
    answer = record["samples"][0]["answer"]
    assert answer["gold_part"] == "pendulum" and answer["turns"] == 2 and len(answer["conversation"]) == 2
    assert answer["conversation"][0]["feedback"].startswith("ABOUT wall clock with pendulum 2")
