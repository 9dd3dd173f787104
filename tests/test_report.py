"""``kari report``: report.json, the leaderboard (CSV / JSON) and the interval sections of report.md."""

from __future__ import annotations

import csv
import io
import json

import pytest
from test_game_support import RULES_TEXT, write_bench, write_vocab
from typer.testing import CliRunner

from kari.cli import app
from kari.game.leaderboard import COLUMNS
from kari.game.report import ReportOptions, write_report
from kari.game.run import PlayConfig, play
from kari.stats import mcnemar_exact


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    (root / "rules.kari").write_text(RULES_TEXT)
    bench, vocab = str(write_bench(root / "bench")), str(write_vocab(root / "vocab"))
    runs = {}
    for label, questioner, kw in [("optimal", "optimal", {}), ("greedy-ig", "greedy-ig", {"model_reps": 2}),
                                  ("greedy-ig+rules", "greedy-ig", {"model_reps": 2, "rules": str(root / "rules.kari"),
                                                                    "rule_match": "exact"})]:
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
    delta = next(c for c in data["comparisons"] if c["kind"] == "rules")
    assert (delta["a"], delta["b"], delta["label"]) == ("greedy-ig", "greedy-ig+rules", "greedy-ig@2: +rules")
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
    assert kinds == ["rules", "player", "player"]  # optimal vs each greedy run


def test_report_markdown_keeps_its_tables_and_adds_intervals(made):
    out, result = made
    text = (out / "report.md").read_text()
    assert text == result.markdown
    assert "## SR and turns per questioner, without and with rules (Table 1 layout)" in text
    assert "## Table 1 with 95% intervals and paired tests" in text
    row = next(line for line in text.splitlines() if line.startswith("| greedy-ig@2 | ") and "[" in line)
    assert row.count("[") == 5  # SR, turns, SR +rules, turns +rules, delta
    sentence = next(line for line in text.splitlines() if line.startswith("- greedy-ig@2: +rules"))
    assert "McNemar p = " in sentence and ("excludes zero" in sentence or "includes zero" in sentence)
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
    assert result.output.splitlines()[0] == ",".join(COLUMNS) and len(result.output.splitlines()) == 4
    result = runner.invoke(app, ["report", *dirs, "--format", "json", "--resamples", "300", "-o", str(tmp_path / "r")])
    assert result.exit_code == 0 and json.loads(result.output)[0]["run"] == "optimal"
    assert (tmp_path / "r" / "report.json").is_file() and (tmp_path / "r" / "leaderboard.csv").is_file()
    from kari.cli import run

    for bad in (["--format", "xml"], ["--resamples", "0"], ["--html"]):
        assert run(["report", *dirs, *bad]) == 2, bad
