"""The main job end to end on the bundled data (a few games), reading each input once, and its rerun.

The loads are counted by wrapping the loaders wherever a module holds them (the readers are imported both at the
top of modules and inside functions), so a second parse of the benchmark or a second build of the vocabulary
from the database anywhere in the pipeline fails the test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from call_counts import counting

from kari.bench.parser import Parser
from kari.pipeline import run_pipeline
from kari.rules import load_rules
from kari.vocab.vocabulary import Vocabulary


def loaders() -> dict[str, tuple[Any, str]]:
    import kari.domain.canon as canon
    import kari.induce.folds as folds
    import kari.rules.rulefile as rulefile
    import kari.solver.run  # noqa: F401  (its loaders are imported, so that they are wrapped too)
    import kari.pipeline  # noqa: F401
    import kari.study  # noqa: F401

    return {"benchmark parses": (Parser, "read_objects"), "object canonicalisations": (canon, "canonical_objects"),
            "vocabulary from files": (Vocabulary, "load"), "vocabulary from a database": (Vocabulary, "from_db"),
            "vocabulary copies": (Vocabulary, "copy"), "rules files read": (rulefile, "load_rules"),
            "cross-fitted sets read": (folds, "load_cross_fitted")}


@pytest.mark.slow
def test_pipeline_on_bundled_data(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers")  # KB rules are matched by sentence similarity
    lines: list[str] = []
    players = ("optimal", "fix20q", "rules", "greedy-ig+rules", "greedy-ig+kb")
    with counting(loaders()) as counts:
        result = run_pipeline(tmp_path / "run", questioners=players, games=20, echo=lines.append)
    assert counts["benchmark parses"] == 1
    assert counts["vocabulary from a database"] == 1  # once, after kb load stored it
    assert counts["vocabulary from files"] == 1  # the KB loader's, before the database holds a vocabulary
    assert counts["vocabulary copies"] == len(players)  # each player reads its rules' words into its own copy
    assert counts["cross-fitted sets read"] == 1
    # the KB's objects (kb load, induce), the benchmark's for the benchmark-supervised induction (a step of its
    # own since the KB rules are induced from the KB: it reads the benchmark's words as the database then holds
    # them), for coverage and once more for the games
    assert counts["object canonicalisations"] == 5
    # the five fold files once, rules.kari once (coverage), and the report's look at the folder it names
    assert counts["rules files read"] == 5 + 1 + 1
    assert [line.split(":")[0] for line in lines] == ["kb", "induce (KB)", "induce (benchmark)", "coverage",
                                                      "KB-gap ledger", "play optimal", "play fix20q", "play rules",
                                                      "play greedy-ig+rules", "play greedy-ig+kb", "report"]
    kb_rules = load_rules(result.rules.with_suffix(".jsonl"))
    assert len(kb_rules) > 350 and all(r.metadata["input"] == "kb" and r.metadata["group"] for r in kb_rules)
    # every KB rule rests on two KB objects at least (its positives and pooled kin): thinner groups are left out
    assert all(len({*r.metadata["kb_positives"], *(r.metadata.get("kb_pooled") or ())}) >= 2 for r in kb_rules)
    assert len(load_rules(result.bench_rules)) == 19  # one benchmark-supervised rule per affordance
    # players given benchmark rules get, per game, the cross-fitted rule set that never saw the hidden object
    folds = json.loads((result.bench_rules.with_suffix(".cv") / "folds.json").read_text())["fold_of"]
    records = [json.loads(line) for line in (result.play_dirs["rules"] / "games.jsonl").read_text().splitlines()]
    assert records and all(r["rules"]["fold"] == folds[r["object"]] for r in records)
    assert {r["rules"]["source"] for r in records} == {"cross-fitted"}
    # players given KB rules get them matched by sentence similarity, never all of them (coverage below 100%)
    kb_records = [json.loads(line) for line in
                  (result.play_dirs["greedy-ig+kb"] / "games.jsonl").read_text().splitlines()]
    matches = [m for r in kb_records for ms in r["rules"]["matched"].values() for m in ms]
    assert matches and {m["match"] for m in matches} == {"embedding"} and all(m["similarity"] >= 0.7 for m in matches)
    assert {r["rules"]["source"] for r in kb_records} == {"kb"}
    assert 0 < sum(r["rules"]["target_has_rule"] for r in kb_records) < len(kb_records)
    summaries = {name: json.loads((folder / "summary.json").read_text()) for name, folder in result.play_dirs.items()}
    assert summaries["optimal"]["games"] == 20 and summaries["optimal"]["success_rate"] >= 0.9
    assert summaries["fix20q"]["success_rate"] < summaries["optimal"]["success_rate"]
    report = (result.report / "report.md").read_text()
    assert "| optimal |" in report and (result.report / "ig_over_turns.png").stat().st_size > 0
    assert "## KB coverage" in report and "matched by identical verb id" not in report
    data = json.loads((result.report / "report.json").read_text())
    assert 0 < data["kb_coverage"]["game_share"] < 1
    # the KB-gap ledger of every benchmark game in the database; the report's, of the 20 games played with KB
    # rules, gives each of them the same status
    import duckdb

    with duckdb.connect(str(result.db), read_only=True) as con:
        status = dict(con.execute("SELECT game, status FROM kb_gap_games").fetchall())
        gaps = con.execute("SELECT count(*) FROM kb_gaps").fetchone()[0]
    assert len(status) == 594 and gaps > 0 and (result.out / "kb_gaps.csv").is_file()
    assert "## KB-gap ledger" in report and data["kb_gaps"]["games"] == 20
    played = {r["game"] for r in kb_records}
    mine = {s: sum(status[g] == s for g in played) for s in data["kb_gaps"]["by_status"]}
    assert mine == data["kb_gaps"]["by_status"]

    # A rerun resumes: the KB is not loaded twice and the games are not replayed.
    again: list[str] = []
    run_pipeline(tmp_path / "run", questioners=("optimal",), games=20, echo=again.append)
    assert again[0].startswith("kb: 0 new edges")
    assert len((result.play_dirs["optimal"] / "games.jsonl").read_text().splitlines()) == 20


def test_pipeline_rejects_a_missing_benchmark_without_writing(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "kari", "pipeline", "--bench", str(tmp_path / "nope"),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "benchmark directory not found" in proc.stderr
    assert not (tmp_path / "out").exists()
