"""Scoring induced rules against the evidence (solver coverage) and the run's ``report.md``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from kari.core.benchmark import ObjectRecord
from kari.induce.inputs import Evidence
from kari.induce.loop import no_rule_reason
from kari.induce.records import InductionResult
from kari.induce.llmio import ROLES
from kari.io.escape import md
from kari.rules.ast import Rule
from kari.vocab.vocabulary import Vocabulary
from kari.core.terms import Semantics
from kari.domain.objects import object_view
from kari.rules import to_text
from kari.solver import covered_pairs


@dataclass(frozen=True)
class RuleScore:
    """One rule judged by the solver on its positives and known negatives."""

    affordance: str
    branches: int
    positives: int
    covered: int
    negatives: int
    false_positives: int

    @property
    def recall(self) -> float:
        return self.covered / self.positives if self.positives else 0.0

    @property
    def precision(self) -> float | None:
        """None when the rule covers nothing at all."""
        hits = self.covered + self.false_positives
        return self.covered / hits if hits else None

    @property
    def f1(self) -> float:
        p, r = self.precision or 0.0, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def plus(self, other: RuleScore) -> RuleScore:
        """The counts of both (e.g. two folds' held-out objects); branches: the larger number."""
        return RuleScore(self.affordance, max(self.branches, other.branches), self.positives + other.positives,
                         self.covered + other.covered, self.negatives + other.negatives,
                         self.false_positives + other.false_positives)

    def to_json(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "recall": round(self.recall, 4),
            "precision": None if self.precision is None else round(self.precision, 4),
            "f1": round(self.f1, 4),
        }


def score_rules(
    rules: Sequence[Rule],
    evidence: Mapping[str, Evidence],
    vocab: Vocabulary,
    *,
    negatives: str = "auto",
    semantics: str = Semantics.ANY_PART,
    time_limit: float = 120.0,
) -> dict[str, RuleScore]:
    """Recall on positives and false positives on known negatives per rule, decided by ``kari.solver``."""
    truth = {a: (ev.positives, ev.negatives(negatives)) for a, ev in evidence.items()}
    return score_on(rules, truth, vocab, semantics=semantics, time_limit=time_limit)


Truth = Mapping[str, tuple[Sequence[ObjectRecord], Sequence[ObjectRecord]]]
"""Affordance -> (positive objects, negative objects) to judge a rule on."""


def score_on(rules: Sequence[Rule], truth: Truth, vocab: Vocabulary, *, semantics: str = Semantics.ANY_PART,
             time_limit: float = 120.0) -> dict[str, RuleScore]:
    """Each rule (of an affordance in ``truth``) judged by the solver on the given positives and negatives."""
    rules = [r for r in rules if r.affordance in truth]
    objects = {o.id: o for r in rules for group in truth[r.affordance] for o in group}
    hits: dict[str, set[str]] = {}
    for affordance, obj in covered_pairs(rules, list(objects.values()), vocab, semantics, time_limit=time_limit) \
            if rules else ():
        hits.setdefault(affordance, set()).add(obj)
    out = {}
    for rule in rules:
        positives, negs = truth[rule.affordance]
        hit = hits.get(rule.affordance, set())
        out[rule.affordance] = RuleScore(
            rule.affordance,
            len(rule.branches()),
            len(positives),
            sum(o.id in hit for o in positives),
            len(negs),
            sum(o.id in hit for o in negs),
        )
    return out


RARE_OBJECTS = 3
"""A branch whose atom fewer than this many input objects hold is counted as resting on a rare value."""


def rare_branches(rules: Sequence[Rule], objects: Sequence[ObjectRecord], vocab: Vocabulary,
                  min_objects: int = RARE_OBJECTS) -> tuple[int, int]:
    """(branches with an atom that fewer than ``min_objects`` of ``objects`` hold, all branches): any-part
    reading with the taxonomy, over the closed object views."""

    held = Counter(fact for obj in objects for fact in object_view(obj, vocab).whole)
    branches = [b for rule in rules for b in rule.branches()]
    rare = sum(any(held[(a.predicate, a.value)] < min_objects for a in b.atoms()) for b in branches)
    return rare, len(branches)


def _why(result: InductionResult) -> str:
    """Why an affordance has no rule (a result written before kari recorded it: from its rounds)."""
    why = result.no_rule or no_rule_reason(result.rounds, result.dropped)
    return md(why)


LEFT_OUT_EXAMPLES = 8
"""Verbs named per reason in the report (``left_out.jsonl`` in the run directory lists every one)."""


def left_out_section(left_out: Sequence[Mapping[str, Any]]) -> list[str]:
    """The report's section on the KB verbs that got no rule: count, positives and examples per reason."""
    by_reason: dict[str, list[Mapping[str, Any]]] = {}
    for row in left_out:
        by_reason.setdefault(str(row["reason"]), []).append(row)
    lines = ["", "## Left out: KB verbs with no rule target (no action named, or too few KB objects)", "",
             f"{len(left_out)} KB verbs (every one in `left_out.jsonl`):", "",
             "| reason | verbs | their positives | examples (the word that decided) |", "| --- | ---: | ---: | --- |"]
    for reason, rows in sorted(by_reason.items()):
        examples = ", ".join(f"{md(r['raw'][0] if r['raw'] else r['verb'])} ({md(r['detail'])})"
                             for r in sorted(rows, key=lambda r: (-int(r["positives"]), str(r["verb"])))[:LEFT_OUT_EXAMPLES])
        lines.append(f"| {md(reason)} | {len(rows)} | {sum(int(r['positives']) for r in rows)} | {examples} |")
    return lines


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def unanswered_line(results: Mapping[str, InductionResult]) -> str | None:
    """How many atom labels the Validator gave no usable YES or NO (counted as NO), over how many objects and
    affordances; None when every label was answered (always so offline)."""
    per = {a: sum(len(keys) for keys in r.unanswered.values()) for a, r in results.items()}
    labels = sum(per.values())
    if not labels:
        return None
    objects = sum(len(r.unanswered) for r in results.values())
    return (f"Validator: {labels} atom label(s) of {objects} object(s) in {sum(1 for n in per.values() if n)} of "
            f"{len(results)} affordance(s) got no usable YES or NO and count as NO (a reply in another shape, or "
            "none, after the repairs); each is listed under `unanswered` in the run directory's "
            "affordances/AFFORDANCE.json")


def render_report(
    manifest: Mapping[str, Any],
    results: Mapping[str, InductionResult],
    scores: Mapping[str, RuleScore],
    rules: Sequence[Rule],
    timers: Sequence[Mapping[str, Any]],
    usage: Mapping[str, Any] | None,
    vocab_sizes: Mapping[str, tuple[int, int]],
    tuning: Mapping[str, Any] | None = None,
    rare: tuple[int, int] | None = None,
    left_out: Sequence[Mapping[str, Any]] | None = None,
) -> str:
    """The run's Markdown summary: recall per rule, the affordances without a rule and why, rare atoms, settings
    chosen by inner cross-validation,
    per-round coverage, the rules with each branch's training evidence, drops, vocabulary growth, timers, LLM use.
    ``rare``: (branches with an atom fewer than 3 input objects hold, all branches); ``left_out`` (KB input): the
    KB verbs that got no rule, with their reasons (:mod:`kari.induce.targets`, :mod:`kari.induce.pooling`)."""
    missing = [aff for aff in sorted(results) if results[aff].body is None]
    lines = [
        "# kari induce report",
        "",
        (f"- backend: `{manifest.get('config', {}).get('backend')}`; seed {manifest.get('config', {}).get('seed')}; "
        f"cache key `{manifest.get('cache_key')}`"),
        f"- input: {manifest.get('input', {}).get('kind')} `{manifest.get('input', {}).get('path')}`",
        (f"- affordances: {len(results)}; rules: {len(rules)}; without a rule: {len(missing)}; "
        f"mean recall {_mean([s.recall for s in scores.values()]):.3f}; "
        f"mean precision {_mean([s.precision or 0.0 for s in scores.values()]):.3f}; "
        f"mean F1 {_mean([s.f1 for s in scores.values()]):.3f} (solver, {manifest.get('config', {}).get('semantics')})"),
        *([f"- **{line}**"] if (line := unanswered_line(results)) else []),
        "",
        "## Rules",
        "",
        "| affordance | branches | positives | recall | negatives | false pos. | precision | validator recall | dropped |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for aff in sorted(results):
        res, s = results[aff], scores.get(aff)
        if s is None:
            lines.append(
                f"| {md(aff)} | 0 | {res.positives} | 0.000 | {res.negatives} | - | - | - | {len(res.dropped)} |"
            )
            continue
        prec = "-" if s.precision is None else f"{s.precision:.3f}"
        lines.append(
            f"| {md(aff)} | {s.branches} | {s.positives} | {s.recall:.3f} | {s.negatives} | {s.false_positives} "
            f"| {prec} | {res.recall or 0:.3f} | {len(res.dropped)} |"
        )
    lines += ["", f"## Affordances without a rule ({len(missing)})", ""]
    if missing:
        lines += ["| affordance | positives | why |", "| --- | ---: | --- |"]
        lines += [f"| {md(aff)} | {results[aff].positives} | {_why(results[aff])} |" for aff in missing]
    else:
        lines.append("Every affordance got a rule.")
    lines += [
        "",
        "## Coverage per round (objects seen so far covered by the rule, Validator labels)",
        "",
        "| affordance | "
        + " | ".join(f"round {i}" for i in range(1, 1 + manifest.get("config", {}).get("rounds", 3)))
        + " |",
        "| --- |" + " ---: |" * manifest.get("config", {}).get("rounds", 3),
    ]
    for aff in sorted(results):
        cells = [f"{r['covered_seen']}/{r['seen']} ({r['outcome']})" for r in results[aff].rounds]
        lines.append(f"| {md(aff)} | " + " | ".join(cells) + " |")
    if left_out is not None:
        lines += left_out_section(left_out)
    if rare is not None:
        share = rare[0] / rare[1] if rare[1] else 0.0
        lines += ["", f"Branches with an atom that fewer than {RARE_OBJECTS} input objects hold: {rare[0]} of "
                      f"{rare[1]} ({share:.1%})."]
    if tuning:
        lines += ["", f"## Settings chosen by {tuning['inner_folds']}-fold inner cross-validation", "",
                  "| setting | inner held-out macro F1 | chosen |", "| --- | ---: | --- |"]
        for c in tuning["candidates"]:
            setting = {k: v for k, v in c.items() if k != "inner_macro_f1"}
            lines.append(f"| {', '.join(f'{k}={v}' for k, v in setting.items())} | {c['inner_macro_f1']:.3f} | "
                         f"{'yes' if setting == tuning['chosen'] else ''} |")
    lines += ["", "## Rules (text form, each branch with its training evidence)", "", "```"]
    for rule in rules:
        lines.append(f"{rule.affordance}:")
        for branch, meta in zip(rule.branches(), (*rule.branch_metadata, *([{}] * len(rule.branches())))):
            found = meta.get("evidence") or {}
            note = (f"  # support {found['support']}, negatives {found['negatives_covered']}, precision "
                    f"{found['precision'] if found['precision'] is not None else '-'}") if found else ""
            lines.append(f"  {to_text(branch)}{note}")
    lines += [
        "```",
        "",
        "## Vocabulary growth",
        "",
        "| predicate | values before | values after |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| {p} | {a} | {b} |" for p, (a, b) in sorted(vocab_sizes.items())]
    events = [e for res in results.values() for e in res.vocab_events or () if e["decision"] not in ("exact",)]
    counts: dict[str, int] = {}
    for e in events:
        counts[e["decision"]] = counts.get(e["decision"], 0) + 1
    lines += [
        "",
        "Auditor decisions other than exact matches: "
        + (", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "none")
        + ".",
    ]
    news = sorted({f"{e['predicate']}:{e['value']}" for e in events if e["decision"] == "new"})
    if news:
        lines.append("New values: " + ", ".join(f"`{n}`" for n in news) + ".")
    drops = [(aff, d) for aff in sorted(results) for d in results[aff].dropped]
    lines += ["", f"## Rejected proposals ({len(drops)})", ""]
    lines += [
        f"- {md(aff)} round {d['round']} attempt {d['attempt']}: {md('; '.join(d['problems'])[:300])}" for aff, d in drops[:50]
    ]
    lines += render_llm_costs(results)
    lines += ["", "## Timers", "", "| operation | calls | total s | max s |", "| --- | ---: | ---: | ---: |"]
    lines += [f"| {t['operation']} | {t['calls']} | {t['total_s']:.3f} | {t['max_s']:.3f} |" for t in timers]
    if usage:
        lines += ["", SESSIONS_LINE.format(calls=usage.get("calls", 0), hits=usage.get("cache_hits", 0),
                                           latency=usage.get("latency_s", 0))]
    return "\n".join(lines) + "\n"


SESSIONS_LINE = ("LLM calls of this run directory's sessions: {calls} ({hits} cache hits; live latency {latency} s; a "
                 "resumed run repeats the unfinished rules' calls, from the cache).")
"""The report's one line that depends on how the run went (sessions, cache state), beside its timers."""
COST_FIELDS = ("calls", "prompt_tokens", "completion_tokens")


def llm_costs(results: Mapping[str, InductionResult]) -> tuple[dict[str, dict[str, int]], int]:
    """Role -> calls, prompt and completion tokens summed over the rules' own counts (``llm``), and how many rules
    have counts."""
    totals: dict[str, dict[str, int]] = {}
    counted = 0
    for res in results.values():
        if res.llm is None:
            continue
        counted += 1
        for role, row in res.llm.items():
            total = totals.setdefault(role, dict.fromkeys(COST_FIELDS, 0))
            for name in COST_FIELDS:
                total[name] += int(row.get(name, 0))
    return totals, counted


def render_llm_costs(results: Mapping[str, InductionResult]) -> list[str]:
    """The report's section of LLM calls and tokens per role and per rule (none for an offline run)."""
    totals, counted = llm_costs(results)
    if not counted:
        return []
    roles = [r for r in ROLES if r in totals] + sorted(set(totals) - set(ROLES))
    lines = ["", "## LLM calls and tokens", "",
             f"Every call the {counted} rules took, cache hits included: the same for any --concurrency, shard "
             "split or resume.", "",
             "| role | calls | prompt tokens | completion tokens | calls per rule | tokens per rule |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    every = dict.fromkeys(COST_FIELDS, 0)
    for role in roles:
        row = totals[role]
        every = {k: every[k] + row[k] for k in COST_FIELDS}
        lines.append(_cost_row(role, row, counted))
    lines += [_cost_row("all", every, counted), "",
              "| affordance | " + " | ".join(f"{r} calls" for r in roles) + " | prompt tokens | completion tokens |",
              "| --- |" + " ---: |" * (len(roles) + 2)]
    for aff in sorted(results):
        own = results[aff].llm or {}
        cells = [str(own.get(r, {}).get("calls", 0)) for r in roles]
        tokens = [sum(int(own.get(r, {}).get(k, 0)) for r in own) for k in ("prompt_tokens", "completion_tokens")]
        lines.append(f"| {md(aff)} | " + " | ".join(cells) + f" | {tokens[0]} | {tokens[1]} |")
    return lines


def _cost_row(name: str, row: Mapping[str, int], rules: int) -> str:
    tokens = row["prompt_tokens"] + row["completion_tokens"]
    return (f"| {name} | {row['calls']} | {row['prompt_tokens']} | {row['completion_tokens']} | "
            f"{row['calls'] / rules:.2f} | {tokens / rules:.1f} |")
