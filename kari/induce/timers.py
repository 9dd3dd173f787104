"""Per-operation timers (calls / total / max seconds), reported at the end of a run."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


@dataclass
class Timers:
    """``with timers("propose"): ...`` accumulates calls, total and max wall time per operation."""

    stats: dict[str, list[float]] = field(default_factory=dict)  # name -> [calls, total, max]

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            elapsed = time.perf_counter() - start
            entry = self.stats.setdefault(name, [0, 0.0, 0.0])
            entry[0] += 1
            entry[1] += elapsed
            entry[2] = max(entry[2], elapsed)

    def merge(self, stats: dict[str, list[float]]) -> None:
        """Add another :class:`Timers`' ``stats`` (a worker process's) to these: calls and totals summed, the
        larger max kept."""
        for name, (calls, total, longest) in stats.items():
            entry = self.stats.setdefault(name, [0, 0.0, 0.0])
            entry[0] += calls
            entry[1] += total
            entry[2] = max(entry[2], longest)

    def rows(self) -> list[dict[str, float | int | str]]:
        """One row per operation, slowest total first."""
        return [
            {"operation": k, "calls": int(v[0]), "total_s": round(v[1], 4), "max_s": round(v[2], 4)}
            for k, v in sorted(self.stats.items(), key=lambda kv: -kv[1][1])
        ]

    def table(self) -> str:
        """A plain-text table for the terminal."""
        lines = [f"{'operation':<12} {'calls':>6} {'total s':>9} {'max s':>8}"]
        lines += [f"{r['operation']:<12} {r['calls']:>6} {r['total_s']:>9.3f} {r['max_s']:>8.3f}" for r in self.rows()]
        return "\n".join(lines)
