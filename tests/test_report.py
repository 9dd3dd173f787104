"""``kari report``: report.json, the leaderboard (CSV / JSON) and the interval sections of report.md."""

from __future__ import annotations

import csv
import io
import json

import pytest
from test_game_support import RULES_TEXT, write_bench, write_vocab
from typer.testing import CliRunner

from kari.cli import app
from kari.report.leaderboard import COLUMNS
from kari.report.writer import ReportOptions, write_report
from kari.game.run import PlayConfig, play
from kari.stats import mcnemar_exact


KB_RULES = [  # KB-anchored rules as kari induce --db writes them: member verbs, KB positives, evidence counts
    {"affordance": "slicing", "rule": "MADE_OF:metal", "input": "kb", "kb_positives": ["cut_obj0", "cut_obj2"],
     "group": {"method": "wordnet", "members": [{"verb": "cut", "raw": ["cut"], "positives": 2}]},
     "evidence_counts": {"positives": 2, "negatives": 40, "covered_positives": 2, "covered_negatives": 1}},
    {"affordance": "wrapping", "rule": "MADE_OF:plastic", "input": "kb", "kb_positives": ["wrap_obj5"],
     "group": {"method": "wordnet", "members": [{"verb": "wrap", "raw": ["wrapping"], "positives": 1}]},
     "evidence_counts": {"positives": 1, "negatives": 40, "covered_positives": 1, "covered_negatives": 0}},
]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    (root / "rules.kari").write_text(RULES_TEXT)
    (root / "kb_rules.jsonl").write_text("".join(json.dumps(r) + "\n" for r in KB_RULES))
    bench, vocab = str(write_bench(root / "bench")), str(write_vocab(root / "vocab"))
    runs = {}
    for label, questioner, kw in [("optimal", "optimal", {}), ("greedy-ig", "greedy-ig", {"model_reps": 2}),
                                  ("greedy-ig+rules", "greedy-ig", {"model_reps": 2, "rules": str(root / "rules.kari"),
                                                                    "rule_match": "exact"}),
                                  ("greedy-ig+kb", "greedy-ig", {"model_reps": 2, "rule_match": "exact",
                                                                 "rules": str(root / "kb_rules.jsonl")})]:
        folder = root / "play" / label
        play(PlayConfig(bench=bench, questioner=questioner, vocab=vocab, **kw), folder, progress=False)
        runs[label] = folder
    return {"root": root, "runs": runs, "bench": bench, "vocab": vocab}


@pytest.fixture(scope="module")
def made(world):
    out = world["root"] / "report"
    return out, write_report(list(world["runs"].values()), out, ReportOptions(resamples=2000, seed=3))


def _records(folder):
    return [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]


def test_report_json_has_intervals_and_the_table1_delta(world, made):
    out, result = made
    data = json.loads((out / "report.json").read_text())
    assert data == json.loads(json.dumps(result.data))
    assert data["format"] == "kari-report/1" and data["resamples"] == 2000 and data["seed"] == 3
    rows = {row["run"]: row for row in data["runs"]}
    for row in rows.values():
        low, high = row["success_rate_ci"]
        assert low <= row["success_rate"] <= high
        assert set(row["by_rule_coverage"]) == {"covered", "uncovered"}
        assert set(row["by_affordance"]) == {"cut", "burn", "see_through", "bounce", "write_on", "wear",
                                             "build_with", "wrap"}
    kb_delta, delta = [c for c in data["comparisons"] if c["kind"] == "rules"]
    assert (kb_delta["a"], kb_delta["b"], kb_delta["source"], kb_delta["label"]) == (
        "greedy-ig", "greedy-ig+kb", "kb", "greedy-ig@2: +KB rules")
    assert (delta["a"], delta["b"], delta["source"], delta["label"]) == (
        "greedy-ig", "greedy-ig+rules", "rules", "greedy-ig@2: +benchmark rules")
    base, ruled = _records(world["runs"]["greedy-ig"]), _records(world["runs"]["greedy-ig+rules"])
    won = {r["game"]: r["success"] for r in ruled}
    b = sum(r["success"] and not won[r["game"]] for r in base)
    c = sum(not r["success"] and won[r["game"]] for r in base)
    assert delta["discordant"] == {"b": b, "c": c} and delta["pairs"] == 48
    assert delta["delta"] == pytest.approx((c - b) / 48, abs=1e-6)
    assert delta["mcnemar_p"] == pytest.approx(mcnemar_exact(b, c), abs=1e-8)
    assert delta["delta_ci"][0] <= delta["delta"] <= delta["delta_ci"][1]
    assert set(delta["by_rule_coverage"]) == {"covered", "uncovered"}
    assert delta["by_rule_coverage"]["covered"]["pairs"] == 24  # 4 of the 8 affordances have a rule
    kinds = [c["kind"] for c in data["comparisons"]]
    assert kinds == ["rules", "rules", "player", "player", "player", "player"]  # optimal vs each greedy run, +kb vs +rules
    # KB coverage follows the KB rules (2 of 8 affordances, 12 of 48 games); 3 games hide a KB positive of their
    # target's rule, and every Table 1 delta is also given without them
    kb = data["kb_coverage"]
    assert (kb["affordances_covered"], kb["affordances"], kb["games_covered"], kb["games_kb_positive"]) == (2, 8, 12, 3)
    assert data["coverage_source"]["run"] == "greedy-ig+kb" and data["coverage_source"]["kind"] == "kb"
    assert kb_delta["without_kb_evidence"]["pairs"] == delta["without_kb_evidence"]["pairs"] == 45
    assert rows["greedy-ig"]["without_kb_evidence"]["games"] == 45 and rows["greedy-ig+kb"]["rule_source"] == "kb"
    flagged = {r["game"] for r in _records(world["runs"]["greedy-ig+kb"]) if r["rules"]["target_rule_kb_positive"]}
    assert flagged == {"g_cut_obj0", "g_cut_obj2", "g_wrap_obj5"}


