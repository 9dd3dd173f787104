"""Rules judged out of sample: held-out scores of cross-fitted rule sets, per-branch failures, ``cv.json``.

Fold ``k``'s rules were induced without fold ``k``'s objects (:mod:`kari.induce.folds`); each is judged on the
labels of its own fold's objects only, and the counts are summed over folds, so every labelled object is
judged exactly once by rules that never saw it. Scores per affordance: precision, recall and F1 of the summed
counts; pooled: the macro mean over affordances and the micro scores of all counts together. The in-sample
scores beside them are those of the rules induced on every object, judged on the same labels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kari.domain.objects import evaluate_rule, object_view
from kari.vocab.vocabulary import Vocabulary
from kari.induce.inputs import Evidence
from kari.induce.report import RuleScore, Truth, score_on
from kari.rules.ast import Node, Rule
from kari.core.terms import Semantics
from kari.core.induce_config import Negatives
from kari.induce.records import CVSummary
from kari.rules import to_text

FAILING_PRECISION = 0.5
"""A branch fails on held-out objects when fewer than this share of the held-out objects it covers are positive."""


def fold_truth(evidence: Mapping[str, Evidence], fold_of: Mapping[str, int], fold: int, negatives: str) -> Truth:
    """Affordance -> (positives, negatives) among fold ``fold``'s objects."""
    def mine(objects: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(o for o in objects if fold_of.get(o.id) == fold)

    return {a: (mine(ev.positives), mine(ev.negatives(negatives))) for a, ev in evidence.items()}


def _empty(affordance: str, positives: int, negatives: int) -> RuleScore:
    return RuleScore(affordance, 0, positives, 0, negatives, 0)


def heldout_scores(fold_rules: Mapping[int, Sequence[Rule]], evidence: Mapping[str, Evidence],
                   fold_of: Mapping[str, int], vocab: Vocabulary, *, negatives: str = "auto",
                   semantics: str = Semantics.ANY_PART) -> dict[str, RuleScore]:
    """Per affordance of ``evidence``: the counts of every fold's rule on its own fold's objects, summed (an
    affordance without a rule in a fold covers none of that fold's objects)."""
    total = {a: _empty(a, 0, 0) for a in evidence}
    for fold, rules in sorted(fold_rules.items()):
        truth = fold_truth(evidence, fold_of, fold, negatives)
        scores = score_on(rules, truth, vocab, semantics=semantics)
        for aff, (pos, neg) in truth.items():
            total[aff] = total[aff].plus(scores.get(aff, _empty(aff, len(pos), len(neg))))
    return total


@dataclass(frozen=True)
class BranchCheck:
    """One branch of a fold's rule judged on that fold's held-out objects."""

    affordance: str
    fold: int
    branch: str
    true_positives: int
    false_positives: int
    in_final_rule: bool

    @property
    def fails(self) -> bool:
        covered = self.true_positives + self.false_positives
        return covered > 0 and self.true_positives < FAILING_PRECISION * covered

    def to_json(self) -> dict[str, Any]:
        return {"fold": self.fold, "branch": self.branch, "heldout_true_positives": self.true_positives,
                "heldout_false_positives": self.false_positives, "in_final_rule": self.in_final_rule,
                "fails": self.fails}


def branch_checks(fold_rules: Mapping[int, Sequence[Rule]], final_rules: Sequence[Rule],
                  evidence: Mapping[str, Evidence], fold_of: Mapping[str, int], vocab: Vocabulary, *,
                  negatives: str = Negatives.AUTO, semantics: str = Semantics.ANY_PART) -> dict[str, list[BranchCheck]]:
    """Every branch of every fold's rule with its held-out true and false positives (the fold's objects)."""
    final = {r.affordance: {to_text(b) for b in r.branches()} for r in final_rules}
    out: dict[str, list[BranchCheck]] = {a: [] for a in evidence}
    for fold, rules in sorted(fold_rules.items()):
        truth = fold_truth(evidence, fold_of, fold, negatives)
        for rule in rules:
            if rule.affordance not in truth:
                continue
            pos, neg = truth[rule.affordance]
            for branch in rule.branches():
                text = to_text(branch)
                out[rule.affordance].append(BranchCheck(
                    rule.affordance, fold, text, _covered(rule, branch, pos, vocab, semantics),
                    _covered(rule, branch, neg, vocab, semantics), text in final.get(rule.affordance, set())))
    return out


def _covered(rule: Rule, branch: Node, objects: Sequence[Any], vocab: Vocabulary, semantics: str) -> int:
    alone = Rule(rule.affordance, branch)
    return sum(evaluate_rule(alone, object_view(o, vocab), semantics)[0] for o in objects)


def _scores(s: RuleScore) -> dict[str, Any]:
    return {"precision": round(s.precision or 0.0, 4), "recall": round(s.recall, 4), "f1": round(s.f1, 4),
            "true_positives": s.covered, "false_positives": s.false_positives,
            "false_negatives": s.positives - s.covered}


def pooled(scores: Mapping[str, RuleScore]) -> dict[str, Any]:
    """Macro means (over affordances) and micro scores (summed counts) of per-affordance scores."""
    values = list(scores.values())
    n = max(len(values), 1)
    total = _empty("*", 0, 0)
    for s in values:
        total = total.plus(s)
    return {"macro": {"precision": round(sum(s.precision or 0.0 for s in values) / n, 4),
                      "recall": round(sum(s.recall for s in values) / n, 4),
                      "f1": round(sum(s.f1 for s in values) / n, 4)},
            "micro": _scores(total)}


def cv_summary(heldout: Mapping[str, RuleScore], in_sample: Mapping[str, RuleScore],
               checks: Mapping[str, Sequence[BranchCheck]], *, k: int, seed: int, negatives: str, semantics: str,
               settings: Mapping[int, Mapping[str, Any]] | None = None) -> CVSummary:
    """The content of ``cv.json``."""
    affordances = sorted(heldout)
    inside = {a: in_sample.get(a, _empty(a, heldout[a].positives, heldout[a].negatives)) for a in affordances}
    held, ins = pooled({a: heldout[a] for a in affordances}), pooled(inside)
    return CVSummary(
        k=k, seed=seed, negatives=negatives, semantics=semantics,
        pooled={"heldout": held, "in_sample": ins, "gap_macro_f1": round(ins["macro"]["f1"] - held["macro"]["f1"], 4)},
        affordances={
            a: {"positives": heldout[a].positives, "negatives": heldout[a].negatives,
                "heldout": _scores(heldout[a]), "in_sample": _scores(inside[a]),
                "failing_branches": [c.to_json() for c in checks.get(a, ()) if c.fails]}
            for a in affordances
        },
        settings_by_fold={str(f): dict(s) for f, s in sorted((settings or {}).items())},
    )


def render_heldout(summary: CVSummary, folder: str) -> str:
    """The report's "Held-out evaluation" section."""
    p = summary.pooled
    held, ins = p["heldout"], p["in_sample"]
    lines = [
        "## Held-out evaluation",
        "",
        (f"{summary.k}-fold cross-validation by object (seed {summary.seed}): each fold's rules were induced "
         f"without that fold's objects and judged on their labels only. Rule sets and `cv.json` in `{folder}`."),
        "",
        "| pooled | held-out P | R | F1 | in-sample P | R | F1 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for kind in ("macro", "micro"):
        h, i = held[kind], ins[kind]
        lines.append(f"| {kind} | {h['precision']:.3f} | {h['recall']:.3f} | {h['f1']:.3f} | {i['precision']:.3f} "
                     f"| {i['recall']:.3f} | {i['f1']:.3f} |")
    lines += ["", f"Gap (in-sample minus held-out macro F1): {p['gap_macro_f1']:.3f}."]
    if summary.settings_by_fold:
        lines += ["", "Settings each fold chose by inner cross-validation on its own training objects: " + "; ".join(
            f"fold {f}: " + ", ".join(f"{k}={v}" for k, v in chosen.items())
            for f, chosen in summary.settings_by_fold.items()) + "."]
    lines += ["",
              "| affordance | positives | held-out P | R | F1 | in-sample F1 | failing branches |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for aff, row in summary.affordances.items():
        h = row["heldout"]
        lines.append(f"| {aff} | {row['positives']} | {h['precision']:.3f} | {h['recall']:.3f} | {h['f1']:.3f} "
                     f"| {row['in_sample']['f1']:.3f} | {len(row['failing_branches'])} |")
    failing = [(aff, c) for aff, row in summary.affordances.items() for c in row["failing_branches"]]
    lines += ["", f"### Branches that fail on held-out objects ({len(failing)})", "",
              "A branch fails when most held-out objects it covers are negatives (* = also in the final rule).", ""]
    for aff in summary.affordances:
        mine = [c for a, c in failing if a == aff]
        if mine:
            lines.append(f"- **{aff}**: " + "; ".join(
                f"fold {c['fold']} `{c['branch']}`{'*' if c['in_final_rule'] else ''} "
                f"({c['heldout_true_positives']} TP / {c['heldout_false_positives']} FP)" for c in mine))
    return "\n".join(lines) + "\n"
