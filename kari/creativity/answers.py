"""The record of one answered task (one ``answers.jsonl`` line of ``kari creativity solve``, docs/creativity.md),
read from and written to its JSON object key for key (:mod:`kari.core.records`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.core.records import JsonRecord, Layout

ANSWERS_FILE = "answers.jsonl"


@dataclass(frozen=True, eq=False)
class AnswerRecord(JsonRecord):
    """A task's answer: the solver and its mode (None for the symbolic solver), the goal mapped to an affordance
    (with the oracle affordance and whether they agree), one sample per temperature (the chosen entity and part
    with its score), the random-choice rates, how many candidates the scene held (and how many came from the KB)
    and, for the symbolic solver, the answer under the oracle affordance."""

    task_id: str
    solver: str
    mode: str | None
    goal: Mapping[str, Any]
    samples: Sequence[Mapping[str, Any]]
    random: Mapping[str, Any]
    candidates: int
    kb_candidates: int
    oracle: Mapping[str, Any] | None = None
    layout: Layout | None = None

    KEYS = ("task_id", "solver", "mode", "goal", "samples", "random", "candidates", "kb_candidates", "oracle")
    OPTIONAL = ("oracle",)


def read_answer(record: dict[str, Any], path: Path, line: int) -> AnswerRecord:
    """One ``answers.jsonl`` line as an :class:`AnswerRecord` when it has the fields the summary reads, else a
    ``run-corrupt`` error naming the line."""
    samples = record.get("samples")
    if not isinstance(record.get("task_id"), str) or not all(
            isinstance(record.get(key), dict) for key in ("random", "goal")) or not isinstance(samples, list) \
            or not samples or not all(isinstance(s, dict) and isinstance(s.get("answer"), dict)
                                      and isinstance(s.get("score"), dict) for s in samples):
        raise KariError("corrupt record (not an answer record)", file=str(path), line=line, code="run-corrupt")
    return AnswerRecord.from_json(record)
