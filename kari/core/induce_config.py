"""Settings of one induction run; everything that changes the result is part of the run's cache key.

A leaf: the records and their checks, with every default named once (:class:`ProposerSettings` holds the
offline Proposer's criterion and its defaults; :class:`InduceConfig` takes its defaults from there). The
components a run builds from them are made in :mod:`kari.induce.roles`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from typing import Any

from kari.core.terms import Semantics
from kari.errors import KariError, choice


class Backend(StrEnum):
    """Who plays the Proposer, Validator and Auditor: the symbolic default or an OpenAI-compatible LLM."""

    OFFLINE = "offline"
    OPENAI = "openai"


class Negatives(StrEnum):
    """Which objects count as known negatives (see :class:`InduceConfig`)."""

    AUTO = "auto"
    LABELLED = "labelled"
    CLOSED_WORLD = "closed-world"


class Grouping(StrEnum):
    """How KB verbs that mean the same are grouped before induction (:mod:`kari.induce.grouping`)."""

    LEMMA = "lemma"
    WORDNET = "wordnet"
    EMBEDDING = "embedding"
    NONE = "none"


class InputKind(StrEnum):
    """Where a run's evidence comes from: a benchmark's labels or a KB (:meth:`InduceConfig.for_input`)."""

    BENCH = "bench"
    DB = "db"


BACKENDS: tuple[str, ...] = tuple(Backend)
NEGATIVE_SOURCES: tuple[str, ...] = tuple(Negatives)
SEMANTICS: tuple[str, ...] = tuple(Semantics)
GROUPINGS: tuple[str, ...] = tuple(Grouping)
LIFT_TOLERANCE = 0.05
"""The precision a lifted branch may lose (:mod:`kari.induce.guards`)."""
SOLVER_TIME_LIMIT = 10.0
"""Seconds per solver call of the Proposer and the guards."""
SEED_BRANCHES = 3
"""Branches the offline Proposer seeds a rule with."""
EMBED_ACCEPT, EMBED_REJECT = 0.85, 0.55
"""The Auditor's embedding similarity above which a new value is a synonym, and below which it is new."""
DEFAULT_GROUPING = Grouping.WORDNET
"""The verb grouping of KB input (chosen in README: held-out precision and F1 of the matched rules)."""
GROUP_THRESHOLD = 0.8
"""The cosine a phrase needs to join an embedding cluster (``--group embedding``)."""
TUNE_MIN_POSITIVES = 10
"""Affordances with fewer positives are left out of the settings search (they cannot separate settings)."""


@dataclass(frozen=True)
class ProposerSettings:
    """The offline Proposer's criterion (:mod:`kari.induce.offline`); :mod:`kari.induce.tuning` chooses
    ``min_coverage`` and ``max_atoms`` by inner cross-validation. Its defaults are the run's defaults
    (benchmark input; :data:`KB_DEFAULTS` for KB input)."""

    max_atoms: int = 3
    min_support: int = 2
    min_coverage: float = 0.1
    min_objects: int = 3
    m_estimate: float = 2.0
    min_precision: float = 0.3
    min_gain: float = 0.02
    strict: bool = False
    beta: float = 1.0  # the rule's training F-beta is maximised (beta > 1 weighs recall more)

    def constants(self, prior: float, positives: int) -> dict[str, int]:
        """The ``#const`` values of ``solver/propose.lp`` (percentages as integers) for ``positives`` known
        positives: the support floor is ``min_support`` or ``min_coverage`` of them, whichever is larger, and
        never more than the positives there are (a KB verb with one positive object still gets its rule)."""
        support = max(self.min_support, math.ceil(self.min_coverage * positives - 1e-9))
        support = min(support, positives) if positives >= 1 else support
        return {"k": self.max_atoms, "min_sup": support, "min_freq": self.min_objects,
                "m": round(self.m_estimate), "prior": round(100 * prior), "min_prec": round(100 * self.min_precision),
                "strict": int(self.strict)}

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


