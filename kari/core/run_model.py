"""Which model a run was played with (:class:`RunModel`, the ``model`` entry of a run's ``summary.json``).

A run records the model name kari resolved (from ``--model`` or ``$KARI_LLM_MODEL``), the model ids the server
reported in its replies (the chat completion's ``model`` field, counted), the host of the base URL, the LLM
temperature and sampling seed of its LLM player, and kari's version. A run no LLM played records ``llm: false``;
a run directory of an older kari has no entry at all (:data:`NOT_RECORDED`).

>>> m = RunModel.from_json({"llm": True, "name": "m1", "served": {"m1-q4": 3}, "host": "127.0.0.1:8080"})
>>> m.label, m.to_json()["served"]
('m1', {'m1-q4': 3})
>>> RunModel(llm=False).label
'symbolic'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from kari import __version__

SYMBOLIC = "symbolic"
"""The model column of a run no LLM played."""
NOT_RECORDED = "not recorded"
"""The model column of an LLM run whose directory names no model (an older kari, the model from the environment)."""


def url_host(base_url: str | None) -> str | None:
    """``host[:port]`` of a base URL (None without one); never its path, user or query."""
    if not base_url:
        return None
    parsed = urlparse(base_url)
    if not parsed.hostname:
        return None
    return parsed.hostname + (f":{parsed.port}" if parsed.port else "")


def sampling_seed(seed: int | None, run: int) -> int | None:
    """The sampling seed sent for run ``run`` of a run whose seed is ``seed`` (run k: ``seed + k``)."""
    return None if seed is None else seed + run


@dataclass(frozen=True)
class RunModel:
    """The model of one run (module docstring). ``seed`` is that of run 0 (run k sends ``seed + k``; None when
    no seed was sent: at temperature 0), ``served`` the replies per reported model id, ``parts`` what the LLM
    played (questioner, oracle, checker, solver, judge)."""

    llm: bool
    name: str | None = None
    served: Mapping[str, int] = field(default_factory=dict)
    host: str | None = None
    temperature: float | None = None
    seed: int | None = None
    parts: tuple[str, ...] = ()
    kari_version: str = __version__

    @property
    def label(self) -> str:
        """The model column: the name, ``symbolic`` without an LLM, ``not recorded`` without a name."""
        if not self.llm:
            return SYMBOLIC
        return self.name or NOT_RECORDED

    @property
    def served_label(self) -> str:
        """The reported model ids, most replies first ('' when the server named none)."""
        return ", ".join(name for name, _ in sorted(self.served.items(), key=lambda kv: (-kv[1], kv[0])))

    def to_json(self) -> dict[str, Any]:
        return {"llm": self.llm, "name": self.name, "served": dict(sorted(self.served.items())), "host": self.host,
                "temperature": self.temperature, "seed": self.seed, "parts": list(self.parts),
                "kari_version": self.kari_version}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RunModel:
        served = data.get("served")
        return cls(llm=bool(data.get("llm")), name=data.get("name"),
                   served={str(k): int(v) for k, v in served.items()} if isinstance(served, Mapping) else {},
                   host=data.get("host"), temperature=data.get("temperature"), seed=data.get("seed"),
                   parts=tuple(data.get("parts") or ()), kari_version=str(data.get("kari_version") or ""))

    def with_served(self, usage: Mapping[str, Any] | None) -> RunModel:
        """The record with the reported model ids of a run's ``llm_usage`` (its ``served_models``)."""
        served = (usage or {}).get("served_models")
        if not isinstance(served, Mapping):
            return self
        return RunModel(self.llm, self.name, {str(k): int(v) for k, v in served.items()}, self.host,
                        self.temperature, self.seed, self.parts, self.kari_version)
