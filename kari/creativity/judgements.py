"""The records of ``kari creativity judge``: one :class:`Judgement` per task (a ``judgements.jsonl`` line) and
the :class:`JudgeSummary` over them (``judge_summary.json``).

A judgement's keys depend on how it was judged (``how``: ``llm``, ``symbolic``, ``symbolic-fallback``, ``empty
how_to_use``, ``not judged``); it keeps the order it was written in (:class:`kari.core.records.Layout`), so a
judgement read back writes the same line.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kari.core.records import JsonRecord, Layout
from kari.creativity.rubric import FIELDS
from kari.errors import KariError
from kari.io.versions import RUN_FORMAT

JUDGEMENTS_FILE = "judgements.jsonl"


@dataclass(frozen=True, eq=False)
class Judgement(JsonRecord):
    """One task's judgement: the headline sample judged (its index and temperature), the answer's relation to the
    gold and whether it is the gold, how it was judged and, when it was, the six rubric scores with their reasons
    (an int, ``"NA"`` or None: not scored), the reasonability level of a non-gold answer, where the predicted
    part's attributes came from, and why a field was not scored or the symbolic scorer stood in; judged by the
    benchmark's own judge (``--benchmark-repo``), kari's own relation and gold beside its and its judged sample
    whole."""

    task_id: str
    sample: int | None
    temperature: float | None
    relation: str
    gold: bool
    how: str
    reason: str | None = None
    attributes_from: str | None = None
    rubric: Mapping[str, Any] | None = None
    reasons: Mapping[str, Any] | None = None
    not_scored: Sequence[str] | None = None
    invalid_fields: Sequence[str] | None = None
    fallback_reason: str | None = None
    reply: str | None = None
    reasonability: Mapping[str, Any] | None = None
    reasonability_reason: str | None = None
    kari_relation: str | None = None
    kari_gold: bool | None = None
    benchmark_judged: Mapping[str, Any] | None = None
    layout: Layout | None = None

    KEYS = ("task_id", "sample", "temperature", "relation", "gold", "how", "reason", "attributes_from", "rubric",
            "reasons", "not_scored", "invalid_fields", "fallback_reason", "reply", "reasonability",
            "reasonability_reason", "kari_relation", "kari_gold", "benchmark_judged")
    OPTIONAL = KEYS[6:]

    @property
    def judged(self) -> bool:
        """Was the answer scored (a rubric given)?"""
        return self.rubric is not None

    @property
    def level(self) -> int | None:
        """The reasonability level 0 / 1 / 2 of a non-gold answer (None: none given)."""
        level = self.reasonability.get("level") if isinstance(self.reasonability, Mapping) else None
        return level if isinstance(level, int) else None


def read_judgement(record: dict[str, Any], path: Path, line: int) -> Judgement:
    """One ``judgements.jsonl`` line as a :class:`Judgement`, else a ``run-corrupt`` error naming the line."""
    if not isinstance(record.get("task_id"), str) or not isinstance(record.get("how"), str) \
            or not isinstance(record.get("relation"), str):
        raise KariError("corrupt record (not a judgement record)", file=str(path), line=line, code="run-corrupt")
    return Judgement.from_json(record)


@dataclass(frozen=True, eq=False)
class JudgeSummary(JsonRecord):
    """``judge_summary.json``: tasks and how many were judged, how each was judged, per rubric field the mean
    of the scores given and how many were NA or not scored (gold and other answers apart), the reasonability
    levels, the relations, the judge's settings, whose prompts judged (with ``--benchmark-repo``: the checkout and
    how often its judge agreed with kari's scoring), its token usage and the judged outputs file."""

    tasks: int
    judged: int
    how: Mapping[str, int]
    gold: Mapping[str, Mapping[str, Any]]
    other: Mapping[str, Mapping[str, Any]]
    reasonability_levels: Mapping[str, int]
    relations: Mapping[str, int]
    config: Mapping[str, Any] | None = None
    prompts: str | None = None
    benchmark_repo: Mapping[str, Any] | None = None
    agreement_with_kari: Mapping[str, int] | None = None
    llm_usage: Mapping[str, Any] | None = None
    judged_outputs: str | None = None
    format: str | None = RUN_FORMAT.written_tag
    layout: Layout | None = None

    KEYS = ("format", "tasks", "judged", "how", "gold", "other", "reasonability_levels", "relations", "config",
            "prompts", "benchmark_repo", "agreement_with_kari", "llm_usage", "judged_outputs")
    OPTIONAL = ("format", "config", "prompts", "benchmark_repo", "agreement_with_kari", "llm_usage", "judged_outputs")


def _field_scores(group: Sequence[Judgement]) -> dict[str, dict[str, Any]]:
    out = {}
    for name in FIELDS:
        values = [j.rubric[name] for j in group if j.rubric is not None]
        numbers = [v for v in values if isinstance(v, int)]
        out[name] = {"mean": round(sum(numbers) / len(numbers), 4) if numbers else None,
                     "scored": len(numbers), "na": sum(1 for v in values if v == "NA"),
                     "not_scored": sum(1 for v in values if v is None)}
    return out


def summarise_judgements(records: Sequence[Judgement]) -> JudgeSummary:
    """The summary of a run's judgements (without the judge's settings, usage and outputs file)."""
    judged = [j for j in records if j.judged]
    levels = [level for j in judged if (level := j.level) is not None]
    return JudgeSummary(
        tasks=len(records), judged=len(judged),
        how=dict(sorted(Counter(j.how for j in records).items())),
        gold=_field_scores([j for j in judged if j.gold]), other=_field_scores([j for j in judged if not j.gold]),
        reasonability_levels=dict(sorted(Counter(str(v) for v in levels).items())),
        relations=dict(sorted(Counter(j.relation for j in records).items())))


__all__ = ["JUDGEMENTS_FILE", "JudgeSummary", "Judgement", "read_judgement", "summarise_judgements"]
