"""Acceptance on the bundled benchmark: Optimal reaches SR >= 0.95 in <= 3.5 turns; Fix20Q lands far below."""

from __future__ import annotations

import pytest

from kari.game.run import PlayConfig, play
from kari.resources import bundled_bench_dir


@pytest.fixture(scope="module")
def bench_dir():
    root = bundled_bench_dir()
    if not (root / "games.jsonl").exists():
        pytest.skip("the bundled benchmark has no games.jsonl yet")
    return str(root)


def test_optimal_and_fix20q_on_the_bundled_benchmark(bench_dir, tmp_path):
    optimal = play(PlayConfig(bench=bench_dir, questioner="optimal"), tmp_path / "optimal", progress=False)
    print(f"optimal: {optimal['games']} games, SR {optimal['success_rate']:.4f}, turns {optimal['avg_turns_solved']:.3f}")
    assert optimal["success_rate"] >= 0.95
    assert optimal["avg_turns_solved"] <= 3.5
    fix = play(PlayConfig(bench=bench_dir, questioner="fix20q", games=120, runs=2), tmp_path / "fix20q", progress=False)
    print(f"fix20q: {fix['games']} games x {fix['runs']} runs, SR {fix['success_rate']:.4f}")
    assert fix["success_rate"] <= optimal["success_rate"] - 0.4
    assert optimal["ig_by_turn"][0] > fix["ig_by_turn"][0]


def test_hidden_object_among_representatives_inflates_a_symbolic_player(bench_dir, tmp_path):
    """Why every non-Optimal player gets leave-one-out representatives: otherwise it partly reads the answer."""
    fair = play(PlayConfig(bench=bench_dir, questioner="greedy-ig", games=100), tmp_path / "fair", progress=False)
    leaky = play(PlayConfig(bench=bench_dir, questioner="greedy-ig", games=100, leave_one_out=False),
                 tmp_path / "leaky", progress=False)
    print(f"greedy-ig SR leave-one-out {fair['success_rate']:.3f}, hidden among representatives "
          f"{leaky['success_rate']:.3f}")
    assert leaky["success_rate"] >= fair["success_rate"] + 0.10
