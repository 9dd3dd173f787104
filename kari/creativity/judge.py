"""``kari creativity judge RUN_DIR``: CreativityBench's LLM judge of how-to-use, cached and resumable, with a
symbolic fallback.

For every task of a run it judges the headline sample (temperature 0 when drawn, as the benchmark's judge does):

- a **gold** answer (entity and part correct): the six-field rubric against the gold affordance and the task's
  solution (``prompts/creativity_judge_gold.md``); condition fields are NA where the gold gives that condition as
  NA;
- any **other** answer: the rubric against the predicted part's own physical and state attributes
  (``creativity_judge_other.md``), then the reasonability level 0 / 1 / 2 of the choice given the benchmark's
  comparison of that part with the gold (``creativity_judge_reasonability.md``);
- an answer without a how-to-use: every field 0, no call, as the benchmark's judge records it; an empty answer
  (no entity, part or how-to-use) is not judged, as the benchmark never sees one.

``--judge symbolic`` scores with :func:`kari.creativity.rubric.symbolic` only; with ``--judge llm`` a reply
without a readable JSON object falls back to it for that answer (``how: symbolic-fallback``, the reason kept). The
prompts are kari's own wording (``prompts/creativity_judge_*.md``), sent with the benchmark's ``max_tokens``
(2048); an unreadable reasonability reply records level 0, as the benchmark's judge records it.

With a checkout of the benchmark's repository (``--benchmark-repo DIR``, :mod:`kari.creativity.upstream`) every
answer is judged by the checkout's own ``judge._judge_one`` instead: its snapping, its prompts, its reading of the
replies, its requests (``how: benchmark judge``; the checkout's judged sample kept whole, and written as its
``judged_outputs`` file is). The input is a kari run directory, or a runner output file of the benchmark's own
``evaluate.py`` (``{task_id: [sample, ...]}``, with ``--tasks FILE`` and ``--out DIR``).
The predicted part's attributes come from ``--entities`` (entity files or the benchmark's entity lookup, matched
by scenario, entity and part name as its judge matches them), else from ``--db``, else from the task's
description of the part.

Written into the run directory: ``judgements.jsonl`` (one record per task, appended and flushed; a rerun does the
rest), ``judge_config.json`` (a rerun with other settings is refused), ``judge_summary.json`` and
``judged_outputs/<name>.json`` in the benchmark judge's output format.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from kari.core.creativity_names import JUDGE_MAX_TOKENS
from kari.creativity.answering import headline_sample
from kari.creativity.exchange import ExternalSample, benchmark_sample, outputs_name, read_samples
from kari.creativity.metrics import name_core, predicted_judge_entry, score
from kari.creativity.model import Task, read_file, read_tasks
from kari.creativity.upstream import BenchmarkCode, checkout_record
from kari.creativity.prompting import PROMPTS
from kari.creativity.rubric import FIELDS, empty_scores, forced_na, normalise, symbolic
from kari.creativity.run import ANSWERS_FILE, SolveConfig, checked_records
from kari.creativity.store import kb_parts, open_kb
from kari.errors import KariError
from kari.io.atomic import atomic_write_json, atomic_write_jsonl
from kari.io.lock import folder_lock
from kari.io.outputs import Output, OutputKind, check_outputs, inputs_of
from kari.io.runlog import CONFIG_FILE, append, check_settings, load_log
from kari.io.text import load_json, read_text
from kari.llm import CallLog, extract_json_object, load_prompt, make_chat_client

JUDGEMENTS_FILE = "judgements.jsonl"
JUDGE_CONFIG_FILE = "judge_config.json"
JUDGE_SUMMARY_FILE = "judge_summary.json"
JUDGED_DIR = "judged_outputs"
METHODS = ("llm", "symbolic")
DEFAULT_JUDGE_TOKENS = JUDGE_MAX_TOKENS
BENCHMARK_JUDGE = "benchmark judge"


@dataclass(frozen=True)
class JudgeConfig:
    """One judging's settings (``judge_config.json``); all but ``limit`` must match on resume."""

    method: str = "llm"
    model: str | None = None
    base_url: str | None = None
    max_tokens: int = DEFAULT_JUDGE_TOKENS
    entities: tuple[str, ...] = ()
    db: str | None = None
    limit: int | None = None
    benchmark_repo: str | None = None

    def identity(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("limit")
        if self.benchmark_repo is None:
            data.pop("benchmark_repo")  # a judge_config.json of a kari before it reads back the same
        data["entities"] = list(self.entities)
        return data


class PartAttributes:
    """The physical and state attributes of a predicted (entity, part): from entity files (by scenario, entity and
    part name cores), else the KB, else the task's description of the part."""

    def __init__(self, entity_files: tuple[str, ...] = (), db: str | None = None) -> None:
        self.lookup: dict[tuple[str, str, str], tuple[dict[str, str], dict[str, str]]] = {}
        for path in entity_files:
            entities = read_file(path)[0]
            if not entities:
                raise KariError("no entity records (entity_name) in this file", file=str(path),
                                code="creativity-record")
            for entity in entities:
                for part in entity.parts:
                    key = (entity.scenario, name_core(entity.name), name_core(part.name))
                    self.lookup.setdefault(key, (dict(part.physical), dict(part.state)))
        self.con = None
        if db is not None:
            self.con = open_kb(db)

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None

    def of(self, task: Task, entity: str, part: str) -> tuple[dict[str, str], dict[str, str], str]:
        """``(physical, state, source)``."""
        found = self.lookup.get((task.scenario, name_core(entity), name_core(part)))
        if found is not None:
            return found[0], found[1], "entities"
        if self.con is not None:
            known = kb_parts(self.con, [entity], task.scenario).get((entity, part))
            if known is not None:
                return dict(known.physical_texts), dict(known.state_texts), "kb"
        chosen = task.entity(entity)
        physical, state = chosen.part_texts().get(part, ("", "")) if chosen is not None else ("", "")
        return ({"summary": physical} if physical else {}), ({"summary": state} if state else {}), "description"


def _pretty(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2) if not isinstance(value, str) else value


def _texts(mapping: Mapping[str, str]) -> str:
    return "; ".join(f"{k}: {v}" for k, v in mapping.items()) or "(not described)"


class Judge:
    """Judges answer records; ``client`` is None for the symbolic judge."""

    def __init__(self, config: JudgeConfig, client: Any, attributes: PartAttributes, code: Any = None) -> None:

        self.config = config
        self.client = client
        self.attributes = attributes
        self.code = code
        self.prompts = {name: load_prompt(f"creativity_judge_{name}", PROMPTS)
                        for name in ("gold", "other", "reasonability")}

    def _ask(self, prompt: str) -> tuple[dict[str, Any] | None, str]:
        """The reply's JSON object (None when it has none) and the reply text."""
        reply = self.client.chat([{"role": "user", "content": prompt}], max_tokens=self.config.max_tokens,
                                 temperature=0.0, role="creativity-judge")
        try:
            return extract_json_object(reply.text), reply.text
        except KariError:
            return None, reply.text

    def judge(self, task: Task, record: Mapping[str, Any], raw: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The judgement record of one answer record (``raw``: its headline sample in the runner's form, as the
        checkout's judge reads it)."""
        sample = headline_sample(dict(record))
        answer, scored = sample["answer"], sample["score"]
        out: dict[str, Any] = {"task_id": task.id, "sample": sample["sample"], "temperature": sample["temperature"],
                               "relation": scored["relation"], "gold": scored["gold_correct"]}
        if scored["relation"] == "no answer" or (self.code is not None and raw is None):
            return {**out, "how": "not judged", "reason": "empty answer (the benchmark never judges one)"}
        if self.code is not None:
            return benchmark_judgement(self.code.judge_sample(task.raw, raw), out)
        entity, part = scored["best_entity"], scored["best_part"]
        how_to_use = str(answer.get("how_to_use") or "")
        gold_affordance = dict(task.gold.affordance)
        physical, state, source = self.attributes.of(task, entity, part)
        entry = predicted_judge_entry(task, scored)
        out["attributes_from"] = source
        if not how_to_use.strip():
            scores, reasons = empty_scores()
            return {**out, "how": "empty how_to_use", "rubric": scores, "reasons": reasons,
                    "reasonability": None if scored["gold_correct"] else {}}
        if scored["gold_correct"]:
            reference: Mapping[str, Any] | None = gold_affordance
        else:
            annotated = entry.get("affordance") if isinstance(entry, Mapping) else None
            reference = annotated if isinstance(annotated, Mapping) else None
        fallback = symbolic(how_to_use, scored["gold_correct"], reference, {**physical, **state})
        if self.client is None:
            return {**out, "how": "symbolic", "rubric": fallback[0], "reasons": fallback[1],
                    "not_scored": [f for f in FIELDS if fallback[0][f] is None], "reasonability": None,
                    "reasonability_reason": "not scored symbolically: weighing the benchmark's comparison needs "
                                            "a judge"}
        if scored["gold_correct"]:
            prompt = self.prompts["gold"].render(task=task.task, affordance=_pretty(gold_affordance),
                                                 solution=_pretty(dict(task.solution)), how_to_use=how_to_use)
            na = forced_na(gold_affordance)
        else:
            prompt = self.prompts["other"].render(task=task.task, solution=_pretty(dict(task.solution)), part=part,
                                                  entity=entity, physical=_texts(physical), state=_texts(state),
                                                  how_to_use=how_to_use)
            na = {}
        reply, text = self._ask(prompt)
        if reply is None:
            judged = {**out, "how": "symbolic-fallback", "rubric": fallback[0], "reasons": fallback[1],
                      "not_scored": [f for f in FIELDS if fallback[0][f] is None],
                      "fallback_reason": "the judge's reply held no readable JSON object", "reply": text[-2000:]}
        else:
            scores, reasons, invalid = normalise(reply, na, scored["gold_correct"])
            judged = {**out, "how": "llm", "rubric": scores, "reasons": reasons, "invalid_fields": invalid}
        judged["reasonability"] = None if scored["gold_correct"] else self.reasonability(task, entity, part,
                                                                                         how_to_use, entry)
        return judged

    def reasonability(self, task: Task, entity: str, part: str, how_to_use: str, entry: Any) -> dict[str, Any]:
        comparison = entry if isinstance(entry, Mapping) else \
            "There is no comparison: the benchmark has no such entity or part (a hallucinated or misspelt name)."
        prompt = self.prompts["reasonability"].render(task=task.task, part=part, entity=entity,
                                                      how_to_use=how_to_use, comparison=_pretty(comparison))
        reply, text = self._ask(prompt)
        if reply is None:  # the benchmark's judge reads such a reply as {} and records level 0
            return {"level": 0, "reason": "", "unreadable": True, "reply": text[-2000:]}
        level = reply.get("prediction_reasonable_level", 0)
        return {"level": int(str(level)) if str(level) in ("0", "1", "2") else 0,
                "reason": str(reply.get("prediction_reasonable_reason", "") or "")}


def benchmark_judgement(judged: Mapping[str, Any], out: Mapping[str, Any]) -> dict[str, Any]:
    """kari's judgement record of a sample the checkout's judge judged (its judged sample kept whole): its
    relation and correctness (kari's own scoring of the same answer kept as ``kari_relation``), its rubric and its
    reasonability."""
    rubric = judged.get("llm_judge") if isinstance(judged.get("llm_judge"), Mapping) else {}
    gold = bool(judged.get("entity_correct")) and bool(judged.get("part_correct"))
    second = judged.get("prediction_reasonability_judge")
    reasonability = None
    if not gold and isinstance(second, Mapping) and second:
        reasonability = {"level": second.get("prediction_reasonable_level", 0),
                         "reason": str(second.get("prediction_reasonable_reason", "") or "")}
    return {**out, "relation": str(judged.get("prediction_relation", out["relation"])), "gold": gold,
            "kari_relation": out["relation"], "kari_gold": out["gold"], "how": BENCHMARK_JUDGE,
            "rubric": {name: rubric.get(name, 0) for name in FIELDS},
            "reasons": {name: str(rubric.get(f"{name}_reason", "") or "") for name in FIELDS},
            "reasonability": reasonability, "benchmark_judged": dict(judged)}


def summarise_judgements(records: list[dict[str, Any]]) -> dict[str, Any]:
    """``judge_summary.json``: per field, the mean of the scores given, and how many were NA or not scored; split
    into gold and other answers; the reasonability levels; how each record was judged."""
    def fields(group: list[dict[str, Any]]) -> dict[str, Any]:
        out = {}
        for name in FIELDS:
            values = [r["rubric"][name] for r in group if "rubric" in r]
            numbers = [v for v in values if isinstance(v, int)]
            out[name] = {"mean": round(sum(numbers) / len(numbers), 4) if numbers else None,
                         "scored": len(numbers), "na": sum(1 for v in values if v == "NA"),
                         "not_scored": sum(1 for v in values if v is None)}
        return out

    judged = [r for r in records if "rubric" in r]
    levels = [r["reasonability"]["level"] for r in judged if isinstance(r.get("reasonability"), dict)
              and r["reasonability"].get("level") is not None]
    return {"tasks": len(records), "judged": len(judged),
            "how": dict(sorted(Counter(r["how"] for r in records).items())),
            "gold": fields([r for r in judged if r["gold"]]), "other": fields([r for r in judged if not r["gold"]]),
            "reasonability_levels": dict(sorted(Counter(str(v) for v in levels).items())),
            "relations": dict(sorted(Counter(r["relation"] for r in records).items()))}


def judged_outputs(tasks: Mapping[str, Task], answers: list[dict[str, Any]], judgements: list[dict[str, Any]],
                   mode: str | None, raws: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The judgements in the benchmark judge's output format (one judged sample per task; the checkout's own
    judged sample where its judge judged; ``raws``: the headline samples as a runner output file holds them)."""
    by_task = {r["task_id"]: r for r in answers}
    out: dict[str, list[dict[str, Any]]] = {}
    for judged in judgements:
        record = by_task.get(judged["task_id"])
        if record is None or "rubric" not in judged:
            continue
        if isinstance(judged.get("benchmark_judged"), dict):
            out[judged["task_id"]] = [judged["benchmark_judged"]]
            continue
        sample = headline_sample(record)
        base = dict(raws[judged["task_id"]]) if raws and judged["task_id"] in raws else benchmark_sample(sample, mode)
        if base is None:
            continue
        task, scored = tasks[judged["task_id"]], sample["score"]
        rubric = {k: v for name in FIELDS for k, v in ((f"{name}_reason", judged["reasons"][name]),
                                                       (name, judged["rubric"][name]))}
        reasonability = judged.get("reasonability")
        out[judged["task_id"]] = [{**base, "task_uid": task.id, "setting": dict(task.setting),
                                   "best_matching_entity": scored["best_entity"],
                                   "best_matching_part": scored["best_part"],
                                   "entity_correct": scored["entity_correct"], "part_correct": scored["part_correct"],
                                   "prediction_relation": scored["relation"],
                                   "predicted_entity_part_judge_output": predicted_judge_entry(task, scored),
                                   "llm_judge": rubric,
                                   "prediction_reasonability_judge": {} if not isinstance(reasonability, dict) else
                                   {"prediction_reasonable_reason": reasonability.get("reason", ""),
                                    "prediction_reasonable_level": reasonability.get("level")}}]
    return out


def judge_run(run_dir: str | Path, config: JudgeConfig, *, llm_config: Any = None, progress: bool = True,
              tasks_file: str | Path | None = None, out: str | Path | None = None,
              entity_lookup: list[Any] | None = None) -> dict[str, Any]:
    """Judge the answers of ``run_dir`` (resuming) and return the judge summary. ``run_dir`` may instead be a
    runner output file of the benchmark's ``evaluate.py``: its tasks from ``tasks_file``, the judgement written
    into ``out``. ``entity_lookup``: the records of the benchmark's entity lookup for the checkout's judge."""
    if config.method not in METHODS:
        raise KariError(f"unknown judge {config.method!r} (expected one of {', '.join(METHODS)})",
                        code="creativity-config")
    if config.max_tokens < 1 or (config.limit is not None and config.limit < 1):
        raise KariError("--max-tokens and --limit must be >= 1", code="creativity-config")
    if config.method == "llm" and llm_config is None:
        raise KariError("the LLM judge needs an endpoint: pass --model (and --base-url), or use --judge symbolic",
                        code="creativity-config")
    if config.benchmark_repo is not None:
        if config.method != "llm":
            raise KariError("--benchmark-repo runs the benchmark's LLM judge: not with --judge symbolic",
                            code="creativity-config")
        checkout_record(Path(config.benchmark_repo))  # not a checkout: one line now
    source = Path(run_dir)
    if source.is_file():
        if tasks_file is None or out is None:
            raise KariError("judging a runner output file of the benchmark needs --tasks FILE (its task file) and "
                            "--out DIR (where the judgement goes)", file=str(source), code="creativity-config")
        folder = Path(out)
        check_outputs([Output(folder, "--out", OutputKind.FOLDER,
                              names=(JUDGEMENTS_FILE, JUDGE_CONFIG_FILE, JUDGE_SUMMARY_FILE, f"{JUDGED_DIR}/"))],
                      [*inputs_of("the runner output file", [source]), *inputs_of("--tasks", [tasks_file]),
                       *inputs_of("--entities", config.entities), *inputs_of("--db", [config.db])])
        tasks = {t.id: t for t in read_tasks(tasks_file)}
        answers, raws = external_records(read_samples(source), tasks, str(source))
        folder.mkdir(parents=True, exist_ok=True)
        mode = source.stem.rsplit("__", 1)[-1] if "__" in source.stem else None
        job = _Job(folder, tasks, answers, mode, source.name, raws, str(tasks_file))
    else:
        job = _run_job(source, out, config)
    attributes = PartAttributes(config.entities, config.db)
    try:
        return _judge_locked(job, config, llm_config, progress, attributes, entity_lookup)
    finally:
        attributes.close()


@dataclass(frozen=True)
class _Job:
    """What one judging works on: the folder it writes, the tasks, the answer records, the mode, the name of the
    judged-output file, the headline samples as the runner wrote them (a benchmark file) and the task file."""

    folder: Path
    tasks: dict[str, Task]
    answers: list[dict[str, Any]]
    mode: str | None
    name: str
    raws: dict[str, dict[str, Any]] | None
    tasks_file: str


def _run_job(run: Path, out: str | Path | None, config: JudgeConfig) -> _Job:
    """The judging of a ``kari creativity solve`` run directory (written into it)."""
    if out is not None:
        raise KariError("--out is for a runner output file; a run directory's judgement goes into it", file=str(out),
                        code="creativity-config")
    if not (run / ANSWERS_FILE).is_file():
        raise KariError(f"not a 'kari creativity solve' run directory (no {ANSWERS_FILE}) nor a runner output file",
                        file=str(run), code="missing-file")
    settings = load_json(read_text(run / CONFIG_FILE, "run configuration"), file=str(run / CONFIG_FILE),
                         code="run-config")
    if not isinstance(settings, dict) or not isinstance(settings.get("tasks"), str):
        raise KariError("the run configuration names no task file", file=str(run / CONFIG_FILE), code="run-config")
    solve_config = SolveConfig.from_json(settings)
    check_outputs([Output(run, "RUN_DIR", OutputKind.FOLDER,
                          names=(JUDGEMENTS_FILE, JUDGE_CONFIG_FILE, JUDGE_SUMMARY_FILE, f"{JUDGED_DIR}/"))],
                  [*inputs_of("the run's answers", [run / ANSWERS_FILE]), *inputs_of("the run's task file",
                                                                                      [settings["tasks"]]),
                   *inputs_of("--entities", config.entities), *inputs_of("--db", [config.db])])
    tasks = {t.id: t for t in read_tasks(settings["tasks"])}
    answers = [r.to_json() if hasattr(r, "to_json") else r for r in checked_records(run).records]
    mode = None if solve_config.solver == "symbolic" else solve_config.mode
    return _Job(run, tasks, answers, mode, outputs_name(solve_config), None, settings["tasks"])


def external_records(samples: list[ExternalSample], tasks: Mapping[str, Task],
                     file: str) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """Answer records (kari's form, each sample scored) of a runner output file's samples, in file order, and each
    task's headline sample as the file holds it; a task the task file lacks is an error at its line."""
    grouped: dict[str, list[ExternalSample]] = {}
    for sample in samples:
        if sample.task_id not in tasks:
            raise KariError(f"task {sample.task_id!r} is not in the task file", file=file, line=sample.line,
                            code="creativity-record")
        grouped.setdefault(sample.task_id, []).append(sample)
    records, raws = [], {}
    for task_id, group in grouped.items():
        task = tasks[task_id]
        made = [{"sample": s.index, "temperature": s.temperature,
                 "answer": {"gold_entity": s.entity, "gold_part": s.part, "how_to_use": s.how_to_use},
                 "score": score(task, s.entity, s.part, s.how_to_use)} for s in group]
        record = {"task_id": task_id, "samples": made}
        head = headline_sample(record)
        raws[task_id] = dict(next(s.raw for s, m in zip(group, made, strict=True) if m is head))
        records.append(record)
    return records, raws


def _judge_locked(job: _Job, config: JudgeConfig, llm_config: Any, progress: bool, attributes: PartAttributes,
                  entity_lookup: list[Any] | None) -> dict[str, Any]:
    run = job.folder
    with folder_lock(run):
        check_settings(run / JUDGE_CONFIG_FILE, config.identity(), ignore=("limit",))
        client = None
        if config.method == "llm":
            client = make_chat_client(llm_config, CallLog(run / f"judge_calls-{time.strftime('%Y%m%dT%H%M%S')}.jsonl"))
        code = None
        if config.benchmark_repo is not None:
            code = BenchmarkCode(config.benchmark_repo, client, model=client.config.model, role="creativity-judge")
            code.use_entity_lookup(entity_lookup)
        judge = Judge(config, client, attributes, code)
        atomic_write_json(run / JUDGE_CONFIG_FILE, {**config.identity(), "limit": config.limit})
        path = run / JUDGEMENTS_FILE
        judgements, dirty = load_log(path, _checked)
        if dirty:
            atomic_write_jsonl(path, judgements)
        done = {j["task_id"] for j in judgements}
        todo = [r for r in job.answers if r["task_id"] not in done][: config.limit]
        for record in todo:
            if record["task_id"] not in job.tasks:
                raise KariError(f"task {record['task_id']!r} of the run is not in its task file",
                                file=job.tasks_file, code="creativity-record")
        bar = tqdm(total=len(todo), desc=f"creativity judge {config.method}", unit="task", disable=not progress,
                   leave=False)
        try:
            with path.open("a", encoding="utf-8") as handle:
                for record in todo:
                    raw = job.raws.get(record["task_id"]) if job.raws is not None else \
                        benchmark_sample(headline_sample(record), job.mode)
                    judged = judge.judge(job.tasks[record["task_id"]], record, raw)
                    append(handle, judged)
                    judgements.append(judged)
                    bar.update(1)
        finally:
            bar.close()
        summary = summarise_judgements(judgements)
        summary["config"] = config.identity()
        summary["prompts"] = ("benchmark: the checkout's own judge.py" if code is not None else
                              "kari: kari's own judge prompts (--benchmark-repo DIR runs the benchmark's own)"
                              if config.method == "llm" else "none: the symbolic scorer")
        if code is not None:
            summary["benchmark_repo"] = code.record
            summary["agreement_with_kari"] = _agreement(judgements)
        if client is not None:
            summary["llm_usage"] = client.usage.as_dict()
        (run / JUDGED_DIR).mkdir(exist_ok=True)
        atomic_write_json(run / JUDGED_DIR / job.name, judged_outputs(job.tasks, job.answers, judgements, job.mode,
                                                                      job.raws))
        summary["judged_outputs"] = f"{JUDGED_DIR}/{job.name}"
        atomic_write_json(run / JUDGE_SUMMARY_FILE, summary)
    return summary


def _agreement(judgements: list[dict[str, Any]]) -> dict[str, int]:
    """How often the checkout's judge and kari's scoring agree on the relation and on gold (judged answers)."""
    judged = [j for j in judgements if j.get("how") == BENCHMARK_JUDGE]
    return {"judged": len(judged), "relation": sum(j["relation"] == j["kari_relation"] for j in judged),
            "gold": sum(j["gold"] == j["kari_gold"] for j in judged)}


def _checked(record: dict[str, Any], path: Path, line: int) -> dict[str, Any]:
    if not isinstance(record.get("task_id"), str) or not isinstance(record.get("how"), str) \
            or not isinstance(record.get("relation"), str):
        raise KariError("corrupt record (not a judgement record)", file=str(path), line=line, code="run-corrupt")
    return record
