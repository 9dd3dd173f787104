"""CreativityBench's scores: Entity Correct Rate and Gold Correct Rate (entity and part), answers snapped to the
nearest candidate by word F1 as its evaluation does, plus the random-choice baseline of each task.

Snapping: the predicted entity is replaced by the task entity whose name has the highest word F1 with it (names
lower-cased, parenthesised text dropped, non-alphanumerics as spaces; ties: the first); the predicted part by the
best part of that entity. One deliberate difference: an empty prediction is wrong here (CreativityBench's snapping
would map it to the first entity, which its task files list first as the gold).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from kari.creativity.model import Task

_PARENS = re.compile(r"\([^)]*\)")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


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


def snap(prediction: str, candidates: Sequence[str]) -> str | None:
    """The candidate nearest to ``prediction`` by word F1 (the first of equals); None for an empty prediction."""
    if not name_core(prediction) or not candidates:
        return None
    return max(candidates, key=lambda c: (word_f1(prediction, c), -candidates.index(c)))


def score(task: Task, entity: str, part: str) -> dict[str, Any]:
    """Entity / part / gold correctness of one answer, with the candidates it was snapped to."""
    gold = task.gold
    names = [e.name for e in task.entities]
    best_entity = snap(entity, names)
    chosen = task.entity(best_entity) if best_entity else None
    parts = list(chosen.parts) if chosen and chosen.parts else [gold.part]
    best_part = snap(part, parts)
    entity_ok = best_entity is not None and name_core(best_entity) == name_core(gold.entity)
    part_ok = best_part is not None and name_core(best_part) == name_core(gold.part)
    return {"best_entity": best_entity, "best_part": best_part, "entity_correct": entity_ok,
            "part_correct": part_ok, "gold_correct": entity_ok and part_ok}


def random_rates(task: Task) -> dict[str, float]:
    """Expected rates of a uniformly random (entity, part) choice among the task's candidates."""
    counts = [max(1, len(e.parts)) for e in task.entities]
    total = sum(counts)
    gold = next(i for i, e in enumerate(task.entities) if e.name == task.gold.entity)
    return {"entity": counts[gold] / total, "gold": 1 / total}


def _rate(values: Sequence[bool | float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summarise(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """``summary.json``: the rates over every answer record of a run."""
    records = list(records)
    scores = [r["score"] for r in records]
    summary: dict[str, Any] = {
        "tasks": len(records),
        "answered": sum(1 for r in records if r["answer"].get("gold_entity")),
        "entity_correct_rate": _rate([s["entity_correct"] for s in scores]),
        "part_correct_rate": _rate([s["part_correct"] for s in scores]),
        "gold_correct_rate": _rate([s["gold_correct"] for s in scores]),
        "random_entity_rate": _rate([r["random"]["entity"] for r in records]),
        "random_gold_rate": _rate([r["random"]["gold"] for r in records]),
        "readings": dict(sorted(Counter(r["answer"].get("reading", "none") for r in records).items())),
        "goal_mapped_correctly": _rate([r["goal"]["correct"] for r in records if r["goal"].get("correct") is not None]),
    }
    oracle = [r["oracle"]["score"] for r in records if r.get("oracle")]
    if oracle:
        summary["oracle_affordance"] = {"entity_correct_rate": _rate([s["entity_correct"] for s in oracle]),
                                        "gold_correct_rate": _rate([s["gold_correct"] for s in oracle])}
    return summary
