"""How grouping KB verbs before induction changes KB coverage and the matched rules' precision (issue 18).

    python benchmarks/bench_grouping.py [--pair bundled|outside|both] [--methods lemma,wordnet,embedding,none]

For each KB / benchmark pair (bundled: data/kb + data/bench; outside: tests/data/outside_kb + tests/data/outside_bench)
and each grouping method, ``kari induce --db`` (offline, its defaults: the settings search included) induces one
rule per verb group; every benchmark affordance is matched to its best rule verb by sentence similarity (0.7), and

* coverage: the share of benchmark affordances, and of games, whose target gets a matched rule;
* precision / recall / F1 of each matched rule on the benchmark's labels, held out: the labelled objects that are
  not KB positives of that rule (the rule never saw them as positives); macro over the covered affordances and,
  counting an uncovered affordance as F1 0, over all of them;
* time of the induction, rules and groups.

Prints a Markdown table (the README's figures); ``--json FILE`` writes the rows.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAIRS = {"bundled": (ROOT / "data" / "kb" / "kari_kb.tsv", ROOT / "data" / "bench"),
         "outside": (ROOT / "tests" / "data" / "outside_kb" / "outside_kb.tsv", ROOT / "tests" / "data" / "outside_bench")}


def evaluate(kb_file: Path, bench_dir: Path, method: str, work: Path) -> dict[str, object]:
    """One pair x method: induce, match, score."""
    from kari.bench.reader import load_benchmark
    from kari.domain.objects import rule_holds
    from kari.vocab.vocabulary import open_vocabulary
    from kari.game.kb_coverage import kb_coverage
    from kari.game.match import RuleMatcher
    from kari.rules.anchors import kb_positives
    from kari.core.induce_config import InduceConfig
    from kari.induce.run import induce
    from kari.kb import load_into

    db = work / f"{method}.duckdb"
    load_into(db, [kb_file])
    started = time.perf_counter()
    outcome = induce(out=work / f"{method}.kari", db=db, config=InduceConfig(grouping=method), fresh=True)
    seconds = time.perf_counter() - started
    vocab = open_vocabulary(db=db)
    bench = load_benchmark(bench_dir, vocab)
    rules = outcome.rules
    cover = kb_coverage(rules, sorted(bench.affordances), bench.games)
    matched = RuleMatcher(rules).match(sorted(bench.affordances))
    scores = []
    for affordance, found in matched.items():
        if not found:
            continue
        rule = found[0].rule
        seen = kb_positives(rule)
        pos = [o for o in bench.positives(affordance) if o not in seen and o in bench.objects]
        neg = [o for o in bench.negatives(affordance) if o not in seen and o in bench.objects]
        tp = sum(rule_holds(rule, bench.objects[o], vocab) for o in pos)
        fp = sum(rule_holds(rule, bench.objects[o], vocab) for o in neg)
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / len(pos) if pos else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        scores.append({"affordance": affordance, "rule": rule.affordance, "verb": found[0].verb,
                       "similarity": round(found[0].similarity, 4), "tp": tp, "fp": fp, "positives": len(pos),
                       "precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4)})
    covered = len(scores)
    mean = (lambda key, n: sum(s[key] for s in scores) / n if n else 0.0)  # type: ignore[operator]
    return {"method": method, "kb_verbs": int(outcome.results and sum(len(r.get("group", {}).get("members", ()))
                                                                      for r in outcome.results.values())),
            "groups": len(outcome.results), "rules": len(rules), "induce_s": round(seconds, 1),
            "affordances": cover.affordances, "affordances_covered": cover.affordances_covered,
            "games": cover.games, "games_covered": cover.games_covered, "games_kb_positive": cover.games_kb_positive,
            "precision_covered": round(mean("precision", covered), 4), "recall_covered": round(mean("recall", covered), 4),
            "f1_covered": round(mean("f1", covered), 4), "f1_all": round(mean("f1", cover.affordances), 4),
            "matches": scores}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", choices=("bundled", "outside", "both"), default="both")
    parser.add_argument("--methods", default="lemma,wordnet,embedding,none")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    pairs = ["bundled", "outside"] if args.pair == "both" else [args.pair]
    rows = []
    with tempfile.TemporaryDirectory(prefix="kari-grouping-") as tmp:
        for pair in pairs:
            kb_file, bench_dir = PAIRS[pair]
            for method in args.methods.split(","):
                work = Path(tmp) / pair / method
                work.mkdir(parents=True)
                row = {"pair": pair, **evaluate(kb_file, bench_dir, method, work)}
                rows.append(row)
                print(f"{pair} {method}: {row['groups']} groups, {row['rules']} rules in {row['induce_s']} s; "
                      f"affordances {row['affordances_covered']}/{row['affordances']}, games "
                      f"{row['games_covered']}/{row['games']}; F1 covered {row['f1_covered']:.3f}, all "
                      f"{row['f1_all']:.3f}", file=sys.stderr)
    print("| pair | grouping | KB verbs -> groups | rules | affordances covered | games covered | precision | recall "
          "| F1 (covered) | F1 (all affordances) | induce s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['pair']} | {r['method']} | {r['kb_verbs']} -> {r['groups']} | {r['rules']} | "
              f"{r['affordances_covered']}/{r['affordances']} ({100 * r['affordances_covered'] / r['affordances']:.1f}%) | "
              f"{r['games_covered']}/{r['games']} ({100 * r['games_covered'] / max(r['games'], 1):.1f}%) | "
              f"{r['precision_covered']:.3f} | {r['recall_covered']:.3f} | {r['f1_covered']:.3f} | {r['f1_all']:.3f} | "
              f"{r['induce_s']} |")
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
