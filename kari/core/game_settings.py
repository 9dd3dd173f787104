"""The settings of a ``kari play`` run (:class:`PlayConfig`, its ``config.json``) and of its players
(:class:`PlayerSettings`, the ``extra`` entry: greedy-ig's stopping and lookahead, and how matched rules weigh
on the soft belief of a player that sees them).

A :class:`PlayerSettings` field left None is not set: the player uses its default (:mod:`kari.core.game_defaults`)
and ``config.json`` does not name it. A leaf: records and their checks only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kari.errors import KariError, choice
from kari.core import game_defaults as defaults
from kari.core.game_names import CheckerKind, FlaggedRules, MatchMode, OracleKind, RuleWeighting
from kari.io.runlog import paths_as_paths, settings_json
from kari.llm.config import DEFAULT_MAX_TOKENS, LLM
from kari.core.records import JsonRecord, Layout

LLM_PARTS = ("questioner", "oracle", "checker")
"""The fields of :class:`PlayConfig` an LLM may play (the value ``llm``)."""


@dataclass(frozen=True, eq=False)
class PlayerSettings(JsonRecord):
    """``min_gain``, ``lookahead``, ``stop_belief`` (greedy-ig), ``rule_satisfied`` / ``rule_falsified`` (the
    factors on a candidate's soft belief once the answers satisfy / falsify its matched rule) and
    ``rules_in_belief`` (whether the rules enter the soft belief at all)."""

    min_gain: float | None = None
    lookahead: int | None = None
    stop_belief: float | None = None
    rule_satisfied: float | None = None
    rule_falsified: float | None = None
    rules_in_belief: bool | None = None
    layout: Layout | None = None

    KEYS = ("min_gain", "lookahead", "stop_belief", "rule_satisfied", "rule_falsified", "rules_in_belief")
    OPTIONAL = KEYS

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | PlayerSettings) -> PlayerSettings:
        return data if isinstance(data, PlayerSettings) else super().from_json(data)

    @property
    def rule_factors(self) -> tuple[float, float]:
        """(satisfied, falsified) factors of the +rules players."""
        return (defaults.RULE_SATISFIED if self.rule_satisfied is None else self.rule_satisfied,
                defaults.RULE_FALSIFIED if self.rule_falsified is None else self.rule_falsified)

    @property
    def rules_enter_belief(self) -> bool:
        """Do matched rules enter a +rules player's soft belief (default: yes)?"""
        return True if self.rules_in_belief is None else self.rules_in_belief

    @property
    def greedy(self) -> tuple[float, float, int]:
        """greedy-ig's (stop_belief, min_gain, lookahead)."""
        return (defaults.STOP_BELIEF if self.stop_belief is None else self.stop_belief,
                defaults.MIN_GAIN if self.min_gain is None else self.min_gain,
                defaults.LOOKAHEAD if self.lookahead is None else self.lookahead)


PATH_FIELDS = ("bench", "rules", "questions", "vocab", "db")
"""The fields of :class:`PlayConfig` that name files or folders (``Path``; a ``str`` given is read as one)."""


@dataclass(frozen=True)
class PlayConfig:
    """One run's settings (``config.json``); every field but ``games`` and ``game_ids`` must match on resume.
    ``rule_weights`` (:class:`~kari.core.game_names.RuleWeighting`) left None is the default
    (:data:`~kari.core.game_defaults.RULE_WEIGHTING`) and is left out of ``config.json``, as a ``config.json`` of a kari
    before rule weights lacks it (it then reads and writes back unchanged). ``llm_temperature``, the sampling
    temperature of an LLM questioner (not ``temperature``: Fix20Q's softmax temperature), likewise: None is 0 and
    unnamed. Above 0 each run k of ``runs`` sends the sampling seed ``seed + k``
    (:func:`kari.core.run_model.sampling_seed`). ``model`` is the model name resolved (``--model`` or
    ``$KARI_LLM_MODEL``) when an LLM plays a part. ``flagged_rules`` left None is left out too
    (:class:`~kari.core.game_names.FlaggedRules`, default :data:`~kari.core.game_defaults.FLAGGED_RULES`)."""

    bench: Path
    questioner: str
    oracle: str = OracleKind.KB
    checker: str = CheckerKind.SYMBOLIC
    seed: int = 0
    runs: int | None = None
    games: int | None = None
    game_ids: tuple[str, ...] = ()
    rules: Path | None = None
    rule_threshold: float = defaults.MATCH_THRESHOLD
    rule_top_k: int = defaults.TOP_K
    rule_match: str = MatchMode.EMBEDDING
    rule_weights: str | None = None  # None: defaults.RULE_WEIGHTING, and config.json does not name it
    flagged_rules: str | None = None  # None: defaults.FLAGGED_RULES, and config.json does not name it
    questions: Path | None = None
    temperature: float = 1.0
    max_tokens: int = DEFAULT_MAX_TOKENS
    threshold: float = defaults.THRESHOLD
    budget: int = defaults.BUDGET
    max_rejections: int = defaults.MAX_REJECTIONS
    reps_k: int = defaults.REPRESENTATIVES
    leave_one_out: bool = True
    vocab: Path | None = None
    db: Path | None = None
    eps: float = defaults.EPS
    smoothing: float = defaults.SMOOTHING
    oracle_noise: float = 0.0
    model_reps: int | None = None
    model: str | None = None
    base_url: str | None = None
    llm_temperature: float | None = None  # None: 0, and config.json does not name it
    extra: PlayerSettings = field(default_factory=PlayerSettings)

    def __post_init__(self) -> None:
        paths_as_paths(self, PATH_FIELDS)
        object.__setattr__(self, "extra", PlayerSettings.from_json(self.extra))

    @property
    def flagged(self) -> str:
        """What players do with flagged KB rules (:attr:`flagged_rules`, else the default: skip them)."""
        return defaults.FLAGGED_RULES if self.flagged_rules is None else self.flagged_rules

    @property
    def sampling_temperature(self) -> float:
        """The LLM questioner's sampling temperature (:attr:`llm_temperature`, else 0)."""
        return 0.0 if self.llm_temperature is None else float(self.llm_temperature)

    @property
    def sampling_seed(self) -> int | None:
        """The sampling seed of run 0 sent to the server (run k: + k), None at temperature 0 (greedy decoding:
        no seed is sent, and the cached replies of runs without one stay valid)."""
        return self.seed if self.sampling_temperature > 0 else None

    @property
    def weighting(self) -> str:
        """How matched rules are weighed (:attr:`rule_weights`, else the default)."""
        return defaults.RULE_WEIGHTING if self.rule_weights is None else self.rule_weights

    def identity(self) -> dict[str, Any]:
        """The fields a resumed run must share with the original, as ``config.json`` writes them."""
        unset = tuple(name for name in ("rule_weights", "llm_temperature", "flagged_rules")
                      if getattr(self, name) is None)
        return {**settings_json(self, drop=("games", "game_ids", "extra", *unset)), "extra": self.extra.to_json()}

    def counts(self) -> dict[str, Any]:
        """How many games were asked for: the ``config.json`` fields a resumed run may change."""
        return {"games": self.games, "game_ids": list(self.game_ids)}

    def to_json(self) -> dict[str, Any]:
        """The ``config.json`` record: :meth:`identity` and :meth:`counts`."""
        return {**self.identity(), **self.counts()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], file: str | None = None) -> PlayConfig:
        """The settings a ``config.json`` records (keys that are no field, such as its ``inputs``, ignored; a
        setting it lacks takes its default); one without ``bench`` and ``questioner`` is a ``run-config`` error
        naming ``file``."""
        missing = [key for key in ("bench", "questioner") if not isinstance(data.get(key), str)]
        if missing:
            raise KariError(f"the run configuration names no {' and no '.join(missing)}", file=file,
                            code="run-config")
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**{**known, "game_ids": tuple(known.get("game_ids") or ())})


