"""KB coverage: which of a benchmark's affordances, and which of its games, a rule set reaches (method.md 4).

A benchmark affordance is *covered* when rule matching (:class:`kari.game.match.RuleMatcher`: sentence
similarity of the verbs, 0.7 by default) gives it a rule; a game is covered when its target is. The paper reports
67.4% of its games covered by its KB's rules and names this the method's bottleneck. :func:`kb_coverage` computes
the shares for any rule set and benchmark (also ``kari coverage``); :func:`kari.report.comparisons.covered_split`
gives the success rate of covered and uncovered games of a run side by side, with Wilson intervals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kari.core.benchmark import Benchmark
from kari.core.game_defaults import MATCH_THRESHOLD
from kari.core.game_names import MatchMode
from kari.game.match import RuleMatcher, kb_positives
from kari.rules.ast import Rule

if TYPE_CHECKING:
    from kari.solver.run import MatchRow
    from kari.embeddings import Embedder


@dataclass(frozen=True)
class KBCoverage:
    """The shares, and each benchmark affordance's match (None when no rule is similar enough)."""

    affordances: int
    affordances_covered: int
    games: int
    games_covered: int
    games_kb_positive: int  # covered games whose hidden object is a KB positive of the target's rule
    threshold: float
    mode: str
    matches: Mapping[str, dict[str, Any] | None] = field(default_factory=dict)
    rules: int = 0

    @property
    def affordance_share(self) -> float | None:
        return self.affordances_covered / self.affordances if self.affordances else None

    @property
    def game_share(self) -> float | None:
        return self.games_covered / self.games if self.games else None

    def lines(self) -> list[str]:
        """One line per figure, for the CLI and the reports."""
        how = ("identical verb ids" if self.mode == MatchMode.EXACT else
               f"sentence similarity >= {self.threshold:g} (all-MiniLM-L6-v2)")
        pct = (lambda n, d: f"{n} of {d} ({100 * n / d:.1f}%)" if d else f"{n} of 0")
        out = [f"KB coverage ({self.rules} rules matched by {how}): affordances "
               f"{pct(self.affordances_covered, self.affordances)}"]
        if self.games:
            out.append(f"KB coverage: games whose target has a matched rule {pct(self.games_covered, self.games)}; "
                       f"of them, hidden object a KB positive of that rule: {self.games_kb_positive}")
        return out

    def to_json(self) -> dict[str, Any]:
        return {"rules": self.rules, "affordances": self.affordances, "affordances_covered": self.affordances_covered,
                "affordance_share": _round(self.affordance_share), "games": self.games,
                "games_covered": self.games_covered, "game_share": _round(self.game_share),
                "games_kb_positive": self.games_kb_positive, "threshold": self.threshold, "match": self.mode,
                "matches": dict(self.matches)}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def kb_coverage(rules: Sequence[Rule], affordances: Sequence[str], games: Sequence[Any] = (), *,
                threshold: float = MATCH_THRESHOLD, mode: str = MatchMode.EMBEDDING,
                embedder: Embedder | None = None) -> KBCoverage:
    """Match every benchmark affordance to ``rules`` and count the covered affordances and games (``games``:
    objects with ``object`` and ``target``)."""
    matcher = RuleMatcher(rules, threshold, 1, embedder=embedder, mode=mode)
    found = matcher.match(affordances)
    matches = {a: (ms[0].to_json() if ms else None) for a, ms in found.items()}
    covered = [g for g in games if found.get(g.target)]
    evidence = sum(1 for g in covered if g.object in kb_positives(found[g.target][0].rule))
    return KBCoverage(len(found), sum(1 for ms in found.values() if ms), len(games), len(covered), evidence,
                      threshold, mode, matches, len(matcher.rules))


@dataclass(frozen=True)
class TargetMatching:
    """The matching ``kari coverage --bench`` hands the coverage step (:data:`kari.solver.run.TargetMatcher`):
    every benchmark affordance matched to the rules (:func:`kb_coverage`), as the KB coverage and the
    ``rule_matches`` rows ``(target, rule, verb, similarity, mode)``."""

    threshold: float = MATCH_THRESHOLD
    mode: str = MatchMode.EMBEDDING
    embedder: Embedder | None = None

    def __call__(self, rules: Sequence[Rule], bench: Benchmark) -> tuple[KBCoverage, list[MatchRow]]:
        kb = kb_coverage(rules, sorted(bench.affordances), bench.games, threshold=self.threshold, mode=self.mode,
                         embedder=self.embedder)
        rows = sorted((target, m["rule"], m["verb"], float(m["similarity"]), m["match"])
                      for target, m in kb.matches.items() if m is not None)
        return kb, rows
