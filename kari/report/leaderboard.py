"""The leaderboard of ``kari report``: one flat row per run, ranked by SR, for other tools (CSV and JSON).

Columns (:data:`COLUMNS`): rank (1 = best SR; ties share a rank), the run and its players, the model (its name,
``symbolic`` or ``not recorded``; the id the server reported), the rule source, the tokens its LLM calls used,
games and records,
SR and turns (solved) with their 95% interval bounds, SR on covered / uncovered games, and for a run played
with rules that has a partner run without them (Table 1), the paired rules delta with its interval, McNemar's
p and the discordant counts b and c. Rates are fractions 0..1; an empty cell (CSV) or null (JSON) means
"not defined here".
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from typing import Any

from kari.io.escape import csv_row

COLUMNS = (
    "rank", "run", "player", "questioner", "model", "served_model", "rule_source", "rules", "oracle", "checker",
    "tokens", "games", "records",
    "success_rate", "success_rate_low", "success_rate_high",
    "avg_turns_solved", "avg_turns_solved_low", "avg_turns_solved_high",
    "success_rate_covered", "success_rate_uncovered",
    "rules_delta", "rules_delta_low", "rules_delta_high", "rules_mcnemar_p", "rules_b", "rules_c", "rules_baseline",
)


def _bounds(ci: Sequence[float] | None) -> tuple[float | None, float | None]:
    return (None, None) if ci is None else (ci[0], ci[1])


def leaderboard_rows(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows from a ``report.json`` object, best SR first (ties: in the order given)."""
    deltas = {c["b"]: c for c in data["comparisons"] if c["kind"] == "rules"}
    rows = []
    for row in data["runs"]:
        split = row.get("by_rule_coverage") or {}
        delta = deltas.get(row["run"])
        low, high = _bounds(row["success_rate_ci"])
        t_low, t_high = _bounds(row["avg_turns_solved_ci"])
        d_low, d_high = _bounds(delta["delta_ci"] if delta else None)
        rows.append({
            "rank": None, "run": row["run"], "player": row["player"], "questioner": row["questioner"],
            "model": row.get("model"), "served_model": row.get("served_model"), "rule_source": row.get("rule_source"),
            "rules": row["rules"], "oracle": row["oracle"], "checker": row["checker"], "tokens": row.get("tokens"),
            "games": row["games"],
            "records": row["records"], "success_rate": row["success_rate"], "success_rate_low": low,
            "success_rate_high": high, "avg_turns_solved": row["avg_turns_solved"], "avg_turns_solved_low": t_low,
            "avg_turns_solved_high": t_high,
            "success_rate_covered": split.get("covered", {}).get("success_rate"),
            "success_rate_uncovered": split.get("uncovered", {}).get("success_rate"),
            "rules_delta": delta["delta"] if delta else None, "rules_delta_low": d_low, "rules_delta_high": d_high,
            "rules_mcnemar_p": delta["mcnemar_p"] if delta else None,
            "rules_b": delta["discordant"]["b"] if delta else None,
            "rules_c": delta["discordant"]["c"] if delta else None,
            "rules_baseline": delta["a"] if delta else None,
        })
    order = sorted(range(len(rows)), key=lambda i: (-(rows[i]["success_rate"] or 0.0), i))
    ranked = [rows[i] for i in order]
    for position, row in enumerate(ranked):
        previous = ranked[position - 1] if position else None
        tied = previous is not None and previous["success_rate"] == row["success_rate"]
        row["rank"] = previous["rank"] if previous is not None and tied else position + 1
    return ranked


def leaderboard_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """The rows as CSV with a header line (empty cells for null; booleans as true / false; a text cell a
    spreadsheet would run as a formula starts with ``'``: :func:`kari.io.escape.csv_cell`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows:
        writer.writerow(csv_row("" if row[c] is None else (str(row[c]).lower() if isinstance(row[c], bool) else row[c])
                                for c in COLUMNS))
    return buffer.getvalue()
