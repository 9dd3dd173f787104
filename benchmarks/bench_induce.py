"""Benchmark: kari's rule induction judged out of sample, beside classic rule learners on identical folds.

Seeded K-fold cross-validation by object (``kari induce --cv K``, :mod:`kari.induce.folds`). For each fold every
method learns from the training objects' labels only and is judged on the held-out objects' labels; the counts
are summed over folds (each labelled object judged once). Every method sees the same atoms: the closed object
facts of the domain core (``object_view(obj, vocab).whole``: properties, is-a ancestors and parts as SHAPE facts).

- ``kari``: offline induction (``kari induce --cv K``, the same folds), rules judged by the solver;
- ``ripper``: RIPPER (the ``wittgenstein`` package; an OR of ANDs, the shape of a KARI rule);
- ``tree``: a decision tree of depth 4 (scikit-learn);
- ``baseline``: one atom, the one with the best F1 on the training objects.

Peers are a benchmark extra: ``pip install -e ".[bench]"``. Prints per affordance and pooled (macro mean over
affordances, micro over all labels) held-out and in-sample F1, the ratios of kari to each peer, and kari's wall
and CPU time.

    python benchmarks/bench_induce.py [--bench DIR] [--cv 5] [--seed 0] [--methods kari,ripper,tree,baseline]
                                      [--affordance A ...] [--no-tune]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from kari.core.benchmark import ObjectRecord
from kari.domain.objects import Fact, object_view
from kari.vocab.vocabulary import Vocabulary
from kari.core.induce_config import InduceConfig
from kari.induce.folds import evidence_objects, load_cross_fitted
from kari.induce.heldout import heldout_scores, pooled
from kari.induce.inputs import Evidence, from_bench
from kari.induce.report import RuleScore, rare_branches
from kari.induce.run import induce
from kari.resources import bundled_bench_dir

METHODS = ("kari", "ripper", "tree", "baseline")
Learner = Callable[[list[frozenset[Fact]], list[bool], list[frozenset[Fact]]], list[bool]]
"""fit on (training atoms, labels), predict for the test atoms."""


def _matrix(rows: Sequence[frozenset[Fact]], columns: Sequence[Fact]) -> list[list[int]]:
    return [[int(c in row) for c in columns] for row in rows]


def _columns(rows: Sequence[frozenset[Fact]]) -> list[Fact]:
    """The atoms that occur in the training rows, sorted (the features every peer sees)."""
    return sorted(set().union(*rows)) if rows else []


def ripper(seed: int) -> Learner:
    import pandas as pd
    import wittgenstein as lw

    def learn(train: list[frozenset[Fact]], y: list[bool], test: list[frozenset[Fact]]) -> list[bool]:
        if not any(y):
            return [False] * len(test)
        columns = _columns(train)
        names = [f"{p}:{v}" for p, v in columns]
        model = lw.RIPPER(random_state=seed)
        model.fit(pd.DataFrame(_matrix(train, columns), columns=names), [int(v) for v in y], pos_class=1)
        return [bool(v) for v in model.predict(pd.DataFrame(_matrix(test, columns), columns=names))]

    return learn


def tree(seed: int) -> Learner:
    from sklearn.tree import DecisionTreeClassifier

    def learn(train: list[frozenset[Fact]], y: list[bool], test: list[frozenset[Fact]]) -> list[bool]:
        if len(set(y)) < 2:
            return [bool(y and y[0])] * len(test)
        columns = _columns(train)
        model = DecisionTreeClassifier(max_depth=4, random_state=seed).fit(_matrix(train, columns), y)
        return [bool(v) for v in model.predict(_matrix(test, columns))]

    return learn


def one_atom(train: list[frozenset[Fact]], y: list[bool], test: list[frozenset[Fact]]) -> list[bool]:
    """The single atom with the best F1 on the training rows (ties: the first in sorted order)."""
    positives = sum(y)
    best: tuple[float, Fact] | None = None
    for atom in _columns([r for r, label in zip(train, y) if label]):
        tp = sum(label and atom in r for r, label in zip(train, y))
        covered = sum(atom in r for r in train)
        f1 = 2 * tp / (covered + positives) if covered + positives else 0.0
        if best is None or f1 > best[0]:
            best = (f1, atom)
    return [best is not None and best[1] in r for r in test]


def _score(affordance: str, predicted: list[bool], truth: list[bool]) -> RuleScore:
    positives = sum(truth)
    return RuleScore(affordance, 0, positives, sum(p and t for p, t in zip(predicted, truth)),
                     len(truth) - positives, sum(p and not t for p, t in zip(predicted, truth)))


def peer_scores(learn: Learner, evidence: Mapping[str, Evidence], fold_of: Mapping[str, int], vocab: Vocabulary,
                negatives: str) -> tuple[dict[str, RuleScore], dict[str, RuleScore]]:
    """(held-out, in-sample) scores of a peer learner per affordance, on the folds of ``fold_of``."""
    def atoms(objects: Sequence[ObjectRecord]) -> list[frozenset[Fact]]:
        return [object_view(o, vocab).whole for o in objects]

    folds = sorted(set(fold_of.values()))
    heldout: dict[str, RuleScore] = {}
    inside: dict[str, RuleScore] = {}
    for aff, ev in evidence.items():
        objects = [*ev.positives, *ev.negatives(negatives)]
        labels = [True] * len(ev.positives) + [False] * (len(objects) - len(ev.positives))
        total = RuleScore(aff, 0, 0, 0, 0, 0)
        for fold in folds:
            train = [i for i, o in enumerate(objects) if fold_of[o.id] != fold]
            test = [i for i, o in enumerate(objects) if fold_of[o.id] == fold]
            predicted = learn(atoms([objects[i] for i in train]), [labels[i] for i in train],
                              atoms([objects[i] for i in test]))
            total = total.plus(_score(aff, predicted, [labels[i] for i in test]))
        heldout[aff] = total
        inside[aff] = _score(aff, learn(atoms(objects), labels, atoms(objects)), labels)
    return heldout, inside


def kari_scores(bench: Path, config: InduceConfig, k: int, evidence: Mapping[str, Evidence], vocab: Vocabulary
                ) -> tuple[dict[str, RuleScore], dict[str, RuleScore], dict[str, int], dict[str, float]]:
    """(held-out, in-sample, fold_of, timings) of ``kari induce --cv K`` on ``bench`` (a fresh run); the fold
    rules are read back with :func:`kari.induce.folds.load_cross_fitted` and judged on ``evidence``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rules.kari"
        wall, cpu = time.perf_counter(), time.process_time()
        outcome = induce(out=out, bench=bench, config=config, argv=[], cv=k)
        timings = {"wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu}
        fold_rules, fold_of = load_cross_fitted(out)
        rare = rare_branches([r for rules in fold_rules.values() for r in rules], _universe(evidence), vocab)
    timings["rare_share"] = rare[0] / rare[1] if rare[1] else 0.0
    heldout = heldout_scores(fold_rules, evidence, fold_of, vocab, negatives=config.negatives,
                             semantics=config.semantics)
    return heldout, outcome.scores, fold_of, timings


def _universe(evidence: Mapping[str, Evidence]) -> list[ObjectRecord]:
    return list({o.id: o for ev in evidence.values() for o in (*ev.universe, *ev.positives)}.values())


def _chosen(evidence: dict[str, Evidence], config: InduceConfig) -> dict[str, Evidence]:
    names = config.affordances or tuple(sorted(evidence))
    return {a: evidence[a] for a in names if evidence[a].positives}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=bundled_bench_dir())
    parser.add_argument("--cv", type=int, default=5, help="folds (by object)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--methods", default=",".join(METHODS), help="comma-separated subset of " + ",".join(METHODS))
    parser.add_argument("--affordance", action="append", default=[])
    parser.add_argument("--no-tune", action="store_true", help="kari: keep the default settings (no inner CV)")
    args = parser.parse_args(argv)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown or "kari" not in methods:
        parser.error(f"--methods: unknown {unknown}" if unknown else "--methods must include kari (it fixes the folds)")
    peers: dict[str, Learner] = {}
    try:
        if "ripper" in methods:
            peers["ripper"] = ripper(args.seed)
        if "tree" in methods:
            peers["tree"] = tree(args.seed)
    except ImportError as exc:
        print(f"bench_induce: {exc.name} is missing; install the peers with: pip install -e \".[bench]\"",
              file=sys.stderr)
        return 2
    if "baseline" in methods:
        peers["baseline"] = one_atom

    config = InduceConfig(seed=args.seed, affordances=tuple(args.affordance), tune=not args.no_tune)
    vocab = Vocabulary.load()
    everything = from_bench(args.bench, vocab)
    evidence = _chosen(everything, config)
    held, inside, fold_of, timings = kari_scores(args.bench, config, args.cv, evidence, vocab)
    if set(fold_of) != set(evidence_objects(everything)):
        raise SystemExit("bench_induce: the folds of kari induce --cv do not cover the benchmark's objects")
    results = {"kari": (held, inside)}
    peer_time: dict[str, float] = {}
    for name, learn in peers.items():
        start = time.process_time()
        results[name] = peer_scores(learn, evidence, fold_of, vocab, config.negatives)
        peer_time[name] = time.process_time() - start
    _print(args, evidence, results, timings, peer_time)
    return 0


