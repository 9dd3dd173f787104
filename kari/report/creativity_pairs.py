"""``kari creativity compare``: paired comparisons of CreativityBench runs on the same tasks.

Two or more run directories of ``kari creativity solve`` (or, for each, its ``judgements.jsonl`` when judged):
every later run is compared with the first (``b`` minus ``a``) on the tasks both answered records for, each task's
headline sample (temperature 0 when drawn). For the entity, part, gold and strict gold rates: the delta with a
paired bootstrap interval over tasks, McNemar's exact p and the discordant counts ``b`` (tasks ``a`` got right and
``b`` did not) and ``c`` (the reverse), as :func:`kari.report.comparisons.paired` computes them for games; the gold
delta also per task difficulty (``setting.difficulty``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kari.creativity.answering import headline_sample
from kari.creativity.model import read_tasks
from kari.creativity.run import SolveConfig, checked_records
from kari.creativity.summary import task_groups
from kari.errors import KariError
from kari.io.runlog import CONFIG_FILE
from kari.io.text import load_json, read_text
from kari.report.comparisons import Settings, paired
from kari.report.intervals import p_value, points_ci
from kari.io.escape import md

METRICS = (("gold_correct", "gold"), ("entity_correct", "entity"), ("part_correct", "part"),
           ("strict_gold", "strict gold"))


def run_scores(folder: Path) -> tuple[str, dict[str, Mapping[str, Any]], dict[str, Any]]:
    """A run's label, each task's headline score and its configuration."""
    config_path = folder / CONFIG_FILE
    if not config_path.is_file():
        raise KariError("not a 'kari creativity solve' run directory (no config.json)", file=str(folder),
                        code="missing-file")
    config = load_json(read_text(config_path, "run configuration"), file=str(config_path), code="run-config")
    if not isinstance(config, dict):
        raise KariError("the run configuration is not a JSON object", file=str(config_path), code="run-config")
    records = checked_records(folder).records
    scores = {r["task_id"]: headline_sample(dict(r))["score"] for r in records}
    return folder.name, scores, config


def _pseudo(scores: Mapping[str, Mapping[str, Any]], key: str, tasks: set[str]) -> list[dict[str, Any]]:
    """The scores as the game comparison reads records: a task is a game, its flag the success."""
    return [{"game": t, "run": 0, "success": bool(scores[t].get(key)), "n_turns": 0} for t in scores if t in tasks]


def compare_runs(folders: Sequence[str | Path], settings: Settings = Settings()) -> dict[str, Any]:
    """Every later run against the first, on the tasks both have (module docstring)."""
    if len(folders) < 2:
        raise KariError("give at least two run directories to compare", code="bad-option")
    runs = [run_scores(Path(f)) for f in folders]
    base_label, base, base_config = runs[0]
    tasks_file = base_config.get("tasks")
    groups = {t.id: task_groups(t)["by_difficulty"] for t in read_tasks(tasks_file)} \
        if isinstance(tasks_file, str) and Path(tasks_file).is_file() else {}
    out = []
    for label, scores, config in runs[1:]:
        shared = set(base) & set(scores)
        entry: dict[str, Any] = {"a": base_label, "b": label, "a_solver": SolveConfig.from_json(base_config).solver,
                                 "b_solver": SolveConfig.from_json(config).solver, "tasks": len(shared), "metrics": {}}
        for key, _ in METRICS:
            entry["metrics"][key] = paired(_pseudo(base, key, shared), _pseudo(scores, key, shared), settings)
        by_difficulty = {}
        for group in sorted({g for t, g in groups.items() if t in shared and g is not None}):
            chosen = {t for t in shared if groups.get(t) == group}
            by_difficulty[group] = paired(_pseudo(base, "gold_correct", chosen), _pseudo(scores, "gold_correct", chosen),
                                          settings)
        entry["gold_by_difficulty"] = by_difficulty
        out.append(entry)
    return {"level": settings.level, "resamples": settings.resamples, "seed": settings.seed, "comparisons": out}


def markdown(data: Mapping[str, Any]) -> str:
    """The comparisons as a Markdown table, one row per pair and rate."""
    lines = ["| b vs a | rate | tasks | a | b | delta (points) [CI] | McNemar p | b | c |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for comp in data["comparisons"]:
        for key, name in METRICS:
            cell = comp["metrics"][key]
            lines.append(f"| {md(comp['b'])} vs {md(comp['a'])} | {name} | {cell['pairs']} | "
                         f"{_pct(cell['a_success_rate'])} | {_pct(cell['b_success_rate'])} | "
                         f"{points_ci(cell['delta'], cell['delta_ci'])} | {p_value(cell['mcnemar_p'])} | "
                         f"{cell['discordant']['b']} | {cell['discordant']['c']} |")
        for group, cell in comp["gold_by_difficulty"].items():
            lines.append(f"| {md(comp['b'])} vs {md(comp['a'])} | gold, {group} tasks | {cell['pairs']} | "
                         f"{_pct(cell['a_success_rate'])} | {_pct(cell['b_success_rate'])} | "
                         f"{points_ci(cell['delta'], cell['delta_ci'])} | {p_value(cell['mcnemar_p'])} | "
                         f"{cell['discordant']['b']} | {cell['discordant']['c']} |")
    return "\n".join(lines) + "\n"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"
