"""Coverage benchmark: ~2,223 rules x 500 objects (about 1.1 M rule-object pairs), ASP vs plain Python.

Rules and objects are drawn at random (seeded) from the shipped vocabulary, shaped like induced KARI rules:
2-5 OR branches of 1-3 atoms, some under PART. Objects have 2-4 parts and 6-12 properties.
Run: python benchmarks/bench_coverage.py [--rules 2223] [--objects 500] [--semantics any-part|strict]
Goal: ASP under 5 s including grounding.
"""

from __future__ import annotations

import argparse
import random
import time

from kari.core.benchmark import ObjectRecord, Property
from kari.core.terms import PREDICATES
from kari.rules.ast import And, Atom, Or, Part, Rule
from kari.solver import compute_coverage, python_coverage
from kari.vocab.vocabulary import Vocabulary

PART_NAMES = ("blade", "handle", "tip", "body", "lid", "base", "strap", "edge")


def random_rule(rng: random.Random, values: dict[str, list[str]], name: str) -> Rule:
    branches = []
    for _ in range(rng.randint(2, 5)):
        atoms = [(p := rng.choice(PREDICATES), rng.choice(values[p])) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.4:
            branches.append(Part("x", And(tuple(Atom(p, v, "x") for p, v in atoms))))
        else:
            branches.append(And(tuple(Atom(p, v) for p, v in atoms)))
    return Rule(name, Or(tuple(branches)))


def random_object(rng: random.Random, values: dict[str, list[str]], name: str) -> ObjectRecord:
    parts = tuple(rng.sample(PART_NAMES, rng.randint(2, 4)))
    props = tuple(Property(rng.choice((*parts, "whole")), p := rng.choice(PREDICATES), rng.choice(values[p]))
                  for _ in range(rng.randint(6, 12)))
    return ObjectRecord(name, parts=parts, properties=props)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=int, default=2223)
    parser.add_argument("--objects", type=int, default=500)
    parser.add_argument("--semantics", default="any-part")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    vocab = Vocabulary.load()
    values = {p: sorted(vocab.values(p)) for p in PREDICATES}
    rng = random.Random(args.seed)
    rules = [random_rule(rng, values, f"aff_{i}") for i in range(args.rules)]
    objects = [random_object(rng, values, f"obj_{i}") for i in range(args.objects)]
    pairs = len(rules) * len(objects)

    start, cpu = time.perf_counter(), time.process_time()
    asp = compute_coverage(rules, objects, vocab, args.semantics, time_limit=600)
    asp_s, asp_cpu = time.perf_counter() - start, time.process_time() - cpu
    start, cpu = time.perf_counter(), time.process_time()
    py = python_coverage(rules, objects, vocab, args.semantics)
    py_s, py_cpu = time.perf_counter() - start, time.process_time() - cpu
    covered = sum(r.covered for r in asp)
    print(f"{len(rules)} rules x {len(objects)} objects = {pairs:,} pairs ({args.semantics}); covered {covered:,}")
    print(f"ASP (clingo, incl. grounding): {asp_s:.2f} s wall, {asp_cpu:.2f} s CPU")
    print(f"plain Python evaluator:        {py_s:.2f} s wall, {py_cpu:.2f} s CPU")
    print(f"ratio ASP/Python: {asp_s / py_s:.2f} wall, {asp_cpu / py_cpu:.2f} CPU")
    print(f"agree: {asp == py}")


if __name__ == "__main__":
    main()
