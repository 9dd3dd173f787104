"""What a report is made from, besides the runs: the settings of ``kari report`` (:class:`ReportOptions`) and
the one source of the covered / uncovered split (:class:`CoverageSource`, :func:`coverage_source`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kari.errors import KariError
from kari.game.defaults import MATCH_THRESHOLD
from kari.game.names import MatchMode, RuleOrigin
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
    kb_evidence: dict[str, bool] = field(default_factory=dict)  # game id -> is o* a KB positive of that rule
    targets: dict[str, str] = field(default_factory=dict)  # game id -> target

    @property
    def kind(self) -> str | None:
        """The source run's :attr:`~kari.game.summary.RunData.rule_source`."""
        return self.run.rule_source

    @property
    def threshold(self) -> float:
        return self.run.config.get("rule_threshold", MATCH_THRESHOLD)

    def match_mode(self) -> str:
        """How the recorded matches were made (the records say; older runs: the run's configuration)."""
        for record in self.run.records:
            for matches in ((record.rules or {}).get("matched") or {}).values():
                for match in matches:
                    return str(match.get("match", MatchMode.EMBEDDING))
        return MatchMode.EXACT if self.run.config.get("rule_match") == MatchMode.EXACT else MatchMode.EMBEDDING

    def kb_summary(self) -> dict[str, Any]:
        """The KB coverage (the paper's figure): affordances and games whose target has a matched rule."""
        targets = sorted(set(self.targets.values()))
        covered = sorted({self.targets[g] for g, flag in self.covered.items() if flag and g in self.targets})
        return {"rules_file": self.rules_file, "rules": self.rule_count, "match": self.match_mode(),
                "threshold": self.threshold,
                "affordances": len(targets), "affordances_covered": len(covered),
                "affordance_share": round(len(covered) / len(targets), 6) if targets else None,
                "games": len(self.covered), "games_covered": sum(self.covered.values()),
                "game_share": round(sum(self.covered.values()) / len(self.covered), 6) if self.covered else None,
                "games_kb_positive": sum(self.kb_evidence.values()),
                "uncovered_affordances": [t for t in targets if t not in covered]}

    def to_json(self) -> dict[str, Any]:
        """The source as ``report.json`` names it."""
        return {"run": self.run.label, "rules_file": self.rules_file, "rule_count": self.rule_count,
                "kind": self.kind, "match": self.match_mode(),
                "games": len(self.covered), "covered_games": sum(self.covered.values()),
                "covers_object_games": sum(self.covers_object.values()),
                "kb_positive_games": sum(self.kb_evidence.values())}

    def describe(self) -> str:
        count = "" if self.rule_count is None else f", {self.rule_count} rules"
        match = ("matched to candidates by identical verb id" if self.match_mode() == MatchMode.EXACT else
                 f"matched to candidates by sentence similarity of their verbs >= {self.threshold}")
        hits = sum(self.covered.values())
        what = "KB-anchored rules" if self.kind == RuleOrigin.KB else "rules"
        text = (f"Coverage split: a game is *covered* when its target has a matched rule among the {what} in "
                f"`{self.rules_file}`{count}, {match}, as recorded by run `{self.run.label}`: {hits} of "
                f"{len(self.covered)} games ({100 * hits / len(self.covered):.1f}%) are covered. Every row is split "
                "by these same games.")
        if self.kind == RuleOrigin.KB:
            kb = self.kb_summary()
            text += (f" KB coverage: {kb['affordances_covered']} of {kb['affordances']} target affordances have a "
                     f"matched KB rule; in {kb['games_kb_positive']} covered games the hidden object is itself one "
                     "of the KB's positives of its target's rule.")
        return text


def coverage_source(runs: Sequence[RunData]) -> CoverageSource | None:
    """The run whose rule facts split every row: the first run played with KB-anchored rules, else the first
    whose records carry rule facts (None when no run has any)."""
    ordered = [r for r in runs if r.rule_source == RuleOrigin.KB] + [r for r in runs if r.rule_source != RuleOrigin.KB]
    for run in ordered:
        facts = [r for r in run.records if r.rules is not None]
        if facts:
            rules_file = str(run.config.get("rules"))
            flag = (lambda key: {r.game: bool(r.rules.get(key)) for r in facts})  # type: ignore[union-attr]
            return CoverageSource(run, rules_file, _rule_count(rules_file), flag("target_has_rule"),
                                  flag("target_rule_covers_object"), flag("target_rule_kb_positive"),
                                  {r.game: r.target for r in facts})
    return None


def _rule_count(path: str) -> int | None:
    from kari.rules import load_rules

    try:
        return len(load_rules(path))
    except (KariError, OSError):
        return None
