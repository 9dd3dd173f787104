"""What a report is made from, besides the runs: the settings of ``kari report`` (:class:`ReportOptions`),
the one source of the covered / uncovered split (:class:`CoverageSource`, :func:`coverage_source`), the
benchmark objects of its proofs and KB-gap ledger (:func:`open_source`, or :class:`ReportInputs` already loaded)
and the rules its runs were played with (:class:`PlayedRules`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.errors import KariError
from kari.core.game_names import MatchMode, RuleOrigin
from kari.domain.canon import canonical_rules
from kari.explain.sources import open_objects
from kari.io.escape import md
from kari.game.summary import RunData
from kari.induce.folds import read_rule_sets
from kari.rules import load_rules
from kari.stats import RESAMPLES

if TYPE_CHECKING:
    from kari.explain.sources import ObjectSource
    from kari.induce.folds import RuleSets
    from kari.rules.ast import Rule


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
        return self.run.config.rule_threshold

    def match_mode(self) -> str:
        """How the recorded matches were made (the records say; older runs: the run's configuration)."""
        for record in self.run.records:
            mode = record.rules.match_mode() if record.rules is not None else None
            if mode is not None:
                return mode
        return MatchMode.EXACT if self.run.config.rule_match == MatchMode.EXACT else MatchMode.EMBEDDING

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
                "kb_positive_games": sum(self.kb_evidence.values()), "rules_given": self.run.summary.rules_given}

    def skipped_text(self) -> str:
        """What the run's player left out of the rules file (its summary's ``rules_given``): '' when nothing."""
        given = self.run.summary.rules_given or {}
        skipped = given.get("flagged_skipped", 0)
        return (f" ({skipped} of them flagged as no better than the KB's base rate and skipped by the player: "
                f"{given.get('rules', 0)} used)") if skipped else ""

    def describe(self) -> str:
        count = "" if self.rule_count is None else f", {self.rule_count} rules{self.skipped_text()}"
        match = ("matched to candidates by identical verb id" if self.match_mode() == MatchMode.EXACT else
                 f"matched to candidates by sentence similarity of their verbs >= {self.threshold}")
        hits = sum(self.covered.values())
        what = "KB-anchored rules" if self.kind == RuleOrigin.KB else "rules"
        text = (f"Coverage split: a game is *covered* when its target has a matched rule among the {what} in "
                f"`{md(self.rules_file)}`{count}, {match}, as recorded by run `{md(self.run.label)}`: {hits} of "
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
        facts = [(r, r.rules) for r in run.records if r.rules is not None]
        if facts:
            rules_file = str(run.config.rules)
            return CoverageSource(run, rules_file, _rule_count(rules_file),
                                  {r.game: f.target_has_rule for r, f in facts},
                                  {r.game: f.target_rule_covers_object for r, f in facts},
                                  {r.game: f.target_rule_kb_positive for r, f in facts},
                                  {r.game: r.target for r, _ in facts})
    return None


def _rule_count(path: str) -> int | None:
    try:
        return len(load_rules(path))
    except (KariError, OSError):
        return None


RuleReader = Callable[[Path], "RuleSets"]
"""Reads a rules file or a ``RULES.cv`` folder once (:func:`kari.induce.folds.read_rule_sets`, or a study's cache)."""


class PlayedRules:
    """The rules a run was played with, read into one vocabulary: a rules file, or a ``RULES.cv`` folder's folds
    (read by ``read``: default :func:`kari.induce.folds.read_rule_sets`)."""

    def __init__(self, source: ObjectSource, read: RuleReader | None = None) -> None:
        self.source = source
        self.read = read
        self._loaded: dict[str, dict[int, dict[str, Rule]]] = {}

    def rule(self, path: str, fold: int | None, affordance: str) -> Rule | None:
        if path not in self._loaded:
            self._loaded[path] = self._load(path)
        return self._loaded[path].get(fold if fold is not None else 0, {}).get(affordance)

    def _load(self, path: str) -> dict[int, dict[str, Rule]]:
        if self.read is None:
            self.read = read_rule_sets
        rule_sets = self.read(Path(path))
        return {k: {r.affordance: r for r in canonical_rules(rs, self.source.vocab)} for k, rs in rule_sets.folds.items()}


@dataclass(frozen=True)
class ReportInputs:
    """Inputs a caller already holds (the pipeline's study): the benchmark objects read into its vocabulary and
    its reader of rule sets, so that the report's KB-gap ledger reads nothing again."""

    objects: ObjectSource
    read_rules: RuleReader


OpenedSource = tuple["ObjectSource | None", "str | None", str]
"""What :func:`open_source` gives: the objects (None when they cannot be read), the benchmark folder, a note."""


def open_source(runs: Sequence[RunData], options: ReportOptions) -> OpenedSource:
    """The benchmark objects (read into the runs' vocabulary) the proofs and the KB-gap ledger are about, its
    folder, and a note saying why there are none."""
    bench = options.bench if options.bench is not None else next(
        (str(run.config.bench) for run in runs), None)
    if bench is None or not Path(str(bench)).is_dir():
        return None, None, f"the benchmark {bench} is not here (give --bench DIR)"
    db = options.db if options.db is not None else next((str(run.config.db) for run in runs if run.config.db), None)
    if db is not None and not Path(str(db)).is_file():
        return None, str(bench), f"the KB {db} is not here (give --db PATH)"
    vocab = None if db is not None else next((str(run.config.vocab) for run in runs if run.config.vocab), None)
    return open_objects(str(bench), None if db is None else str(db), vocab), str(bench), ""
