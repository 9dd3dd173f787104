"""Typed records of a played run, as its run directory holds them and as ``kari report`` reads them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kari.game.metrics import sees_rules
from kari.game.names import RULES_SUFFIX


@dataclass
class RunData:
    """A run directory's configuration, summary and records."""

    path: Path
    config: dict[str, Any]
    summary: dict[str, Any]
    records: list[dict[str, Any]]

    @property
    def label(self) -> str:
        return self.path.name

    @property
    def questioner(self) -> str:
        """The questioner without a ``+rules`` suffix (the Table 1 row), with the positives its soft belief may use
        when a run capped them (``greedy-ig@10``: the paper's 10 representatives)."""
        name = str(self.config.get("questioner"))
        name = name[: -len(RULES_SUFFIX)] if name.endswith(RULES_SUFFIX) else name
        reps = self.config.get("model_reps")
        return f"{name}@{reps}" if reps else name

    @property
    def with_rules(self) -> bool:
        """Did the player see matched rules (:func:`kari.game.metrics.sees_rules`)?"""
        return sees_rules(self.config)
