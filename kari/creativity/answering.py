"""One task answered: the goal mapped to an affordance, one answer per sample (temperature), each scored as the
benchmark's judge scores it, the oracle-affordance bound (symbolic solver) and the task's random-choice rates.

With ``--goal rules`` the symbolic solver tries the nearest rules in the matcher's order (up to ``--goal-top-k``)
and answers with the first that some candidate meets; the goal record names that rule's ``rank`` (null: none of
them is met, the nearest is recorded) and ``tried``, the rules tried in order. The gold never enters the choice.

``kari creativity solve`` appends one :meth:`Answerer.record` per task to ``answers.jsonl``::

    {"task_id", "solver", "mode", "goal": {affordance, score, how, [verb, similarity, fallback, rank, tried,]
                                           oracle, correct},
     "samples": [{"sample": 0, "temperature": 0.0, "answer": {gold_entity, gold_part, how_to_use, ...},
                  "score": {best_entity, best_part, entity_correct, part_correct, gold_correct, relation, ...}}],
     "random": {entity, gold}, "candidates", "kb_candidates", "oracle": {...}}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from kari.creativity.answers import AnswerRecord
from kari.core.creativity_names import RULES
from kari.creativity.goals import GoalMatch
from kari.creativity.metrics import random_rates, score
from kari.creativity.model import Task
from kari.creativity.scene import scene
from kari.creativity.store import kb_parts

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection


@dataclass
class Answerer:
    """Everything one run needs to answer a task: the solver, the goal mapper, the KB and the samples to draw."""

    solver: Any
    solver_name: str
    mapper: Any
    vocab: Any
    temperatures: Sequence[float] = (0.0,)
    kb_con: DuckDBPyConnection | None = None
    seed: int = 0
    mode: str | None = None
    symbolic: Any = None

    def candidates(self, task: Task) -> list[Any]:
        kb = kb_parts(self.kb_con, [e.name for e in task.entities], task.scenario) if self.kb_con is not None else None
        return scene(task, self.vocab, kb, self.seed)

    def record(self, task: Task) -> AnswerRecord:
        """The answer record of ``task``."""
        candidates = self.candidates(task)
        goal, met, tried = self.met_goal(task, candidates)
        gold_goal = self.mapper.map(task, "oracle") if self.mapper.method != "oracle" else goal
        samples = []
        for index, temperature in enumerate(self.temperatures):
            more = {} if self.solver is self.symbolic else {"goal": goal, "sample": index}
            answer = met if index == 0 and met is not None else \
                self.solver.answer(task, candidates, goal.affordance, temperature, **more)
            samples.append({"sample": index, "temperature": temperature, "answer": answer.to_json(),
                            "score": score(task, answer.entity, answer.part, answer.how_to_use)})
        oracle = None
        if self.symbolic is not None:
            first = samples[0]["answer"]
            best = first if gold_goal.affordance == goal.affordance else \
                self.symbolic.answer(task, candidates, gold_goal.affordance).to_json()
            oracle = {"affordance": gold_goal.affordance, "entity": best["gold_entity"], "part": best["gold_part"],
                      "score": score(task, best["gold_entity"], best["gold_part"], best["how_to_use"])}
        return AnswerRecord(
            task.id, self.solver_name, self.mode,
            {**goal.to_json(), **({"tried": tried} if tried is not None else {}), "oracle": gold_goal.affordance,
             "correct": None if goal.how == RULES or gold_goal.affordance is None and gold_goal.how != "oracle-open"
             else goal.affordance == gold_goal.affordance},    # an open goal: right only when unmapped
            samples, random_rates(task), len(candidates), sum(c.source == "kb" for c in candidates), oracle)

    def met_goal(self, task: Task, candidates: Sequence[Any]) -> tuple[GoalMatch, Any, list[str | None] | None]:
        """The goal match to answer with, the symbolic answer already found for it (None: not computed yet) and,
        for ``--goal rules`` with the symbolic solver, the rules tried in rank order: the first of the nearest
        rules some candidate meets; none met: the nearest, its rank null. Other mappings and the LLM solvers:
        the mapper's one match."""
        if self.mapper.method != RULES or self.solver is not self.symbolic:
            return self.mapper.map(task), None, None
        ranked = self.mapper.ranked(task)
        tried: list[str | None] = []
        first = None
        for match in ranked:
            tried.append(match.affordance)
            answer = self.solver.answer(task, candidates, match.affordance)
            if answer.reading != "none":
                return match, answer, tried
            first = first or answer
        return replace(ranked[0], rank=None), first, tried


def headline_sample(record: Mapping[str, Any]) -> dict[str, Any]:
    """The sample a task is scored by: the one at temperature 0 when there is one (as the benchmark's judge
    does), else the first."""
    samples = record["samples"]
    return next((s for s in samples if s.get("temperature") == 0), samples[0])

