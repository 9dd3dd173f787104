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
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.core.creativity_names import JUDGE_MAX_TOKENS, JudgeMethod, SolverKind
from kari.creativity.answering import headline_sample
from kari.creativity.exchange import ExternalSample, benchmark_sample, outputs_name, read_samples
from kari.creativity.judgements import JUDGEMENTS_FILE, JudgeSummary, Judgement, read_judgement, summarise_judgements
from kari.creativity.metrics import name_core, predicted_judge_entry, score
from kari.creativity.model import Task, read_file, read_tasks
from kari.creativity.upstream import BenchmarkCode, checkout_record
from kari.creativity.prompting import PROMPTS
from kari.creativity.rubric import FIELDS, empty_scores, forced_na, normalise, symbolic
from kari.creativity.run import ANSWERS_FILE, SolveConfig, checked_records
from kari.creativity.store import kb_parts, open_kb
from kari.errors import KariError, choice
from kari.io.atomic import atomic_write_json
from kari.io.outputs import Input, inputs_of
from kari.io.runlog import CONFIG_FILE, read_config
from kari.io.runloop import RunFiles, RunLog, RunSpec, resumable, usage_of
from kari.llm import extract_json_object, load_prompt, optional_chat_client, require_client, session_log

if TYPE_CHECKING:
    from kari.llm.client import ChatClient
    from kari.llm.config import LLMConfig

JUDGE_CONFIG_FILE = "judge_config.json"
JUDGE_SUMMARY_FILE = "judge_summary.json"
JUDGED_DIR = "judged_outputs"
METHODS: tuple[str, ...] = tuple(JudgeMethod)
DEFAULT_JUDGE_TOKENS = JUDGE_MAX_TOKENS
BENCHMARK_JUDGE = "benchmark judge"


@dataclass(frozen=True)
class JudgeConfig:
    """One judging's settings (``judge_config.json``); all but ``limit`` must match on resume."""

    method: str = JudgeMethod.LLM
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

    def __init__(self, config: JudgeConfig, client: ChatClient | None, attributes: PartAttributes,
                 code: BenchmarkCode | None = None) -> None:

        self.config = config
        self.client = client
        self.attributes = attributes
        self.code = code
        self.prompts = {name: load_prompt(f"creativity_judge_{name}", PROMPTS)
                        for name in ("gold", "other", "reasonability")}

    def _ask(self, prompt: str) -> tuple[dict[str, Any] | None, str]:
        """The reply's JSON object (None when it has none) and the reply text."""
        reply = require_client(self.client, "the LLM judge").chat(
            [{"role": "user", "content": prompt}], max_tokens=self.config.max_tokens, temperature=0.0,
            role="creativity-judge")
        try:
            return extract_json_object(reply.text), reply.text
        except KariError:
            return None, reply.text

    def judge(self, task: Task, record: Mapping[str, Any], raw: Mapping[str, Any] | None = None) -> Judgement:
        """The judgement of one answer record (``raw``: its headline sample in the runner's form, as the
        checkout's judge reads it), its JSON object in the order the benchmark's judge reads."""
        return Judgement.from_json(self._judgement(task, record, raw))

    def _judgement(self, task: Task, record: Mapping[str, Any], raw: Mapping[str, Any] | None) -> dict[str, Any]:
        sample = headline_sample(dict(record))
        answer, scored = sample["answer"], sample["score"]
        out: dict[str, Any] = {"task_id": task.id, "sample": sample["sample"], "temperature": sample["temperature"],
                               "relation": scored["relation"], "gold": scored["gold_correct"]}
        if scored["relation"] == "no answer" or (self.code is not None and raw is None):
            return {**out, "how": "not judged", "reason": "empty answer (the benchmark never judges one)"}
        if self.code is not None and raw is not None:
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
    given = judged.get("llm_judge")
    rubric: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
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


