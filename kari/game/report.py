"""``kari report``: compare run directories side by side (Markdown, like the paper's Table 1) and draw IG over
turns for all runs.

Rows: one per run (questioner, oracle, checker, rules in the prompt or not, SR, turns, and SR / turns on games
whose target has a matched rule vs. not). When a run has no rule facts of its own (played without ``--rules``),
the covered/uncovered split borrows them, by game id, from any other run in the comparison. A second table
pivots SR and turns per questioner, without and with rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.game.metrics import coverage_split, ig_by_turn, score


@dataclass
class RunData:
    """A run directory's configuration, summary and records."""

    path: Path
    config: dict[str, Any]
    summary: dict[str, Any]
    records: list[dict[str, Any]]

    @property
    def label(self) -> str:
        return self.path.name

    @property
    def with_rules(self) -> bool:
        """Did the player see matched rules (an LLM/rules questioner run with a rules file)?"""
        return bool(self.config.get("rules")) and self.config.get("questioner") in ("llm", "rules")


def load_run(path: str | Path) -> RunData:
    """Read ``config.json``, ``summary.json`` and ``games.jsonl`` of a run directory."""
    from kari.game.run import CONFIG_FILE, GAMES_FILE, SUMMARY_FILE, load_records
    from kari.io.text import load_json, read_text

    root = Path(path)
    for name in (CONFIG_FILE, SUMMARY_FILE, GAMES_FILE):
        if not (root / name).is_file():
            raise KariError(f"not a finished run directory (no {name})", file=str(root), code="report-run")
    config, summary = (load_json(read_text(root / name), file=str(root / name), code="report-run")
                       for name in (CONFIG_FILE, SUMMARY_FILE))
    if not isinstance(config, dict) or not isinstance(summary, dict):
        raise KariError(f"{CONFIG_FILE} and {SUMMARY_FILE} must hold JSON objects", file=str(root), code="report-run")
    records, _ = load_records(root / GAMES_FILE)
    return RunData(root, config, summary, records)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _turns(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def coverage_map(runs: Sequence[RunData]) -> dict[str, bool]:
    """game id -> does the target have a matched rule, from every run that recorded it (first run wins)."""
    out: dict[str, bool] = {}
    for run in runs:
        for record in run.records:
            rules = record.get("rules")
            if rules is not None:
                out.setdefault(record["game"], bool(rules.get("target_has_rule")))
    return out


def compare(runs: Sequence[RunData]) -> str:
    """The Markdown report text."""
    covered = coverage_map(runs)
    lines = ["# Affordance20Q runs", "",
             "| run | questioner | oracle | checker | rules | games | SR % | turns | SR % covered | SR % uncovered "
             "| turns covered | turns uncovered |",
             "|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for run in runs:
        overall = score(run.records)
        split = coverage_split(run.records, covered) if covered else None
        cov = (split or {}).get("covered", {})
        unc = (split or {}).get("uncovered", {})
        cfg = run.config
        lines.append(f"| {run.label} | {cfg.get('questioner')} | {cfg.get('oracle')} | {cfg.get('checker')} | "
                     f"{'yes' if run.with_rules else 'no'} | {len({r['game'] for r in run.records})} | "
                     f"{_pct(overall['success_rate'])} | {_turns(overall['avg_turns_solved'])} | "
                     f"{_pct(cov.get('success_rate'))} | {_pct(unc.get('success_rate'))} | "
                     f"{_turns(cov.get('avg_turns_solved'))} | {_turns(unc.get('avg_turns_solved'))} |")
    lines += ["", "## SR and turns per questioner, without and with rules (Table 1 layout)", "",
              "| questioner | SR % | turns | SR % +rules | turns +rules | delta SR (points) |",
              "|---|---:|---:|---:|---:|---:|"]
    table: dict[str, dict[bool, dict[str, Any]]] = {}
    for run in runs:
        table.setdefault(str(run.config.get("questioner")), {}).setdefault(run.with_rules, score(run.records))
    for name, cells in table.items():
        base, ruled = cells.get(False, {}), cells.get(True, {})
        delta = ("-" if base.get("success_rate") is None or ruled.get("success_rate") is None
                 else f"{100 * (ruled['success_rate'] - base['success_rate']):+.1f}")
        lines.append(f"| {name} | {_pct(base.get('success_rate'))} | {_turns(base.get('avg_turns_solved'))} | "
                     f"{_pct(ruled.get('success_rate'))} | {_turns(ruled.get('avg_turns_solved'))} | {delta} |")
    if covered:
        share = sum(covered.values()) / len(covered)
        lines += ["", f"Games whose target has a matched rule: {sum(covered.values())} of {len(covered)} "
                      f"({100 * share:.1f}%)."]
    return "\n".join(lines) + "\n"


def report(run_dirs: Sequence[str | Path], out: str | Path | None = None) -> str:
    """Compare ``run_dirs``; with ``out``, also write ``report.md`` and ``ig_over_turns.png`` there."""
    if not run_dirs:
        raise KariError("give at least one run directory", code="report-run")
    runs = [load_run(p) for p in run_dirs]
    text = compare(runs)
    if out is not None:
        from kari.game.plots import plot_ig
        from kari.io.atomic import atomic_write_text

        folder = Path(out)
        atomic_write_text(folder / "report.md", text)
        plot_ig(_ig_series(runs), folder / "ig_over_turns.png", title="Information gain over turns")
    return text


def _ig_series(runs: Sequence[RunData]) -> Mapping[str, list[float]]:
    return {run.label: ig_by_turn(run.records)[0] for run in runs}
