"""What a report is made from, besides the runs: the settings of ``kari report`` (:class:`ReportOptions`) and
the one source of the covered / uncovered split (:class:`CoverageSource`, :func:`coverage_source`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.game.summary import RunData
from kari.stats import RESAMPLES


@dataclass(frozen=True)
class ReportOptions:
    """What ``kari report`` writes besides ``report.md``: intervals' settings, the HTML page and its inputs."""

    resamples: int = RESAMPLES
    seed: int = 0
    html: bool = False
    rules: str | Path | None = None  # rules to show with coverage and proofs (default: the runs' own)
    bench: str | Path | None = None  # benchmark of those rules' objects (default: the runs' own)
    db: str | Path | None = None  # KB whose vocabulary and edges to use (default: the runs' own)


@dataclass(frozen=True)
class CoverageSource:
    """Where the covered/uncovered split comes from: one run, its rules file and the per-game facts."""

    run: RunData
    rules_file: str
    rule_count: int | None  # None when the file can no longer be read
    covered: dict[str, bool]  # game id -> does the target have a matched rule
    covers_object: dict[str, bool] = field(default_factory=dict)  # game id -> does that rule cover the hidden object

    def to_json(self) -> dict[str, Any]:
        """The source as ``report.json`` names it."""
        return {"run": self.run.label, "rules_file": self.rules_file, "rule_count": self.rule_count,
                "games": len(self.covered), "covered_games": sum(self.covered.values()),
                "covers_object_games": sum(self.covers_object.values())}

    def describe(self) -> str:
        count = "" if self.rule_count is None else f", {self.rule_count} rules"
        config = self.run.config
        match = ("matched to candidates by identical verb id" if config.get("rule_match") == "exact" else
                 f"matched to candidates by verb embedding similarity >= {config.get('rule_threshold', 0.7)}")
        hits = sum(self.covered.values())
        return (f"Coverage split: a game is *covered* when its target has a matched rule in `{self.rules_file}`"
                f"{count}, {match}, as recorded by run `{self.run.label}`: {hits} of {len(self.covered)} games "
                f"({100 * hits / len(self.covered):.1f}%) are covered. Every row is split by these same games.")


def coverage_source(runs: Sequence[RunData]) -> CoverageSource | None:
    """The first run whose records carry rule facts, with its rules file (None when no run has any)."""
    for run in runs:
        covered = {r.game: bool(r.rules.get("target_has_rule")) for r in run.records if r.rules is not None}
        if covered:
            rules_file = str(run.config.get("rules"))
            covers = {r["game"]: bool(r["rules"].get("target_rule_covers_object")) for r in run.records
                      if r.get("rules") is not None}
            return CoverageSource(run, rules_file, _rule_count(rules_file), covered, covers)
    return None


def _rule_count(path: str) -> int | None:
    from kari.rules import load_rules

    try:
        return len(load_rules(path))
    except (KariError, OSError):
        return None
