"""Benchmark: parse, check and print 2,223 rules of realistic size (the paper's rule count).

Rules are drawn at random (seed 0) from the shipped vocabulary: 3-6 OR branches of 2-4 atoms, half of the
branches under PART(x, ...). Figures are the best of ``--repeat`` runs. Goal: all three steps for 2,223 rules in
under one second. Usage: ``python benchmarks/bench_rules.py [--rules 2223] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from pathlib import Path

from kari.rules import Rule, check_file, check_rule, load_rules, to_json, to_text
from kari.core.terms import PREDICATES
from kari.rules.ast import And, Atom, Or, Part
from kari.rules.rulefile import dump_rules_kari
from kari.rules.syntax import pyparse_rule
from kari.vocab.vocabulary import Vocabulary


def make_rules(count: int, vocab: Vocabulary, seed: int = 0) -> list[Rule]:
    rng = random.Random(seed)
    values = {p: sorted(vocab.values(p)) for p in PREDICATES}
    rules = []
    for index in range(count):
        branches = []
        for _ in range(rng.randint(3, 6)):
            preds = rng.sample(PREDICATES, rng.randint(2, 4))
            role = "x" if rng.random() < 0.5 else "whole"
            conj = And(tuple(Atom(p, rng.choice(values[p]), role) for p in preds))
            branches.append(Part("x", conj) if role == "x" else conj)
        rules.append(Rule(f"affordance_{index}", Or(tuple(branches))))
    return rules


def best(repeat: int, step) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rules", type=int, default=2223)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    vocab = Vocabulary.load()
    rules = make_rules(args.rules, vocab)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rules.kari"
        path.write_text(dump_rules_kari(rules))
        size = path.stat().st_size
        loaded = load_rules(path)
        assert loaded == rules
        t_parse = best(args.repeat, lambda: load_rules(path))
        t_check = best(args.repeat, lambda: [check_rule(r, vocab) for r in loaded])
        t_print = best(args.repeat, lambda: [to_text(r.body) for r in loaded])
        t_json = best(args.repeat, lambda: [to_json(r.body) for r in loaded])
        t_file = best(args.repeat, lambda: check_file(path, vocab))
        sample = [to_text(r.body) for r in loaded[:50]]
        t_pyparsing = best(1, lambda: [pyparse_rule(text) for text in sample]) * len(loaded) / len(sample)
    total = t_parse + t_check + t_print
    n = len(rules)
    load = os.getloadavg()[0]
    print(f"{n} rules, {sum(len(r.branches()) for r in rules)} branches, "
          f"{sum(1 for r in rules for _ in r.atoms())} atoms, {size / 1024:.0f} KiB; load average {load:.2f}")
    for label, seconds in [("parse (load_rules)", t_parse), ("check (check_rule)", t_check),
                           ("print (to_text)", t_print), ("parse+check+print", total),
                           ("check_file (parse+check+locate)", t_file), ("print JSON (to_json)", t_json),
                           ("pyparsing reference parse (est.)", t_pyparsing)]:
        print(f"  {label:<34} {seconds:7.3f} s  {n / seconds:9.0f} rules/s")
    print(f"goal (< 1 s for parse+check+print): {'met' if total < 1 else 'NOT met'}")


if __name__ == "__main__":
    main()
