"""Settings of one induction run; everything that changes the result is part of the run's cache key."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from kari.errors import KariError

BACKENDS = ("offline", "openai")
NEGATIVE_SOURCES = ("auto", "labelled", "closed-world")
SEMANTICS = ("any-part", "strict")


@dataclass(frozen=True)
class InduceConfig:
    """Knobs of the KARI loop.

    ``negatives``: which objects count as known negatives for the offline Proposer: ``labelled`` (explicit
    negative labels / KB negative edges), ``closed-world`` (every input object that is not a positive), or
    ``auto`` (labelled when the affordance has any, else closed-world).
    """

    seed: int = 0
    groups: int = 3
    max_atoms: int = 3
    seed_branches: int = 3
    repair_attempts: int = 2
    min_precision: float = 0.4
    min_support: int = 1
    negatives: str = "auto"
    semantics: str = "any-part"
    backend: str = "offline"
    solver_time_limit: float = 10.0
    embed_accept: float = 0.85
    embed_reject: float = 0.55
    affordances: tuple[str, ...] = ()
    limit: int | None = None

    def __post_init__(self) -> None:
        checks = [
            (self.backend in BACKENDS, f"--llm must be one of {', '.join(BACKENDS)}"),
            (self.negatives in NEGATIVE_SOURCES, f"negatives must be one of {', '.join(NEGATIVE_SOURCES)}"),
            (self.semantics in SEMANTICS, f"semantics must be one of {', '.join(SEMANTICS)}"),
            (self.groups >= 1, "groups must be >= 1"),
            (1 <= self.max_atoms <= 8, "max atoms per branch must be between 1 and 8"),
            (self.seed_branches >= 1, "seed branches must be >= 1"),
            (self.repair_attempts >= 0, "repair attempts must be >= 0"),
            (0.0 <= self.min_precision <= 1.0, "min precision must be between 0 and 1"),
            (self.min_support >= 1, "min support must be >= 1"),
            (0.0 <= self.embed_reject <= self.embed_accept <= 1.0, "need 0 <= embed-reject <= embed-accept <= 1"),
            (self.limit is None or self.limit >= 1, "--limit must be >= 1"),
        ]
        for ok, message in checks:
            if not ok:
                raise KariError(message, code="induce-config")

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready copy (the manifest's ``config``)."""
        data = asdict(self)
        data["affordances"] = list(self.affordances)
        return data

    def result_fields(self) -> dict[str, Any]:
        """The fields that change induced rules (input selection is fingerprinted separately)."""
        data = self.to_json()
        for key in ("affordances", "limit", "solver_time_limit"):
            data.pop(key)
        return data
