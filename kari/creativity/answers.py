"""The record of one answered task (one ``answers.jsonl`` line of ``kari creativity solve``, docs/creativity.md),
read from and written to its JSON object key for key (:mod:`kari.records`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.records import JsonRecord, Layout

ANSWERS_FILE = "answers.jsonl"


@dataclass(frozen=True, eq=False)
class AnswerRecord(JsonRecord):
    """A task's answer: the solver, the goal mapped to an affordance (with the oracle affordance and whether
    they agree), the chosen entity and part, its score, the random-choice rates, how many candidates the scene
    held (and how many came from the KB) and, for the symbolic solver, the answer under the oracle affordance."""

    task_id: str
    solver: str
    goal: Mapping[str, Any]
    answer: Mapping[str, Any]
    score: Mapping[str, Any]
    random: Mapping[str, Any]
    candidates: int
    kb_candidates: int
    oracle: Mapping[str, Any] | None = None
    layout: Layout | None = None

    KEYS = ("task_id", "solver", "goal", "answer", "score", "random", "candidates", "kb_candidates", "oracle")
    OPTIONAL = ("oracle",)


def read_answer(record: dict[str, Any], path: Path, line: int) -> AnswerRecord:
    """One ``answers.jsonl`` line as an :class:`AnswerRecord` when it has the fields the summary reads, else a
    ``run-corrupt`` error naming the line."""
    if not isinstance(record.get("task_id"), str) or not all(
            isinstance(record.get(key), dict) for key in ("score", "answer", "random", "goal")):
        raise KariError("corrupt record (not an answer record)", file=str(path), line=line, code="run-corrupt")
    return AnswerRecord.from_json(record)
