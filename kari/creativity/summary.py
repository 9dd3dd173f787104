"""``summary.json`` of a CreativityBench run: the rates over every task's headline sample (temperature 0 when
drawn), the relation distribution, the same per temperature and over all samples, the random-choice rates, the
goal mapping's accuracy (``--goal rules``: the goals above the threshold and the fallbacks, and the rank of the
rule each task was answered with) and, for the symbolic solver, the oracle-affordance bound and its answered share."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kari.core.records import JsonRecord, Layout
from kari.creativity.answering import headline_sample
from kari.creativity.metrics import rate, rates
from kari.io.versions import RUN_FORMAT


@dataclass(frozen=True, eq=False)
class SolveSummary(JsonRecord):
    """A ``kari creativity solve`` run's ``summary.json`` (docs/creativity.md): the headline rates over the tasks
    (their headline sample), the relation counts, the random-choice rates, the goal mapping's accuracy, and the
    sections a run has only sometimes (``--goal rules`` counts, several temperatures, the oracle-affordance bound
    of the symbolic solver, the interactive mode's turns), then the run's settings, its token usage and the
    benchmark runner's output file."""

    tasks: int
    answered: int
    answered_share: float | None
    entity_correct_rate: float | None
    part_correct_rate: float | None
    gold_correct_rate: float | None
    gold_rate_when_answered: float | None
    relations: Mapping[str, int]
    normalised_only: Any
    random_entity_rate: float | None
    random_gold_rate: float | None
    readings: Mapping[str, int]
    goal_mapped_correctly: float | None
    goal_rules: Mapping[str, Any] | None = None
    by_temperature: Mapping[str, Any] | None = None
    all_samples: Mapping[str, Any] | None = None
    oracle_affordance: Mapping[str, Any] | None = None
    mean_turns: float | None = None
    config: Mapping[str, Any] | None = None
    llm_usage: Mapping[str, Any] | None = None
    benchmark_outputs: str | None = None
    format: str | None = RUN_FORMAT.written_tag
    layout: Layout | None = None

    KEYS = ("format", "tasks", "answered", "answered_share", "entity_correct_rate", "part_correct_rate",
            "gold_correct_rate", "gold_rate_when_answered", "relations", "normalised_only", "random_entity_rate",
            "random_gold_rate", "readings", "goal_mapped_correctly", "goal_rules", "by_temperature", "all_samples",
            "oracle_affordance", "mean_turns", "config", "llm_usage", "benchmark_outputs")
    OPTIONAL = ("format", *KEYS[14:])


def summarise(records: Iterable[Mapping[str, Any]]) -> SolveSummary:
    """The summary of a run's answer records (without the run's settings, usage and output file)."""
    records = list(records)
    heads = [headline_sample(r) for r in records]
    scores = [s["score"] for s in heads]
    head = rates(scores)
    summary: dict[str, Any] = {
        "tasks": len(records),
        "answered": head["answered"],
        "answered_share": rate([s["relation"] != "no answer" for s in scores]),
        "entity_correct_rate": head["entity_correct_rate"],
        "part_correct_rate": head["part_correct_rate"],
        "gold_correct_rate": head["gold_correct_rate"],
        "gold_rate_when_answered": head["gold_rate_when_answered"],
        "relations": head["relations"],
        "normalised_only": head["normalised_only"],
        "random_entity_rate": rate([r["random"]["entity"] for r in records]),
        "random_gold_rate": rate([r["random"]["gold"] for r in records]),
        "readings": dict(sorted(Counter(s["answer"].get("reading", "none") for s in heads).items())),
        "goal_mapped_correctly": rate([r["goal"]["correct"] for r in records
                                       if r["goal"].get("correct") is not None]),
    }
    fallbacks = [r["goal"]["fallback"] for r in records if isinstance(r["goal"].get("fallback"), bool)]
    if fallbacks:   # --goal rules: how many goals met the threshold, how many took the nearest rule below it
        summary["goal_rules"] = {"above_threshold": fallbacks.count(False), "fallback": fallbacks.count(True),
                                 "fallback_share": rate(fallbacks)}
        ranks = [r["goal"]["rank"] for r in records if "rank" in r["goal"]]
        if ranks:   # which of the nearest rules was met first ("none": none of them)
            counts = Counter("none" if k is None else str(k) for k in ranks)
            order = sorted(counts, key=lambda k: int(k) if k.isdigit() else len(ranks) + 1)
            summary["goal_rules"]["rank"] = {k: counts[k] for k in order}
    temperatures = sorted({s.get("temperature") for r in records for s in r["samples"]}, key=float)
    if len(temperatures) > 1:
        summary["by_temperature"] = {
            str(t): rates([s["score"] for r in records for s in r["samples"] if s.get("temperature") == t])
            for t in temperatures}
        summary["all_samples"] = rates([s["score"] for r in records for s in r["samples"]])
    oracle = [r["oracle"]["score"] for r in records if r.get("oracle")]
    if oracle:
        summary["oracle_affordance"] = {"entity_correct_rate": rate([s["entity_correct"] for s in oracle]),
                                        "gold_correct_rate": rate([s["gold_correct"] for s in oracle]),
                                        "answered": sum(1 for s in oracle if s["relation"] != "no answer")}
    turns = [s["answer"]["turns"] for s in heads if isinstance(s["answer"].get("turns"), int)]
    if turns:
        summary["mean_turns"] = round(sum(turns) / len(turns), 2)
    return SolveSummary(**summary)
