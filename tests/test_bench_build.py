"""Game sampling: deterministic, balanced over targets, distractors labelled false, atomic output."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kari.bench.build import build_games, sample_games
from kari.core.benchmark import Label
from kari.bench.reader import load_benchmark
from kari.bench.validate import validate_bench
from kari.cli import app
from kari.errors import KariError
from kari.resources import bundled_bench_dir


@pytest.fixture(scope="module")
def shipped():
    return load_benchmark(bundled_bench_dir(), None)


def _sample(bench, n, seed):
    return sample_games(bench.objects, bench.affordances, bench.labels, n_games=n, seed=seed, min_positives=10)


def test_deterministic_and_seed_dependent(shipped) -> None:
    assert _sample(shipped, 200, 7) == _sample(shipped, 200, 7)
    assert _sample(shipped, 200, 7) != _sample(shipped, 200, 8)


def test_games_are_well_formed(shipped) -> None:
    truth = {(lab.object, lab.affordance): lab.label for lab in shipped.labels}
    for game in _sample(shipped, 300, 1):
        assert len(set(game.candidates)) == 8 and game.target in game.candidates
        assert truth[(game.object, game.target)] is True
        assert all(truth.get((game.object, c)) is False for c in game.candidates if c != game.target)


def test_balanced_across_targets(shipped) -> None:
    n_affs = len({g.target for g in _sample(shipped, None, 0)})
    games = _sample(shipped, 5 * n_affs, 0)
    counts = Counter(g.target for g in games)
    assert len(counts) == n_affs and max(counts.values()) - min(counts.values()) <= 1


def test_tiny_example_by_hand() -> None:
    affs = [f"a{i}" for i in range(9)]
    labels = [Label("o1", "a0", True), *(Label("o1", a, False) for a in affs[1:8]),
              Label("o2", "a1", True), *(Label("o2", a, False) for a in affs[2:8])]  # o2: only 6 negatives
    games = sample_games(["o1", "o2"], affs, labels, seed=3)
    assert [(g.object, g.target) for g in games] == [("o1", "a0")]
    assert sorted(games[0].candidates) == affs[:8]
    with pytest.raises(KariError, match="both true and false"):
        sample_games(["o1"], affs, [*labels, Label("o1", "a0", False)])


def test_build_games_writes_valid_file(tmp_path: Path) -> None:
    bench = tmp_path / "b"
    shutil.copytree(bundled_bench_dir(), bench)
    (bench / "games.jsonl").write_text("junk that build must not read\n", encoding="utf-8")
    stats = build_games(bench, n_games=120, seed=5)
    assert stats.games == 120 and stats.eligible_pairs >= 120
    first = (bench / "games.jsonl").read_bytes()
    build_games(bench, n_games=120, seed=5)
    assert (bench / "games.jsonl").read_bytes() == first
    assert validate_bench(bench).ok
    assert not list(bench.glob(".*.tmp"))


def test_cli_build(tmp_path: Path) -> None:
    bench = tmp_path / "b"
    shutil.copytree(bundled_bench_dir(), bench)
    out = tmp_path / "g.jsonl"
    result = CliRunner().invoke(app, ["bench", "build", str(bench), "--games", "40", "--seed", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert len(out.read_text().splitlines()) == 40
    bad = CliRunner().invoke(app, ["bench", "build", str(tmp_path / "nope")])
    assert isinstance(bad.exception, KariError) and bad.exception.exit_code == 2  # main() prints it, exits 2
