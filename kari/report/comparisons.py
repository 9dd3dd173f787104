"""The figures of ``report.json``: every row's SR and turns with 95% intervals, and every paired comparison.

A *row* is one run directory: SR with its Wilson interval over games (a player with several runs per game
counts its pooled SR over the games, which is conservative) and turns over the solved games with a seeded
bootstrap interval over games; the same for each target affordance and for the games whose target has / has
no matched rule (the split of :class:`kari.report.inputs.CoverageSource`).

A *comparison* pairs two runs on the same games: records are paired by ``(game, run)`` when they hide the same
object with the same target and candidates (``different_games`` counts the ``(game, run)`` keys that did not:
runs on other benchmarks); the delta is
``SR(b) - SR(a)`` over the pairs, with a paired bootstrap interval (whole games drawn with replacement, with
every run of a game), McNemar's exact two-sided p-value, and the discordant counts ``b`` (pairs ``a`` solved
and ``b`` did not) and ``c`` (the reverse). Turns are compared on the pairs both solved. Comparisons of kind
``rules`` are the Table 1 deltas (a player without rules as ``a``, the same player with rules of one source as
``b``: KB-anchored or benchmark-supervised), also on the games whose hidden object is no KB positive of its target's
KB rule; kind ``player`` are every other pair of runs, in the order given.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kari.core.game_names import RuleColumn, RuleOrigin
from kari.core.game_records import game_content
from kari.io.versions import REPORT_FORMAT
from kari.report.budget import budget_curve, run_budget
from kari.stats import LEVEL, RESAMPLES, bootstrap_ratio, excludes_zero, mcnemar_exact, t_interval, wilson

if TYPE_CHECKING:
    from kari.report.inputs import CoverageSource
    from kari.game.summary import RunData
    from kari.core.game_records import RuleFacts

Record = Mapping[str, Any]


@dataclass(frozen=True)
class Settings:
    """How intervals are computed: confidence level, bootstrap resamples and seed."""

    resamples: int = RESAMPLES
    seed: int = 0
    level: float = LEVEL


def _rounded(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(float(value), digits)


def _interval(pair: tuple[float, float] | None) -> list[float] | None:
    return None if pair is None else [round(pair[0], 6), round(pair[1], 6)]


def by_game(records: Sequence[Record]) -> dict[str, list[Record]]:
    """Records grouped by game id, in first-seen order."""
    groups: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        groups[record["game"]].append(record)
    return dict(groups)


def participant_of(record: Record) -> str | None:
    """The participant a record was played by (None: a kari player's record)."""
    return record.get("participant")


def has_participants(records: Sequence[Record]) -> bool:
    return any(participant_of(r) is not None for r in records)


def _cluster(record: Record) -> Any:
    """A record's cluster: its participant; a record without one is a cluster of its own."""
    who = participant_of(record)
    return ("participant", who) if who is not None else ("record", record["game"], record.get("run", 0))


def participant_sums(records: Sequence[Record]) -> dict[Any, list[float]]:
    """Per participant: [SR numerator, SR denominator, turn sum over solved games, solved games], each game's
    records weighing 1/n (n: the game's records), so the pooled ratio is the row's SR."""
    games = by_game(records)
    sums: dict[Any, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for rs in games.values():
        for r in rs:
            cell = sums[_cluster(r)]
            cell[0] += bool(r["success"]) / len(rs)
            cell[1] += 1 / len(rs)
            if r["success"]:
                cell[2] += r["n_turns"]
                cell[3] += 1
    return dict(sums)


def _boot(settings: Settings) -> dict[str, Any]:
    return {"resamples": settings.resamples, "seed": settings.seed, "level": settings.level}


def row_scores(records: Sequence[Record], settings: Settings) -> dict[str, Any]:
    """``games``, ``records``, SR with its Wilson interval over games, turns (solved) with a bootstrap interval;
    for records with participant ids also the participants and both intervals by a bootstrap over them."""
    games = by_game(records)
    success = [sum(bool(r["success"]) for r in rs) / len(rs) for rs in games.values()]
    turn_sum = [float(sum(r["n_turns"] for r in rs if r["success"])) for rs in games.values()]
    solved = [float(sum(bool(r["success"]) for r in rs)) for rs in games.values()]
    n = len(games)
    rate = sum(success) / n if n else None
    turns = sum(turn_sum) / sum(solved) if sum(solved) else None
    row = {
        "games": n, "records": len(records),
        "success_rate": _rounded(rate),
        "success_rate_ci": _interval(wilson(sum(success), n, settings.level)) if n else None,
        "avg_turns_solved": _rounded(turns),
        "avg_turns_solved_ci": _interval(bootstrap_ratio(turn_sum, solved, **_boot(settings))) if turns else None,
    }
    if has_participants(records):
        cells = list(participant_sums(records).values())
        row["participants"] = len({participant_of(r) for r in records} - {None})
        row["success_rate_ci_participants"] = _interval(bootstrap_ratio([c[0] for c in cells], [c[1] for c in cells],
                                                                        **_boot(settings)))
        row["avg_turns_solved_ci_participants"] = _interval(bootstrap_ratio(
            [c[2] for c in cells], [c[3] for c in cells], **_boot(settings))) if turns else None
    return row


def grouped_scores(records: Sequence[Record], key: Callable[[Record], str | None],
                   settings: Settings) -> dict[str, dict[str, Any]]:
    """:func:`row_scores` per group of ``key`` (records whose key is None are left out), groups sorted."""
    groups: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        value = key(record)
        if value is not None:
            groups[value].append(record)
    return {name: row_scores(groups[name], settings) for name in sorted(groups)}


def split_key(flags: Mapping[str, bool] | None, yes: str, no: str) -> Callable[[Record], str | None]:
    """A record's group by a per-game flag (``yes`` / ``no``; None when the game has no flag)."""
    def key(record: Record) -> str | None:
        flag = None if flags is None else flags.get(record["game"])
        return None if flag is None else (yes if flag else no)
    return key


def covered_split(records: Sequence[Record], covered: Mapping[str, bool],
                  settings: Settings | None = None) -> dict[str, dict[str, Any]]:
    """SR and turns, with their intervals (:func:`row_scores`), on the games ``covered`` marks covered and on the
    others."""
    return grouped_scores(records, split_key(covered, "covered", "uncovered"), settings or Settings())


def paired(a: Sequence[Record], b: Sequence[Record], settings: Settings,
           games: set[str] | None = None) -> dict[str, Any]:
    """The paired comparison of two runs' records (``b`` minus ``a``), on ``games`` only when given (by
    participant clusters when either run's records carry participant ids: :func:`paired_by_participants`)."""
    if has_participants(a) or has_participants(b):
        return paired_by_participants(a, b, settings, games)
    left = {(r["game"], r.get("run", 0)): r for r in a if games is None or r["game"] in games}
    right = {(r["game"], r.get("run", 0)): r for r in b if games is None or r["game"] in games}
    shared = [k for k in left if k in right]
    keys = [k for k in shared if same_game(left[k], right[k])]
    diff: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])  # sr diff, pairs, turn diff, both solved
    only_a = only_b = 0
    for key in keys:
        ra, rb = left[key], right[key]
        sa, sb = bool(ra["success"]), bool(rb["success"])
        only_a += sa and not sb
        only_b += sb and not sa
        cell = diff[key[0]]
        cell[0] += sb - sa
        cell[1] += 1
        if sa and sb:
            cell[2] += rb["n_turns"] - ra["n_turns"]
            cell[3] += 1
    cells = list(diff.values())
    pairs = len(keys)
    both = sum(c[3] for c in cells)
    sr_a = sum(bool(left[k]["success"]) for k in keys) / pairs if pairs else None
    sr_b = sum(bool(right[k]["success"]) for k in keys) / pairs if pairs else None
    delta = sr_b - sr_a if sr_a is not None and sr_b is not None else None
    interval = _bootstrap([c[0] for c in cells], [c[1] for c in cells], settings) if pairs else None
    return {
        "games": len(cells), "pairs": pairs, "different_games": len(shared) - pairs,
        "a_success_rate": _rounded(sr_a), "b_success_rate": _rounded(sr_b),
        "delta": _rounded(delta), "delta_ci": _interval(interval), "excludes_zero": excludes_zero(interval),
        "mcnemar_p": _rounded(mcnemar_exact(only_a, only_b), 8) if pairs else None,
        "discordant": {"b": only_a, "c": only_b},
        "turn_pairs": int(both),
        "delta_turns": _rounded(sum(c[2] for c in cells) / both) if both else None,
        "delta_turns_ci": _interval(_bootstrap([c[2] for c in cells], [c[3] for c in cells], settings))
        if both else None,
    }


