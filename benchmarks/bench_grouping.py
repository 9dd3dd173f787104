"""The KB-anchored rules judged on a benchmark's labels: KB coverage, the matched rules' held-out F1, how many rules
rest on one KB positive, how many are flagged (issues 18 and 25).

    python benchmarks/bench_grouping.py [--pair bundled|outside|both|KB:BENCH] [--methods wordnet,lemma,embedding,none]
                                        [--ablations] [--ceilings] [--json FILE]

For each KB / benchmark pair (bundled: data/kb + data/bench; outside: tests/data/outside_kb + tests/data/outside_bench;
or any ``KB_FILE:BENCH_DIR``) and each grouping method, ``kari induce --db`` (offline, its defaults: the settings
search, completion, pooling and the held-out precision included) induces one rule per verb group (the KB
induction never reads a benchmark label); every benchmark affordance is matched to its best rule verb by sentence
similarity (0.7), flagged rules included (they count in every figure), and

* coverage: the benchmark affordances, and games, whose target gets a matched rule;
* precision / recall / F1 of each matched rule on the benchmark's labels, held out: the labelled objects that are
  not KB positives of that rule (the rule never saw them as positives); macro over the covered affordances and,
  counting an uncovered affordance as F1 0, over all of them; the same over the rules players use by default
  (flagged ones skipped: an affordance whose matches are all flagged matches the next unflagged rule or none);
* rules resting on one KB positive: its group names one KB positive (stated), and with the pooled KB kin counted;
* flagged rules (held-out precision within the KB no better than the base rate, or not estimable);
* time of the induction, rules and groups.

``--ablations`` adds the wordnet rows without completion, without pooling, and without either. ``--ceilings`` adds
what better matching or branch choice could reach with the same rules, each choice made with the benchmark's
labels (bounds, not results; macro F1 over all affordances): the matched rule, the best of the matcher's 5
nearest rules, the matched rule's best single OR branch, and the best of all rules (the selection bound: picking
one of hundreds of rules by the labels scores well whatever the rules mean). Prints a Markdown
table (docs/results.md's figures); ``--json FILE`` writes the rows.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAIRS = {"bundled": (ROOT / "data" / "kb" / "kari_kb.tsv", ROOT / "data" / "bench"),
         "outside": (ROOT / "tests" / "data" / "outside_kb" / "outside_kb.tsv", ROOT / "tests" / "data" / "outside_bench")}
CEILING_TOP_K = 5
ABLATIONS = {"": {}, "no completion": {"complete": False}, "no pooling": {"pool": False},
             "neither": {"complete": False, "pool": False}}


def _counts(rule: Any, affordance: str, bench: Any, vocab: Any) -> dict[str, Any]:
    """``rule`` scored on ``affordance``'s labels, held out: the labelled objects that are not its KB positives."""
    from kari.domain.objects import rule_holds
    from kari.rules.anchors import kb_positives

    seen = kb_positives(rule)
    pos = [o for o in bench.positives(affordance) if o not in seen and o in bench.objects]
    neg = [o for o in bench.negatives(affordance) if o not in seen and o in bench.objects]
    tp = sum(rule_holds(rule, bench.objects[o], vocab) for o in pos)
    fp = sum(rule_holds(rule, bench.objects[o], vocab) for o in neg)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / len(pos) if pos else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"kb_positives": len(seen), "tp": tp, "fp": fp, "positives": len(pos),
            "precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4)}


def _scores(rules: list[Any], bench: Any, vocab: Any) -> list[dict[str, Any]]:
    """Each benchmark affordance's matched rule and its held-out precision / recall / F1 on the labels."""
    from kari.game.match import RuleMatcher

    matched = RuleMatcher(rules).match(sorted(bench.affordances))
    scores = []
    for affordance, found in matched.items():
        if not found:
            continue
        rule = found[0].rule
        scores.append({"affordance": affordance, "rule": rule.affordance, "verb": found[0].verb,
                       "similarity": round(found[0].similarity, 4), "flagged": bool((rule.metadata or {}).get("flagged")),
                       **_counts(rule, affordance, bench, vocab)})
    return scores


