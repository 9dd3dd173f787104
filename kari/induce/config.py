"""Settings of one induction run; everything that changes the result is part of the run's cache key."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from kari.errors import KariError

if TYPE_CHECKING:
    from kari.domain.vocabulary import Vocabulary
    from kari.induce.guards import Guard
    from kari.induce.offline import ProposerSettings

BACKENDS = ("offline", "openai")
NEGATIVE_SOURCES = ("auto", "labelled", "closed-world")
SEMANTICS = ("any-part", "strict")
BENCH_DEFAULTS: dict[str, float] = {"min_precision": 0.3, "beta": 1.0}
"""Benchmark input: labelled negatives, so precision is measured; the rule's F1 is maximised."""
KB_DEFAULTS: dict[str, float] = {"min_precision": 0.0, "beta": 2.0}
"""KB input: the KB states positives only (the closed world counts every object it does not name as a negative,
most of which are unknowns, not negatives), so a branch's precision has no floor and the rule's F2 is maximised
(recall weighs four times as much): chosen on the bundled KB and benchmark (README: the held-out precision and
F1 of the matched rules)."""
GROUPINGS = ("lemma", "wordnet", "embedding", "none")  # kari.induce.grouping.GROUPINGS (import-free here)


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
    lifts every proposed branch up the taxonomy while its precision holds (both backends).
    """

    seed: int = 0
    groups: int | None = None
    max_atoms: int = 3
    seed_branches: int = 3
    repair_attempts: int = 2
    min_precision: float | None = None  # None: 0.3, or KB_DEFAULTS for KB input
    min_support: int = 2
    min_coverage: float = 0.1
    min_objects: int = 3
    m_estimate: float = 2.0
    min_gain: float = 0.02
    beta: float | None = None  # None: 1.0, or KB_DEFAULTS for KB input
    lift: bool = True
    lift_tolerance: float = 0.05
    tune: bool = True
    negatives: str = "auto"
    semantics: str = "any-part"
    backend: str = "offline"
    solver_time_limit: float = 10.0
    embed_accept: float = 0.85
    embed_reject: float = 0.55
    grouping: str = "wordnet"
    group_threshold: float = 0.8
    tune_min_positives: int = 10
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
            (self.grouping in GROUPINGS, f"--group must be one of {', '.join(GROUPINGS)}"),
            (0.0 <= self.group_threshold <= 1.0, "--group-threshold must be between 0 and 1"),
            (self.tune_min_positives >= 1, "--tune-min-positives must be >= 1"),
        ]
        for ok, message in checks:
            if not ok:
                raise KariError(message, code="induce-config")

    @property
    def rounds(self) -> int:
        """Rounds of the loop (groups of positives): ``groups``, else 3 for an LLM (the paper's loop) and 1 offline
        (the symbolic Proposer judges branches statistically; a third of the positives is too few)."""
        return self.groups if self.groups is not None else (1 if self.backend == "offline" else 3)

    def proposer_settings(self) -> ProposerSettings:
        """The offline Proposer's settings (:class:`kari.induce.offline.ProposerSettings`)."""
        from kari.induce.offline import ProposerSettings

        return ProposerSettings(max_atoms=self.max_atoms, min_support=self.min_support,
                                min_coverage=self.min_coverage, min_objects=self.min_objects,
                                m_estimate=self.m_estimate,
                                min_precision=BENCH_DEFAULTS["min_precision"] if self.min_precision is None
                                else self.min_precision,
                                min_gain=self.min_gain, strict=self.semantics == "strict",
                                beta=BENCH_DEFAULTS["beta"] if self.beta is None else self.beta)

    def for_input(self, kind: str) -> InduceConfig:
        """The settings for ``kind`` of input (``bench`` or ``db``): the fields left unset (None) get the defaults
        of that kind (:data:`BENCH_DEFAULTS`, :data:`KB_DEFAULTS`)."""
        defaults = KB_DEFAULTS if kind == "db" else BENCH_DEFAULTS
        return replace(self, **{k: v for k, v in defaults.items() if getattr(self, k) is None})

    def guard(self, vocab: Vocabulary) -> Guard:
        """The guards every proposal passes (:class:`kari.induce.guards.Guard`)."""
        from kari.induce.guards import Guard

        return Guard(vocab, lift_tolerance=self.lift_tolerance, strict=self.semantics == "strict", lift=self.lift,
                     time_limit=self.solver_time_limit)

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
