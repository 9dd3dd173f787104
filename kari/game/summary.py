"""Typed records of a run's scores: :class:`Score` (SR and turns of a set of games), :class:`RunSummary` (the
``summary.json`` of a run directory) and :class:`RunData` (a run as ``kari report`` reads it).

Like the game records (:mod:`kari.core.game_records`) each reads and writes its JSON object key for key; the
figures themselves are computed by :func:`kari.game.metrics.summarise`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kari.core.game_names import RULE_SUFFIXES, RuleColumn, RuleOrigin
from kari.game.questioners.registry import sees_rules
from kari.core.game_records import GameRecord
from kari.core.game_settings import LLM_PARTS, PlayConfig
from kari.core.records import JsonRecord, Layout
from kari.core.run_model import RunModel
from kari.io.versions import RUN_FORMAT
from kari.llm.config import LLM


@dataclass(frozen=True, eq=False)
class Score(JsonRecord):
    """Games, success rate (0..1) and mean turns over the solved games of a set of records (None when empty)."""

    games: int
    success_rate: float | None
    avg_turns_solved: float | None
    layout: Layout | None = None

    KEYS = ("games", "success_rate", "avg_turns_solved")


def _scores(data: Mapping[str, Any] | None) -> dict[str, Score] | None:
    return None if data is None else {name: Score.from_json(s) for name, s in data.items()}


@dataclass(frozen=True, eq=False)
class RunSummary(JsonRecord):
    """A run's ``summary.json`` (docs/formats.md): the overall score, per-run success rates, turns, IG and
    question kinds per turn, per-affordance scores, rejected and forced guesses, timing, the split by rule
    coverage (runs with rules), the rules the player was given (``rules_given``: rule sets, rules, flagged KB rules
    left out; runs with rules), the run's settings, for LLM players the token usage, and the run's model
    (:class:`~kari.core.run_model.RunModel`; none in a summary of an older kari)."""

    games: int
    success_rate: float | None
    avg_turns_solved: float | None
    records: int
    runs: int
    success_rate_by_run: Mapping[str, float | None]
    success_rate_sd_over_runs: float
    avg_turns: float | None
    ig_by_turn: Sequence[float]
    ig_by_turn_games: Sequence[int]
    dimension_share: Mapping[str, float]
    dimension_share_by_turn: Sequence[Mapping[str, float]]
    by_affordance: Mapping[str, Score]
    rejected_questions: int
    forced_guesses: Mapping[str, int]
    invalid_guesses: int
    time_s: Mapping[str, Any]
    by_rule_coverage: Mapping[str, Score] | None = None
    target_covered_share: float | None = None
    rules_given: Mapping[str, int] | None = None
    config: Mapping[str, Any] | None = None
    llm_usage: Mapping[str, Any] | None = None
    model: RunModel | None = None
    format: str | None = RUN_FORMAT.written_tag
    layout: Layout | None = None

    KEYS = ("format", "games", "success_rate", "avg_turns_solved", "records", "runs", "success_rate_by_run",
            "success_rate_sd_over_runs", "avg_turns", "ig_by_turn", "ig_by_turn_games", "dimension_share",
            "dimension_share_by_turn", "by_affordance", "rejected_questions", "forced_guesses", "invalid_guesses",
            "time_s", "by_rule_coverage", "target_covered_share", "rules_given", "config", "llm_usage", "model")
    OPTIONAL = ("format", "by_rule_coverage", "target_covered_share", "rules_given", "config", "llm_usage", "model")

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunSummary:
        summary = super().from_json(data)
        model = data.get("model")
        return replace(summary, by_affordance=_scores(data.get("by_affordance")) or {},
                       by_rule_coverage=_scores(data.get("by_rule_coverage")),
                       model=RunModel.from_json(model) if isinstance(model, Mapping) else None)

    def json_values(self) -> dict[str, Any]:
        values = super().json_values()
        values["by_affordance"] = {name: s.to_json() for name, s in self.by_affordance.items()}
        if self.by_rule_coverage is not None:
            values["by_rule_coverage"] = {name: s.to_json() for name, s in self.by_rule_coverage.items()}
        if self.model is not None:
            values["model"] = self.model.to_json()
        return values

    def with_run(self, config: Mapping[str, Any], llm_usage: Mapping[str, Any] | None = None,
                 model: RunModel | None = None, rules_given: Mapping[str, int] | None = None) -> RunSummary:
        """The summary with the run's settings, the token usage of its LLM players, its model and the rules its
        player was given added."""
        return replace(self, config=dict(config), llm_usage=llm_usage, model=model,
                       rules_given=dict(rules_given) if rules_given is not None else None)


@dataclass
class RunData:
    """A run directory's configuration, summary and records."""

    path: Path
    config: PlayConfig
    summary: RunSummary
    records: list[GameRecord]
    name: str | None = None  # the label a report gives it when its folder's name is not unique there

    @property
    def label(self) -> str:
        """The run's name in a report: its folder's name (``m1/llm`` where two runs share one)."""
        return self.name or self.path.name

    @classmethod
    def unique_labels(cls, runs: Sequence[RunData]) -> list[RunData]:
        """``runs`` with labels that tell them apart: a folder name two runs share gets its parent folders in
        front (``m1/llm``, ``m2/llm``) until the labels differ."""
        out = list(runs)
        depth = 1
        while len({r.label for r in out}) < len(out) and depth < 8:
            depth += 1
            names = ["/".join(r.path.parts[-depth:]) for r in out]
            clash = {n for n in (r.path.name for r in runs) if [x.path.name for x in runs].count(n) > 1}
            out = [replace(r, name=names[i]) if r.path.name in clash else r for i, r in enumerate(runs)]
        return out

    @property
    def questioner(self) -> str:
        """The questioner without a ``+rules`` / ``+kb`` suffix (the Table 1 row), with the positives its soft
        belief may use when a run capped them (``greedy-ig@10``: the paper's 10 representatives)."""
        name = str(self.config.questioner)
        for suffix in RULE_SUFFIXES:
            name = name.removesuffix(suffix)
        reps = self.config.model_reps
        return f"{name}@{reps}" if reps else name

    @property
    def model(self) -> RunModel:
        """The run's model: its summary's record, else (an older kari) what ``config.json`` says: no LLM, or an
        LLM whose name is the configured one (:data:`~kari.core.run_model.NOT_RECORDED` without one)."""
        if self.summary.model is not None:
            return self.summary.model
        parts = tuple(p for p in LLM_PARTS if getattr(self.config, p) == LLM)
        name = self.config.model if parts else None
        return RunModel(llm=bool(parts), name=str(name) if name else None, parts=parts, kari_version="")

    @property
    def tokens(self) -> int | None:
        """Tokens the run's LLM calls used (prompt and completion; None for a run without LLM calls)."""
        usage = self.summary.llm_usage or {}
        total = usage.get("total_tokens")
        return int(total) if isinstance(total, (int, float)) and not isinstance(total, bool) else None

    @property
    def with_rules(self) -> bool:
        """Did the player see matched rules (:func:`kari.game.questioners.registry.sees_rules`)?"""
        return sees_rules(self.config)

    @property
    def rule_source(self) -> str | None:
        """What the rules the player saw were (None without rules; :class:`~kari.core.game_names.RuleOrigin`): ``kb``
        (induced from a KB), ``cross-fitted`` (``RULES.cv``), ``bench`` (induced from a benchmark) or ``file``, as
        its records say."""
        if not self.with_rules:
            return None
        for record in self.records:
            if record.rules is not None:
                return str(record.rules.source or RuleOrigin.FILE)
        return RuleOrigin.CROSS_FITTED if str(self.config.rules).endswith(".cv") else RuleOrigin.FILE

    @property
    def table_source(self) -> str | None:
        """The run's Table 1 column (:class:`~kari.core.game_names.RuleColumn`): None (no rules), ``kb`` or ``rules``
        (any benchmark-supervised or other rules file)."""
        source = self.rule_source
        return None if source is None else RuleColumn.KB if source == RuleOrigin.KB else RuleColumn.RULES
