"""Benchmark: the whole chain on a benchmark kari did not build (raw words, parts, unknown values).

validate -> induce (offline, with 5-fold cross-fitted rule sets) -> coverage -> play with every symbolic player,
through the library functions of the CLI commands, into one KB database that holds the one vocabulary. The
players that see rules get, in each game, the rules induced without its hidden object. Prints how the
benchmark's words were read (canonical, mapped, added, banned), the rules' held-out and in-sample F1, for each
player the success rate, turns on solved games, rejected and repeated questions, for Optimal the share of its
successes reached with b(target) > 0.9 (the rest are argmax guesses its plan left), and the time of the chain.

    python benchmarks/bench_outside.py [--bench tests/data/outside_bench] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from kari.bench.validate import validate_bench
from kari.vocab.vocabulary import Vocabulary
from kari.game.run import PlayConfig, play
from kari.induce.folds import cv_dir
from kari.induce.run import induce
from kari.solver.run import coverage

PLAYERS = ("optimal", "greedy-ig", "greedy-ig+rules", "fix20q", "rules")
DEFAULT_BENCH = Path(__file__).resolve().parents[1] / "tests" / "data" / "outside_bench"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=DEFAULT_BENCH)
    parser.add_argument("--out", type=Path, default=Path("runs/bench-outside"))
    args = parser.parse_args()
    if args.out.exists():
        raise SystemExit(f"{args.out} exists: pass a new --out")
    started = time.perf_counter()
    report = validate_bench(args.bench, Vocabulary.load())
    counts = report.words.counts()
    print(f"validate: {len(report.problems)} structural problems; {report.words.summary()}")
    print(f"  distinct words added as new values: {len(report.words.distinct('added'))}, mapped by synonym or "
          f"word form: {len(report.words.distinct('synonym')) + len(report.words.distinct('variant'))}, "
          f"banned: {len(report.words.distinct('banned'))} ({counts['banned']} occurrences)")
    db, rules = args.out / "kari.duckdb", args.out / "rules.kari"
    outcome = induce(out=rules, bench=args.bench, db=db, run_dir=args.out / "induce", cv=5)
    pooled = outcome.cv["pooled"]
    print(f"induce: {len(outcome.rules)} rules; macro F1 held-out {pooled['heldout']['macro']['f1']:.3f}, in-sample "
          f"{pooled['in_sample']['macro']['f1']:.3f}; {time.perf_counter() - started:.1f} s so far")
    summary = coverage(rules, db, bench=args.bench)
    print(f"coverage: {summary.covered_pairs}/{summary.pairs} pairs covered, {time.perf_counter() - started:.1f} s")
    for name in PLAYERS:
        folder = args.out / "play" / name
        player = name.removesuffix("+rules")
        sees = player != name or player == "rules"
        config = PlayConfig(bench=str(args.bench.resolve()), questioner=player, db=str(db.resolve()),
                            rules=str(cv_dir(rules).resolve()) if sees else None, rule_match="exact")
        result = play(config, folder, progress=False)
        records = [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]
        rejected = sum(1 for r in records for t in r["turns"] if not t["checker"]["accepted"])
        repeated = sum(r["repeated_questions"] for r in records)
        line = (f"play {name:15s} SR {100 * result['success_rate']:5.1f}%  turns {result['avg_turns_solved'] or 0:5.2f}"
                f"  rejected {rejected}  repeated {repeated}  {1000 * result['time_s']['mean']:.1f} ms/game")
        if name == "optimal":
            wins = [r for r in records if r["success"]]
            reached = sum(1 for r in wins if (r["guess_belief"] or 0) > 0.9)
            line += f"  successes with b(target) > 0.9: {reached}/{len(wins)}"
        print(line, flush=True)
    print(f"whole chain: {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