def _print(args: argparse.Namespace, evidence: Mapping[str, Evidence],
           results: Mapping[str, tuple[dict[str, RuleScore], dict[str, RuleScore]]], timings: Mapping[str, float],
           peer_time: Mapping[str, float]) -> None:
    names = list(results)
    affs = sorted(evidence)
    labels = sum(len(ev.positives) + len(ev.negatives("auto")) for ev in evidence.values())
    print(f"bench {args.bench}: {len(affs)} affordances, {labels} labels; {args.cv}-fold CV by object, seed {args.seed}")
    print(f"kari induce --cv {args.cv}: wall {timings['wall_s']:.1f} s, CPU {timings['cpu_s']:.1f} s "
          f"(load {os.getloadavg()[0]:.1f}); peers CPU: "
          + ", ".join(f"{n} {t:.1f} s" for n, t in peer_time.items()))
    head = f"{'affordance':<24} {'pos':>4} " + " ".join(f"{n + ' held/in':>17}" for n in names)
    print(head)
    print("-" * len(head))
    for a in affs:
        cells = " ".join(f"{results[n][0][a].f1:>8.3f}/{_get(results[n][1], a).f1:<8.3f}" for n in names)
        print(f"{a:<24} {evidence[a].positives.__len__():>4} {cells}")
    print("-" * len(head))
    summary = {n: (pooled({a: results[n][0][a] for a in affs}), pooled({a: _get(results[n][1], a) for a in affs}))
               for n in names}
    for kind in ("macro", "micro"):
        cells = " ".join(f"{summary[n][0][kind]['f1']:>8.3f}/{summary[n][1][kind]['f1']:<8.3f}" for n in names)
        print(f"{'F1 ' + kind:<29} {cells}")
    for kind in ("precision", "recall"):
        cells = " ".join(f"{summary[n][0]['macro'][kind]:>8.3f}/{summary[n][1]['macro'][kind]:<8.3f}" for n in names)
        print(f"{kind + ' (macro)':<29} {cells}")
    kari = summary["kari"][0]["macro"]["f1"]
    print(f"kari held-out macro F1 {kari:.3f}, gap to in-sample {summary['kari'][1]['macro']['f1'] - kari:.3f}; "
          f"branches of the fold rules with an atom fewer than 3 objects hold: {timings['rare_share']:.1%}")
    for n in names[1:]:
        peer = summary[n][0]["macro"]["f1"]
        wins = sum(results["kari"][0][a].f1 > results[n][0][a].f1 for a in affs)
        ratio = f"{kari / peer:.2f}" if peer else "inf"
        print(f"kari / {n}: held-out macro F1 ratio {ratio}; kari better on {wins} of {len(affs)} affordances")


def _get(scores: Mapping[str, RuleScore], aff: str) -> RuleScore:
    return scores.get(aff, RuleScore(aff, 0, 0, 0, 0, 0))


if __name__ == "__main__":
    sys.exit(main())