def same_game(a: Record, b: Record) -> bool:
    """Are two records of one game id the same game (hidden object, target, candidates)? Runs on benchmarks whose
    game ids name other games (or an edited log) are never paired on them."""
    return game_content(a.get("object"), a.get("target"), a.get("candidates") or ()) == \
        game_content(b.get("object"), b.get("target"), b.get("candidates") or ())


def paired_by_participants(a: Sequence[Record], b: Sequence[Record], settings: Settings,
                           games: set[str] | None = None) -> dict[str, Any]:
    """``b`` minus ``a`` paired by game when records carry participant ids: the mean over the shared games of
    SR_b(game) - SR_a(game), with a cluster bootstrap over participants (a run without participant ids is held
    fixed at its per-game means); turns the same way on the solved records, when one run has participants."""
    left = {g: rs for g, rs in by_game(a).items() if games is None or g in games}
    right = {g: rs for g, rs in by_game(b).items() if games is None or g in games}
    common = [g for g in left if g in right]
    shared = [g for g in common if same_game(left[g][0], right[g][0])]
    sides = ((left, -1.0, has_participants(a)), (right, 1.0, has_participants(b)))
    share = 0.5 if all(people for _, _, people in sides) else 1.0
    cells: dict[Any, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for g in shared:  # a run without participants is fixed at its game mean (both have them: nothing is fixed)
        fixed = sum(sign * _rate(side[g]) for side, sign, people in sides if not people)
        for number, (side, sign, people) in enumerate(sides):
            if not people:
                continue
            records = side[g]
            for r in records:  # the game's cells sum to SR_b - SR_a over a weight of 1
                cell = cells[(number, _cluster(r))]
                cell[0] += (sign * bool(r["success"]) + fixed) / len(records)
                cell[1] += share / len(records)
    rate_a = sum(_rate(left[g]) for g in shared) / len(shared) if shared else None
    rate_b = sum(_rate(right[g]) for g in shared) / len(shared) if shared else None
    values = list(cells.values())
    interval = bootstrap_ratio([c[0] for c in values], [c[1] for c in values], **_boot(settings)) if shared else None
    turns = _turns_delta([r for g in shared for r in left[g]], [r for g in shared for r in right[g]], settings)
    return {
        "games": len(shared), "pairs": sum(len(side[g]) for g in shared for side, _, people in sides if people),
        "different_games": len(common) - len(shared), "clustered": "participants",
        "a_success_rate": _rounded(rate_a), "b_success_rate": _rounded(rate_b),
        "delta": _rounded(rate_b - rate_a) if rate_a is not None and rate_b is not None else None,
        "delta_ci": _interval(interval), "excludes_zero": excludes_zero(interval),
        "mcnemar_p": None, "discordant": {"b": None, "c": None}, **turns,
    }


def _rate(records: Sequence[Record]) -> float:
    return sum(bool(r["success"]) for r in records) / len(records)


def _turns_delta(a: Sequence[Record], b: Sequence[Record], settings: Settings) -> dict[str, Any]:
    """Mean turns over solved records, b minus a, with a bootstrap over the participants of the one run that
    has them (the other's mean held fixed); no interval when both or neither have them."""
    solved_a, solved_b = [r for r in a if r["success"]], [r for r in b if r["success"]]
    if not solved_a or not solved_b:
        return {"turn_pairs": 0, "delta_turns": None, "delta_turns_ci": None}
    mean_a = sum(r["n_turns"] for r in solved_a) / len(solved_a)
    mean_b = sum(r["n_turns"] for r in solved_b) / len(solved_b)
    interval = None
    if has_participants(a) != has_participants(b):
        people, other, sign = (b, mean_a, 1.0) if has_participants(b) else (a, mean_b, -1.0)
        cells = list(participant_sums(people).values())
        boot = bootstrap_ratio([c[2] for c in cells], [c[3] for c in cells], **_boot(settings))
        if boot is not None:
            low, high = sorted(sign * (x - other) for x in boot)
            interval = (low, high)
    return {"turn_pairs": sum(len(rs) for rs in (solved_a, solved_b) if has_participants(rs)),
            "delta_turns": _rounded(mean_b - mean_a),
            "delta_turns_ci": _interval(interval)}


SOURCE_LABELS = {RuleColumn.KB: "KB rules", RuleColumn.RULES: "benchmark rules"}
"""Table 1's rule sources: the KB-anchored rules (the paper's KARI) and the benchmark-supervised ones (the
cross-fitted ``RULES.cv`` of ``kari induce --bench --cv``, or any other rules file)."""


def _bootstrap(num: Sequence[float], den: Sequence[float], settings: Settings) -> tuple[float, float] | None:
    """The paired bootstrap interval of ``sum(num) / sum(den)`` with the report's settings."""
    return bootstrap_ratio(num, den, resamples=settings.resamples, seed=settings.seed, level=settings.level)


def table_key(run: RunData) -> tuple[str, str]:
    """A run's Table 1 row: (player, model). Runs of one player with different models are different rows, each
    paired with its own model's run without rules."""
    return run.questioner, run.model.label


def player_label(run: RunData) -> str:
    """The player as a comparison names it: ``llm [m1]`` when an LLM played, else the player alone."""
    return f"{run.questioner} [{run.model.label}]" if run.model.llm else run.questioner


def rules_pairs(runs: Sequence[RunData]) -> list[tuple[RunData, RunData, RuleColumn]]:
    """``(without rules, with rules, source)`` per (player, model) and rule source (:data:`SOURCE_LABELS`) that
    has both: the first run of each kind (Table 1)."""
    first: dict[tuple[str, str], dict[str | None, RunData]] = {}
    for run in runs:
        first.setdefault(table_key(run), {}).setdefault(run.table_source, run)
    return [(cells[None], cells[src], src) for cells in first.values() for src in SOURCE_LABELS
            if None in cells and src in cells]


def _rule_flags(run: RunData, flag: Callable[[RuleFacts], bool]) -> dict[str, bool]:
    """A per-game flag of a run's own rule facts (whether the target has a rule, whether it covers the object)."""
    return {r.game: flag(r.rules) for r in run.records if r.rules is not None}


def _split(a: RunData, b: RunData, flags: Mapping[str, bool], names: tuple[str, str],
           settings: Settings) -> dict[str, Any]:
    return {name: paired(a.records, b.records, settings, {g for g, flag in flags.items() if flag == want})
            for name, want in zip(names, (True, False), strict=True)}


def comparisons(runs: Sequence[RunData], source: CoverageSource | None, settings: Settings) -> list[dict[str, Any]]:
    """Every paired comparison: the Table 1 deltas (kind ``rules``, one per rule source, split by whether the
    b run's own rules cover the target and the hidden object, and restricted to the games whose hidden object is
    no KB positive of its target's KB rule), then every other pair of runs in the order given (kind ``player``)."""
    out = []
    table = rules_pairs(runs)
    done = {(id(a), id(b)) for a, b, _ in table}
    kb_evidence = source.kb_evidence if source is not None else {}
    for a, b, src in table:
        entry = {"kind": "rules", "source": src, "label": f"{player_label(a)}: +{SOURCE_LABELS[src]}",
                 "model": a.model.label, "a": a.label, "b": b.label, **paired(a.records, b.records, settings)}
        has_rule = _rule_flags(b, lambda f: f.target_has_rule)
        entry["by_rule_coverage"] = _split(a, b, has_rule, ("covered", "uncovered"),
                                           settings)
        entry["by_rule_covers_object"] = _split(a, b, _rule_flags(b, lambda f: f.target_rule_covers_object),
                                                ("covers", "does_not_cover"), settings)
        if kb_evidence:
            entry["without_kb_evidence"] = paired(a.records, b.records, settings,
                                                  {g for g, flag in kb_evidence.items() if not flag})
        out.append(entry)
    for i, a in enumerate(runs):
        for b in runs[i + 1:]:
            if (id(a), id(b)) not in done and (id(b), id(a)) not in done:
                out.append({"kind": "player", "label": f"{b.label} vs {a.label}", "a": a.label, "b": b.label,
                            **paired(a.records, b.records, settings)})
    return out


def over_runs(records: Sequence[Record], settings: Settings) -> dict[str, Any] | None:
    """SR of each repeat (``run`` index) over its games, their mean and the t interval over the repeats (None
    for a run of one repeat): how much the result moves from one sampling of the same games to the next."""
    groups: dict[int, list[Record]] = defaultdict(list)
    for record in records:
        groups[int(record.get("run", 0))].append(record)
    if len(groups) < 2:
        return None
    rates = [sum(bool(r["success"]) for r in groups[k]) / len(groups[k]) for k in sorted(groups)]
    interval = t_interval(rates, settings.level)
    return {"runs": len(rates), "success_rate_by_run": [_rounded(v) for v in rates],
            "mean": _rounded(sum(rates) / len(rates)), "ci": _interval(interval)}


def run_row(run: RunData, source: CoverageSource | None, settings: Settings) -> dict[str, Any]:
    """One run's row of ``report.json``."""
    cfg = run.config
    model = run.model
    row: dict[str, Any] = {
        "run": run.label, "path": str(run.path), "questioner": cfg.questioner, "player": run.questioner,
        "model": model.label, "served_model": model.served_label or None, "model_info": model.to_json(),
        "tokens": run.tokens,
        "rules": run.with_rules, "oracle": cfg.oracle, "checker": cfg.checker,
        "runs_per_game": max((len(rs) for rs in by_game(run.records).values()), default=0),
        **row_scores(run.records, settings),
    }
    row["success_rate_over_runs"] = over_runs(run.records, settings)
    row["sr_by_budget"] = budget_curve(run.records, run_budget(cfg), settings.level)
    covered = source.covered if source else None
    row["by_rule_coverage"] = grouped_scores(run.records, split_key(covered, "covered", "uncovered"), settings) \
        if covered else None
    covers = source.covers_object if source else None
    row["by_rule_covers_object"] = grouped_scores(run.records, split_key(covers, "covers", "does_not_cover"),
                                                  settings) if covers else None
    evidence = source.kb_evidence if source else None
    row["without_kb_evidence"] = row_scores([r for r in run.records if not evidence.get(r.game, False)],
                                            settings) if evidence else None
    row["rule_source"] = run.rule_source
    row["by_affordance"] = grouped_scores(run.records, lambda r: r["target"], settings)
    return row


def report_data(runs: Sequence[RunData], source: CoverageSource | None, settings: Settings) -> dict[str, Any]:
    """The whole ``report.json`` object."""
    return {
        "format": REPORT_FORMAT.tag,
        "level": settings.level, "resamples": settings.resamples, "seed": settings.seed,
        "coverage_source": None if source is None else source.to_json(),
        "kb_coverage": None if source is None or source.kind != RuleOrigin.KB else source.kb_summary(),
        "runs": [run_row(run, source, settings) for run in runs],
        "comparisons": comparisons(runs, source, settings),
    }
