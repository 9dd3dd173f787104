"""CreativityBench's scores, computed as its judge computes them: entity correct, part correct, gold correct (both),
and the prediction relation of every answer, plus the random-choice baseline of each task.

Matching (per answer): the predicted entity is correct when it equals the gold entity, or when the task entity
with the highest word F1 with it is the gold (names lower-cased, parenthesised text dropped, non-alphanumerics as
spaces; ties and an all-zero F1: the first candidate, the gold entity added to the candidates when the task lacks
it). The predicted part is correct when it equals the gold part (whatever the entity), or when the best part by
word F1 *of that best entity's judge_output keys* is the gold part; an entity without judge_output keys offers
only the gold part. "Equals" is exact string equality in CreativityBench's judge; kari also accepts equal
normalised names (``LED bulbs`` for ``led_bulbs``): that differs from the judge only when the gold part is not among
the judge keys (as in CreativityBench's own files) and the answer spells it differently, and each such answer is
flagged ``normalised_only`` so the judge's figure can be recovered.

Relation (the judge's definitions, from the task's ``judge_output``): ``gold`` when entity and part are correct;
else the judge_output entry of the snapped (entity, part): ``similar-D`` when it says ``similar_affordance: Yes``
and ``gold_change: No`` with a decision difficulty D <= 5 (``similar`` when D is not a number 0-5),
``not similar`` otherwise, and ``hallucination`` when there is no such entry.

Beside the judge's snapping, every score also says what a **strict** match gives (``strict_gold``: the answer
names the gold entity and the gold part exactly as the task writes them) and whether a name was snapped **blind**
(``blind_entity`` / ``blind_part``: no candidate shares a word with it, an empty or nonsense name, so the judge's
snapping takes the first-listed candidate, which the benchmark's files list first as the gold).

One difference from the benchmark, by design: an answer with no entity, part or how-to-use at all is ``no answer``
and wrong (CreativityBench's runner drops such samples before judging; its snapping would map an empty name to the
first entity, which its task files list first as the gold).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kari.creativity.model import Task
from kari.stats import wilson

_PARENS = re.compile(r"\([^)]*\)")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
RELATIONS = ("gold", "similar", "not similar", "hallucination", "no answer")
"""Relation kinds; ``similar`` also stands for every ``similar-D``."""


def name_core(text: str) -> str:
    """``"Led_Bulbs (x)"`` -> ``"led bulbs"``."""
    return " ".join(_NON_ALNUM.sub(" ", _PARENS.sub(" ", str(text or "").lower())).split())


def word_f1(a: str, b: str) -> float:
    """Word-multiset F1 of two names after :func:`name_core`."""
    wa, wb = name_core(a).split(), name_core(b).split()
    common = sum((Counter(wa) & Counter(wb)).values())
    if not common:
        return 0.0
    precision, recall = common / len(wa), common / len(wb)
    return 2 * precision * recall / (precision + recall)


def blind(prediction: str, candidates: Sequence[str]) -> bool:
    """Does ``prediction`` share no word with any candidate (so :func:`snap` takes the first)?"""
    return bool(candidates) and all(word_f1(prediction, c) == 0.0 for c in candidates)


def snap(prediction: str, candidates: Sequence[str]) -> str | None:
    """The candidate nearest to ``prediction`` by word F1, the first of equals (also when every F1 is 0, as the
    benchmark's judge does); None without candidates."""
    if not candidates:
        return None
    return max(candidates, key=lambda c: (word_f1(prediction, c), -candidates.index(c)))


def _same(a: str, b: str) -> str | None:
    """How ``a`` names ``b``: ``exact``, ``normalised`` or None."""
    if a == b and a:
        return "exact"
    return "normalised" if name_core(a) and name_core(a) == name_core(b) else None


def _try_int(value: Any, default: int = 10) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def relation_of(judge_entry: Any) -> str:
    """The relation a non-gold answer has, from the judge_output entry of its (entity, part)."""
    if not isinstance(judge_entry, Mapping):
        return "hallucination"
    if judge_entry.get("similar_affordance") == "Yes" and judge_entry.get("gold_change") == "No":
        difficulty = _try_int(judge_entry.get("decision_making_difficulty"))
        return f"similar-{difficulty}" if difficulty <= 5 else "similar"
    return "not similar"


def relation_kind(relation: str) -> str:
    """``similar-2`` -> ``similar``; the other relations unchanged."""
    return "similar" if relation.startswith("similar") else relation


def is_empty(entity: str, part: str, how_to_use: str = "") -> bool:
    """True when an answer names nothing at all (CreativityBench's runner drops such samples)."""
    return not any(str(x or "").strip() for x in (entity, part, how_to_use))


def score(task: Task, entity: str, part: str, how_to_use: str = "") -> dict[str, Any]:
    """Entity / part / gold correctness and the relation of one answer, with what it was snapped to."""
    if is_empty(entity, part, how_to_use):
        return {"best_entity": None, "best_part": None, "entity_correct": False, "part_correct": False,
                "gold_correct": False, "relation": "no answer", "entity_match": None, "part_match": None,
                "normalised_only": False, "strict_gold": False, "blind_entity": False, "blind_part": False}
    gold = task.gold
    names = [e.name for e in task.entities if e.name]
    if gold.entity not in names:
        names.append(gold.entity)
    best_entity = snap(entity, names) or ""
    chosen = task.entity(best_entity)
    candidates = list(chosen.judge_parts) if chosen is not None and chosen.judge_parts else [gold.part]
    best_part = snap(part, candidates) or ""
    entity_match = _same(entity, gold.entity) or ("f1" if name_core(best_entity) == name_core(gold.entity) else None)
    part_match = _same(part, gold.part) or ("f1" if name_core(best_part) == name_core(gold.part) else None)
    entity_ok, part_ok = entity_match is not None, part_match is not None
    if entity_ok and part_ok:
        relation = "gold"
    else:
        relation = relation_of(chosen.judge_output.get(best_part) if chosen is not None else None)
    return {"best_entity": best_entity, "best_part": best_part, "entity_correct": entity_ok, "part_correct": part_ok,
            "gold_correct": entity_ok and part_ok, "relation": relation, "entity_match": entity_match,
            "part_match": part_match, "normalised_only": "normalised" in (entity_match, part_match),
            "strict_gold": bool(entity) and entity == gold.entity and part == gold.part,
            "blind_entity": blind(entity, names), "blind_part": blind(part, candidates)}


def predicted_judge_entry(task: Task, scored: Mapping[str, Any]) -> Any:
    """The judge_output entry of an answer's snapped (entity, part), None when there is none."""
    chosen = task.entity(scored.get("best_entity") or "")
    return chosen.judge_output.get(scored.get("best_part") or "") if chosen is not None else None


def random_rates(task: Task) -> dict[str, float]:
    """Expected rates of a uniformly random (entity, part) choice among the parts the task offers."""
    counts = [max(1, len(e.parts)) for e in task.entities]
    total = sum(counts)
    gold = next(i for i, e in enumerate(task.entities) if e.name == task.gold.entity)
    return {"entity": counts[gold] / total, "gold": 1 / total}


def rate(values: Sequence[bool | float]) -> float | None:
    """The mean, rounded to 4 places; None for no values."""
    return round(sum(values) / len(values), 4) if values else None


def relation_counts(scores: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """How many answers have each relation (``similar-D`` kept apart)."""
    return dict(sorted(Counter(s["relation"] for s in scores).items()))


def rate_ci(values: Sequence[bool]) -> list[float] | None:
    """The Wilson 95% interval of a rate (None for no values)."""
    interval = wilson(sum(bool(v) for v in values), len(values)) if values else None
    return None if interval is None else [round(interval[0], 4), round(interval[1], 4)]


def rates(scores: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Entity / part / gold rates of some scored answers, over all of them and over those that answered, each
    with its Wilson interval; the strict gold rate (exact names) beside the snapped one; the blind snaps."""
    answered = [s for s in scores if s["relation"] != "no answer"]
    out: dict[str, Any] = {"samples": len(scores), "answered": len(answered)}
    for name, key in (("entity_correct_rate", "entity_correct"), ("part_correct_rate", "part_correct"),
                      ("gold_correct_rate", "gold_correct"), ("strict_gold_correct_rate", "strict_gold")):
        values = [bool(s.get(key)) for s in scores]
        out[name], out[f"{name}_ci"] = rate(values), rate_ci(values)
    out["gold_rate_when_answered"] = rate([s["gold_correct"] for s in answered])
    out["relations"] = relation_counts(scores)
    out["normalised_only"] = sum(1 for s in scores if s.get("normalised_only"))
    out["blind_snaps"] = {"entity": sum(1 for s in scores if s.get("blind_entity")),
                          "entity_onto_gold": sum(1 for s in scores if s.get("blind_entity") and s["entity_correct"]),
                          "part": sum(1 for s in scores if s.get("blind_part"))}
    return out