def _ceilings(rules: list[Any], bench: Any, vocab: Any, top_k: int = CEILING_TOP_K) -> dict[str, Any]:
    """How far better matching or branch choice could take the same rules (each chosen with the benchmark's
    labels, so these are bounds, not results): macro held-out F1 over all affordances (uncovered = 0) of the
    matched rule, of the best of the matcher's ``top_k`` nearest rules, of the matched rule's best single OR
    branch, and of the best of all rules (the selection bound: what picking one of many rules by the labels
    scores whatever the rules mean)."""
    from dataclasses import replace

    from kari.game.match import RuleMatcher
    from kari.rules.ast import Or

    affordances = sorted(bench.affordances)
    found = RuleMatcher(rules, top_k=top_k).match(affordances)
    f1 = lambda rule, a: _counts(rule, a, bench, vocab)["f1"]  # noqa: E731
    rows = []
    for a in affordances:
        near = found.get(a) or ()
        best_rule = max(rules, key=lambda r: f1(r, a))
        row = {"affordance": a, "matched": f1(near[0].rule, a) if near else 0.0,
               "best_of_top_k": max((f1(m.rule, a) for m in near), default=0.0), "best_branch": 0.0,
               "best_of_all": f1(best_rule, a), "best_of_all_rule": best_rule.affordance}
        if near:
            body = near[0].rule.body
            branches = body.args if isinstance(body, Or) else (body,)
            row["best_branch"] = max(f1(replace(near[0].rule, body=b, branch_metadata=()), a) for b in branches)
        rows.append(row)
    n = max(len(rows), 1)
    means = {k: round(sum(r[k] for r in rows) / n, 4) for k in ("matched", "best_of_top_k", "best_branch", "best_of_all")}
    return {"top_k": top_k, **means, "rows": rows}


def evaluate(kb_file: Path, bench_dir: Path, method: str, work: Path, settings: dict[str, Any] | None = None,
             ceilings: bool = False) -> dict[str, Any]:
    """One pair x method: induce, match, score (and, with ``ceilings``, :func:`_ceilings`)."""
    from kari.bench.reader import load_benchmark
    from kari.core.induce_config import InduceConfig
    from kari.game.kb_coverage import kb_coverage
    from kari.rules.anchors import usable_rules
    from kari.induce.run import induce
    from kari.kb import load_into
    from kari.rules.anchors import kb_positives
    from kari.vocab.vocabulary import open_vocabulary

    db = work / f"{method}.duckdb"
    load_into(db, [kb_file])
    started = time.perf_counter()
    outcome = induce(out=work / f"{method}.kari", db=db, config=InduceConfig(grouping=method, **(settings or {})),
                     fresh=True)
    seconds = time.perf_counter() - started
    vocab = open_vocabulary(db=db)
    bench = load_benchmark(bench_dir, vocab)
    rules = outcome.rules
    cover = kb_coverage(rules, sorted(bench.affordances), bench.games)
    scores = _scores(rules, bench, vocab)
    used = usable_rules(rules)
    used_scores = _scores(used, bench, vocab)
    used_cover = kb_coverage(used, sorted(bench.affordances), bench.games)
    n = cover.affordances
    mean = (lambda rows, key, k: sum(s[key] for s in rows) / k if k else 0.0)  # noqa: E731
    one = sum(len(kb_positives(r)) <= 1 for r in rules)
    one_pooled = sum(len(kb_positives(r)) + len((r.metadata or {}).get("kb_pooled") or ()) <= 1 for r in rules)
    flagged = sum(bool((r.metadata or {}).get("flagged")) for r in rules)
    kb_verbs = sum(len(r.get("group", {}).get("members", ())) for r in outcome.results.values())
    return {"method": method, "kb_verbs": kb_verbs,
            "groups": len(outcome.results), "rules": len(rules), "induce_s": round(seconds, 1),
            "affordances": n, "affordances_covered": cover.affordances_covered,
            "games": cover.games, "games_covered": cover.games_covered, "games_kb_positive": cover.games_kb_positive,
            "precision_covered": round(mean(scores, "precision", len(scores)), 4),
            "recall_covered": round(mean(scores, "recall", len(scores)), 4),
            "f1_covered": round(mean(scores, "f1", len(scores)), 4), "f1_all": round(mean(scores, "f1", n), 4),
            "one_positive": one, "one_positive_pooled": one_pooled, "flagged": flagged,
            "unflagged_affordances_covered": used_cover.affordances_covered,
            "unflagged_games_covered": used_cover.games_covered,
            "f1_unflagged_covered": round(mean(used_scores, "f1", len(used_scores)), 4),
            "f1_unflagged_all": round(mean(used_scores, "f1", n), 4), "matches": scores,
            "unflagged_matches": used_scores, **({"ceilings": _ceilings(rules, bench, vocab)} if ceilings else {})}


