"""Benchmark: success rate of each symbolic player against a noisy Oracle (each answer flipped with probability p).

The paper's Oracle agreed with humans on 93.4% of answers, so p = 0.07 is realistic. Every player plays every game
of the benchmark at each p (seeded flips, the same for every player), with leave-one-out representatives. With
--rules (a rules file, or the folder of cross-fitted rules that ``kari induce --cv`` writes) the ``rules`` player,
the "+rules" variant of ``greedy-ig``, and ``greedy-ig@10`` (its belief on the paper's 10 representatives only)
with and without rules play too. Prints the table and writes ``noise.png`` and ``noise.json``
into --out.

    python benchmarks/bench_noise.py [--bench DIR] [--rules PATH] [--p 0 0.03 0.07 0.1 0.15 0.2] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from kari.game.plots import plot_lines
from kari.game.run import PlayConfig, play
from kari.io.atomic import atomic_write_json
from kari.resources import bundled_bench_dir


def players(rules: Path | None) -> dict[str, dict]:
    """Label -> PlayConfig fields of every symbolic player (with rules when given)."""
    out: dict[str, dict] = {"optimal": {"questioner": "optimal"}, "greedy-ig": {"questioner": "greedy-ig"},
                            "fix20q": {"questioner": "fix20q", "runs": 1}}
    if rules is not None:
        out["greedy-ig+rules"] = {"questioner": "greedy-ig", "rules": str(rules), "rule_match": "exact"}
        out["greedy-ig@10"] = {"questioner": "greedy-ig", "model_reps": 10}
        out["greedy-ig@10+rules"] = {"questioner": "greedy-ig", "model_reps": 10, "rules": str(rules),
                                     "rule_match": "exact"}
        out["rules"] = {"questioner": "rules", "rules": str(rules), "rule_match": "exact"}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=bundled_bench_dir())
    parser.add_argument("--rules", type=Path, default=None)
    parser.add_argument("--p", type=float, nargs="+", default=[0.0, 0.03, 0.07, 0.1, 0.15, 0.2])
    parser.add_argument("--out", type=Path, default=Path("runs/bench-noise"))
    args = parser.parse_args()

    table: dict[str, list[float]] = {}
    started = time.perf_counter()
    for label, fields in players(args.rules).items():
        row = []
        for p in args.p:
            with tempfile.TemporaryDirectory() as folder:
                summary = play(PlayConfig(bench=str(args.bench), oracle_noise=p, **fields), folder, progress=False)
            row.append(summary["success_rate"])
        table[label] = row
        print(f"{label:20s} " + "  ".join(f"p={p:.2f}: {100 * sr:5.1f}%" for p, sr in zip(args.p, row)), flush=True)
    print(f"{time.perf_counter() - started:.0f} s")
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_json(args.out / "noise.json", {"bench": str(args.bench), "p": args.p, "success_rate": table})
    plot_lines({label: list(zip(args.p, [100 * v for v in row])) for label, row in table.items()},
               args.out / "noise.png", title=f"Success rate against Oracle noise ({args.bench.name})",
               xlabel="probability p that an answer is flipped", ylabel="success rate (%)")
    print(f"-> {args.out / 'noise.png'}, {args.out / 'noise.json'}")


if __name__ == "__main__":
    main()
