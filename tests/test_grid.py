"""``kari pipeline`` over a grid: two models x two rule sources from one local server into one report (a model
column, one rules delta per model and rule source, a leaderboard across models), and players and shards played
side by side giving the files of a run one after the other. Outside data: tests/data/outside_kb and
outside_bench (not built by kari)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from llm_server import scripted_questioner

from kari.cli import run as cli_run
from kari.errors import KariError
from kari.grid import GridSpec, ModelSpec, read_study
from kari.io.jobs import without_timings
from kari.pipeline import run_grid, run_pipeline

DATA = Path(__file__).parent / "data"
KB = DATA / "outside_kb" / "outside_kb.tsv"
BENCH = DATA / "outside_bench"


def _read(path: Path, root: Path) -> Any:
    text = path.read_text().replace(str(root), "ROOT")
    if path.suffix == ".json":
        return without_timings(json.loads(text))
    if path.suffix == ".jsonl":
        return [without_timings(json.loads(line)) for line in text.splitlines()]
    return text


@pytest.mark.slow
def test_parallel_players_and_shards_give_the_files_of_a_sequential_run(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")  # the KB rules are matched by sentence similarity
    players = ("optimal", "greedy-ig+kb", "greedy-ig+rules", "fix20q")
    run = tmp_path / "run"
    run_pipeline(run, kb_files=[KB], bench=BENCH, questioners=players, games=6, jobs=1)
    sequential = tmp_path / "sequential"
    shutil.copytree(run, sequential)
    for played in ("play", "report"):  # the games and the report again; the KB and its rules resumed as they are
        shutil.rmtree(run / played)
    lines: list[str] = []
    run_pipeline(run, kb_files=[KB], bench=BENCH, questioners=players, games=6, jobs=2, shards=2,
                 echo=lines.append)
    assert any(line.startswith("play greedy-ig+kb: ") for line in lines)
    compared = 0
    for folder in ("play", "report"):
        for path in sorted((sequential / folder).rglob("*")):
            if path.is_file() and path.suffix in (".json", ".jsonl", ".md", ".csv"):
                twin = run / path.relative_to(sequential)
                assert twin.is_file(), twin
                assert _read(twin, run) == _read(path, run), path  # both were written as run/
                compared += 1
    assert compared >= 4 * 4 + 3
    assert (run / "play" / "fix20q.shards" / "2-of-2" / "games.jsonl").is_file()  # the shards were played apart


@pytest.mark.slow
def test_two_models_and_two_rule_sources_from_one_server_give_one_report(tmp_path: Path, llm_stub) -> None:
    pytest.importorskip("sentence_transformers")
    llm_stub.respond = scripted_questioner(questions=2, by_model=True)
    llm_stub.model_ids = {"m1": "m1-q4_k_m", "m2": "m2-f16"}
    study = tmp_path / "study.toml"
    study.write_text(f'''out = "grid"
kb = ["{KB}"]
bench = "{BENCH}"
players = ["greedy-ig", "llm", "llm+kb", "llm+rules"]
games = 8
jobs = 2

[llm]
cache_dir = "cache"

[[models]]
name = "m1"
base_url = "{llm_stub.base_url}"

[[models]]
name = "m2"
base_url = "{llm_stub.base_url}"
concurrency = 2
''')
    assert cli_run(["pipeline", "--study", str(study)]) == 0
    report = tmp_path / "grid" / "report"
    data = json.loads((report / "report.json").read_text())
    rows = {row["run"]: row for row in data["runs"]}
    assert [(r["path"].split("/play/")[1], r["model"]) for r in data["runs"]] == [
        ("greedy-ig", "symbolic"), ("m1/llm", "m1"), ("m1/llm+kb", "m1"), ("m1/llm+rules", "m1"),
        ("m2/llm", "m2"), ("m2/llm+kb", "m2"), ("m2/llm+rules", "m2")]
    served = {r["model"]: r["served_model"] for r in data["runs"]}
    assert served == {"symbolic": None, "m1": "m1-q4_k_m", "m2": "m2-f16"}  # what the server said it ran
    info = data["runs"][1]["model_info"]
    assert info["host"] == llm_stub.base_url.split("/")[2] and info["temperature"] == 0.0 and info["seed"] is None
    assert info["kari_version"] and info["parts"] == ["questioner"]
    # one rules delta per model and rule source, each against that model's own run without rules
    deltas = [c for c in data["comparisons"] if c["kind"] == "rules"]
    pairs = [(c["model"], c["source"], Path(rows[c["a"]]["path"]).parent.name,
              Path(rows[c["b"]]["path"]).parent.name) for c in deltas]
    assert pairs == [("m1", "kb", "m1", "m1"), ("m1", "rules", "m1", "m1"), ("m2", "kb", "m2", "m2"),
                     ("m2", "rules", "m2", "m2")]
    assert all(c["delta_ci"] is not None and c["pairs"] == 8 for c in deltas)
    assert deltas[0]["label"] == "llm [m1]: +KB rules"
    text = (report / "report.md").read_text()
    table1 = text.split("## Table 1 with 95% intervals and paired tests")[1].split("\n## ")[0]
    assert [line.split(" | ")[1] for line in table1.splitlines() if line.startswith("| llm | ")] == ["m1", "m2"]
    assert "| questioner | model | SR % [CI] |" in text and "## SR against the question budget" in text
    board = list(csv.DictReader(io.StringIO((report / "leaderboard.csv").read_text())))
    assert sorted((r["model"], r["rule_source"]) for r in board) == sorted(
        [("symbolic", "")] + [(m, s) for m in ("m1", "m2") for s in ("", "kb", "cross-fitted")])
    assert all(int(r["tokens"]) > 0 for r in board if r["model"] != "symbolic")
    assert (report / "sr_by_budget.png").stat().st_size > 0
    # a rerun resumes: every reply is in the cache, no new request reaches the server
    before = llm_stub.requests
    assert cli_run(["pipeline", "--study", str(study)]) == 0
    assert llm_stub.requests == before


@pytest.mark.slow
def test_flagged_rules_use_gives_the_players_and_the_coverage_every_kb_rule(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")  # the KB rules are matched by sentence similarity
    study = tmp_path / "s.toml"
    study.write_text(f'kb = ["{KB}"]\nbench = "{BENCH}"\nplayers = ["greedy-ig@10+kb"]\ngames = 4\n'
                     'flagged_rules = "use"\n')
    lines: list[str] = []
    run_grid(read_study(study), tmp_path / "run", echo=lines.append)
    rules = [json.loads(line) for line in (tmp_path / "run" / "rules.jsonl").read_text().splitlines()]
    flagged = sum(1 for r in rules if r.get("flagged"))
    assert 0 < flagged < len(rules)  # the outside KB has both kinds, so skipping would count fewer pairs
    objects = len((BENCH / "objects.jsonl").read_text().splitlines())
    coverage = next(line for line in lines if line.startswith("coverage: "))
    assert f" of {len(rules) * objects} rule x object pairs" in coverage
    config = json.loads((tmp_path / "run" / "play" / "greedy-ig@10+kb" / "config.json").read_text())
    assert config["flagged_rules"] == "use"
    ledger = (tmp_path / "run" / "kb_gaps.csv").read_bytes()
    with pytest.raises(KariError, match=r"other settings \(flagged_rules\)"):  # resumed with the default: refused
        run_grid(replace(read_study(study), flagged_rules=None), tmp_path / "run")
    assert (tmp_path / "run" / "kb_gaps.csv").read_bytes() == ledger  # before the coverage and ledger were rewritten
    database = tmp_path / "run" / "kari.duckdb"
    stamp = database.stat().st_mtime_ns
    with pytest.raises(KariError, match=r"other settings \(runs\)"):  # any other play setting: refused before any work
        run_grid(replace(read_study(study), runs=2), tmp_path / "run")
    assert database.stat().st_mtime_ns == stamp and (tmp_path / "run" / "kb_gaps.csv").read_bytes() == ledger


def test_a_study_file_is_read_with_its_paths_and_checked(tmp_path: Path) -> None:
    study = tmp_path / "s.toml"
    study.write_text('players = ["llm", "optimal"]\nruns = 3\n[[models]]\nname = "org/model:7b"\ntemperature = 0.7\n')
    spec = read_study(study)
    assert spec.players == ("llm", "optimal") and spec.runs == 3
    assert spec.models == (ModelSpec("org/model:7b", temperature=0.7),) and spec.models[0].folder == "org_model_7b"
    spec.check()
    study.write_text('players = ["llm"]\n\n[[models]]\nname = "m"\ncolour = "red"\n')
    with pytest.raises(KariError, match="unknown key 'colour'") as caught:
        read_study(study)
    assert caught.value.line == 5 and caught.value.file == str(study)
    study.write_text('players = ["llm"\n')
    with pytest.raises(KariError) as caught:
        read_study(study)
    assert caught.value.line is not None
    with pytest.raises(KariError, match="needs a model"):
        GridSpec(players=("llm",)).check()
    with pytest.raises(KariError, match="no LLM player"):
        GridSpec(players=("optimal",), models=(ModelSpec("m"),)).check()
    assert cli_run(["pipeline", "--out", str(tmp_path / "x"), "-q", "llm"]) == 2
    assert not (tmp_path / "x").exists()  # refused before any work
    study.write_text('players = ["optimal"]\nflagged_rules = "use"\n')
    assert read_study(study).flagged_rules == "use"
    study.write_text('players = ["optimal"]\nflagged_rules = "some"\n')
    expected = r"unknown flagged_rules value 'some' \(expected one of skip or use\)"
    with pytest.raises(KariError, match=expected) as caught:
        read_study(study)
    assert caught.value.line == 2
    assert cli_run(["pipeline", "--out", str(tmp_path / "y"), "--flagged-rules", "some"]) == 2
    assert not (tmp_path / "y").exists()
