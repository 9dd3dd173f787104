"""The data of the HTML report: every game record in a compact form, the proof of each game's target rule on
its hidden object, and every rule with its coverage of the benchmark and proofs.

Compact game record (keys kept short: a run of 594 games x 7 players is thousands of records): ``r`` the run's
index in ``runs``, ``k`` the repeat index (``run`` of games.jsonl), ``g`` game, ``o`` object, ``t`` target,
``c`` candidates, ``s`` success (0/1), ``n`` turns, ``q`` guess, ``qb`` / ``qs`` the guess's hard / soft belief,
``f`` forced, ``iv`` invalid guess, ``b0`` / ``b0s`` the beliefs before any question (one number per candidate,
in candidate order, 3 decimals; null when undefined), ``T`` the turns as ``[question, accepted, checker,
answer, ig, b, b_soft]``, ``rh`` / ``rc`` target has a rule / that rule covers the hidden object, ``p`` the key
of that rule's proof in ``proofs``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.bench.reader import load_benchmark
from kari.domain.canon import canonical_rules
from kari.errors import KariError
from kari.explain.proof import explain
from kari.explain.render import proof_text
from kari.rules import load_rule_file
from kari.rules.printer import to_text
from kari.solver.coverage import compute_coverage

if TYPE_CHECKING:
    from kari.explain.sources import ObjectSource
    from kari.report.inputs import OpenedSource, ReportOptions, RuleReader
    from kari.game.summary import RunData


def _belief(values: Mapping[str, float] | None, candidates: Sequence[str]) -> list[float] | None:
    if values is None:
        return None
    return [round(float(values.get(c, 0.0)), 3) for c in candidates]


def _checker(turn: Mapping[str, Any]) -> str:
    checker = turn.get("checker") or {}
    pairs = ", ".join(str(p) for p in checker.get("pairs") or [])
    if checker.get("accepted"):
        return pairs
    parts = [p for p in (checker.get("flag"), checker.get("reason"), pairs) if p]
    return "rejected" + (f": {'; '.join(parts)}" if parts else "")


def compact_record(record: Mapping[str, Any], run_index: int) -> dict[str, Any]:
    """One game record in the page's compact form (see the module docstring)."""
    candidates = list(record.get("candidates") or [])
    rules = record.get("rules") or {}
    return {
        "r": run_index, "k": record.get("run", 0), "g": record["game"], "o": record.get("object"),
        "t": record["target"], "c": candidates, "s": int(bool(record["success"])), "n": record["n_turns"],
        "q": record.get("guess"), "qb": record.get("guess_belief"), "qs": record.get("guess_soft_belief"),
        "f": record.get("forced"), "iv": int(bool(record.get("invalid_guess"))),
        "b0": _belief(record.get("b0"), candidates), "b0s": _belief(record.get("b0_soft"), candidates),
        "T": [[t.get("question"), int(bool((t.get("checker") or {}).get("accepted"))), _checker(t), t.get("answer"),
               round(float(t.get("ig", 0.0)), 3), _belief(t.get("b"), candidates), _belief(t.get("b_soft"), candidates)]
              for t in record["turns"]],
        "rh": None if not rules else int(bool(rules.get("target_has_rule"))),
        "rc": None if not rules else int(bool(rules.get("target_rule_covers_object"))),
    }


def game_proofs(runs: Sequence[RunData], games: list[dict[str, Any]], source: ObjectSource | None,
                read: RuleReader | None = None) -> dict[str, str]:
    """The text proof of each game's target rule on its hidden object (any-part, as the games read rules),
    keyed by rules, fold, rule and object; each game record gets its key as ``p``. ``read``: the reader of the
    rules the runs were played with (default: :func:`kari.induce.folds.read_rule_sets`)."""
    from kari.report.inputs import PlayedRules

    proofs: dict[str, str] = {}
    if source is None:
        return proofs
    rule_sets = PlayedRules(source, read)
    for index, run in enumerate(runs):
        path = run.config.rules
        if not path:
            continue
        for record, compact in zip(run.records, (g for g in games if g["r"] == index), strict=True):
            facts = record.rules
            matched = facts.matched_rules(record.target) if facts is not None else []
            if facts is None or not matched or record.object not in source.objects:
                continue
            name, fold = matched[0], facts.fold
            key = f"{path}|{fold}|{name}|{record.object}"
            if key not in proofs:
                rule = rule_sets.rule(str(path), fold, name)
                if rule is None:
                    continue
                proof = explain(rule, source.objects[record.object], source.vocab, "any-part", source.evidence)
                fold_note = "" if fold is None else f" (fold {fold}'s rules: induced without this object's fold)"
                proofs[key] = f"rule given to the player for {record.target}{fold_note}:\n" + proof_text(proof)
            compact["p"] = key
    return proofs


