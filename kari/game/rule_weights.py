"""How far a matched rule moves a candidate's soft belief, from what the rule's own evidence says of it.

``kari induce`` records, for every rule, what it covers among the objects it was induced from
(``evidence_counts``: the positives and known negatives it had, and how many of each the rule covers; for a
KB-anchored rule these are the KB's objects, negatives closed-world). Weighing (``evidence``, the default):

* precision ``q_p``: the 10% quantile of the Beta(TP + 1/2, FP + 1/2) posterior (Jeffreys prior) of the
  share of covered objects that are positives: low when the rule covers many objects the KB does not name,
  and low when it rests on one or two positives (Beta(1.5, 0.5): 0.35; 5 of 5, none else: 0.77);
* recall ``q_r``: the same quantile of Beta(TP + 1/2, P - TP + 1/2), the share of the positives it covers;
* satisfied factor ``1 + (S - 1) * q_p`` and falsified factor ``1 - (1 - F) * q_p * q_r``, with ``S = 3.0`` and
  ``F = 0.7`` (the fixed factors kari used before: a rule the evidence fully supports weighs as much as they did,
  a rule it barely supports hardly moves the belief). A falsified rule says less than a satisfied one (rules
  state sufficient conditions), and only when the rule is both precise and covers most of its positives.

A KB rule of ``kari induce --db`` carries its precision held out within the KB (``heldout``:
:mod:`kari.induce.kbweights`); it is weighed by that instead of its in-sample counts (basis ``heldout``): ``q_p``
from the held-out positives it covered (TP) and the PU-weighted implicit negatives it covered (FP), ``q_r`` from
TP of the held-out positives, read as above. A rule whose held-out estimate could not be made (fewer than two KB
positives, nothing covered when held out) is flagged, and players skip flagged rules by default
(:func:`kari.rules.anchors.usable_rules`); used (``--flagged-rules use``), it is weighed by its in-sample evidence.

``fixed`` gives every rule ``S`` and ``F``; a rule without recorded evidence (hand-written) gets them too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from kari.core.game_defaults import RULE_FALSIFIED, RULE_SATISFIED, RULE_WEIGHTING
from kari.core.game_names import RuleWeighting
from kari.core.game_settings import check_weighting
from kari.rules.ast import Rule

WEIGHTINGS: tuple[str, ...] = tuple(RuleWeighting)
DEFAULT_WEIGHTING = RULE_WEIGHTING
QUANTILE = 0.1
"""The posterior quantile a rule's precision and recall are read at (a cautious reading of little evidence)."""


@dataclass(frozen=True)
class RuleWeight:
    """A rule's two factors and what they rest on."""

    satisfied: float
    falsified: float
    basis: str  # heldout | evidence | fixed | no-evidence
    precision_low: float | None = None
    recall_low: float | None = None
    support: int | None = None  # positives covered

    def to_json(self) -> dict[str, Any]:
        return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in asdict(self).items()}


def rule_weight(rule: Rule, weighting: str = DEFAULT_WEIGHTING, *, satisfied: float = RULE_SATISFIED,
                falsified: float = RULE_FALSIFIED) -> RuleWeight:
    """The factors of ``rule`` (module docstring); ``satisfied`` / ``falsified`` are S and F."""
    from kari.stats import beta_quantile

    check_weighting(weighting)
    counts = (rule.metadata or {}).get("evidence_counts")
    if weighting == RuleWeighting.FIXED:
        return RuleWeight(satisfied, falsified, "fixed")
    heldout = (rule.metadata or {}).get("heldout")
    if isinstance(heldout, Mapping) and heldout.get("positives") and heldout.get("precision") is not None:
        tp = int(heldout.get("covered_positives", 0))
        fp = float(heldout.get("covered_negative_weight", heldout.get("covered_negatives", 0)))
        q_p = beta_quantile(QUANTILE, tp + 0.5, fp + 0.5)
        q_r = beta_quantile(QUANTILE, tp + 0.5, max(int(heldout["positives"]) - tp, 0) + 0.5)
        return RuleWeight(1.0 + (satisfied - 1.0) * q_p, 1.0 - (1.0 - falsified) * q_p * q_r, "heldout", q_p, q_r,
                          tp)
    if not isinstance(counts, Mapping) or not counts.get("positives"):
        return RuleWeight(satisfied, falsified, "no-evidence")
    tp, fp = int(counts.get("covered_positives", 0)), int(counts.get("covered_negatives", 0))
    positives = int(counts["positives"])
    q_p = beta_quantile(QUANTILE, tp + 0.5, fp + 0.5)
    q_r = beta_quantile(QUANTILE, tp + 0.5, max(positives - tp, 0) + 0.5)
    return RuleWeight(1.0 + (satisfied - 1.0) * q_p, 1.0 - (1.0 - falsified) * q_p * q_r, "evidence", q_p, q_r, tp)


def match_weights(matches: Mapping[str, Sequence[Any]], weighting: str = DEFAULT_WEIGHTING, *,
                  satisfied: float = RULE_SATISFIED, falsified: float = RULE_FALSIFIED) -> dict[str, RuleWeight]:
    """Per candidate with a match, the weight of its best-matched rule."""
    return {c: rule_weight(ms[0].rule, weighting, satisfied=satisfied, falsified=falsified)
            for c, ms in matches.items() if ms}
