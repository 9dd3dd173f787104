"""Benchmark: offline KARI induction vs a one-atom baseline on the bundled benchmark.

For every affordance: wall time, the rule's recall on positives and precision against labelled negatives
(decided by the solver, any-part semantics), side by side with the trivial baseline (one branch: the most
frequent property of the positives). ``--holdout F`` induces on a seeded (1-F) share of each affordance's labels
and scores both methods on the held-out F only.

    python benchmarks/bench_induce.py [--bench DIR] [--holdout 0.3] [--seed 0] [--affordance A ...]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

from kari.induce.config import InduceConfig
from kari.induce.inputs import Evidence, from_bench
from kari.induce.report import RuleScore, score_rules
from kari.induce.run import induce
from kari.resources import bundled_bench_dir
from kari.rules.ast import Atom, Rule
from kari.domain.vocabulary import Vocabulary


def baseline_rule(ev: Evidence) -> Rule:
    """One branch: the property (PRED:value) held by the most positives (ties: alphabetical)."""
    counts = Counter(key for o in ev.positives for key in {(p.predicate, p.value) for p in o.properties})
    (pred, value), _ = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return Rule(ev.affordance, Atom(pred, value))


def _in_test(obj: str, aff: str, seed: int, share: float) -> bool:
    digest = hashlib.sha256(f"{seed}:{aff}:{obj}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < share


def _split_bench(src: Path, dst: Path, seed: int, share: float) -> None:
    """Copy ``src`` to ``dst`` keeping only the training labels."""
    dst.mkdir(parents=True)
    for name in ("objects.jsonl", "affordances.jsonl", "games.jsonl"):
        if (src / name).exists():
            shutil.copy(src / name, dst / name)
    lines = [ln for ln in (src / "labels.jsonl").read_text().splitlines() if ln.strip()]
    keep = [ln for ln in lines if not _in_test(json.loads(ln)["object"], json.loads(ln)["affordance"], seed, share)]
    (dst / "labels.jsonl").write_text("\n".join(keep) + "\n")


def _test_evidence(full: dict[str, Evidence], seed: int, share: float) -> dict[str, Evidence]:
    return {
        a: Evidence(
            a,
            ev.description,
            tuple(o for o in ev.positives if _in_test(o.id, a, seed, share)),
            tuple(o for o in ev.labelled_negatives if _in_test(o.id, a, seed, share)),
            ev.universe,
        )
        for a, ev in full.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=bundled_bench_dir())
    parser.add_argument("--holdout", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-precision", type=float, default=0.4)
    parser.add_argument("--min-support", type=int, default=1)
    parser.add_argument("--max-atoms", type=int, default=3)
    parser.add_argument("--affordance", action="append", default=[])
    args = parser.parse_args()

    vocab = Vocabulary.load()
    full = from_bench(args.bench)
    with tempfile.TemporaryDirectory() as tmp:
        train_dir = args.bench
        if args.holdout:
            train_dir = Path(tmp) / "train"
            _split_bench(args.bench, train_dir, args.seed, args.holdout)
        train = from_bench(train_dir)
        config = InduceConfig(
            seed=args.seed,
            affordances=tuple(args.affordance),
            min_precision=args.min_precision,
            min_support=args.min_support,
            max_atoms=args.max_atoms,
            negatives="labelled",
        )
        start = time.perf_counter()
        outcome = induce(out=Path(tmp) / "rules.kari", bench=train_dir, config=config, argv=[])
        wall = time.perf_counter() - start
    evaluate = _test_evidence(full, args.seed, args.holdout) if args.holdout else full
    chosen = [a for a in sorted(outcome.results) if evaluate[a].positives]
    kari = score_rules(outcome.rules, evaluate, vocab, negatives="labelled")
    base = score_rules([baseline_rule(train[a]) for a in chosen], evaluate, vocab, negatives="labelled")
    print(f"bench {args.bench}  affordances {len(chosen)}  holdout {args.holdout}  seed {args.seed}")
    print(f"offline induction wall time {wall:.1f} s ({wall / max(len(chosen), 1):.2f} s per affordance)")
    head = f"{'affordance':<16} {'pos':>4} {'neg':>4} | {'KARI R':>6} {'P':>5} {'F1':>5} br | {'base R':>6} {'P':>5} {'F1':>5}  baseline atom"
    print(head)
    print("-" * len(head))
    wins = 0
    empty = RuleScore("", 0, 0, 0, 0, 0)
    for a in chosen:
        k, b = kari.get(a, empty), base[a]
        wins += k.f1 > b.f1
        print(
            f"{a:<16} {b.positives:>4} {b.negatives:>4} | {k.recall:>6.3f} {k.precision or 0:>5.3f} {k.f1:>5.3f} "
            f"{k.branches:>2} | {b.recall:>6.3f} {b.precision or 0:>5.3f} {b.f1:>5.3f}  {baseline_rule(train[a]).body.key}"
        )
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0
    ks, bs = [kari.get(a, empty) for a in chosen], [base[a] for a in chosen]
    print("-" * len(head))
    print(
        f"{'mean':<26} | {mean([s.recall for s in ks]):>6.3f} {mean([s.precision or 0 for s in ks]):>5.3f} "
        f"{mean([s.f1 for s in ks]):>5.3f}    | {mean([s.recall for s in bs]):>6.3f} "
        f"{mean([s.precision or 0 for s in bs]):>5.3f} {mean([s.f1 for s in bs]):>5.3f}"
    )
    print(f"KARI beats the baseline on F1 for {wins} of {len(chosen)} affordances")


if __name__ == "__main__":
    main()
