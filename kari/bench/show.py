"""``kari bench show``: what a benchmark directory holds, at a glance: its affordances (ids, descriptions, label
and game counts), objects, labels and games."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from kari.bench.reader import load_benchmark


@dataclass(frozen=True)
class AffordanceRow:
    """One affordance with its label counts and how many games have it as target or as a candidate."""

    id: str
    description: str
    positives: int
    negatives: int
    games_as_target: int
    games_as_candidate: int


@dataclass(frozen=True)
class BenchOverview:
    """Counts of a benchmark directory."""

    root: str
    objects: int
    objects_with_parts: int
    properties: int
    labels: int
    positive_labels: int
    games: int
    candidates_per_game: list[int]  # distinct candidate counts, sorted
    affordances: list[AffordanceRow]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def text(self) -> str:
        """A short human-readable summary with one table row per affordance."""
        sizes = "/".join(map(str, self.candidates_per_game)) or "-"
        lines = [f"benchmark {self.root}",
                 f"  objects: {self.objects} ({self.objects_with_parts} with parts, {self.properties} properties)",
                 f"  labels: {self.labels} ({self.positive_labels} true)",
                 f"  games: {self.games} ({sizes} candidates each)",
                 f"  affordances: {len(self.affordances)}", ""]
        width = max((len(a.id) for a in self.affordances), default=2)
        lines.append(f"{'id':<{width}}  {'pos':>4}  {'neg':>4}  {'target':>6}  {'cand':>5}  description")
        for a in self.affordances:
            lines.append(f"{a.id:<{width}}  {a.positives:>4}  {a.negatives:>4}  {a.games_as_target:>6}  "
                         f"{a.games_as_candidate:>5}  {a.description}")
        lines += ["", "pos/neg: objects labelled true/false; target: games with this target; cand: games listing it "
                      "as a candidate."]
        return "\n".join(lines) + "\n"


def bench_overview(root: str | Path) -> BenchOverview:
    """Load the benchmark at ``root`` (clear one-line errors on bad files) and count what it holds."""
    bench = load_benchmark(root, None)  # ids and labels only
    targets = Counter(g.target for g in bench.games)
    candidates = Counter(c for g in bench.games for c in set(g.candidates))
    rows = [AffordanceRow(a.id, a.description, len(bench.positives(a.id)), len(bench.negatives(a.id)),
                          targets[a.id], candidates[a.id]) for a in sorted(bench.affordances.values(), key=lambda a: a.id)]
    objects = bench.objects.values()
    return BenchOverview(
        root=str(bench.root), objects=len(bench.objects), objects_with_parts=sum(1 for o in objects if o.parts),
        properties=sum(len(o.properties) for o in objects), labels=len(bench.labels),
        positive_labels=sum(1 for lab in bench.labels if lab.label), games=len(bench.games),
        candidates_per_game=sorted({len(g.candidates) for g in bench.games}), affordances=rows)