def rules_file(runs: Sequence[RunData], options: ReportOptions) -> tuple[str | None, str]:
    """The rules to show with coverage and proofs, and a sentence saying where they come from."""
    if options.rules is not None:
        return str(options.rules), f"rules of {options.rules} (--rules)"
    for run in runs:
        path = run.config.rules
        if path:
            where = Path(str(path))
            if where.is_dir() or where.suffix == ".cv":
                for suffix in (".kari", ".jsonl"):
                    sibling = where.with_suffix(suffix)
                    if sibling.is_file():
                        return str(sibling), (f"rules of {sibling}, induced on every object (the games got the "
                                              f"cross-fitted rules of {where}, shown with each game)")
                return None, f"run {run.label} was played with cross-fitted rules {where} and no rules file beside it"
            return str(where), f"rules of {where}, as played by run {run.label}"
    return None, "no run was played with rules and no --rules was given"


def played_matches(runs: Sequence[RunData], path: str) -> dict[str, dict[str, Any]]:
    """Each benchmark affordance's best matched rule as the games recorded it (``rule``, ``verb``,
    ``similarity``, ``match``), over the runs played with the rules of ``path`` (or the cross-fitted sets
    beside it); an affordance that was a candidate but got no rule maps to ``{}``."""
    shown = Path(path)
    given = {str(shown), str(shown.with_suffix(".cv")), str(shown.with_suffix(".jsonl")), str(shown.with_suffix(".kari"))}
    found: dict[str, dict[str, Any]] = {}
    for run in runs:
        if str(run.config.rules) not in given:
            continue
        for record in run.records:
            for candidate, matches in (record.rules.matched if record.rules is not None else {}).items():
                found.setdefault(candidate, matches[0].to_json() if matches else {})
    return found


def affordance_rules(matches: Mapping[str, Mapping[str, Any]], rules: Sequence[Any], rows: Sequence[Any],
                     labels: Sequence[Any]) -> list[dict[str, Any]]:
    """Every benchmark affordance with the rule matched to it by similarity (as the games recorded it) and that
    rule's recall and precision on the affordance's own labelled objects (the solver's coverage rows)."""
    by_name = {rule.affordance: n for n, rule in enumerate(rules)}
    covered = {(r.rule, r.object) for r in rows if r.covered}
    out = []
    for affordance in sorted({lab.affordance for lab in labels} | set(matches)):
        match = matches.get(affordance)
        positives = [lab.object for lab in labels if lab.affordance == affordance and lab.label]
        negatives = [lab.object for lab in labels if lab.affordance == affordance and not lab.label]
        row: dict[str, Any] = {"affordance": affordance, "rule": None, "verb": None, "similarity": None,
                               "match": None, "positives": len(positives), "negatives": len(negatives),
                               "covered_positives": None, "recall": None, "false_positives": None, "precision": None,
                               "played": match is not None}
        index = by_name.get(str(match.get("rule"))) if match else None
        if match:
            row.update(rule=match.get("rule"), verb=match.get("verb"), similarity=match.get("similarity"),
                       match=match.get("match"))
        if index is not None:
            hits = [o for o in positives if (index, o) in covered]
            wrong = [o for o in negatives if (index, o) in covered]
            row.update(covered_positives=len(hits), false_positives=len(wrong),
                       recall=round(len(hits) / len(positives), 4) if positives else None,
                       precision=round(len(hits) / (len(hits) + len(wrong)), 4) if hits or wrong else None)
        out.append(row)
    return out


