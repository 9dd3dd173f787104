"""Build the target-blind policy for every bundled game and print build times and how many are proven optimal.

Usage: python benchmarks/bench_policy.py [--bench data/bench] [--games N] [--time-limit S]
"""

from __future__ import annotations

import argparse
import statistics
import time

from kari.bench.model import load_benchmark
from kari.game.setup import SetupBuilder
from kari.solver import build_policy
from kari.domain.vocabulary import Vocabulary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default="data/bench")
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument("--time-limit", type=float, default=None, help="seconds per game (default: build_policy's)")
    args = parser.parse_args()
    vocab = Vocabulary.load(None)
    bench = load_benchmark(args.bench, vocab)
    builder = SetupBuilder(bench, vocab)
    kwargs = {} if args.time_limit is None else {"time_limit": args.time_limit}
    rows = []
    for game in bench.games[: args.games]:
        setup, _, _ = builder.build(game, 0)
        started = time.perf_counter()
        tree = build_policy(setup.reps, vocab, list(setup.pool), **kwargs)
        seconds = time.perf_counter() - started
        total = tree._size(tree.root)
        rows.append((seconds, game.id, tree.proven_optimal, tree.expected_questions,
                     tree.greedy_cost(tree.root) / total, tree.lower_bound / total))
    times = sorted(r[0] for r in rows)
    n = len(rows)
    print(f"games {n}  build time s: mean {statistics.mean(times):.3f}  median {times[n // 2]:.3f}  "
          f"p90 {times[int(n * 0.9)]:.3f}  max {times[-1]:.3f} ({max(rows)[1]})")
    print(f"proven optimal: {sum(r[2] for r in rows)}/{n}")
    print(f"expected questions: played tree {statistics.mean(r[3] for r in rows):.4f}  "
          f"greedy {statistics.mean(r[4] for r in rows):.4f}  lower bound {statistics.mean(r[5] for r in rows):.4f}")
    improved = sum(1 for r in rows if r[3] < r[4] - 1e-12)
    print(f"games where the search improved on the greedy tree: {improved}/{n}")


if __name__ == "__main__":
    main()
