"""Benchmark: the target-blind symbolic player's soft-belief settings, chosen by cross-validation over games.

Every setting of the grid (eps, smoothing, stop belief, lookahead) plays every game of the benchmark once with
``greedy-ig`` (leave-one-out representatives, symbolic Oracle and Checker). Then, for each of K seeded folds of
the games, the setting with the best success rate on the other K-1 folds (among settings whose mean turns on
solved games stay under --max-turns; ties: fewer turns) is scored on the held-out fold. Printed: the held-out
(cross-validated) success rate and turns beside the in-sample best, the setting chosen on all games (kari's
defaults, kari/core/game_defaults.py), and ms per game. Run it on a benchmark you did not tune on too (--bench).

    python benchmarks/bench_players.py [--bench DIR] [--folds 5] [--seed 0] [--max-turns 10]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from kari.game.run import PlayConfig, play
from kari.resources import bundled_bench_dir

GRID = {
    "eps": (0.02, 0.05, 0.1, 0.2),
    "smoothing": (0.0, 0.3, 0.5),
    "stop_belief": (0.5, 0.7),
    "lookahead": (1, 2),
}


def play_setting(bench: Path, setting: dict[str, float]) -> tuple[dict[str, tuple[bool, int]], float]:
    """Per game id: (success, turns); and the mean milliseconds per game."""
    extra = {"stop_belief": setting["stop_belief"], "lookahead": setting["lookahead"]}
    with tempfile.TemporaryDirectory() as folder:
        config = PlayConfig(bench=str(bench), questioner="greedy-ig", eps=setting["eps"],
                            smoothing=setting["smoothing"], extra=extra)
        started = time.perf_counter()
        summary = play(config, folder, progress=False)
        elapsed = time.perf_counter() - started
        records = [json.loads(line) for line in (Path(folder) / "games.jsonl").read_text().splitlines()]
    return {r["game"]: (bool(r["success"]), r["n_turns"]) for r in records}, 1000 * elapsed / summary["records"]


def score(results: dict[str, tuple[bool, int]], games: list[str]) -> tuple[float, float]:
    """Success rate and mean turns on solved games over ``games``."""
    solved = [results[g][1] for g in games if results[g][0]]
    return sum(results[g][0] for g in games) / len(games), statistics.fmean(solved) if solved else float("inf")


def best(settings: list[dict], table: list[dict[str, tuple[bool, int]]], games: list[str], max_turns: float) -> int:
    """Index of the setting with the highest success rate on ``games`` (turns under ``max_turns``; ties: fewer turns)."""
    scored = [(score(table[i], games), i) for i in range(len(settings))]
    allowed = [(sr, -turns, -i) for (sr, turns), i in scored if turns <= max_turns] or \
              [(sr, -turns, -i) for (sr, turns), i in scored]
    return -max(allowed)[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=bundled_bench_dir())
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-turns", type=float, default=10.0)
    args = parser.parse_args()

    settings = [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]
    table, ms = [], []
    started = time.perf_counter()
    for setting in settings:
        results, per_game = play_setting(args.bench, setting)
        table.append(results)
        ms.append(per_game)
        sr, turns = score(results, sorted(results))
        print(f"{setting}: SR {100 * sr:.1f}%, turns {turns:.2f}, {per_game:.1f} ms/game", flush=True)
    games = sorted(table[0])
    order = games[:]
    random.Random(f"kari-bench-players:{args.seed}").shuffle(order)
    folds = [order[k::args.folds] for k in range(args.folds)]
    held_success, held_turns, chosen = [], [], []
    for k, test in enumerate(folds):
        train = [g for g in games if g not in set(test)]
        index = best(settings, table, train, args.max_turns)
        chosen.append(index)
        held_success += [table[index][g][0] for g in test]
        held_turns += [table[index][g][1] for g in test if table[index][g][0]]
    final = best(settings, table, games, args.max_turns)
    sr_in, turns_in = score(table[final], games)
    print(f"\n{len(games)} games, {len(settings)} settings, {time.perf_counter() - started:.0f} s")
    print(f"held-out ({args.folds}-fold over games): SR {100 * statistics.fmean(held_success):.1f}%, turns "
          f"{statistics.fmean(held_turns):.2f}; settings chosen per fold: {[settings[i] for i in chosen]}")
    print(f"chosen on all games: {settings[final]}: SR {100 * sr_in:.1f}%, turns {turns_in:.2f}, "
          f"{ms[final]:.1f} ms/game")


if __name__ == "__main__":
    main()
