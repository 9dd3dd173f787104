"""Answers in CreativityBench's own evaluation formats, both ways.

- **Out**: every ``kari creativity solve`` run also writes ``outputs/{tasks}__{model}__{mode}.json``: a JSON object
  ``{task_id: [sample, ...]}`` as the benchmark's runner writes it, so the benchmark's judge (pointed at that
  folder, with the task file next to it under the same stem) reads kari's answers. A static or cot sample is
  ``{"temperature", "reasoning", "gold_entity", "gold_part", "how_to_use", "sample_idx"}``; an interactive one
  ``{"answer": {"reasoning", "gold_entity", "gold_part", "how_to_use"}, "turns", "conversation_log",
  "temperature", "sample_idx"}``. Empty answers are left out, as the runner leaves them out.
- **In**: :func:`read_samples` reads such a file, or the judge's output (the same mapping, each sample extended
  with ``task_uid``, ``best_matching_entity``, ``best_matching_part``, ``entity_correct``, ``part_correct``,
  ``prediction_relation``, ``llm_judge`` and ``prediction_reasonability_judge``), for ``kari creativity score``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.io.atomic import atomic_write_json
from kari.io.text import load_json, read_text

OUTPUTS_DIR = "outputs"
JUDGED_FIELDS = ("entity_correct", "part_correct", "prediction_relation")
"""The fields a judged sample carries that kari's scoring reproduces."""


def model_tag(config: Any) -> str:
    """The ``{model}`` part of the file name: the model with ``/`` as ``_`` (``kari-symbolic`` for kari's solver)."""
    if config.solver == "symbolic":
        return "kari-symbolic"
    tag = str(config.model or "model").replace("/", "_")
    return f"{tag}+kari-rules" if config.solver == "llm+rules" else tag


def outputs_name(config: Any) -> str:
    mode = "static" if config.solver == "symbolic" else config.mode
    return f"{Path(config.tasks).stem}__{model_tag(config)}__{mode}.json"


def benchmark_sample(sample: Mapping[str, Any], mode: str | None) -> dict[str, Any] | None:
    """One answer sample of a kari record in the runner's form (None for an empty answer)."""
    answer = sample["answer"]
    fields = {k: str(answer.get(k) or "") for k in ("gold_entity", "gold_part", "how_to_use")}
    if not any(v.strip() for v in fields.values()):
        return None
    reasoning = answer.get("reasoning")
    if reasoning is None and answer.get("proof"):
        proof = answer["proof"]
        reasoning = f"kari symbolic solver: rule {proof['rule']} branch {proof['branch']} ({proof['branch_text']}), " \
                    f"{proof['reading']} reading"
    if mode == "interactive":
        log = [{"round": t["turn"], "model_reasoning": t.get("reasoning", ""), "model_action": t.get("action"),
                **({"feedback": t["feedback"]} if t.get("feedback") else {}),
                **({"note": t["note"]} if t.get("note") else {})} for t in answer.get("conversation", [])]
        return {"answer": {"reasoning": reasoning or "", **fields}, "turns": answer.get("turns", len(log)),
                "conversation_log": log, "temperature": sample["temperature"], "sample_idx": sample["sample"]}
    return {"temperature": sample["temperature"], "reasoning": reasoning if reasoning is not None else "", **fields,
            "sample_idx": sample["sample"]}


def benchmark_outputs(records: Iterable[Mapping[str, Any]], mode: str | None) -> dict[str, list[dict[str, Any]]]:
    """``{task_id: [sample, ...]}`` of a run's records (tasks without a non-empty answer left out)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        samples = [s for s in (benchmark_sample(x, mode) for x in record["samples"]) if s is not None]
        if samples:
            out[record["task_id"]] = samples
    return out


def write_benchmark_outputs(run_dir: Path, config: Any, records: Iterable[Mapping[str, Any]]) -> str:
    """Write the run's answers in the runner's format under ``run_dir/outputs``; returns the path relative to
    ``run_dir``."""
    folder = run_dir / OUTPUTS_DIR
    folder.mkdir(exist_ok=True)
    name = outputs_name(config)
    atomic_write_json(folder / name, benchmark_outputs(records, None if config.solver == "symbolic" else config.mode))
    return f"{OUTPUTS_DIR}/{name}"


@dataclass(frozen=True)
class ExternalSample:
    """One sample of a runner or judge file: the answer, and what the judge said when it was judged."""

    task_id: str
    index: int
    temperature: float | None
    entity: str
    part: str
    how_to_use: str
    judged: Mapping[str, Any] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)
    line: int | None = None  # the line of the file where its task's entry starts


def _answer_fields(sample: Mapping[str, Any]) -> tuple[str, str, str]:
    """The three answer fields, from ``sample["answer"]`` when it is an object (interactive), else the sample."""
    source = sample["answer"] if isinstance(sample.get("answer"), dict) else sample
    entity, part, how_to_use = (str(source.get(k) or "") for k in ("gold_entity", "gold_part", "how_to_use"))
    return entity, part, how_to_use


def read_samples(path: str | Path) -> list[ExternalSample]:
    """The samples of a runner output or judge output file, in file order; a task whose entry appears twice
    (JSON keeps the last one silently) is an error naming both lines."""
    file = str(path)
    text = read_text(path, "benchmark output file")
    data = load_json(text, file=file)
    if not isinstance(data, dict):
        raise KariError("expected a JSON object {task_id: [sample, ...]} (the benchmark's output format)",
                        file=file, line=1, code="creativity-outputs")
    lines: dict[str, int] = {}
    for task_id, line in top_level_keys(text):
        if task_id in lines:
            raise KariError(f"task {task_id!r} appears twice (also on line {lines[task_id]})", file=file, line=line,
                            code="creativity-duplicate")
        lines[task_id] = line
    out = []
    for task_id, samples in data.items():
        if not isinstance(samples, list):
            raise KariError(f"task {task_id!r}: expected a list of samples", file=file, line=lines.get(task_id),
                            code="creativity-outputs")
        for index, sample in enumerate(samples):
            if not isinstance(sample, dict):
                continue                      # the runner leaves null slots for failed samples
            entity, part, how = _answer_fields(sample)
            temperature = sample.get("temperature")
            judged = {k: sample[k] for k in (*JUDGED_FIELDS, "best_matching_entity", "best_matching_part",
                                             "llm_judge", "prediction_reasonability_judge") if k in sample}
            number = sample.get("sample_idx", index)
            out.append(ExternalSample(str(task_id), number if isinstance(number, int) else index,
                                      float(temperature) if isinstance(temperature, (int, float)) else None,
                                      entity, part, how, judged, sample, lines.get(task_id)))
    return out


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"(\s*:)?|[{}\[\]]')


def top_level_keys(text: str) -> list[tuple[str, int]]:
    """``(key, line)`` of every key of the JSON object ``text`` holds at its top, in order, repeats included
    (the text must be valid JSON: :func:`kari.io.text.load_json` read it)."""
    out, depth, line, at = [], 0, 1, 0
    for token in _TOKENS.finditer(text):
        first = token.group()[0]
        if first in "{[":
            depth += 1
        elif first in "}]":
            depth -= 1
        elif token.group(1) is not None and depth == 1:
            line += text.count("\n", at, token.start())
            at = token.start()
            out.append((json.loads(token.group()[: token.start(1) - token.start()]), line))
    return out
