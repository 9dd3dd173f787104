"""The statistics behind every interval of ``kari report``: known values, seeded reproducibility, coverage."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from kari.report.comparisons import Settings, paired, row_scores
from kari.stats import bootstrap_ratio, excludes_zero, mcnemar_exact, wilson, z_value

# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3 (score
# interval without continuity correction).
NEWCOMBE = [((81, 263), (0.2553, 0.3662)), ((15, 148), (0.0624, 0.1605)), ((0, 20), (0.0, 0.1611)),
            ((1, 29), (0.0061, 0.1718))]


@pytest.mark.parametrize(("counts", "expected"), NEWCOMBE)
def test_wilson_matches_the_textbook_values(counts, expected):
    low, high = wilson(*counts)
    assert (round(low, 4), round(high, 4)) == expected


def test_wilson_matches_scipy_on_a_grid():
    stats = pytest.importorskip("scipy.stats")
    for n in (1, 2, 7, 30, 594):
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            ci = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
            assert wilson(k, n) == pytest.approx((ci.low, ci.high), abs=1e-12), (k, n)
            ci90 = stats.binomtest(k, n).proportion_ci(0.90, method="wilson")
            assert wilson(k, n, 0.90) == pytest.approx((ci90.low, ci90.high), abs=1e-12), (k, n)


def test_wilson_edges():
    assert wilson(0, 0) is None
    assert z_value() == pytest.approx(1.959964, abs=1e-6)
    low, high = wilson(2.5, 5)  # a pooled rate over runs: fractional successes
    assert low < 0.5 < high and high - 0.5 == pytest.approx(0.5 - low)
    with pytest.raises(ValueError):
        wilson(6, 5)


def test_mcnemar_exact_hand_computed_cases():
    assert mcnemar_exact(0, 0) == 1.0
    assert mcnemar_exact(5, 5) == 1.0
    assert mcnemar_exact(1, 9) == 2 * (1 + 10) / 2**10  # 2 * P(X <= 1), X ~ Bin(10, 1/2)
    assert mcnemar_exact(0, 6) == 2 / 64
    assert mcnemar_exact(9, 1) == mcnemar_exact(1, 9)
    assert mcnemar_exact(3, 4) == 1.0  # 2 * P(X <= 3) > 1 is capped


def test_mcnemar_matches_scipy_binomtest():
    stats = pytest.importorskip("scipy.stats")
    for b, c in [(1, 9), (12, 30), (40, 61), (0, 17), (150, 190), (600, 700)]:
        assert mcnemar_exact(b, c) == pytest.approx(stats.binomtest(b, b + c, 0.5).pvalue, rel=1e-9)


def test_bootstrap_is_seeded_and_reproducible():
    rng = random.Random(4)
    num = [float(rng.random() < 0.4) for _ in range(200)]
    den = [1.0] * 200
    first = bootstrap_ratio(num, den, resamples=3000, seed=11)
    assert first == bootstrap_ratio(num, den, resamples=3000, seed=11)
    assert first != bootstrap_ratio(num, den, resamples=3000, seed=12)
    mean = sum(num) / 200
    assert first[0] < mean < first[1]
    assert bootstrap_ratio([], [], resamples=10) is None
    assert bootstrap_ratio([0.0, 0.0], [0.0, 0.0], resamples=10) is None
    assert excludes_zero((0.01, 0.2)) and excludes_zero((-0.3, -0.1)) and not excludes_zero((-0.1, 0.1))


def test_wilson_and_bootstrap_cover_the_true_rate_on_simulated_games():
    """Over 300 simulated runs of 150 games with SR 0.3, both 95% intervals hold the truth about 95% of the time."""
    rng = np.random.default_rng(2024)
    truth, n, trials = 0.3, 150, 300
    wilson_hits = boot_hits = 0
    for trial in range(trials):
        outcomes = (rng.random(n) < truth).astype(float)
        low, high = wilson(outcomes.sum(), n)
        wilson_hits += low <= truth <= high
        b_low, b_high = bootstrap_ratio(outcomes, np.ones(n), resamples=1000, seed=trial)
        boot_hits += b_low <= truth <= b_high
    assert 0.91 <= wilson_hits / trials <= 0.99
    assert 0.90 <= boot_hits / trials <= 0.99


def _records(outcomes, turns=None, runs=1):
    return [{"game": f"g{i}", "run": run, "success": bool(outcomes[run][i]),
             "n_turns": (turns or {}).get(i, 5), "target": "cut"}
            for run in range(runs) for i in range(len(outcomes[0]))]


def test_paired_delta_counts_discordant_games_by_game_and_run():
    a = _records([[1, 1, 0, 0, 1], [1, 0, 0, 0, 1]], runs=2)
    b = _records([[1, 0, 1, 1, 1], [0, 0, 1, 0, 1]], runs=2)
    b = [r for r in b if not (r["game"] == "g4" and r["run"] == 1)]  # a pair missing in b: not compared
    result = paired(a, b, Settings(resamples=500))
    assert result["pairs"] == 9 and result["games"] == 5
    assert result["discordant"] == {"b": 2, "c": 3}  # b: a solved and b did not; c: the reverse
    assert result["delta"] == pytest.approx((3 - 2) / 9, abs=1e-6)
    assert result["mcnemar_p"] == pytest.approx(mcnemar_exact(2, 3))
    assert result["delta_ci"][0] <= result["delta"] <= result["delta_ci"][1]
    assert paired(a, [], Settings(resamples=10))["delta"] is None


def test_paired_bootstrap_covers_a_known_delta():
    """Simulated paired games where b solves each game with probability 0.55 and a with 0.45, correlated: the
    95% paired interval holds the true delta (+0.10) about 95% of the time."""
    rng = np.random.default_rng(7)
    n, trials, hits = 200, 200, 0
    for trial in range(trials):
        ease = rng.random(n)  # a game's difficulty, shared by both players (the reason to pair)
        a = (ease < 0.45).astype(int)
        b = (ease < 0.55).astype(int)
        flip = rng.random(n) < 0.2  # some independent noise
        a = np.where(flip, (rng.random(n) < 0.45).astype(int), a)
        b = np.where(flip, (rng.random(n) < 0.55).astype(int), b)
        result = paired(_records([a.tolist()]), _records([b.tolist()]), Settings(resamples=800, seed=trial))
        low, high = result["delta_ci"]
        hits += low <= 0.10 <= high
    assert 0.90 <= hits / trials <= 0.99


def test_row_scores_pools_runs_per_game():
    records = _records([[1, 0, 1, 1], [0, 0, 1, 1]], turns={0: 4, 2: 6, 3: 8}, runs=2)
    scores = row_scores(records, Settings(resamples=400))
    assert scores["games"] == 4 and scores["records"] == 8
    assert scores["success_rate"] == pytest.approx(5 / 8)
    low, high = scores["success_rate_ci"]
    assert (low, high) == pytest.approx(wilson(2.5, 4), abs=1e-6)
    assert scores["avg_turns_solved"] == pytest.approx((4 + 6 + 6 + 8 + 8) / 5)
    assert math.isclose(min(scores["avg_turns_solved_ci"]), scores["avg_turns_solved_ci"][0])