def judged_outputs(tasks: Mapping[str, Task], answers: Sequence[Mapping[str, Any]], judgements: Sequence[Judgement],
                   mode: str | None,
                   raws: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, list[dict[str, Any]]]:
    """The judgements in the benchmark judge's output format (one judged sample per task; the checkout's own
    judged sample where its judge judged; ``raws``: the headline samples as a runner output file holds them)."""
    by_task = {r["task_id"]: r for r in answers}
    out: dict[str, list[dict[str, Any]]] = {}
    for judged in judgements:
        record = by_task.get(judged.task_id)
        if record is None or judged.rubric is None:
            continue
        if isinstance(judged.benchmark_judged, Mapping):
            out[judged.task_id] = [dict(judged.benchmark_judged)]
            continue
        sample = headline_sample(dict(record))
        base = dict(raws[judged.task_id]) if raws and judged.task_id in raws else benchmark_sample(sample, mode)
        if base is None:
            continue
        task, scored = tasks[judged.task_id], sample["score"]
        reasons = judged.reasons or {}
        rubric = {k: v for name in FIELDS for k, v in ((f"{name}_reason", reasons[name]),
                                                       (name, judged.rubric[name]))}
        reasonability = judged.reasonability
        out[judged.task_id] = [{**base, "task_uid": task.id, "setting": dict(task.setting),
                                   "best_matching_entity": scored["best_entity"],
                                   "best_matching_part": scored["best_part"],
                                   "entity_correct": scored["entity_correct"], "part_correct": scored["part_correct"],
                                   "prediction_relation": scored["relation"],
                                   "predicted_entity_part_judge_output": predicted_judge_entry(task, scored),
                                   "llm_judge": rubric,
                                   "prediction_reasonability_judge": {} if not isinstance(reasonability, Mapping) else
                                   {"prediction_reasonable_reason": reasonability.get("reason", ""),
                                    "prediction_reasonable_level": reasonability.get("level")}}]
    return out


def judge_run(run_dir: str | Path, config: JudgeConfig, *, llm_config: LLMConfig | None = None,
              progress: bool = True, tasks_file: str | Path | None = None, out: str | Path | None = None,
              entity_lookup: list[Any] | None = None) -> JudgeSummary:
    """Judge the answers of ``run_dir`` (resuming) and return the judge summary. ``run_dir`` may instead be a
    runner output file of the benchmark's ``evaluate.py``: its tasks from ``tasks_file``, the judgement written
    into ``out``. ``entity_lookup``: the records of the benchmark's entity lookup for the checkout's judge."""
    choice(config.method, JudgeMethod, "judge", code="creativity-config")
    if config.max_tokens < 1 or (config.limit is not None and config.limit < 1):
        raise KariError("--max-tokens and --limit must be >= 1", code="creativity-config")
    if config.method == JudgeMethod.LLM and llm_config is None:
        raise KariError("the LLM judge needs an endpoint: pass --model (and --base-url), or use --judge symbolic",
                        code="creativity-config")
    if config.benchmark_repo is not None:
        if config.method != JudgeMethod.LLM:
            raise KariError("--benchmark-repo runs the benchmark's LLM judge: not with --judge symbolic",
                            code="creativity-config")
        checkout_record(Path(config.benchmark_repo))  # not a checkout: one line now
    source = Path(run_dir)
    if source.is_file():
        if tasks_file is None or out is None:
            raise KariError("judging a runner output file of the benchmark needs --tasks FILE (its task file) and "
                            "--out DIR (where the judgement goes)", file=str(source), code="creativity-config")
        folder = Path(out)
        reads = (*inputs_of("the runner output file", [source]), *inputs_of("--tasks", [tasks_file]),
                 *_judge_inputs(config))
        tasks = {t.id: t for t in read_tasks(tasks_file)}
        answers, raws = external_records(read_samples(source), tasks, str(source))
        mode = source.stem.rsplit("__", 1)[-1] if "__" in source.stem else None
        job = _Job(folder, tasks, answers, mode, source.name, raws, str(tasks_file), reads)
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
    answers: Sequence[Mapping[str, Any]]
    mode: str | None
    name: str
    raws: dict[str, dict[str, Any]] | None
    tasks_file: str
    reads: tuple[Input, ...]


def _judge_inputs(config: JudgeConfig) -> tuple[Input, ...]:
    """The files a judging reads besides the answers and their tasks: ``--entities`` and ``--db``."""
    return (*inputs_of("--entities", config.entities), *inputs_of("--db", [config.db]))


def _run_job(run: Path, out: str | Path | None, config: JudgeConfig) -> _Job:
    """The judging of a ``kari creativity solve`` run directory (written into it)."""
    if out is not None:
        raise KariError("--out is for a runner output file; a run directory's judgement goes into it", file=str(out),
                        code="creativity-config")
    if not (run / ANSWERS_FILE).is_file():
        raise KariError(f"not a 'kari creativity solve' run directory (no {ANSWERS_FILE}) nor a runner output file",
                        file=str(run), code="missing-file")
    settings = read_config(run / CONFIG_FILE)  # a run of a newer kari is refused by its format version
    if settings is None or not isinstance(settings.get("tasks"), str):
        raise KariError("the run configuration names no task file", file=str(run / CONFIG_FILE), code="run-config")
    solve_config = SolveConfig.from_json(settings)
    reads = (*inputs_of("the run's answers", [run / ANSWERS_FILE]),
             *inputs_of("the run's task file", [settings["tasks"]]), *_judge_inputs(config))
    tasks = {t.id: t for t in read_tasks(settings["tasks"])}
    answers = checked_records(run).records  # a task twice, or one not of the run's task file: FILE:LINE
    mode = None if solve_config.solver == SolverKind.SYMBOLIC else solve_config.mode
    return _Job(run, tasks, answers, mode, outputs_name(solve_config), None, settings["tasks"], reads)


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


