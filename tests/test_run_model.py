"""Runs know their model: the name resolved (``$KARI_LLM_MODEL`` included), the id the server reported, its host,
the LLM temperature and the sampling seed of each run; symbolic runs and runs of an older kari say so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from llm_server import scripted_questioner
from test_game_support import write_bench, write_vocab

from kari.cli import run as cli_run
from kari.core.run_model import NOT_RECORDED, SYMBOLIC
from kari.report.writer import ReportOptions, load_run, write_report

OLD = Path(__file__).parent / "data" / "old_runs"


def test_an_llm_run_records_its_model_and_samples_each_run_with_its_own_seed(tmp_path, llm_stub, monkeypatch):
    llm_stub.respond = scripted_questioner(questions=1, by_seed=True)
    llm_stub.model_ids = {"env-model": "env-model-q8"}
    monkeypatch.setenv("KARI_LLM_MODEL", "env-model")  # the model from the environment, not --model
    bench, vocab = write_bench(tmp_path / "bench"), write_vocab(tmp_path / "vocab")
    out = tmp_path / "run"
    code = cli_run(["play", "-q", "llm", "--bench", str(bench), "--vocab", str(vocab), "-n", "12", "--runs", "3",
                    "--seed", "5", "--llm-temperature", "0.7", "--base-url", llm_stub.base_url, "--cache-dir",
                    str(tmp_path / "cache"), "-o", str(out), "--quiet"])
    assert code == 0
    assert {b["temperature"] for b in llm_stub.bodies} == {0.7}
    assert {b["seed"] for b in llm_stub.bodies} == {5, 6, 7}  # run k sends --seed + k
    config = json.loads((out / "config.json").read_text())
    assert config["model"] == "env-model" and config["llm_temperature"] == 0.7
    summary = json.loads((out / "summary.json").read_text())
    model = summary["model"]
    # every reply, live or from the cache (a request two games share), named the model the server ran
    assert model["name"] == "env-model" and model["served"] == {"env-model-q8": summary["llm_usage"]["calls"]}
    assert model["host"] == llm_stub.base_url.split("/")[2] and (model["temperature"], model["seed"]) == (0.7, 5)
    assert model["llm"] and model["kari_version"]
    records = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    guesses = {r["run"]: [x["guess"] for x in records if x["run"] == r["run"]] for r in records}
    assert len({tuple(g) for g in guesses.values()}) > 1  # each run's own seed: its own guesses
    made = write_report([out], tmp_path / "report", ReportOptions(resamples=200))
    row = made.data["runs"][0]
    assert row["model"] == "env-model" and row["served_model"] == "env-model-q8" and row["tokens"] > 0
    repeats = row["success_rate_over_runs"]
    assert repeats["runs"] == 3 and len(repeats["success_rate_by_run"]) == 3
    assert repeats["ci"] is None or repeats["ci"][0] <= repeats["mean"] <= repeats["ci"][1]
    curve = row["sr_by_budget"]
    assert curve["t"][0] == 0 and curve["success_rate"][0] == 0.0
    assert curve["success_rate"][-1] == row["success_rate"]
    assert all(a <= b for a, b in zip(curve["success_rate"], curve["success_rate"][1:]))  # cumulative
    assert "| env-model |" in made.markdown and "(3 runs)" in made.markdown


def test_greedy_decoding_sends_no_seed(tmp_path, llm_stub):
    llm_stub.respond = scripted_questioner(questions=1)
    bench, vocab = write_bench(tmp_path / "bench"), write_vocab(tmp_path / "vocab")
    code = cli_run(["play", "-q", "llm", "--bench", str(bench), "--vocab", str(vocab), "-n", "2", "--model", "m",
                    "--base-url", llm_stub.base_url, "--no-cache", "-o", str(tmp_path / "run"), "--quiet"])
    assert code == 0 and llm_stub.bodies
    assert all("seed" not in b and b["temperature"] == 0.0 for b in llm_stub.bodies)
    model = json.loads((tmp_path / "run" / "summary.json").read_text())["model"]
    assert (model["name"], model["temperature"], model["seed"]) == ("m", 0.0, None)


def test_symbolic_runs_and_runs_of_an_older_kari_say_so(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    for name, target in (("config.json", "config.json"), ("summary_rules.json", "summary.json")):
        shutil.copy(OLD / name, old / target)
    records = [line for line in (OLD / "games.jsonl").read_text().splitlines() if '"questioner": "rules"' in line]
    (old / "games.jsonl").write_text("\n".join(records) + "\n")
    run = load_run(old)
    assert run.summary.model is None and run.model.label == SYMBOLIC  # the rules player: no LLM played
    llm = tmp_path / "old-llm"
    shutil.copytree(old, llm)
    config = json.loads((llm / "config.json").read_text())
    (llm / "config.json").write_text(json.dumps({**config, "questioner": "llm"}))
    games = (llm / "games.jsonl").read_text()  # the records name their questioner as the config does
    (llm / "games.jsonl").write_text(games.replace('"questioner": "rules"', '"questioner": "llm"'))
    assert load_run(llm).model.label == NOT_RECORDED  # an LLM run whose model the old kari did not write down
    made = write_report([old, llm], None, ReportOptions(resamples=100))
    assert [r["model"] for r in made.data["runs"]] == [SYMBOLIC, NOT_RECORDED]
    assert made.data["runs"][0]["model_info"]["kari_version"] == ""  # not the version that wrote it
