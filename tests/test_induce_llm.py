"""The openai backend of ``kari induce``: a scripted local server (deterministic repair/add-only paths) and the
REAL local server (llama_cpp.server + SmolLM2-135M, marked ``llm_server``): protocol, JSON mode, cache hits on
the second run, and robustness to the tiny model's junk."""

from __future__ import annotations

import json
import re
from pathlib import Path
from collections.abc import Callable
from typing import Any

import pytest

from kari.core.benchmark import object_to_json

from kari.bench.reader import load_benchmark
from kari.core.induce_config import InduceConfig
from kari.induce.run import induce
from kari.llm import LLMConfig
from kari.resources import bundled_bench_dir
from kari.rules import load_rules

AFFORDANCE = "slice"


@pytest.fixture(scope="module")
def tiny_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One affordance, five positives and four labelled negatives from the bundled benchmark."""
    bench = load_benchmark(bundled_bench_dir(), None)
    root = tmp_path_factory.mktemp("tiny_bench")
    pos, neg = bench.positives(AFFORDANCE)[:5], bench.negatives(AFFORDANCE)[:4]
    (root / "objects.jsonl").write_text("".join(json.dumps(object_to_json(bench.objects[o])) + "\n" for o in pos + neg))
    (root / "affordances.jsonl").write_text(
        json.dumps({"id": AFFORDANCE, "description": "cut into thin pieces"}) + "\n"
    )
    (root / "labels.jsonl").write_text(
        "".join(json.dumps({"object": o, "affordance": AFFORDANCE, "label": o in pos}) + "\n" for o in pos + neg)
    )
    return root


def _role(body: dict[str, Any]) -> str:
    system = body["messages"][0]["content"]
    return (
        "proposer" if "KARI rules" in system else "validator" if "physical properties of one" in system else "auditor"
    )


def _atom(pred: str, value: str) -> dict[str, str]:
    return {"op": pred, "role": "whole", "class": value}


def _sharp_edge_server(validator: Callable[[], Any]) -> Callable[[dict[str, Any]], Any]:
    """A scripted server: the Proposer proposes SHAPE:sharp_edge, the Auditor says NEW, the Validator replies the
    JSON of ``validator()``."""
    from llm_server import StubReply

    def respond(body: dict[str, Any]) -> Any:
        role = _role(body)
        if role == "validator":
            return StubReply(json.dumps(validator()))
        if role == "auditor":
            return StubReply('{"decision": "NEW"}')
        return StubReply(json.dumps({"rule": _atom("SHAPE", "sharp_edge")}))

    return respond


class ScriptedModel:
    """Answers like a careful but imperfect model: junk first, then a seed rule; later branches are appended,
    once after a failed attempt that rewrites the existing branches; the validator says YES to sharp_edge only."""

    def __init__(self) -> None:
        self.proposals = 0

    def __call__(self, body: dict[str, Any]):
        from llm_server import StubReply

        role = _role(body)
        if role == "validator":
            keys = re.findall(r"^- (\S+:\S+)$", body["messages"][1]["content"], flags=re.MULTILINE)
            return StubReply(json.dumps({"labels": {k: "YES" if k == "SHAPE:sharp_edge" else "NO" for k in keys}}))
        if role == "auditor":
            return StubReply('{"decision": "NEW"}')
        self.proposals += 1
        current = re.search(r"^(\{.*\})$", body["messages"][1]["content"], flags=re.MULTILINE)
        if current is None:  # seeding
            if len(body["messages"]) == 2:
                return StubReply("Sure! A knife slices because it is sharp.")
            return StubReply(json.dumps({"rule": _atom("SHAPE", "sharp_edge")}))
        rule = json.loads(current.group(1))
        old = rule["args"] if rule["op"] == "OR" else [rule]
        if len(body["messages"]) == 2:  # rewrites the existing branch: must be rejected by the code
            return StubReply(
                json.dumps({"rule": {"op": "OR", "args": [_atom("SHAPE", "blade_like"), _atom("SIZE", "thin")]}})
            )
        return StubReply(json.dumps({"rule": {"op": "OR", "args": old + [_atom("MADE_OF", "steel")]}}))


def test_scripted_server_repair_add_only_and_cache(tiny_bench: Path, tmp_path: Path, llm_stub) -> None:
    llm_stub.respond = ScriptedModel()
    llm = LLMConfig(base_url=llm_stub.base_url, model="stub", cache_dir=tmp_path / "cache", max_retries=0)
    config = InduceConfig(backend="openai", repair_attempts=2)
    first = induce(out=tmp_path / "a" / "rules.kari", bench=tiny_bench, config=config, llm=llm, argv=[])
    result = first.results[AFFORDANCE]
    rounds = {r["round"]: r for r in result["rounds"]}
    assert rounds[1]["outcome"] == "accepted" and rounds[1]["attempts"] == 2
    problems = [p for d in result["dropped"] for p in d["problems"]]
    assert any("not a JSON object" in p for p in problems)
    for r in (2, 3):
        if rounds[r]["targets"]:
            assert rounds[r]["outcome"] == "accepted" and rounds[r]["attempts"] == 2
            assert any("changes or reorders" in p for p in problems)
    [rule] = load_rules(first.out)
    assert rule.branches()[0].key == "SHAPE:sharp_edge"  # the seed branch survived every round unchanged
    calls = [json.loads(x) for x in next((first.run_dir / "calls").glob("*.jsonl")).read_text().splitlines()]
    assert {c["role"] for c in calls} >= {"proposer", "validator"} and not any(c["cached"] for c in calls)
    manifest = json.loads((first.run_dir / "manifest.json").read_text())
    assert manifest["prompts"]["proposer"]["version"] >= 1 and manifest["models"]["proposer"] == "stub"

    served = llm_stub.requests
    second = induce(out=tmp_path / "b" / "rules.kari", bench=tiny_bench, config=config, llm=llm, argv=[])
    assert llm_stub.requests == served  # every reply came from the cache
    assert second.out.read_text() == first.out.read_text()
    calls2 = [json.loads(x) for x in next((second.run_dir / "calls").glob("*.jsonl")).read_text().splitlines()]
    assert calls2 and all(c["cached"] for c in calls2)


def test_only_junk_is_dropped_cleanly(tiny_bench: Path, tmp_path: Path, llm_stub) -> None:
    from llm_server import StubReply

    llm_stub.respond = lambda body: StubReply("no idea, sorry" if _role(body) == "proposer" else "{]")
    llm = LLMConfig(base_url=llm_stub.base_url, model="stub", cache_dir=tmp_path / "cache", max_retries=0)
    outcome = induce(
        out=tmp_path / "rules.kari",
        bench=tiny_bench,
        config=InduceConfig(backend="openai", repair_attempts=1),
        llm=llm,
        argv=[],
    )
    result = outcome.results[AFFORDANCE]
    assert result["rule"] is None and result["rounds"][0]["outcome"] == "dropped"
    assert len(result["dropped"]) >= 2 and outcome.rules == []
    assert outcome.out.read_text().startswith("# kari induce: no rule")
    assert "Rejected proposals" in (outcome.run_dir / "report.md").read_text()


def test_a_validator_reply_in_another_shape_is_counted_and_said(tiny_bench: Path, tmp_path: Path, llm_stub,
                                                                  capfd: pytest.CaptureFixture[str]) -> None:
    """A Validator answering {"labels": "YES"} every time had every label read as NO, the rule still accepted,
    and nothing said that no label was readable."""
    from cli_support import kari

    llm_stub.respond = _sharp_edge_server(lambda: {"labels": "YES"})
    out = tmp_path / "rules.kari"
    code, stdout, err = kari(capfd, "induce", "--bench", tiny_bench, "--out", out, "--llm", "openai", "--base-url",
                             llm_stub.base_url, "--model", "stub", "--cache-dir", tmp_path / "cache", "--rounds", "1",
                             "--quiet")
    assert code == 0, err
    [line] = [x for x in stdout.splitlines() if x.startswith("Validator: ")]
    result = json.loads(next((out.with_suffix(".run") / "affordances").glob("*.json")).read_text())
    unanswered = sum(len(keys) for keys in result["unanswered"].values())
    assert unanswered > 0 and line.startswith(f"Validator: {unanswered} atom label(s) of ")
    assert "count as NO" in line and line in (out.with_suffix(".run") / "report.md").read_text()


def test_a_validator_that_answers_no_label_stops_the_run(tiny_bench: Path, tmp_path: Path, llm_stub,
                                                         capfd: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Past UNUSABLE_AFTER labels with none answered the run stops (exit 2, naming the model and the server) rather
    than reading every label as NO; one usable label among them and it goes on. The labels are counted over the
    run's affordances (KB verbs ask a few labels each), through the session they share."""
    from kari.induce.llmio import LLMSession

    root = LLMSession(object(), prompts={})  # type: ignore[arg-type]
    assert root.for_affordance("cut").labels is root.for_affordance("slice").labels is root.labels
    import kari.induce.validator as validator
    from cli_support import kari, one_line

    monkeypatch.setattr(validator, "UNUSABLE_AFTER", 5)  # the tiny benchmark asks 5 labels in its first round
    usable = {"left": 0}  # usable Validator replies still to give

    def label() -> dict[str, Any]:
        if usable["left"]:
            usable["left"] -= 1
            return {"labels": {"SHAPE:sharp_edge": "YES"}}
        return {"labels": "YES"}

    llm_stub.respond = _sharp_edge_server(label)
    out = tmp_path / "rules.kari"
    argv = ("induce", "--bench", tiny_bench, "--out", out, "--llm", "openai", "--base-url", llm_stub.base_url,
            "--model", "stub", "--rounds", "1", "--quiet", "--no-cache")
    code, _, err = kari(capfd, *argv)
    assert code == 2 and not out.exists()
    line = one_line(err)
    assert "llm-unusable" in line and "model stub at " + llm_stub.base_url in line
    assert "any of the first 5 atom labels of this run (the last asked about 'slice')" in line
    assert json.loads((out.with_suffix(".run") / "manifest.json").read_text())["status"] == "failed"
    usable["left"] = 1  # one usable reply among the five
    code, _, err = kari(capfd, *argv)
    assert code == 0, err


