"""``summary.json`` of a CreativityBench run: the rates over every task's headline sample (temperature 0 when
drawn), each with its Wilson 95% interval, the strict gold rate (exact names) beside the judge's snapped one and
the blind snaps (an empty or nonsense entity name snapped to the first-listed entity), the relation distribution,
the same per temperature and over all samples, per task setting (``by_difficulty``, ``by_entity_count``,
``by_scenario``: the task's ``setting.difficulty``, ``setting.entity_count`` and ``scenario``), the random-choice
rates, the goal mapping's accuracy (``--goal rules``: the goals above the threshold and the fallbacks, and the rank
of the rule each task was answered with), what ``llm+rules`` sent (``rules_sent``: tasks with a rule in the prompt,
those marked below the threshold, those without one) and, for the symbolic solver, the oracle-affordance bound and
its answered share."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kari.core.records import JsonRecord, Layout
from kari.creativity.answering import headline_sample
from kari.creativity.metrics import rate, rates
from kari.io.versions import RUN_FORMAT


BREAKDOWNS = (("by_difficulty", "difficulty"), ("by_entity_count", "entity_count"), ("by_scenario", None))
"""The summary's breakdowns: by the task's ``setting.difficulty``, ``setting.entity_count`` and its scenario."""


@dataclass(frozen=True, eq=False)
class SolveSummary(JsonRecord):
    """A ``kari creativity solve`` run's ``summary.json`` (docs/creativity.md): the headline rates over the tasks
    (their headline sample) with their intervals, the strict gold rate and the blind snaps, the relation counts,
    the random-choice rates, the goal mapping's accuracy, and the sections a run has only sometimes (``--goal
    rules`` counts, several temperatures, the oracle-affordance bound of the symbolic solver, the interactive
    mode's turns, what ``llm+rules`` sent, the breakdowns by task setting), then whose prompts were sent, the
    run's settings, its token usage and the benchmark runner's output file."""

    tasks: int
    answered: int
    answered_share: float | None
    entity_correct_rate: float | None
    entity_correct_rate_ci: Any
    part_correct_rate: float | None
    part_correct_rate_ci: Any
    gold_correct_rate: float | None
    gold_correct_rate_ci: Any
    strict_gold_correct_rate: float | None
    strict_gold_correct_rate_ci: Any
    blind_snaps: Mapping[str, Any] | None
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
    rules_sent: Mapping[str, int] | None = None
    by_difficulty: Mapping[str, Any] | None = None
    by_entity_count: Mapping[str, Any] | None = None
    by_scenario: Mapping[str, Any] | None = None
    prompts: str | None = None
    config: Mapping[str, Any] | None = None
    llm_usage: Mapping[str, Any] | None = None
    benchmark_outputs: str | None = None
    format: str | None = RUN_FORMAT.written_tag
    layout: Layout | None = None

    KEYS = ("format", "tasks", "answered", "answered_share", "entity_correct_rate", "entity_correct_rate_ci",
            "part_correct_rate", "part_correct_rate_ci", "gold_correct_rate", "gold_correct_rate_ci",
            "strict_gold_correct_rate", "strict_gold_correct_rate_ci", "blind_snaps", "gold_rate_when_answered",
            "relations", "normalised_only", "random_entity_rate", "random_gold_rate", "readings",
            "goal_mapped_correctly", "goal_rules", "by_temperature", "all_samples", "oracle_affordance",
            "mean_turns", "rules_sent", "by_difficulty", "by_entity_count", "by_scenario", "prompts", "config",
            "llm_usage", "benchmark_outputs")
    OPTIONAL = ("format", *KEYS[KEYS.index("goal_rules"):])


def task_groups(task: Any) -> dict[str, str | None]:
    """A task's group in each breakdown of :data:`BREAKDOWNS` (None: the task does not say)."""
    setting = task.setting if isinstance(task.setting, Mapping) else {}
    out: dict[str, str | None] = {}
    for name, key in BREAKDOWNS:
        value = task.scenario if key is None else setting.get(key)
        out[name] = None if value in (None, "") else str(value)
    return out


def summarise(records: Iterable[Mapping[str, Any]], tasks: Mapping[str, Any] | None = None) -> SolveSummary:
    """The summary of a run's answer records (``tasks``: id -> task, for the breakdowns by setting; without the
    run's prompts, settings, usage and output file)."""
    records = list(records)
    heads = [headline_sample(r) for r in records]
    scores = [s["score"] for s in heads]
    head = rates(scores)
    summary: dict[str, Any] = {
        "tasks": len(records),
        "answered": head["answered"],
        "answered_share": rate([s["relation"] != "no answer" for s in scores]),
        "entity_correct_rate": head["entity_correct_rate"],
        "entity_correct_rate_ci": head["entity_correct_rate_ci"],
        "part_correct_rate": head["part_correct_rate"],
        "part_correct_rate_ci": head["part_correct_rate_ci"],
        "gold_correct_rate": head["gold_correct_rate"],
        "gold_correct_rate_ci": head["gold_correct_rate_ci"],
        "strict_gold_correct_rate": head["strict_gold_correct_rate"],
        "strict_gold_correct_rate_ci": head["strict_gold_correct_rate_ci"],
        "blind_snaps": head["blind_snaps"],
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
    sent = [s["answer"]["rule_in_prompt"] for s in heads if "rule_in_prompt" in s["answer"]]
    if sent:   # llm+rules: did the prompt hold a rule, and was it marked as a match below the threshold?
        summary["rules_sent"] = {"with_rule": sum(1 for x in sent if x), "without_rule": sum(1 for x in sent if not x),
                                 "below_threshold": sum(1 for x in sent if x and x.get("below_threshold"))}
    if tasks:
        for name, _ in BREAKDOWNS:
            groups: dict[str, list[dict[str, Any]]] = {}
            for record, scored in zip(records, scores, strict=True):
                task = tasks.get(record["task_id"])
                group = task_groups(task)[name] if task is not None else None
                if group is not None:
                    groups.setdefault(group, []).append(scored)
            if groups:
                summary[name] = {g: _group(groups[g]) for g in sorted(groups, key=_order)}
    return SolveSummary(**summary)


def _group(scores: list[dict[str, Any]]) -> dict[str, Any]:
    """A breakdown cell: its tasks and the headline rates with their intervals."""
    made = rates(scores)
    keys = ("entity_correct_rate", "part_correct_rate", "gold_correct_rate", "strict_gold_correct_rate")
    return {"tasks": len(scores), "answered": made["answered"],
            **{k: made[k] for key in keys for k in (key, f"{key}_ci")}}


def _order(group: str) -> tuple[int, float, str]:
    """Numbers in numeric order before words."""
    try:
        return 0, float(group), group
    except ValueError:
        return 1, 0.0, group