DEFAULT_CRITERION = ProposerSettings()
"""The offline Proposer's default criterion (the defaults of :class:`InduceConfig` too)."""
BENCH_DEFAULTS: dict[str, float] = {"min_precision": DEFAULT_CRITERION.min_precision, "beta": DEFAULT_CRITERION.beta}
"""Benchmark input: labelled negatives, so precision is measured; the rule's F1 is maximised."""
KB_DEFAULTS: dict[str, float] = {"min_precision": 0.0, "beta": 2.0}
"""KB input: the KB states positives only (the closed world counts every object it does not name as a negative,
most of which are unknowns, not negatives), so a branch's precision has no floor and the rule's F2 is maximised
(recall weighs four times as much): chosen on the bundled KB and benchmark (README: the held-out precision and
F1 of the matched rules)."""


MIN_KB_OBJECTS = 2
"""KB input: the distinct KB objects (stated positives and pooled kin) a verb group needs to get a rule. 2 leaves out
the groups resting on one object with no KB kin: on the bundled, outside and ATOMIC pairs this left every matched
rule, the coverage and the F1 of the other rules as they were, or better (docs/results.md)."""


@dataclass(frozen=True)
class InduceConfig:
    """Knobs of the KARI loop.

    ``negatives``: which objects count as known negatives for the offline Proposer: ``labelled`` (explicit
    negative labels / KB negative edges), ``closed-world`` (every input object that is not a positive), or
    ``auto`` (labelled when the affordance has any, else closed-world).

    The offline Proposer's criterion: ``max_atoms``, ``min_support`` / ``min_coverage`` (covered positives: a
    count and a share), ``min_objects`` (objects holding each atom), ``min_precision`` with ``m_estimate``,
    ``min_gain`` (training F1 a branch must add); with ``tune`` the fields of :data:`kari.induce.tuning.GRID`
    are chosen by inner cross-validation on the training objects, over the affordances with at least
    ``tune_min_positives`` positives (sparser ones cannot separate settings; they get the chosen or default ones).

    ``grouping`` / ``group_threshold``: how KB verbs that mean the same are grouped before induction
    (:mod:`kari.induce.grouping`; KB input only). ``lift`` / ``lift_tolerance``: the guard that
    lifts every proposed branch up the taxonomy while its precision holds (both backends). ``complete`` /
    ``pool`` (KB input only): complete each object's properties from its KB classes
    (:mod:`kari.induce.completion`); pool each verb group's positives with their KB kin and weigh its implicit
    negatives (:mod:`kari.induce.pooling`); ``min_kb_objects`` (KB input): a verb group needs that many distinct
    KB objects among its positives and pooled kin to get a rule (thinner groups are left out, reason
    ``thin-evidence``).

    ``validator_batch``: objects per request of the LLM Validator (1: one object per request, the paper's loop).
    """

    seed: int = 0
    groups: int | None = None
    max_atoms: int = DEFAULT_CRITERION.max_atoms
    seed_branches: int = SEED_BRANCHES
    repair_attempts: int = 2
    min_precision: float | None = None  # None: BENCH_DEFAULTS, or KB_DEFAULTS for KB input
    min_support: int = DEFAULT_CRITERION.min_support
    min_coverage: float = DEFAULT_CRITERION.min_coverage
    min_objects: int = DEFAULT_CRITERION.min_objects
    m_estimate: float = DEFAULT_CRITERION.m_estimate
    min_gain: float = DEFAULT_CRITERION.min_gain
    beta: float | None = None  # None: BENCH_DEFAULTS, or KB_DEFAULTS for KB input
    lift: bool = True
    lift_tolerance: float = LIFT_TOLERANCE
    tune: bool = True
    negatives: str = Negatives.AUTO
    semantics: str = Semantics.ANY_PART
    backend: str = Backend.OFFLINE
    solver_time_limit: float = SOLVER_TIME_LIMIT
    embed_accept: float = EMBED_ACCEPT
    embed_reject: float = EMBED_REJECT
    grouping: str = DEFAULT_GROUPING
    group_threshold: float = GROUP_THRESHOLD
    tune_min_positives: int = TUNE_MIN_POSITIVES
    complete: bool = True
    pool: bool = True
    min_kb_objects: int = MIN_KB_OBJECTS
    affordances: tuple[str, ...] = ()
    limit: int | None = None
    validator_batch: int = 1

    def __post_init__(self) -> None:
        choice(self.backend, Backend, "backend (--llm)", code="induce-config")
        choice(self.negatives, Negatives, "negatives", code="induce-config")
        choice(self.semantics, Semantics, "semantics", code="induce-config")
        choice(self.grouping, Grouping, "verb grouping (--group)", code="induce-config")
        checks = [
            (self.groups is None or self.groups >= 1, "groups must be >= 1"),
            (1 <= self.max_atoms <= 8, "max atoms per branch must be between 1 and 8"),
            (self.seed_branches >= 1, "seed branches must be >= 1"),
            (self.repair_attempts >= 0, "repair attempts must be >= 0"),
            (self.min_precision is None or 0.0 <= self.min_precision <= 1.0, "min precision must be between 0 and 1"),
            (self.min_support >= 1, "min support must be >= 1"),
            (self.min_objects >= 1, "min objects must be >= 1"),
            (0.0 <= self.min_coverage <= 1.0, "min coverage must be between 0 and 1"),
            (self.m_estimate >= 0, "the m-estimate weight must be >= 0"),
            (0.0 <= self.min_gain < 1.0, "the min F1 gain must be between 0 and 1"),
            (self.beta is None or 0.0 < self.beta <= 10.0, "--beta must be in (0, 10]"),
            (0.0 <= self.lift_tolerance <= 1.0, "the lift tolerance must be between 0 and 1"),
            (0.0 <= self.embed_reject <= self.embed_accept <= 1.0, "need 0 <= embed-reject <= embed-accept <= 1"),
            (self.limit is None or self.limit >= 1, "--limit must be >= 1"),
            (0.0 <= self.group_threshold <= 1.0, "--group-threshold must be between 0 and 1"),
            (self.tune_min_positives >= 1, "--tune-min-positives must be >= 1"),
            (self.validator_batch >= 1, "--validator-batch must be >= 1"),
            (self.min_kb_objects >= 1, "--min-kb-objects must be >= 1"),
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
                                m_estimate=self.m_estimate,
                                min_precision=BENCH_DEFAULTS["min_precision"] if self.min_precision is None
                                else self.min_precision,
                                min_gain=self.min_gain, strict=self.semantics == Semantics.STRICT,
                                beta=BENCH_DEFAULTS["beta"] if self.beta is None else self.beta)

    def for_input(self, kind: str) -> InduceConfig:
        """The settings for ``kind`` of input (:class:`InputKind`): the fields left unset (None) get the defaults
        of that kind (:data:`BENCH_DEFAULTS`, :data:`KB_DEFAULTS`)."""
        defaults = KB_DEFAULTS if kind == InputKind.DB else BENCH_DEFAULTS
        precision = defaults["min_precision"] if self.min_precision is None else self.min_precision
        return replace(self, min_precision=precision, beta=defaults["beta"] if self.beta is None else self.beta)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready copy (the manifest's ``config``)."""
        data = asdict(self)
        data["affordances"] = list(self.affordances)
        data["rounds"] = self.rounds
        return data

    def result_fields(self) -> dict[str, Any]:
        """The fields that change induced rules (input selection is fingerprinted separately; the LLM Validator's
        batch only with an LLM)."""
        data = self.to_json()
        for key in ("affordances", "limit", "solver_time_limit", *(("validator_batch",) if self.backend ==
                                                                    Backend.OFFLINE else ())):
            data.pop(key)
        return data