@pytest.mark.llm_server
@pytest.mark.slow
def test_real_local_server(tiny_bench: Path, tmp_path: Path, llm_server: str) -> None:
    from llm_server import LLM_SERVER_MODEL

    llm = LLMConfig(base_url=llm_server, model=LLM_SERVER_MODEL, cache_dir=tmp_path / "cache", timeout=120)
    config = InduceConfig(backend="openai", repair_attempts=1, groups=2)  # two rounds: the 135M model is slow on CPU
    first = induce(out=tmp_path / "a" / "rules.kari", bench=tiny_bench, config=config, llm=llm, argv=[])
    result = first.results[AFFORDANCE]
    assert len(result["rounds"]) == 2 and all(
        r["outcome"] in ("accepted", "dropped", "skipped") for r in result["rounds"]
    )
    for rule in first.rules:  # whatever the tiny model got through passed every check
        assert rule.affordance == AFFORDANCE and rule.branches()
    assert load_rules(first.jsonl) == first.rules if first.rules else first.out.read_text().startswith("#")
    calls = [json.loads(x) for x in next((first.run_dir / "calls").glob("*.jsonl")).read_text().splitlines()]
    assert calls and all(c["completion_tokens"] >= 0 and c["json_mode"] for c in calls)
    second = induce(out=tmp_path / "b" / "rules.kari", bench=tiny_bench, config=config, llm=llm, argv=[])
    calls2 = [json.loads(x) for x in next((second.run_dir / "calls").glob("*.jsonl")).read_text().splitlines()]
    assert len(calls2) == len(calls) and all(c["cached"] for c in calls2)
    assert second.out.read_text() == first.out.read_text()


def test_cv_with_an_llm_proposer(tiny_bench: Path, tmp_path: Path, llm_stub) -> None:
    """--cv works for the LLM backend too: one run directory per fold, fold rule sets, held-out scores."""
    llm_stub.respond = ScriptedModel()
    llm = LLMConfig(base_url=llm_stub.base_url, model="stub", cache_dir=tmp_path / "cache", max_retries=0)
    outcome = induce(out=tmp_path / "rules.kari", bench=tiny_bench, config=InduceConfig(backend="openai"), llm=llm,
                     argv=[], cv=2)
    assert outcome.cv is not None and outcome.cv["k"] == 2
    row = outcome.cv["affordances"][AFFORDANCE]
    assert row["positives"] == 5 and row["negatives"] == 4
    assert row["heldout"]["true_positives"] + row["heldout"]["false_negatives"] == 5
    folder = tmp_path / "rules.cv"
    assert {p.name for p in folder.iterdir()} >= {"folds.json", "cv.json", "fold0.kari", "fold1.jsonl"}
    assert all((outcome.run_dir / "cv" / f"fold{k}" / "calls").is_dir() for k in (0, 1))
    report = (outcome.run_dir / "report.md").read_text()
    assert "## Held-out evaluation" in report and "## LLM calls" in report
