"""SR against the question budget: per run, the share of games won within t questions, t = 0, 1, ..., from the
games' own turn counts (no new call, no new game).

A game counts as won within t when it was solved with at most t question turns (accepted or rejected; the final
guess not counted, as ``n_turns``). A player with several runs per game counts each game once, its share the mean
over its runs (as the report's SR). At the run's budget the curve is its SR. Each point carries its Wilson
interval over games; ``report.json`` holds the whole curve of every run (``sr_by_budget``), ``report.md`` a table
at a few budgets and the figure ``sr_by_budget.png``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from kari.core.game_defaults import BUDGET
from kari.core.game_settings import PlayConfig
from kari.report.intervals import pct_ci
from kari.stats import LEVEL, wilson
from kari.io.escape import md

BUDGET_FIGURE = "sr_by_budget.png"
SHOWN_BUDGETS = (1, 2, 3, 5, 8, 10, 15, 20)
"""The budgets of the Markdown table (those up to the runs' largest budget), the last budget always added."""


def budget_curve(records: Sequence[Mapping[str, Any]], budget: int, level: float = LEVEL) -> dict[str, Any]:
    """``{"t": [0..T], "success_rate": [...], "ci": [[low, high], ...]}``, T the largest of ``budget`` and the
    records' turn counts."""
    grouped: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for record in records:
        grouped[record["game"]].append(record)
    games = list(grouped.values())
    top = max([budget, *(int(r["n_turns"]) for r in records)]) if records else budget
    shares, intervals = [], []
    for t in range(top + 1):
        won = [sum(bool(r["success"]) and int(r["n_turns"]) <= t for r in rs) / len(rs) for rs in games]
        shares.append(round(sum(won) / len(won), 6) if won else None)
        ci = wilson(sum(won), len(won), level) if won else None
        intervals.append(None if ci is None else [round(ci[0], 6), round(ci[1], 6)])
    return {"t": list(range(top + 1)), "success_rate": shares, "ci": intervals}


def run_budget(config: PlayConfig) -> int:
    """A run's question budget (its ``config.json``'s; the default for a run that names none)."""
    return config.budget


def shown_budgets(data: Mapping[str, Any]) -> list[int]:
    """The budgets the table shows: :data:`SHOWN_BUDGETS` up to the largest curve's end, and that end."""
    top = max((len(row["sr_by_budget"]["t"]) - 1 for row in data["runs"] if row.get("sr_by_budget")), default=0)
    return sorted({t for t in SHOWN_BUDGETS if t < top} | {top}) if top else []


def budget_section(data: Mapping[str, Any], figure: str | None = None) -> list[str]:
    """The Markdown section: SR % within t questions per run at :func:`shown_budgets`, with intervals."""
    budgets = shown_budgets(data)
    rows = [row for row in data["runs"] if row.get("sr_by_budget")]
    if not budgets or not rows:
        return []
    lines = ["## SR against the question budget", "",
             "| run | model | " + " | ".join(f"t = {t}" for t in budgets) + " |",
             "|---|---|" + "---:|" * len(budgets)]
    for row in rows:
        curve = row["sr_by_budget"]
        cells = []
        for t in budgets:
            inside = t < len(curve["t"])
            cells.append(pct_ci(curve["success_rate"][t], curve["ci"][t]) if inside else
                         pct_ci(curve["success_rate"][-1], curve["ci"][-1]))
        lines.append(f"| {md(row['run'])} | {md(row.get('model', '-'))} | " + " | ".join(cells) + " |")
    lines += ["", "SR % within t: the share of games solved with at most t question turns (accepted or rejected; the "
                  "final guess not counted), from the recorded turn counts: no game is replayed with a smaller "
                  "budget, so a player that would guess earlier under a smaller budget is not credited. Wilson "
                  "intervals over games; at a run's own budget the share is its SR."
              + (f" Figure: [{figure}]({figure})." if figure else "")]
    return lines


def budget_series(data: Mapping[str, Any]) -> dict[str, list[float]]:
    """Each run's curve for the figure, labelled with the run (and its model when an LLM played)."""
    out: dict[str, list[float]] = {}
    for row in data["runs"]:
        curve = row.get("sr_by_budget")
        if curve:
            label = row["run"] if row.get("model") in (None, "symbolic") else f"{row['run']} ({row['model']})"
            out[label] = [v or 0.0 for v in curve["success_rate"]]
    return out
