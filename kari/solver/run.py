"""``kari coverage``: rules x objects (a benchmark's or the KB's) -> coverage tables in a DuckDB file + summary."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kari.bench.model import Game
from kari.errors import KariError
from kari.solver.types import CoverageRow


@dataclass(frozen=True)
class CoverageSummary:
    """Aggregate figures of one coverage run (the full detail is in the database)."""

    semantics: str
    rules: int
    objects: int
    pairs: int
    covered_pairs: int
    mean_recall: float | None  # over rules with labelled positives
    games: int
    games_with_rule: int  # the paper's figure: games whose target has a matching rule
    games_target_covers: int  # ... and whose rule covers the hidden object
    words: str = ""  # how the objects' words were read (CanonReport.summary)
    rule_words: str = ""  # how the rules' values were read
    kb: Any = None  # kari.game.kb_coverage.KBCoverage: the benchmark's affordances and games matched to rules

    def lines(self) -> list[str]:
        share = (lambda n, d: f"{n}/{d} ({100 * n / d:.1f}%)" if d else f"{n}/0")
        out = [f"semantics: {self.semantics}",
               f"{self.rules} rules x {self.objects} objects = {self.pairs} pairs, covered {share(self.covered_pairs, self.pairs)}",
               "mean recall on labelled positives: " + ("n/a (no labels)" if self.mean_recall is None
                                                         else f"{100 * self.mean_recall:.1f}%")]
        if self.kb is not None:
            out += self.kb.lines()
        if self.games:
            out.append(f"games whose target's rule covers the hidden object: {share(self.games_target_covers, self.games)}")
        out += [f"object {self.words}"] if self.words else []
        out += [f"rule {self.rule_words}"] if self.rule_words else []
        return out


def summarise(rows: Sequence[CoverageRow], semantics: str, labels: Sequence[tuple[str, str, bool]],
              games: Sequence[Game], matches: Mapping[str, Sequence[str]] | None = None) -> CoverageSummary:
    """The figures :class:`CoverageSummary` reports, computed from the rows in memory. ``matches``: the rule
    affordances that answer for each labelled affordance or game target (default: the rule of the same name)."""
    answer = (lambda a: matches.get(a, ())) if matches is not None else (lambda a: (a,))
    positives = {(a, o) for a, o, label in labels if label}
    answers_for: dict[str, set[str]] = {}
    for target in {a for a, _ in positives} | {g.target for g in games}:
        for rule in answer(target):
            answers_for.setdefault(rule, set()).add(target)
    per_rule: dict[int, list[bool]] = {}
    covered = set()
    for row in rows:
        if any((t, row.object) in positives for t in answers_for.get(row.affordance, ())):
            per_rule.setdefault(row.rule, []).append(row.covered)
        if row.covered:
            covered.add((row.affordance, row.object))
    recalls = [sum(v) / len(v) for v in per_rule.values() if v]
    with_rule = {row.affordance for row in rows}
    return CoverageSummary(
        semantics, len({r.rule for r in rows}), len({r.object for r in rows}), len(rows),
        sum(r.covered for r in rows), sum(recalls) / len(recalls) if recalls else None, len(games),
        sum(any(r in with_rule for r in answer(g.target)) for g in games),
        sum(any((r, g.object) in covered for r in answer(g.target)) for g in games))


def coverage(rules_file: str | Path, db: str | Path, bench: str | Path | None = None, semantics: str = "any-part",
             time_limit: float = 60.0, *, threshold: float = 0.7, match: str = "embedding") -> CoverageSummary:
    """Compute coverage of the rules in ``rules_file`` and write the tables into ``db``.

    Objects come from the benchmark directory ``bench`` when given (with its labels, games and 10 seeded
    representatives per affordance), else from the KB in ``db`` (labels from its affordance evidence). ``db``
    must be an existing kari KB (``kari kb load``); it is opened only after every other input has been read.
    With a benchmark, its affordances are matched to the rules (``match``: sentence similarity >= ``threshold``,
    or ``exact`` verb ids) and the KB coverage is measured (:mod:`kari.game.kb_coverage`); the KB's own labels
    are read through the KB verbs grouped into each rule.
    """
    from kari.domain.canon import CanonReport, canonical_objects, canonical_rules
    from kari.domain.objects import check_semantics
    from kari.domain.vocabulary import Vocabulary, db_vocabulary
    from kari.kb import open_db
    from kari.rules import load_rules
    from kari.solver.consistency import select_representatives
    from kari.solver.coverage import compute_coverage
    from kari.solver.store import kb_labels, write_coverage

    check_semantics(semantics)
    if not time_limit > 0:
        raise KariError(f"the time limit must be > 0 seconds, got {time_limit:g}", code="bad-option")
    from kari.game.match import load_rule_file

    rules = load_rule_file(rules_file)
    benchmark = None
    if bench is not None:
        from kari.bench.model import load_benchmark
        from kari.bench.validate import require_valid

        require_valid(bench, Vocabulary.load(), games=False)  # structure; its words are read below
        benchmark = load_benchmark(bench, None)  # every input is read before the database is opened for writing
    con = open_db(db, create=False)
    try:
        vocab = db_vocabulary(con)
        if benchmark is not None:
            objects, words = canonical_objects(list(benchmark.objects.values()), vocab)
            if not objects:
                raise KariError("the benchmark has no objects", file=str(Path(bench) / "objects.jsonl"),  # type: ignore[arg-type]
                                code="no-objects")
            labels = [(lab.affordance, lab.object, lab.label) for lab in benchmark.labels]
            games = benchmark.games
            reps: dict[str, list[str]] | None = select_representatives(benchmark)
        else:
            from kari.kb import objects_from_db

            objects, words = canonical_objects(objects_from_db(con), vocab)
            labels, games, reps = kb_labels(con), [], None
            if not objects:
                raise KariError("the KB has no objects with typed properties; load a KB or pass --bench",
                                file=str(db), code="no-objects")
        rule_words = CanonReport()
        rules = canonical_rules(rules, vocab, rule_words)
        kb, matches = _matches(rules, benchmark, threshold, match)
        rows = compute_coverage(rules, objects, vocab, semantics, time_limit=time_limit)
        folder = str(Path(db).resolve().parent) if str(db) != ":memory:" else None
        write_coverage(con, rows, semantics, labels, [(g.id, g.object, g.target) for g in games], reps,
                       folder=folder, matches=matches)
        vocab.to_db(con)
    finally:
        con.close()
    answers: dict[str, list[str]] = {}
    for target, rule, *_ in matches:
        answers.setdefault(target, []).append(rule)
    return replace(summarise(rows, semantics, labels, games, answers), words=words.summary(),
                   rule_words=rule_words.summary(), kb=kb)


def _matches(rules: Sequence[Any], benchmark: Any, threshold: float,
             match: str) -> tuple[Any, list[tuple[str, str, str, float, str]]]:
    """The KB coverage of a benchmark (None without one) and the ``rule_matches`` rows: each benchmark affordance's
    matched rule, or, for the KB's own labels, every KB verb grouped into a rule (and the rule's own name)."""
    from kari.game.match import rule_verbs

    if benchmark is None:
        return None, sorted({(verb, r.affordance, verb, 1.0, "exact") for r in rules for verb in rule_verbs(r)})
    from kari.game.kb_coverage import kb_coverage

    kb = kb_coverage(rules, sorted(benchmark.affordances), benchmark.games, threshold=threshold, mode=match)
    rows = sorted((target, m["rule"], m["verb"], float(m["similarity"]), m["match"])
                  for target, m in kb.matches.items() if m is not None)
    return kb, rows