def rules_section(path: str, source: ObjectSource, bench: str,
                  matches: Mapping[str, Mapping[str, Any]] | None = None) -> tuple[list[dict[str, Any]],
                                                                            list[dict[str, Any]]]:
    """Every rule with its coverage of the benchmark's objects (the solver's, any-part reading), its recall and
    precision on the labelled objects of its own affordance and the proof of each labelled positive and each
    covered negative; and every benchmark affordance with its matched rule (:func:`affordance_rules`)."""
    rules = canonical_rules(load_rule_file(path), source.vocab)
    objects = list(source.objects.values())
    labels = load_benchmark(bench, None, with_games=False).labels
    rows = compute_coverage(rules, objects, source.vocab, "any-part")
    covered = {(rules[r.rule].affordance, r.object): r for r in rows}  # (affordance, object) -> the solver's row
    out = []
    for n, rule in enumerate(rules):
        positives = [lab.object for lab in labels if lab.affordance == rule.affordance and lab.label]
        negatives = [lab.object for lab in labels if lab.affordance == rule.affordance and not lab.label]
        hits = [o for o in positives if covered.get((rule.affordance, o)) and covered[(rule.affordance, o)].covered]
        wrong = [o for o in negatives if covered.get((rule.affordance, o)) and covered[(rule.affordance, o)].covered]
        proofs = []
        for obj_id, label in [(o, True) for o in positives] + [(o, False) for o in wrong]:
            if obj_id not in source.objects:
                continue
            proof = explain(rule, source.objects[obj_id], source.vocab, "any-part", source.evidence)
            row = covered[(rule.affordance, obj_id)]
            if proof.verdict() != (row.covered, row.branch, row.part):
                raise KariError(f"the proof of {rule.affordance} on {obj_id} disagrees with the solver (a bug in kari)",
                                code="explain-mismatch")
            proofs.append({"object": obj_id, "label": label, "covered": proof.covered, "text": proof_text(proof)})
        out.append({
            "index": n, "affordance": rule.affordance, "text": to_text(rule.body),
            "objects": len(objects), "covered_objects": sum(1 for r in rows if r.rule == n and r.covered),
            "positives": len(positives), "covered_positives": len(hits),
            "recall": round(len(hits) / len(positives), 4) if positives else None,
            "negatives": len(negatives), "false_positives": len(wrong),
            "precision": round(len(hits) / (len(hits) + len(wrong)), 4) if hits or wrong else None,
            "proofs": proofs,
        })
    return out, affordance_rules(matches or {}, rules, rows, labels)


def page_data(runs: Sequence[RunData], data: Mapping[str, Any], options: ReportOptions,
              opened: OpenedSource | None = None, read: RuleReader | None = None) -> dict[str, Any]:
    """Everything the page shows, as one JSON-able object. ``opened``: what
    :func:`kari.report.inputs.open_source` gave the caller, who closes it (default: opened and closed here);
    ``read`` as in :func:`game_proofs`."""
    from kari.report.inputs import open_source

    games = [compact_record(record, i) for i, run in enumerate(runs) for record in run.records]
    source, bench, note = opened if opened is not None else open_source(runs, options)
    try:
        proofs = game_proofs(runs, games, source, read)
        path, origin = rules_file(runs, options)
        rules, matched = (rules_section(path, source, bench, played_matches(runs, path))
                          if path and source is not None and bench else ([], []))
    finally:
        if source is not None and opened is None:
            source.close()
    return {
        "report": data,
        "runs": [{"label": run.label, "player": run.questioner, "rules": run.with_rules,
                  "rule_source": run.rule_source, "model": run.model.label,
                  "questioner": run.config.questioner, "oracle": run.config.oracle,
                  "checker": run.config.checker} for run in runs],
        "games": games, "proofs": proofs, "rules": rules, "affordance_rules": matched,
        "rules_origin": origin if rules else (note or origin), "bench": bench,
    }