def test_report_markdown_keeps_its_tables_and_adds_intervals(made):
    out, result = made
    text = (out / "report.md").read_text()
    assert text == result.markdown
    assert "## SR and turns per questioner and model, without rules and with each rule source (Table 1 layout)" in text
    assert "## Table 1 with 95% intervals and paired tests" in text
    assert "## Table 1 without the games whose hidden object is KB evidence of its target's rule" in text
    assert "## KB coverage" in text and "2 of 8 (25.0%)" in text
    row = next(line for line in text.splitlines() if line.startswith("| greedy-ig@2 | ") and "[" in line)
    assert row.count("[") == 5  # SR, SR +KB rules, its delta, SR +benchmark rules, its delta
    for source in ("+KB rules", "+benchmark rules"):
        sentence = next(line for line in text.splitlines() if line.startswith(f"- greedy-ig@2: {source}"))
        assert "McNemar p = " in sentence and ("excludes zero" in sentence or "includes zero" in sentence)
    assert "matched to candidates by identical verb id" in text  # these runs asked for --rule-match exact
    assert "## SR % per target affordance [95% CI] (games)" in text
    assert "## The rules delta by rule coverage" in text and "## Player vs player" in text


def test_leaderboard_is_ranked_and_readable_by_other_tools(made):
    out, result = made
    rows = list(csv.DictReader(io.StringIO((out / "leaderboard.csv").read_text())))
    assert tuple(rows[0]) == COLUMNS
    assert rows[0]["run"] == "optimal" and rows[0]["rank"] == "1" and float(rows[0]["success_rate"]) == 1.0
    rates = [float(r["success_rate"]) for r in rows]
    assert rates == sorted(rates, reverse=True)
    ruled = next(r for r in rows if r["run"] == "greedy-ig+rules")
    assert ruled["rules"] == "true" and ruled["rules_baseline"] == "greedy-ig" and ruled["rules_delta"] != ""
    assert json.loads((out / "leaderboard.json").read_text()) == result.leaderboard


def test_report_is_reproducible_with_its_seed(world, made, tmp_path):
    _, first = made
    again = write_report(list(world["runs"].values()), None, ReportOptions(resamples=2000, seed=3))
    assert again.data == first.data
    other = write_report(list(world["runs"].values()), None, ReportOptions(resamples=2000, seed=4))
    assert other.data["runs"][1]["success_rate_ci"] == first.data["runs"][1]["success_rate_ci"]  # Wilson: closed form


def test_cli_report_formats(world, tmp_path):
    runner = CliRunner()
    dirs = [str(p) for p in world["runs"].values()]
    result = runner.invoke(app, ["report", *dirs, "--format", "csv", "--resamples", "300"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == ",".join(COLUMNS) and len(result.output.splitlines()) == 5
    result = runner.invoke(app, ["report", *dirs, "--format", "json", "--resamples", "300", "-o", str(tmp_path / "r")])
    assert result.exit_code == 0 and json.loads(result.output)[0]["run"] == "optimal"
    assert (tmp_path / "r" / "report.json").is_file() and (tmp_path / "r" / "leaderboard.csv").is_file()
    from kari.cli import run

    for bad in (["--format", "xml"], ["--resamples", "0"], ["--html"]):
        assert run(["report", *dirs, *bad]) == 2, bad