def uses_llm(config: PlayConfig) -> bool:
    """Does an LLM play a part (questioner, Oracle or Checker) of this run?"""
    return any(getattr(config, part) == LLM for part in LLM_PARTS)


def check_settings_values(config: PlayConfig) -> None:
    """A :class:`KariError` for a setting out of its range or an unknown name (before anything is read)."""
    check_weighting(config.weighting)
    choice(config.flagged, FlaggedRules, "--flagged-rules", code="game-config")
    if config.budget < 1 or config.max_rejections < 1 or config.reps_k < 1 or config.max_tokens < 1:
        raise KariError("budget, max rejections, representatives per affordance and max tokens must be >= 1",
                        code="game-config")
    if not 0.0 <= config.sampling_temperature <= 2.0:
        raise KariError(f"--llm-temperature must be in [0, 2] (got {config.sampling_temperature:g})",
                        code="game-config")
    if not 0.0 <= config.eps < 1.0 or not 0.0 <= config.smoothing <= 1.0 or not 0.0 <= config.oracle_noise <= 0.5:
        raise KariError("--eps must be in [0, 1), --smoothing in [0, 1] and --oracle-noise in [0, 0.5]",
                        code="game-config")


def check_weighting(weighting: str) -> None:
    """A :class:`KariError` for an unknown rule weighting (:class:`~kari.core.game_names.RuleWeighting`)."""
    choice(weighting, RuleWeighting, "rule weighting", code="game-config")
