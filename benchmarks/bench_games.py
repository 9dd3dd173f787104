"""Time Affordance20Q games: symbolic Oracle and Checker with the optimal, greedy-ig and fix20q questioners.

Goal (issue): 1,000 games in total under 2 minutes. Plays the first N games of the bundled benchmark (cycled
when it has fewer) once per questioner (fix20q: one run, not five) and prints SR, turns and per-game times;
then measures what leaving the hidden object among the representatives does to greedy-ig (the fairness check).

    python benchmarks/bench_games.py [--games 1000] [--bench DIR]
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace
from pathlib import Path

from kari.bench.reader import load_benchmark
from kari.game.checker import SymbolicChecker
from kari.game.engine import play_game
from kari.game.metrics import score
from kari.game.oracle import KBOracle
from kari.game.questioners import QuestionerOptions, make_questioner
from kari.game.setup import SetupBuilder
from kari.resources import bundled_bench_dir
from kari.vocab.vocabulary import Vocabulary


def run(bench, vocab, name: str, games: list, leave_one_out: bool = True) -> tuple[dict, list[float], float]:
    options = QuestionerOptions(vocab=vocab)
    player = make_questioner(name, options)
    builder = SetupBuilder(bench, vocab, leave_one_out=leave_one_out)
    checker, oracle = SymbolicChecker(vocab), KBOracle(vocab)
    times, records = [], []
    start = time.perf_counter()
    for number, game in enumerate(games):
        t0 = time.perf_counter()
        setup, hidden, _ = builder.build(game, 0)
        records.append(play_game(game, hidden, replace(setup, game_id=f"{game.id}#{number}"), player, checker,
                                 oracle, vocab))
        times.append(time.perf_counter() - t0)
    return score(records), times, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--bench", type=Path, default=bundled_bench_dir())
    args = parser.parse_args()
    vocab = Vocabulary.load()
    bench = load_benchmark(args.bench, vocab)
    games = [bench.games[i % len(bench.games)] for i in range(args.games)]
    total = 0.0
    print(f"{args.games} games per questioner on {args.bench} ({len(bench.games)} distinct)")
    for name in ("optimal", "greedy-ig", "fix20q"):
        figures, times, wall = run(bench, vocab, name, games)
        total += wall
        ms = sorted(t * 1000 for t in times)
        print(f"{name:10s} SR {100 * figures['success_rate']:5.1f}%  turns {figures['avg_turns_solved'] or 0:5.2f}  "
              f"wall {wall:6.1f} s  per game: mean {statistics.fmean(ms):6.1f} ms, median {ms[len(ms) // 2]:6.1f}, "
              f"p95 {ms[int(0.95 * (len(ms) - 1))]:6.1f}, max {ms[-1]:6.1f}")
    print(f"total {total:.1f} s for {3 * args.games} games (goal: 1,000 games under 120 s)")
    fair, _, _ = run(bench, vocab, "greedy-ig", games[: min(300, len(games))])
    leaky, _, _ = run(bench, vocab, "greedy-ig", games[: min(300, len(games))], leave_one_out=False)
    print(f"greedy-ig SR leave-one-out {100 * fair['success_rate']:.1f}% vs hidden object among representatives "
          f"{100 * leaky['success_rate']:.1f}% (inflation {100 * (leaky['success_rate'] - fair['success_rate']):+.1f} points)")


if __name__ == "__main__":
    main()
