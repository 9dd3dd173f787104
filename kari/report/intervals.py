"""The Markdown sections of ``kari report`` that show uncertainty: every row with its 95% intervals, Table 1 with
the paired delta, its interval and McNemar's p, one sentence per delta, the player-vs-player comparisons, the
rules delta on covered / uncovered games and SR per target affordance. They read ``report.json``'s object
(:func:`kari.report.comparisons.report_data`), so the Markdown and the JSON never disagree."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kari.io.escape import md

Row = Mapping[str, Any]


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def pct_ci(value: float | None, ci: Sequence[float] | None) -> str:
    """``56.7 [52.7, 60.6]`` (percent), ``-`` without a value."""
    if value is None:
        return "-"
    return pct(value) if ci is None else f"{pct(value)} [{pct(ci[0])}, {pct(ci[1])}]"


def turns_ci(value: float | None, ci: Sequence[float] | None) -> str:
    if value is None:
        return "-"
    return f"{value:.2f}" if ci is None else f"{value:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"


def points_ci(delta: float | None, ci: Sequence[float] | None) -> str:
    """A delta in percentage points with its interval: ``+4.9 [+1.2, +8.6]``."""
    if delta is None:
        return "-"
    text = f"{100 * delta:+.1f}"
    return text if ci is None else f"{text} [{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]"


def p_value(p: float | None) -> str:
    if p is None:
        return "-"
    return "< 0.0001" if p < 1e-4 else (f"{p:.4f}" if p < 0.01 else f"{p:.3f}")


def _level(data: Mapping[str, Any]) -> str:
    return f"{100 * data['level']:g}%"


def rows_table(data: Mapping[str, Any]) -> list[str]:
    """Every run with SR and turns and their intervals, overall and on covered / uncovered games."""
    lines = [f"## Every run with {_level(data)} intervals", "",
             "| run | model | games | SR % [CI] | turns [CI] | SR % covered [CI] | SR % uncovered [CI] | turns covered "
             "[CI] | turns uncovered [CI] | SR % over runs [CI] |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for row in data["runs"]:
        split = row.get("by_rule_coverage") or {}
        cov, unc = split.get("covered", {}), split.get("uncovered", {})
        repeats = row.get("success_rate_over_runs")
        lines.append(f"| {md(row['run'])} | {md(row.get('model', '-'))} | {row['games']} | "
                     f"{pct_ci(row['success_rate'], row['success_rate_ci'])} | "
                     f"{turns_ci(row['avg_turns_solved'], row['avg_turns_solved_ci'])} | "
                     f"{pct_ci(cov.get('success_rate'), cov.get('success_rate_ci'))} | "
                     f"{pct_ci(unc.get('success_rate'), unc.get('success_rate_ci'))} | "
                     f"{turns_ci(cov.get('avg_turns_solved'), cov.get('avg_turns_solved_ci'))} | "
                     f"{turns_ci(unc.get('avg_turns_solved'), unc.get('avg_turns_solved_ci'))} | "
                     + (f"{pct_ci(repeats['mean'], repeats['ci'])} ({repeats['runs']} runs)" if repeats else "-")
                     + " |")
    lines += ["", f"SR intervals are Wilson score intervals over games; turn intervals are percentile bootstraps "
                  f"over games ({data['resamples']:,} resamples, seed {data['seed']}); a player with several runs "
                  "per game (fix20q, or any player with --runs R) counts each game once, with its SR averaged over "
                  "the runs. **SR % over runs**: the mean of the runs' SRs with the t interval over the runs (the "
                  "spread from one run of the same games to the next, e.g. LLM sampling with --llm-temperature)."]
    people = [row for row in data["runs"] if row.get("participants")]
    if people:
        lines += ["", "Runs played by people (`kari serve`): a participant's games are not independent, so these "
                      "intervals draw whole participants (a cluster bootstrap over participants, each game's "
                      "records weighing equally):", "",
                  "| run | participants | records | SR % [CI over participants] | turns [CI over participants] |",
                  "|---|---:|---:|---:|---:|"]
        for row in people:
            lines.append(f"| {md(row['run'])} | {row['participants']} | {row['records']} | "
                         f"{pct_ci(row['success_rate'], row.get('success_rate_ci_participants'))} | "
                         f"{turns_ci(row['avg_turns_solved'], row.get('avg_turns_solved_ci_participants'))} |")
    covers = [row for row in data["runs"] if row.get("by_rule_covers_object")]
    if covers:
        lines += ["", "The same runs split by whether the target's matched rule covers the hidden object (the rule "
                      "a game got holds for the object it hides):", "",
                  "| run | SR % rule covers the object [CI] | SR % rule does not cover it [CI] |", "|---|---:|---:|"]
        for row in covers:
            split = row["by_rule_covers_object"]
            yes, no = split.get("covers", {}), split.get("does_not_cover", {})
            lines.append(f"| {md(row['run'])} | {pct_ci(yes.get('success_rate'), yes.get('success_rate_ci'))} "
                         f"({yes.get('games', 0)}) | {pct_ci(no.get('success_rate'), no.get('success_rate_ci'))} "
                         f"({no.get('games', 0)}) |")
    return lines


def _by_label(data: Mapping[str, Any]) -> dict[str, Row]:
    return {row["run"]: row for row in data["runs"]}


SOURCES = (("kb", "KB rules"), ("rules", "benchmark rules"))


def table1(data: Mapping[str, Any], *, subset: str | None = None) -> list[str]:
    """Table 1 with intervals: per player, SR without rules, with KB-anchored rules and with benchmark rules, each
    delta with its interval and McNemar's p. ``subset="without_kb_evidence"``: the same on the games whose hidden
    object is no KB positive of its target's KB rule."""
    rows = _by_label(data)
    deltas = [c for c in data["comparisons"] if c["kind"] == "rules"]
    if subset is not None and not any(c.get(subset) for c in deltas):
        return []
    paired = {c["a"] for c in deltas} | {c["b"] for c in deltas}
    title = (f"## Table 1 with {_level(data)} intervals and paired tests" if subset is None else
             "## Table 1 without the games whose hidden object is KB evidence of its target's rule")
    lines = [title, "",
             "| questioner | model | SR % [CI] | SR % +KB rules [CI] | delta KB (points) [CI] | McNemar p | SR % "
             "+benchmark rules [CI] | delta benchmark (points) [CI] | McNemar p |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    by_base: dict[str, dict[str, Mapping[str, Any]]] = {}
    for comp in deltas:
        by_base.setdefault(comp["a"], {})[comp.get("source", "rules")] = comp
    for base, comps in by_base.items():
        a = rows[base]
        first = next(iter(comps.values()))
        if subset is not None:
            cells = [f"{pct(first[subset]['a_success_rate'])} ({first[subset]['pairs']})"]
        else:
            cells = [pct_ci(a["success_rate"], a["success_rate_ci"])]
        for source, _ in SOURCES:
            comp = comps.get(source)
            if comp is None:
                cells += ["-", "-", "-"]
                continue
            cell = comp[subset] if subset is not None else comp
            b = rows[comp["b"]]
            sr = pct(cell["b_success_rate"]) if subset is not None else pct_ci(b["success_rate"], b["success_rate_ci"])
            cells += [sr, points_ci(cell["delta"], cell["delta_ci"]), p_value(cell["mcnemar_p"])]
        lines.append(f"| {md(a['player'])} | {md(a.get('model', '-'))} | " + " | ".join(cells) + " |")
    if subset is None:
        for row in data["runs"]:
            if row["run"] not in paired:
                cell = pct_ci(row["success_rate"], row["success_rate_ci"])
                name = row["player"] if row["player"] == row["run"] else f"{row['player']} ({row['run']})"
                column = {"kb": 1, None: 0}.get(row.get("rule_source"), 2) if row["rules"] else 0
                cells = ["-"] * 7
                cells[[0, 1, 4][column]] = cell
                lines.append(f"| {md(name)} | {md(row.get('model', '-'))} | " + " | ".join(cells) + " |")
        lines += ["", "**SR %**: without rules; **+KB rules**: with the KB-anchored rules (induced from the KB's "
                      "positives, matched to each candidate by sentence similarity: the paper's KARI); **+benchmark "
                      "rules**: with the benchmark-supervised rules (cross-fitted: each game gets the rules induced "
                      "without its hidden object's fold). Each **delta** is SR with those rules minus SR without, in "
                      "percentage points, over the games both runs played (paired by game and run), with a paired "
                      "bootstrap interval over games; **McNemar p** is the exact two-sided test on the discordant "
                      "games (their counts b and c are in the sentences below). Players without a partner run have "
                      "no delta."]
        lines += [""] + [f"- {delta_sentence(comp, data)}" for comp in deltas]
    else:
        lines += ["", "The same deltas on the games left when every game whose hidden object is one of the KB's "
                      "positive objects of its target's matched KB rule is removed (the KB evidence names that very "
                      "object: not a benchmark label, but knowledge of the object the game hides); SR % columns "
                      "without intervals, the games left in brackets."]
        lines += [""] + [f"- {delta_sentence({**comp, **comp[subset]}, data)}" for comp in deltas if comp.get(subset)]
    return lines


def kb_coverage_section(data: Mapping[str, Any]) -> list[str]:
    """The KB coverage: affordances and games whose target has a matched KB rule, and SR on covered and
    uncovered games per run, side by side."""
    kb = data.get("kb_coverage")
    if not kb:
        return []
    how = ("identical verb ids" if kb["match"] == "exact" else
           f"sentence similarity >= {kb['threshold']} (all-MiniLM-L6-v2)")
    share = (lambda n, d: f"{n} of {d} ({100 * n / d:.1f}%)" if d else f"{n} of 0")
    lines = ["## KB coverage", "",
             f"Rules: `{md(kb['rules_file'])}` ({kb['rules']} KB-anchored rules), matched to candidates by {how}. "
             f"Target affordances with a matched rule: {share(kb['affordances_covered'], kb['affordances'])}; games "
             f"whose target has one: {share(kb['games_covered'], kb['games'])} (the paper: 67.4%); of those, games "
             f"whose hidden object is itself a KB positive of the target's rule: {kb['games_kb_positive']}."
             + (f" Uncovered: {', '.join(f'`{md(t)}`' for t in kb['uncovered_affordances'])}."
                if kb["uncovered_affordances"] else ""), "",
             "| run | SR % covered [CI] (games) | SR % uncovered [CI] (games) |", "|---|---:|---:|"]
    for row in data["runs"]:
        split = row.get("by_rule_coverage") or {}
        cov, unc = split.get("covered", {}), split.get("uncovered", {})
        lines.append(f"| {md(row['run'])} | {pct_ci(cov.get('success_rate'), cov.get('success_rate_ci'))} "
                     f"({cov.get('games', 0)}) | {pct_ci(unc.get('success_rate'), unc.get('success_rate_ci'))} "
                     f"({unc.get('games', 0)}) |")
    return lines


def delta_sentence(comp: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    """One sentence: the delta, its interval, p, and whether the interval excludes zero."""
    if comp["delta"] is None:
        return f"{md(comp['label'])}: the two runs share no game, so there is no delta."
    verdict = ("the interval excludes zero: the difference is distinguishable from zero" if comp["excludes_zero"]
               else "the interval includes zero: the difference is not distinguishable from zero")
    if comp.get("clustered"):
        return (f"{md(comp['label'])} ({md(comp['b'])} vs {md(comp['a'])}): delta SR "
                f"{points_ci(comp['delta'], comp['delta_ci'])} "
                f"points over {comp['games']} shared games ({comp['pairs']} games played by participants; interval "
                f"by a cluster bootstrap over participants, no McNemar test); {verdict} at the {_level(data)} level.")
    return (f"{md(comp['label'])} ({md(comp['b'])} vs {md(comp['a'])}): delta SR {points_ci(comp['delta'], comp['delta_ci'])} "
            f"points over {comp['pairs']} paired games (McNemar p = {p_value(comp['mcnemar_p'])}, b = "
            f"{comp['discordant']['b']}, c = {comp['discordant']['c']}); {verdict} at the {_level(data)} level.")


def comparisons_table(data: Mapping[str, Any]) -> list[str]:
    """Every other pair of runs (player vs player)."""
    others = [c for c in data["comparisons"] if c["kind"] == "player"]
    if not others:
        return []
    lines = ["## Player vs player (paired on the same games)", "",
             "| comparison (b vs a) | pairs | SR % a | SR % b | delta SR (points) [CI] | McNemar p | b | c "
             "| delta turns [CI] (both solved) | excludes 0 |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for c in others:
        lines.append(f"| {md(c['label'])} | {c['pairs']} | {pct(c['a_success_rate'])} | {pct(c['b_success_rate'])} | "
                     f"{points_ci(c['delta'], c['delta_ci'])} | {p_value(c['mcnemar_p'])} | "
                     f"{count(c['discordant']['b'])} | {count(c['discordant']['c'])} | {turns_delta(c)} | "
                     f"{'yes' if c['excludes_zero'] else 'no'} |")
    lines += ["", "Each comparison pairs the records of run b and run a by (game, run); a player with 5 runs per game "
                  "paired with one that has 1 is compared on run 0 only. delta turns is b minus a on the pairs both "
                  "solved."]
    different = [c for c in others if c.get("different_games")]
    if different:
        lines += ["", "Not paired: " + "; ".join(f"{md(c['label'])}: {c['different_games']} game id(s) whose records "
                                                 "hide another object, target or candidates in the two runs"
                                                 for c in different)
                  + " (runs on other benchmarks, or a changed log): only games that are the same game are compared."]
    if any(c.get("clustered") for c in others):
        lines += ["", "A comparison with a run played by people (`kari serve`) pairs by game instead: its delta is "
                      "the mean over the shared games of SR b - SR a (pairs: the people's records on those games), its "
                      "interval a cluster bootstrap over participants, with no McNemar test; delta turns is b minus a "
                      "over all solved records, its interval over the participants of the one run that has them."]
    return lines


def count(value: int | None) -> str:
    return "-" if value is None else str(value)


def turns_delta(c: Mapping[str, Any]) -> str:
    if c["delta_turns"] is None:
        return "-"
    ci = c["delta_turns_ci"]
    return f"{c['delta_turns']:+.2f}" + ("" if ci is None else f" [{ci[0]:+.2f}, {ci[1]:+.2f}]")


COVERAGE_GROUPS = (("by_rule_coverage", "covered", "target has a matched rule"),
                   ("by_rule_coverage", "uncovered", "target has no matched rule"),
                   ("by_rule_covers_object", "covers", "the target's rule covers the hidden object"),
                   ("by_rule_covers_object", "does_not_cover", "the target's rule does not cover it"))


def coverage_deltas(data: Mapping[str, Any]) -> list[str]:
    """The rules delta on the games whose target has a matched rule (of the rules that run got) and on the
    others, and on the games whose target's rule covers the hidden object and on the others."""
    deltas = [c for c in data["comparisons"] if c["kind"] == "rules" and c.get("by_rule_coverage")]
    if not deltas:
        return []
    lines = ["## The rules delta by rule coverage", "",
             "| questioner | games | pairs | delta SR (points) [CI] | McNemar p | b | c |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for c in deltas:
        for field, group, text in COVERAGE_GROUPS:
            cell = (c.get(field) or {}).get(group)
            if cell and cell["pairs"]:
                lines.append(f"| {md(c['label'])} | {text} | {cell['pairs']} | {points_ci(cell['delta'], cell['delta_ci'])} "
                             f"| {p_value(cell['mcnemar_p'])} | {cell['discordant']['b']} | {cell['discordant']['c']} |")
    return lines


def affordance_table(data: Mapping[str, Any]) -> list[str]:
    """SR per target affordance (rows) and run (columns), with Wilson intervals and the games behind each."""
    runs = data["runs"]
    targets = sorted({t for row in runs for t in row["by_affordance"]})
    if not targets:
        return []
    lines = ["## SR % per target affordance [95% CI] (games)", "",
             "| target | " + " | ".join(md(row["run"]) for row in runs) + " |",
             "|---|" + "---:|" * len(runs)]
    for target in targets:
        cells = []
        for row in runs:
            cell = row["by_affordance"].get(target)
            cells.append("-" if cell is None else f"{pct_ci(cell['success_rate'], cell['success_rate_ci'])} "
                                                  f"({cell['games']})")
        lines.append(f"| {md(target)} | " + " | ".join(cells) + " |")
    return lines


def sections(data: Mapping[str, Any]) -> list[str]:
    """Every interval section, separated by blank lines."""
    out: list[str] = []
    for block in (table1(data), table1(data, subset="without_kb_evidence"), kb_coverage_section(data),
                  rows_table(data), coverage_deltas(data), comparisons_table(data), affordance_table(data)):
        if block:
            out += ["", *block]
    return out