JUDGE_LOG: RunLog[Judgement] = RunLog(JUDGEMENTS_FILE, read_judgement, lambda j: (j.task_id, 0), "task")
"""``judgements.jsonl``: one judgement per task of the run."""
JUDGE_FILES = RunFiles(config=JUDGE_CONFIG_FILE, summary=JUDGE_SUMMARY_FILE, plan=None)
"""The judge's own settings and summary beside the run's (it writes no plan: the run's answers are its items)."""


def _judge_locked(job: _Job, config: JudgeConfig, llm_config: LLMConfig | None, progress: bool,
                  attributes: PartAttributes, entity_lookup: list[Any] | None) -> JudgeSummary:
    """Judge the answers not judged yet on the resumable run loop (:mod:`kari.io.runloop`): ``judge_config.json``
    (the settings, then ``limit``) refuses a rerun with other settings, ``judgements.jsonl`` is read back as a
    resume reads its log, each judgement is appended as it is made; no file it writes may be one it reads."""
    run = job.folder
    spec = RunSpec(run, JUDGE_LOG, config.identity(), {"limit": config.limit}, inputs=None, reads=job.reads,
                   writes=(f"{JUDGED_DIR}/",), files=JUDGE_FILES)
    with resumable(spec) as judging:
        judging.check_resume()  # a refused resume stops before any client or call log is made
        endpoint = llm_config if config.method == JudgeMethod.LLM else None
        with optional_chat_client(endpoint, session_log(run, "judge_calls")) as client:
            code = None
            if config.benchmark_repo is not None:
                asking = require_client(client, "the benchmark's judge")
                code = BenchmarkCode(config.benchmark_repo, asking, model=asking.config.model,
                                     role="creativity-judge")
                code.use_entity_lookup(entity_lookup)
            judge = Judge(config, client, attributes, code)
            judging.start()
            todo = judging.todo(job.answers, key=lambda answer: (answer["task_id"], 0))[: config.limit]
            for record in todo:
                if record["task_id"] not in job.tasks:
                    raise KariError(f"task {record['task_id']!r} of the run is not in its task file",
                                    file=job.tasks_file, code="creativity-record")

            def judged() -> Iterator[Judgement]:
                for record in todo:
                    raw = job.raws.get(record["task_id"]) if job.raws is not None else \
                        benchmark_sample(headline_sample(dict(record)), job.mode)
                    yield judge.judge(job.tasks[record["task_id"]], record, raw)

            judgements = judging.record(judged(), len(todo), desc=f"creativity judge {config.method}", unit="task",
                                        progress=progress)
            usage = usage_of(client).get("llm_usage")
        prompts = ("benchmark: the checkout's own judge.py" if code is not None else
                   "kari: kari's own judge prompts (--benchmark-repo DIR runs the benchmark's own)"
                   if config.method == JudgeMethod.LLM else "none: the symbolic scorer")
        atomic_write_json(run / JUDGED_DIR / job.name, judged_outputs(job.tasks, job.answers, judgements, job.mode,
                                                                      job.raws))
        summary = replace(summarise_judgements(judgements), config=config.identity(), prompts=prompts,
                          benchmark_repo=code.record if code is not None else None,
                          agreement_with_kari=_agreement(judgements) if code is not None else None,
                          llm_usage=usage, judged_outputs=f"{JUDGED_DIR}/{job.name}")
        atomic_write_json(run / JUDGE_SUMMARY_FILE, summary.to_json())
    return summary


def _agreement(judgements: Sequence[Judgement]) -> dict[str, int]:
    """How often the checkout's judge and kari's scoring agree on the relation and on gold (judged answers)."""
    judged = [j for j in judgements if j.how == BENCHMARK_JUDGE]
    return {"judged": len(judged), "relation": sum(j.relation == j.kari_relation for j in judged),
            "gold": sum(j.gold == j.kari_gold for j in judged)}
