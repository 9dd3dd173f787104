"""Whole runs on the synthetic benchmark: every symbolic player, resume, summaries, plots, report, export, CLI."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from test_game_support import RULES_TEXT, write_bench, write_questions, write_vocab
from typer.testing import CliRunner

from kari.cli import app
from kari.errors import KariError
from kari.game.interactive import play_interactive
from kari.report.writer import report
from kari.game.run import PlayConfig, play


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("world")
    rules = root / "rules.kari"
    rules.write_text(RULES_TEXT)
    questions = write_questions(root / "q.tsv", [("SHAPE", "flat"), ("SIZE", "small"), ("MATERIAL", "metal"),
                                                 ("SURFACE", "smooth"), ("MATERIAL", "wood")])
    return {"bench": str(write_bench(root / "bench")), "vocab": str(write_vocab(root / "vocab")),
            "rules": str(rules), "questions": str(questions), "root": root}


def _config(world, questioner, **kw):
    return PlayConfig(bench=world["bench"], questioner=questioner, vocab=world["vocab"], **kw)


def _records(out):
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def runs(world):
    out = {}
    for name, kw in [("optimal", {}), ("greedy-ig", {}), ("fix20q", {"questions": world["questions"]}),
                     ("rules", {"rules": world["rules"], "rule_match": "exact"})]:
        folder = world["root"] / f"run-{name}"
        out[name] = (folder, play(_config(world, name, **kw), folder, progress=False))
    return out


def test_optimal_solves_everything_quickly(runs):
    _, summary = runs["optimal"]
    assert summary["games"] == 48 and summary["success_rate"] == 1.0
    assert summary["avg_turns_solved"] <= 2.0
    assert set(summary) >= {"games", "success_rate", "avg_turns_solved", "ig_by_turn", "by_affordance"}
    assert summary["by_affordance"]["cut"]["games"] == 6


def test_fix20q_is_far_below_optimal_and_averages_five_runs(runs):
    folder, summary = runs["fix20q"]
    assert summary["runs"] == 5 and summary["records"] == 5 * 48
    # a game played five times is one game in every score of the summary (the split by affordance summed 240)
    assert summary["games"] == 48 and sum(s["games"] for s in summary["by_affordance"].values()) == 48
    assert summary["by_affordance"]["cut"]["games"] == 6
    assert summary["success_rate"] <= 0.6
    record = _records(folder)[0]
    assert [t["question"] for t in record["turns"]] == ["SHAPE:flat", "SIZE:small", "MATERIAL:metal",
                                                        "SURFACE:smooth", "MATERIAL:wood"]
    assert summary["dimension_share_by_turn"][2] == {"MATERIAL": 1.0}


def test_target_blind_player_solves_the_easy_benchmark(runs):
    folder, summary = runs["greedy-ig"]
    assert summary["success_rate"] >= 0.9
    assert summary["ig_by_turn"][0] > 0
    assert summary["avg_turns_solved"] <= 8
    record = _records(folder)[0]  # the soft belief the player used is recorded beside the hard b_t
    assert set(record["turns"][0]["b_soft"]) == set(record["candidates"]) and record["b0_soft"]
    assert record["guess_soft_belief"] is not None


def test_rules_player_uses_matched_rules_and_splits_by_coverage(runs):
    folder, summary = runs["rules"]
    records = _records(folder)
    covered = {r["game"]: r["rules"]["target_has_rule"] for r in records}
    assert sum(covered.values()) == 4 * 6  # cut, burn, see_through, bounce have rules
    assert set(summary["by_rule_coverage"]) == {"covered", "uncovered"}
    assert all(r["success"] for r in records if r["rules"]["target_rule_covers_object"])
    assert summary["by_rule_coverage"]["covered"]["success_rate"] >= 0.5
    assert summary["by_rule_coverage"]["covered"]["success_rate"] > summary["by_rule_coverage"]["uncovered"]["success_rate"]
    assert all(q["question"].split(":")[0] in ("MATERIAL", "SHAPE", "SIZE") for r in records for q in r["turns"])
    assert summary["target_covered_share"] == pytest.approx(0.5)


def test_outputs_and_plots(runs):
    folder, _ = runs["optimal"]
    for name in ("games.jsonl", "summary.json", "config.json", "ig_by_turn.png", "dimensions_by_turn.png",
                 "success_by_affordance.png"):
        assert (folder / name).stat().st_size > 0, name
    assert (folder / "ig_by_turn.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    turn = _records(folder)[0]["turns"][0]
    assert set(turn) >= {"question", "checker", "answer", "b", "ig"}


def test_resume_skips_done_games_and_drops_a_truncated_line(world):
    out = world["root"] / "resume"
    play(_config(world, "greedy-ig", games=5), out, progress=False)
    lines = (out / "games.jsonl").read_text().splitlines()
    (out / "games.jsonl").write_text("\n".join(lines[:3]) + "\n" + lines[3][:40])  # crash mid-line
    summary = play(_config(world, "greedy-ig", games=8), out, progress=False)
    records = _records(out)
    assert [r["game"] for r in records][:3] == [json.loads(x)["game"] for x in lines[:3]]
    assert len(records) == 8 == len({r["game"] for r in records}) == summary["games"]
    again = play(_config(world, "greedy-ig", games=8), out, progress=False)
    assert len(_records(out)) == 8 and again["success_rate"] == summary["success_rate"]
    with pytest.raises(KariError, match="other settings"):
        play(_config(world, "greedy-ig", seed=3), out, progress=False)


def test_report_compares_runs(runs, world):
    text = report([runs["optimal"][0], runs["rules"][0], runs["fix20q"][0]], world["root"] / "report")
    assert "| run-optimal | optimal |" in text and "| rules | 100.0 |" not in text
    row = next(line for line in text.splitlines() if line.startswith("| run-optimal "))
    assert "| 100.0 | 100.0 |" in row  # covered/uncovered borrowed from the rules run
    assert (f"a matched rule among the rules in `{world['rules']}`, 4 rules, matched to candidates by identical verb "
            "id, as recorded by run `run-rules`: 24 of 48 games (50.0%) are covered") in text
    assert "- **turns**: mean number of question turns" in text and "SOLVED games only" in text
    assert "Figure: [ig_over_turns.png](ig_over_turns.png)" in text
    assert "| optimal | symbolic | 100.0 | 1.00 | - | - | - |" in text  # no optimal run with rules: no delta
    assert (world["root"] / "report" / "ig_over_turns.png").exists()


def test_report_delta_is_with_rules_minus_without(runs):
    from kari.report.writer import RunData, compare, load_run

    base = load_run(runs["greedy-ig"][0])
    ruled = load_run(runs["rules"][0])  # stands in for a greedy-ig+rules run: same games, other results
    ruled = RunData(ruled.path.with_name("greedy-rules"), replace(ruled.config, questioner="greedy-ig+rules"),
                    ruled.summary, ruled.records)
    text = compare([base, ruled])
    delta = 100 * (ruled.summary["success_rate"] - base.summary["success_rate"])
    row = next(line for line in text.splitlines() if line.startswith("| greedy-ig | "))
    assert row.endswith(f"| {delta:+.1f} | - |"), row  # no LLM call: no tokens
    assert "Figure:" not in text  # no figure is written without --out


def test_interactive_human_game_is_recorded(world):
    answers = iter(["Is it made of metal?", "Can it be used to cut?", "guess 1"])
    lines: list[str] = []
    config = _config(world, "optimal", game_ids=("g_cut_obj0",))
    records = play_interactive(config, world["root"] / "human", read=lambda _: next(answers), write=lines.append)
    record = records[0]
    assert record["questioner"] == "human" and record["turns"][0]["answer"] == "yes"
    assert record["turns"][1]["checker"]["flag"] == "FUNCTION"
    assert record["guess"] == record["candidates"][0]
    assert any("Candidates" in line for line in lines) and any("hidden object" in line for line in lines)


def test_bad_inputs_are_one_line_errors(world, tmp_path):
    runner = CliRunner()
    cases = [
        ["play", "--bench", world["bench"], "--vocab", world["vocab"], "-q", "nobody", "--out", str(tmp_path / "a")],
        ["play", "--bench", world["bench"], "--vocab", world["vocab"], "-q", "rules", "--out", str(tmp_path / "b")],
        ["play", "--bench", str(tmp_path / "missing"), "-q", "optimal", "--out", str(tmp_path / "c")],
        ["play", "--bench", world["bench"], "--vocab", world["vocab"], "-q", "fix20q", "--out", str(tmp_path / "d"),
         "--questions", str(write_questions(tmp_path / "bad.tsv", [("MATERIAL", "metal"), ("COLOUR", "red")]))],
        # a question list only fix20q reads was accepted by every player and ignored
        ["play", "--bench", world["bench"], "--vocab", world["vocab"], "-q", "greedy-ig", "--out", str(tmp_path / "e"),
         "--questions", world["questions"]],
        ["report", str(tmp_path / "nothing")],
    ]
    from kari.cli import main

    for argv in cases:
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2, argv
    assert not (tmp_path / "b" / "games.jsonl").exists()
    result = runner.invoke(app, ["play", "--help"])
    assert result.exit_code == 0 and "--questioner" in result.output


def test_cli_play_and_export_prompts(world, tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["play", "--bench", world["bench"], "--vocab", world["vocab"], "-q", "optimal",
                                 "--games", "4", "--rules", world["rules"], "--match", "exact", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "4 games x 1 run(s): SR 100.0%" in result.output and "covered SR" in result.output
    result = runner.invoke(app, ["export-prompts", "--rules", world["rules"], "--bench", world["bench"], "--match",
                                 "exact", "--out", str(tmp_path / "prompts")])
    assert result.exit_code == 0, result.output
    assert "48 prompts" in result.output and "24 games (50.0%)" in result.output
    rows = [json.loads(x) for x in (tmp_path / "prompts" / "prompts.jsonl").read_text().splitlines()]
    cut_game = next(r for r in rows if r["target"] == "cut")
    assert "cut: the object has a part that is made of metal" in cut_game["system_prompt"]
    assert cut_game["target_has_rule"] and cut_game["matched"]["wear"] == []
    assert (tmp_path / "prompts" / "prompts" / f"{cut_game['game']}.txt").read_text() == cut_game["system_prompt"]
