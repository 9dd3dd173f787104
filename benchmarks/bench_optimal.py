"""Exact Optimal benchmark: target-aware optimum (clingo #minimize) over 1,000 games, 8 candidates x 10 reps.

Games come from the bundled benchmark (data/bench), cycled with a new representative seed per pass until
--games are played. The pool is every value some representative has (with ancestors) plus the vocabulary.
Run: python benchmarks/bench_optimal.py [--games 1000] [--bench DIR]. Goal: under 60 s in total.
"""

from __future__ import annotations

import argparse
import statistics
import time

from kari.bench.reader import load_benchmark
from kari.resources import bundled_bench_dir
from kari.solver import optimal_target_aware, question_pool, select_representatives
from kari.vocab.vocabulary import Vocabulary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--bench", default=None)
    args = parser.parse_args()
    vocab = Vocabulary.load()
    bench = load_benchmark(args.bench or bundled_bench_dir(), vocab)
    base_pool = question_pool([], vocab)
    reps_by_seed: dict[int, dict[str, list[str]]] = {}
    times, turns, solved, proven, reached = [], [], 0, 0, 0
    slowest = (0.0, "")
    start = time.perf_counter()
    for i in range(args.games):
        game = bench.games[i % len(bench.games)]
        seed = i // len(bench.games)
        reps_ids = reps_by_seed.setdefault(seed, select_representatives(bench, k=10, seed=seed))
        reps = {aff: [bench.objects[o] for o in reps_ids[aff]] for aff in game.candidates}
        pool = sorted(set(base_pool) | set(question_pool([o for objs in reps.values() for o in objs], vocab)))
        t0 = time.perf_counter()
        result = optimal_target_aware(bench.objects[game.object], game.target, reps, vocab, pool)
        elapsed = time.perf_counter() - t0
        times.append(elapsed)
        slowest = max(slowest, (elapsed, f"{game.id} (seed {seed}, {result.turns} questions)"))
        solved += result.guess == game.target
        proven += result.proven_optimal
        reached += result.reached
        turns.append(result.turns)
    total = time.perf_counter() - start
    n = args.games
    print(f"{n} games, 8 candidates x <=10 representatives, pool ~{len(base_pool)}+ questions")
    print(f"total {total:.2f} s (mean {1000 * statistics.mean(times):.1f} ms/game); slowest game {slowest[0] * 1000:.1f} ms: {slowest[1]}")
    print(f"proven optimal {proven}/{n}; threshold reached {reached}/{n}; SR {solved / n:.3f}; "
          f"mean turns {statistics.mean(turns):.2f} (max {max(turns)})")


if __name__ == "__main__":
    main()
