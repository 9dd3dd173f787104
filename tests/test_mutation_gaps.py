"""Tests for the bugs a mutation run slipped past every test (issue 28; ``benchmarks/mutation.py`` runs them):
avg_turns_solved averaged over every game, Optimal keeping a stale plan after a surprising answer, a resume
check blind to an input read before and not now, and the atomic write and the refusal of an output over an
input, each of which only one test caught."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_game_support import write_bench, write_vocab

from kari.errors import KariError
from kari.game.metrics import score, summarise
from kari.core.game_records import GameRecord


def _record(game: str, success: bool, turns: int, target: str = "cut") -> GameRecord:
    turn = {"turn": 1, "question": "q", "checker": {"pairs": [], "flag": None, "accepted": False}, "answer": None,
            "b": None, "ig": 0.0}
    return GameRecord.from_json({"run": 0, "questioner": "random", "game": game, "object": f"o{game}",
                                 "target": target, "candidates": [target, "other"], "turns": [turn] * turns,
                                 "n_turns": turns, "guess": target if success else "other",
                                 "guess_raw": target if success else "other", "success": success})


def test_turns_are_averaged_over_the_solved_games_only() -> None:
    """Solved games in 2, 3 and 4 turns and two lost ones in 20: 3.0, not 9.8 (the mean over every game)."""
    records = [_record("a", True, 2), _record("b", True, 3), _record("c", True, 4), _record("d", False, 20),
               _record("e", False, 20)]
    assert score(records).avg_turns_solved == pytest.approx(3.0)
    assert summarise(records).avg_turns_solved == pytest.approx(3.0)
    assert score([_record("d", False, 20)]).avg_turns_solved is None


def test_optimal_replans_after_every_surprising_answer_of_a_noisy_oracle(tmp_path: Path) -> None:
    """With --oracle-noise each flipped answer is one the plan (made from the hidden object's facts) did not
    expect: Optimal plans again when it next acts (unless the belief then passes the threshold and it guesses,
    or the budget is spent), so its plans are one plus those flipped answers. A player that kept its stale plan
    would plan once per game."""
    from kari.core.game_defaults import BUDGET, THRESHOLD
    from kari.game.run import PlayConfig, play

    bench, vocab = write_bench(tmp_path / "bench"), write_vocab(tmp_path / "vocab")
    play(PlayConfig(bench=str(bench), questioner="optimal", vocab=str(vocab), oracle_noise=0.3, seed=3, games=16),
         tmp_path / "run", progress=False)
    records = [json.loads(line) for line in (tmp_path / "run" / "games.jsonl").read_text().splitlines()]
    surprised = 0
    for record in records:
        turns = record["turns"]
        followed = sum(1 for t in turns if t.get("flipped") and t["turn"] < BUDGET
                       and max((t["b"] or {"": 0.0}).values()) <= THRESHOLD)
        assert record["questioner_info"]["plans"] == 1 + followed, record["game"]
        surprised += followed
    assert surprised >= 3            # the noise did surprise it, more than once


def test_a_resume_names_an_input_read_before_and_not_now() -> None:
    """changes() compared only the inputs read now: one the run read before and no longer reads went unseen."""
    from kari.io.fingerprint import changes, check_unchanged

    old = {"bench": {"what": "the benchmark", "path": "B", "files": {"objects.jsonl": "1"}},
           "questions": {"what": "the question list", "path": "q.tsv", "files": {"q.tsv": "2"}}}
    new = {"bench": old["bench"]}
    assert changes(old, new) == ["the question list q.tsv (not read now)"]
    assert changes(new, old) == ["the question list q.tsv (not read before)"]
    with pytest.raises(KariError) as caught:
        check_unchanged(Path("config.json"), old, new)
    assert caught.value.code == "run-inputs" and "not read now" in caught.value.message


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary_one(tmp_path: Path) -> None:
    """The atomic write renames only a finished file: a block that raises leaves the old content and no
    temporary sibling, and a block that finishes replaces the file whole, keeping its mode."""
    from kari.io.atomic import atomic_open, atomic_write_text

    target = tmp_path / "out.txt"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    with pytest.raises(RuntimeError):
        with atomic_open(target) as handle:
            handle.write("half")
            raise RuntimeError("stopped")
    assert target.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
    with atomic_open(target) as handle:
        handle.write("new")
        assert target.read_text() == "old\n"        # nothing reaches the target before the block ends
    assert target.read_text() == "new" and os.stat(target).st_mode & 0o777 == 0o640
    atomic_write_text(tmp_path / "sub" / "new.txt", "x")
    assert (tmp_path / "sub" / "new.txt").read_text() == "x"


def test_an_output_over_an_input_is_refused_by_the_library_too(tmp_path: Path) -> None:
    """The refusal holds for a Python caller of each writer, not only on the command line."""
    from kari.bench.build import build_games
    from kari.game.export import export_prompts

    bench = write_bench(tmp_path / "bench")
    before = (bench / "labels.jsonl").read_bytes()
    with pytest.raises(KariError) as caught:
        build_games(bench, out=bench / "labels.jsonl")
    assert caught.value.code == "output-is-input"
    rules = tmp_path / "out" / "prompts.jsonl"
    rules.parent.mkdir()
    rules.write_text('{"affordance": "cut", "rule": "MADE_OF:metal"}\n')
    with pytest.raises(KariError) as caught:
        export_prompts(bench, rules, tmp_path / "out", match_mode="exact")
    assert caught.value.code == "output-is-input"
    assert (bench / "labels.jsonl").read_bytes() == before and rules.read_text().startswith('{"affordance"')
