"""Scores of a run from its game records (method.md 4): SR, mean turns over solved games, IG per turn,
question dimensions per turn, per-affordance scores and the split by rule coverage of the target.

Runs of a stochastic player (Fix20Q: 5 runs) are pooled; SR is then the mean of the runs' success rates (all
runs play the same games) and ``success_rate_by_run`` lists each.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from kari.core.terms import Dimension
from kari.core.game_names import FLAGS, RULES_SUFFIX
from kari.game.questioners.registry import sees_rules
from kari.core.game_records import GameRecord, TurnRecord
from kari.game.summary import RunSummary, Score

__all__ = ["DIMENSIONS", "MIN_GAMES_PER_TURN", "OTHER_KINDS", "REJECTED", "RULES_SUFFIX", "coverage_split",
           "dimension_share_by_turn", "ig_by_turn", "question_kind", "reliable_turns", "score", "sees_rules", "split",
           "summarise"]

DIMENSIONS: tuple[str, ...] = tuple(Dimension)
MIN_GAMES_PER_TURN = 10
"""Per-turn means over fewer games than this are left out of figures (they stay in ``summary.json``)."""
REJECTED = "REJECTED"
"""The kind of a question the Checker refused for another reason than a flag."""
OTHER_KINDS: tuple[str, ...] = (*FLAGS, REJECTED)


def _mean(values: Iterable[float]) -> float | None:
    values = list(values)
    return round(statistics.fmean(values), 6) if values else None


def score(records: Sequence[GameRecord]) -> Score:
    """Distinct games, success rate (0..1, pooled over runs) and mean turns over the solved records of a set of
    records (None when empty): with ``--runs R`` a game has R records and counts once."""
    return Score(len({r.game for r in records}), _mean(1.0 if r.success else 0.0 for r in records),
                 _mean(r.n_turns for r in records if r.success))


def question_kind(turn: TurnRecord) -> str:
    """MATERIAL/SHAPE/SIZE/SURFACE of an accepted question; FUNCTION/CATEGORY when flagged; else REJECTED."""
    checker = turn.checker
    if checker.flag in OTHER_KINDS:
        return checker.flag
    if checker.accepted and checker.pairs:
        return str(checker.pairs[0]).split(":", 1)[0]
    return REJECTED


def ig_by_turn(records: Sequence[GameRecord]) -> tuple[list[float], list[int]]:
    """Mean IG_t over the games that reached turn t, and how many did."""
    sums: dict[int, float] = defaultdict(float)
    counts: Counter[int] = Counter()
    for record in records:
        for turn in record.turns:
            sums[turn.turn] += float(turn.ig)
            counts[turn.turn] += 1
    last = max(counts, default=0)
    return ([round(sums[t] / counts[t], 6) if counts[t] else 0.0 for t in range(1, last + 1)],
            [counts[t] for t in range(1, last + 1)])


def reliable_turns(games_by_turn: Sequence[int], min_games: int = MIN_GAMES_PER_TURN) -> list[int]:
    """The turns (1-based) that at least ``min_games`` games reached; every turn when the run itself has fewer
    games than that (nothing would be left to show, and every point is then equally thin)."""
    if not games_by_turn or max(games_by_turn) < min_games:
        return list(range(1, len(games_by_turn) + 1))
    return [t for t, n in enumerate(games_by_turn, 1) if n >= min_games]


def dimension_share_by_turn(records: Sequence[GameRecord]) -> list[dict[str, float]]:
    """For each turn index, the share of each question kind among the questions asked at that turn."""
    per_turn: dict[int, Counter[str]] = defaultdict(Counter)
    for record in records:
        for turn in record.turns:
            per_turn[turn.turn][question_kind(turn)] += 1
    out = []
    for t in range(1, max(per_turn, default=0) + 1):
        total = sum(per_turn[t].values())
        out.append({k: round(per_turn[t][k] / total, 6) for k in (*DIMENSIONS, *OTHER_KINDS) if per_turn[t][k]})
    return out


def split(records: Sequence[GameRecord], key: Callable[[GameRecord], Any]) -> dict[str, Score]:
    """:func:`score` of the records grouped by ``key`` (records whose key is None are left out)."""
    groups: dict[str, list[GameRecord]] = defaultdict(list)
    for record in records:
        value = key(record)
        if value is not None:
            groups[str(value)].append(record)
    return {name: score(groups[name]) for name in sorted(groups)}


def coverage_split(records: Sequence[GameRecord], covered: Mapping[str, bool] | None = None) -> dict[str, Score] | None:
    """Scores on games whose target has a matched rule (``covered``) and on the others (``uncovered``).

    ``covered`` maps game ids to that fact (e.g. taken from another run with rules); by default each record's own
    ``rules.target_has_rule`` is used. None when no record can be classified.
    """

    def key(record: GameRecord) -> str | None:
        flag = covered.get(record.game) if covered is not None else record.target_has_rule
        return None if flag is None else ("covered" if flag else "uncovered")

    groups = split(records, key)
    return groups or None


def summarise(records: Sequence[GameRecord]) -> RunSummary:
    """The ``summary.json`` figures of a run (without the run's settings: :meth:`RunSummary.with_run`)."""
    runs = sorted({r.run for r in records})
    by_run = {str(run): score([r for r in records if r.run == run]).success_rate for run in runs}
    ig, ig_n = ig_by_turn(records)
    turns = [t for r in records for t in r.turns]
    kinds = Counter(question_kind(t) for t in turns)
    times = [float(r.time_s) for r in records]
    overall = score(records)
    coverage = coverage_split(records)
    return RunSummary(
        games=len({r.game for r in records}),
        success_rate=overall.success_rate,
        avg_turns_solved=overall.avg_turns_solved,
        records=len(records),
        runs=len(runs),
        success_rate_by_run=by_run,
        success_rate_sd_over_runs=(round(statistics.pstdev(v or 0.0 for v in by_run.values()), 6)
                                   if len(by_run) > 1 else 0.0),
        avg_turns=_mean(r.n_turns for r in records),
        ig_by_turn=ig,
        ig_by_turn_games=ig_n,
        dimension_share={k: round(kinds[k] / len(turns), 6) for k in (*DIMENSIONS, *OTHER_KINDS) if kinds[k]},
        dimension_share_by_turn=dimension_share_by_turn(records),
        by_affordance=split(records, lambda r: r.target),
        rejected_questions=sum(1 for t in turns if not t.checker.accepted),
        forced_guesses=dict(Counter(r.forced for r in records if r.forced)),
        invalid_guesses=sum(1 for r in records if r.invalid_guess),
        time_s={"total": round(sum(times), 4), "mean": _mean(times), "max": round(max(times, default=0.0), 6)},
        by_rule_coverage=coverage,
        target_covered_share=None if coverage is None else _mean(1.0 if r.target_has_rule else 0.0 for r in records),
    )
