"""The main job end to end on the bundled data (a few games), and its rerun."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kari.pipeline import run_pipeline
from kari.rules import load_rules


@pytest.mark.slow
def test_pipeline_on_bundled_data(tmp_path: Path) -> None:
    lines: list[str] = []
    result = run_pipeline(tmp_path / "run", questioners=("optimal", "fix20q", "rules", "greedy-ig+rules"), games=20,
                          echo=lines.append)
    assert [line.split(":")[0] for line in lines] == ["kb", "induce", "coverage", "play optimal", "play fix20q",
                                                      "play rules", "play greedy-ig+rules", "report"]
    rules = load_rules(result.rules)
    assert len(rules) >= 15  # one rule per affordance with KB positives (19 in the bundled KB)
    # players that see rules get, per game, the cross-fitted rule set that never saw the hidden object
    folds = json.loads((result.rules.with_suffix(".cv") / "folds.json").read_text())["fold_of"]
    records = [json.loads(line) for line in (result.play_dirs["rules"] / "games.jsonl").read_text().splitlines()]
    assert records and all(r["rules"]["fold"] == folds[r["object"]] for r in records)
    summaries = {name: json.loads((folder / "summary.json").read_text()) for name, folder in result.play_dirs.items()}
    assert summaries["optimal"]["games"] == 20 and summaries["optimal"]["success_rate"] >= 0.9
    assert summaries["fix20q"]["success_rate"] < summaries["optimal"]["success_rate"]
    report = (result.report / "report.md").read_text()
    assert "| optimal |" in report and (result.report / "ig_over_turns.png").stat().st_size > 0

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
