"""Settings of one induction run; everything that changes the result is part of the run's cache key.

A leaf: the records and their checks, with every default named once (:class:`ProposerSettings` holds the
offline Proposer's criterion and its defaults; :class:`InduceConfig` takes its defaults from there). The
components a run builds from them are made in :mod:`kari.induce.roles`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from kari.domain.terms import Semantics
from kari.errors import KariError


class Backend(StrEnum):
    """Who plays the Proposer, Validator and Auditor: the symbolic default or an OpenAI-compatible LLM."""

    OFFLINE = "offline"
    OPENAI = "openai"


class Negatives(StrEnum):
    """Which objects count as known negatives (see :class:`InduceConfig`)."""

    AUTO = "auto"
    LABELLED = "labelled"
    CLOSED_WORLD = "closed-world"


BACKENDS: tuple[str, ...] = tuple(Backend)
NEGATIVE_SOURCES: tuple[str, ...] = tuple(Negatives)
SEMANTICS: tuple[str, ...] = tuple(Semantics)
LIFT_TOLERANCE = 0.05
"""The precision a lifted branch may lose (:mod:`kari.induce.guards`)."""
SOLVER_TIME_LIMIT = 10.0
"""Seconds per solver call of the Proposer and the guards."""
SEED_BRANCHES = 3
"""Branches the offline Proposer seeds a rule with."""
EMBED_ACCEPT, EMBED_REJECT = 0.85, 0.55
"""The Auditor's embedding similarity above which a new value is a synonym, and below which it is new."""


@dataclass(frozen=True)
class ProposerSettings:
    """The offline Proposer's criterion (:mod:`kari.induce.offline`); :mod:`kari.induce.tuning` chooses
    ``min_coverage`` and ``max_atoms`` by inner cross-validation. Its defaults are the run's defaults."""

    max_atoms: int = 3
    min_support: int = 2
    min_coverage: float = 0.1
    min_objects: int = 3
    m_estimate: float = 2.0
    min_precision: float = 0.3
    min_gain: float = 0.02
    strict: bool = False

    def constants(self, prior: float, positives: int) -> dict[str, int]:
        """The ``#const`` values of ``solver/propose.lp`` (percentages as integers) for ``positives`` known
        positives: the support floor is ``min_support`` or ``min_coverage`` of them, whichever is larger."""
        support = max(self.min_support, math.ceil(self.min_coverage * positives - 1e-9))
        return {"k": self.max_atoms, "min_sup": support, "min_freq": self.min_objects,
                "m": round(self.m_estimate), "prior": round(100 * prior), "min_prec": round(100 * self.min_precision),
                "strict": int(self.strict)}

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


DEFAULT_CRITERION = ProposerSettings()
"""The offline Proposer's default criterion (the defaults of :class:`InduceConfig` too)."""


@dataclass(frozen=True)
class InduceConfig:
    """Knobs of the KARI loop.

    ``negatives``: which objects count as known negatives for the offline Proposer: ``labelled`` (explicit
    negative labels / KB negative edges), ``closed-world`` (every input object that is not a positive), or
    ``auto`` (labelled when the affordance has any, else closed-world).

    The offline Proposer's criterion: ``max_atoms``, ``min_support`` / ``min_coverage`` (covered positives: a
    count and a share), ``min_objects`` (objects holding each atom), ``min_precision`` with ``m_estimate``,
    ``min_gain`` (training F1 a branch must add); with ``tune`` the fields of :data:`kari.induce.tuning.GRID`
    are chosen by inner cross-validation on the training objects. ``lift`` / ``lift_tolerance``: the guard that
    lifts every proposed branch up the taxonomy while its precision holds (both backends).
    """

    seed: int = 0
    groups: int | None = None
    max_atoms: int = DEFAULT_CRITERION.max_atoms
    seed_branches: int = SEED_BRANCHES
    repair_attempts: int = 2
    min_precision: float = DEFAULT_CRITERION.min_precision
    min_support: int = DEFAULT_CRITERION.min_support
    min_coverage: float = DEFAULT_CRITERION.min_coverage
    min_objects: int = DEFAULT_CRITERION.min_objects
    m_estimate: float = DEFAULT_CRITERION.m_estimate
    min_gain: float = DEFAULT_CRITERION.min_gain
    lift: bool = True
    lift_tolerance: float = LIFT_TOLERANCE
    tune: bool = True
    negatives: str = Negatives.AUTO
    semantics: str = Semantics.ANY_PART
    backend: str = Backend.OFFLINE
    solver_time_limit: float = SOLVER_TIME_LIMIT
    embed_accept: float = EMBED_ACCEPT
    embed_reject: float = EMBED_REJECT
    affordances: tuple[str, ...] = ()
    limit: int | None = None

    def __post_init__(self) -> None:
        checks = [
            (self.backend in BACKENDS, f"--llm must be one of {', '.join(BACKENDS)}"),
            (self.negatives in NEGATIVE_SOURCES, f"negatives must be one of {', '.join(NEGATIVE_SOURCES)}"),
            (self.semantics in SEMANTICS, f"semantics must be one of {', '.join(SEMANTICS)}"),
            (self.groups is None or self.groups >= 1, "groups must be >= 1"),
            (1 <= self.max_atoms <= 8, "max atoms per branch must be between 1 and 8"),
            (self.seed_branches >= 1, "seed branches must be >= 1"),
            (self.repair_attempts >= 0, "repair attempts must be >= 0"),
            (0.0 <= self.min_precision <= 1.0, "min precision must be between 0 and 1"),
            (self.min_support >= 1, "min support must be >= 1"),
            (self.min_objects >= 1, "min objects must be >= 1"),
            (0.0 <= self.min_coverage <= 1.0, "min coverage must be between 0 and 1"),
            (self.m_estimate >= 0, "the m-estimate weight must be >= 0"),
            (0.0 <= self.min_gain < 1.0, "the min F1 gain must be between 0 and 1"),
            (0.0 <= self.lift_tolerance <= 1.0, "the lift tolerance must be between 0 and 1"),
            (0.0 <= self.embed_reject <= self.embed_accept <= 1.0, "need 0 <= embed-reject <= embed-accept <= 1"),
            (self.limit is None or self.limit >= 1, "--limit must be >= 1"),
        ]
        for ok, message in checks:
            if not ok:
                raise KariError(message, code="induce-config")

    @property
    def rounds(self) -> int:
        """Rounds of the loop (groups of positives): ``groups``, else 3 for an LLM (the paper's loop) and 1 offline
        (the symbolic Proposer judges branches statistically; a third of the positives is too few)."""
        return self.groups if self.groups is not None else (1 if self.backend == Backend.OFFLINE else 3)

    def proposer_settings(self) -> ProposerSettings:
        """The offline Proposer's criterion of this run."""
        return ProposerSettings(max_atoms=self.max_atoms, min_support=self.min_support,
                                min_coverage=self.min_coverage, min_objects=self.min_objects,
                                m_estimate=self.m_estimate, min_precision=self.min_precision,
                                min_gain=self.min_gain, strict=self.semantics == Semantics.STRICT)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready copy (the manifest's ``config``)."""
        data = asdict(self)
        data["affordances"] = list(self.affordances)
        data["rounds"] = self.rounds
        return data

    def result_fields(self) -> dict[str, Any]:
        """The fields that change induced rules (input selection is fingerprinted separately)."""
        data = self.to_json()
        for key in ("affordances", "limit", "solver_time_limit"):
            data.pop(key)
        return data
