"""``kari creativity score``: score answers written in CreativityBench's own formats, and check them against its
judge.

The input is a runner output file (``{task_id: [sample, ...]}``, as the benchmark's runner writes it, or as
``kari creativity solve`` writes it under ``outputs/``) or a judge output file (the same, each sample carrying
the judge's verdict). Every sample is scored by :func:`kari.creativity.metrics.score`; when the sample carries the
judge's ``entity_correct``, ``part_correct`` and ``prediction_relation``, kari's values are compared with them
and every disagreement listed, and the judge's rubric fields (``llm_judge``) and reasonability levels are
summarised. The headline rates are over each task's sample at temperature 0 (else its first), as the judge
focuses on that sample.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kari.core.records import JsonRecord, Layout
from kari.creativity.exchange import ExternalSample, read_samples
from kari.creativity.metrics import rate, rates, score
from kari.creativity.model import Task, read_tasks
from kari.creativity.rubric import FIELDS
from kari.errors import KariError
from kari.io.atomic import atomic_write_json, atomic_write_jsonl
from kari.io.lock import output_folder
from kari.io.outputs import Output, OutputKind, check_outputs, inputs_of

SCORES_FILE = "scores.jsonl"
SUMMARY_FILE = "summary.json"


def score_sample(task: Task, sample: ExternalSample) -> dict[str, Any]:
    """One sample's kari score and, when judged, how it compares with the judge's verdict."""
    scored = score(task, sample.entity, sample.part, sample.how_to_use)
    out: dict[str, Any] = {"task_id": sample.task_id, "sample": sample.index, "temperature": sample.temperature,
                           "answer": {"gold_entity": sample.entity, "gold_part": sample.part,
                                      "how_to_use": sample.how_to_use}, "score": scored}
    if all(k in sample.judged for k in ("entity_correct", "part_correct", "prediction_relation")):
        judge = {"entity_correct": bool(sample.judged["entity_correct"]),
                 "part_correct": bool(sample.judged["part_correct"]),
                 "relation": str(sample.judged["prediction_relation"])}
        mine = {"entity_correct": scored["entity_correct"], "part_correct": scored["part_correct"],
                "relation": scored["relation"]}
        out["judge"] = {**judge, "agrees": {k: judge[k] == mine[k] for k in judge},
                        "llm_judge": sample.judged.get("llm_judge"),
                        "reasonability": sample.judged.get("prediction_reasonability_judge")}
    return out


def _headline(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    by_task: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_task.setdefault(row["task_id"], []).append(row)
    return [next((r for r in group if r["temperature"] == 0), group[0]) for group in by_task.values()]


@dataclass(frozen=True, eq=False)
class ScoreSummary(JsonRecord):
    """``kari creativity score``'s ``summary.json``: the tasks of the task file and how many the answers file
    answers, its samples, the headline rates (the headline sample of each task), the rates per temperature
    (several temperatures only), the agreement with a judge output's own scores and its rubric (judge outputs
    only), and which files were scored."""

    tasks_in_file: int
    tasks_answered: int
    samples: int
    headline: Mapping[str, Any]
    tasks_without_answer: int
    by_temperature: Mapping[str, Any] | None = None
    judge: Mapping[str, Any] | None = None
    input: str | None = None
    tasks_file: str | None = None
    layout: Layout | None = None

    KEYS = ("tasks_in_file", "tasks_answered", "samples", "headline", "tasks_without_answer", "by_temperature",
            "judge", "input", "tasks_file")
    OPTIONAL = KEYS[5:]


def summarise_scores(rows: Sequence[dict[str, Any]], tasks: int) -> ScoreSummary:
    """The summary of scored samples: headline and per-temperature rates, relations, agreement with the judge."""
    heads = _headline(rows)
    summary: dict[str, Any] = {"tasks_in_file": tasks, "tasks_answered": len(heads), "samples": len(rows),
                               "headline": rates([r["score"] for r in heads]),
                               "tasks_without_answer": tasks - len(heads)}
    summary["headline"]["gold_rate_over_all_tasks"] = rate(
        [r["score"]["gold_correct"] for r in heads] + [False] * (tasks - len(heads)))
    temperatures = sorted({r["temperature"] for r in rows if r["temperature"] is not None})
    if len(temperatures) > 1:
        summary["by_temperature"] = {str(t): rates([r["score"] for r in rows if r["temperature"] == t])
                                     for t in temperatures}
    judged = [r for r in rows if "judge" in r]
    if judged:
        agree = {k: sum(r["judge"]["agrees"][k] for r in judged) for k in ("entity_correct", "part_correct",
                                                                          "relation")}
        summary["judge"] = {
            "samples": len(judged), "agree": agree,
            "disagreements": [{"task_id": r["task_id"], "sample": r["sample"], "field": k,
                               "kari": r["score"][k], "judge": r["judge"][k],
                               "normalised_only": r["score"]["normalised_only"]}
                              for r in judged for k in ("entity_correct", "part_correct", "relation")
                              if not r["judge"]["agrees"][k]],
            "judge_rates": {"entity_correct_rate": rate([r["judge"]["entity_correct"] for r in judged]),
                            "gold_correct_rate": rate([r["judge"]["entity_correct"] and r["judge"]["part_correct"]
                                                       for r in judged])},
            "judge_relations": dict(sorted(Counter(r["judge"]["relation"] for r in judged).items())),
            "rubric": _rubric_means(judged),
            "reasonability_levels": dict(sorted(Counter(
                str(r["judge"]["reasonability"].get("prediction_reasonable_level"))
                for r in judged if isinstance(r["judge"].get("reasonability"), dict)
                and r["judge"]["reasonability"]).items()))}
    return ScoreSummary(**summary)


def _rubric_means(judged: Sequence[dict[str, Any]]) -> dict[str, Any]:
    out = {}
    for name in FIELDS:
        values = [(r["judge"].get("llm_judge") or {}).get(name) for r in judged]
        numbers = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
        out[name] = {"mean": round(sum(numbers) / len(numbers), 4) if numbers else None, "scored": len(numbers),
                     "na": sum(1 for v in values if v == "NA")}
    return out


def score_file(answers: str | Path, tasks_file: str | Path, out: str | Path | None = None) -> ScoreSummary:
    """Score a runner or judge output file against its task file; write ``scores.jsonl`` and ``summary.json`` to
    ``out`` when given. A task that appears twice in the file, or that the task file does not hold, is an error
    at FILE:LINE (the answers are of other tasks: nothing is scored)."""
    if out is not None:  # before any work
        check_outputs([Output(Path(out), "--out", OutputKind.FOLDER, names=(SCORES_FILE, SUMMARY_FILE))],
                      [*inputs_of("ANSWERS", [answers]), *inputs_of("--tasks", [tasks_file])])
    tasks = {t.id: t for t in read_tasks(tasks_file)}
    samples = read_samples(answers)
    rows = []
    for sample in samples:
        task = tasks.get(sample.task_id)
        if task is None:
            raise KariError(f"task {sample.task_id!r} is not in the task file {tasks_file}", file=str(answers),
                            line=sample.line, code="creativity-record")
        rows.append(score_sample(task, sample))
    summary = replace(summarise_scores(rows, len(tasks)), input=str(answers), tasks_file=str(tasks_file))
    if out is not None:
        with output_folder(out, "output directory") as folder:
            atomic_write_jsonl(folder / SCORES_FILE, rows)
            atomic_write_json(folder / SUMMARY_FILE, summary.to_json())
    return summary