def _pairs(spec: str) -> list[tuple[str, Path, Path]]:
    if spec == "both":
        return [(name, *PAIRS[name]) for name in ("bundled", "outside")]
    if spec in PAIRS:
        return [(spec, *PAIRS[spec])]
    kb, _, bench = spec.partition(":")
    return [(Path(bench).name, Path(kb), Path(bench))]


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / max(whole, 1):.1f}%)"


def _print_ceilings(rows: list[dict[str, Any]]) -> None:
    print(f"\n| pair | grouping | matched rule | best of the {CEILING_TOP_K} nearest rules | matched rule's best branch "
          "| best of all rules (selection bound) |")
    print("|---|---|---:|---:|---:|---:|")
    for r in rows:
        c = r["ceilings"]
        name = r["method"] + (f" ({r['variant']})" if r["variant"] else "")
        print(f"| {r['pair']} | {name} | {c['matched']:.3f} | {c['best_of_top_k']:.3f} | {c['best_branch']:.3f} | "
              f"{c['best_of_all']:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", default="both", help="bundled, outside, both or KB_FILE:BENCH_DIR")
    parser.add_argument("--methods", default="wordnet")
    parser.add_argument("--ablations", action="store_true", help="wordnet without completion / pooling / both too")
    parser.add_argument("--ceilings", action="store_true",
                        help="also the bounds of better matching and branch choice (chosen with the labels)")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    rows = []
    with tempfile.TemporaryDirectory(prefix="kari-grouping-") as tmp:
        for pair, kb_file, bench_dir in _pairs(args.pair):
            runs: list[tuple[str, str, dict[str, Any]]] = [(m, "", {}) for m in args.methods.split(",")]
            if args.ablations:
                runs += [("wordnet", name, s) for name, s in ABLATIONS.items() if name]
            for method, variant, settings in runs:
                work = Path(tmp) / pair / f"{method}-{variant.replace(' ', '_')}"
                work.mkdir(parents=True)
                row = {"pair": pair, "variant": variant, **evaluate(kb_file, bench_dir, method, work, settings, args.ceilings)}
                rows.append(row)
                print(f"{pair} {method} {variant}: {row['groups']} groups, {row['rules']} rules in {row['induce_s']} s; "
                      f"affordances {row['affordances_covered']}/{row['affordances']}; F1 covered "
                      f"{row['f1_covered']:.3f}, all {row['f1_all']:.3f}", file=sys.stderr)
    print("| pair | grouping | KB verbs -> groups | rules | affordances covered | games covered | precision | recall "
          "| F1 (covered) | F1 (all affordances) | rules on one KB positive (stated / with pooled kin) | flagged "
          "| unflagged only: affordances, F1 covered / all | induce s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        name = r["method"] + (f" ({r['variant']})" if r["variant"] else "")
        print(f"| {r['pair']} | {name} | {r['kb_verbs']} -> {r['groups']} | {r['rules']} | "
              f"{_share(r['affordances_covered'], r['affordances'])} | {_share(r['games_covered'], r['games'])} | "
              f"{r['precision_covered']:.3f} | {r['recall_covered']:.3f} | {r['f1_covered']:.3f} | {r['f1_all']:.3f} | "
              f"{_share(r['one_positive'], r['rules'])} / {_share(r['one_positive_pooled'], r['rules'])} | "
              f"{_share(r['flagged'], r['rules'])} | {r['unflagged_affordances_covered']}/{r['affordances']}, "
              f"{r['f1_unflagged_covered']:.3f} / {r['f1_unflagged_all']:.3f} | {r['induce_s']} |")
    if args.ceilings:
        _print_ceilings(rows)
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
