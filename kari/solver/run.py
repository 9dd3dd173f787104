"""``kari coverage``: rules x objects (a benchmark's or the KB's) -> coverage tables in a DuckDB file + summary."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.bench.reader import bench_inputs, read_labelled
from kari.core.benchmark import Benchmark, Game
from kari.vocab.vocabulary import Vocabulary, db_vocabulary
from kari.errors import KariError
from kari.io.outputs import Output, OutputKind, check_outputs
from kari.rules.ast import Rule
from kari.core.solver_types import CoverageRow
from kari.core.terms import Semantics
from kari.core.game_names import MatchMode
from kari.domain.canon import CanonReport, canonical_objects, canonical_rules
from kari.domain.objects import check_semantics
from kari.rules import load_rule_file
from kari.rules.anchors import is_flagged, rule_verbs, usable_rules
from kari.core.game_names import FlaggedRules
from kari.rules.rulefile import rule_file_inputs
from kari.solver.consistency import select_representatives
from kari.solver.coverage import compute_coverage

if TYPE_CHECKING:
    from duckdb import DuckDBPyConnection

MatchRow = tuple[str, str, str, float, str]
"""A ``rule_matches`` row: (target affordance, rule affordance, the rule verb that matched, similarity, mode)."""
TargetMatcher = Callable[[Sequence[Rule], Benchmark], tuple[Any, list[MatchRow]]]
"""Matches a benchmark's affordances to rules: (the KB coverage it measured, the ``rule_matches`` rows)."""


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
    flagged: int = 0  # of the rules, KB rules kari induce --db flagged (counted here; play skips them by default)
    skipped: int = 0  # flagged KB rules left out before coverage (--flagged-rules skip)

    def lines(self) -> list[str]:
        share = (lambda n, d: f"{n}/{d} ({100 * n / d:.1f}%)" if d else f"{n}/0")
        out = [f"semantics: {self.semantics}",
               f"{self.rules} rules{self._flagged()} x {self.objects} objects = {self.pairs} pairs, covered "
               f"{share(self.covered_pairs, self.pairs)}",
               "mean recall on labelled positives: " + ("n/a (no labels)" if self.mean_recall is None
                                                         else f"{100 * self.mean_recall:.1f}%")]
        if self.kb is not None:
            out += self.kb.lines()
        if self.games:
            if self.kb is None:
                out.append(f"games whose target has a rule: {share(self.games_with_rule, self.games)}")
            out.append(f"games whose target's rule covers the hidden object: {share(self.games_target_covers, self.games)}")
        out += [f"object {self.words}"] if self.words else []
        out += [f"rule {self.rule_words}"] if self.rule_words else []
        return out

    def _flagged(self) -> str:
        if self.skipped:
            return f" ({self.skipped} flagged KB rules left out, as players leave them out: --flagged-rules skip)"
        return (f" ({self.flagged} of them flagged KB rules, counted here; kari play and kari pipeline skip them "
                "unless --flagged-rules use, and kari coverage --flagged-rules skip leaves them out)"
                if self.flagged else "")


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


def coverage(rules_file: str | Path, db: str | Path, bench: str | Path | None = None,
             semantics: str = Semantics.ANY_PART, time_limit: float = 60.0, *,
             match_targets: TargetMatcher | None = None, also_writes: Sequence[Output] = (),
             flagged_rules: str = FlaggedRules.USE) -> CoverageSummary:
    """Compute coverage of the rules in ``rules_file`` and write the tables into ``db``.

    Objects come from the benchmark directory ``bench`` when given (with its labels, games and 10 seeded
    representatives per affordance), else from the KB in ``db`` (labels from its affordance evidence). Without
    ``bench``, ``db`` must be an existing kari KB (``kari kb load``); with it, a new ``db`` is created (and
    removed again if the command fails). It is opened only after every other input has been read.
    ``match_targets`` matches a benchmark's affordances to the rules (``kari coverage`` gives
    :class:`kari.game.kb_coverage.TargetMatching`: sentence similarity, and the KB coverage it measures); without
    it each rule answers for the affordance of its own name. The KB's own labels are read through the KB verbs
    grouped into each rule. ``also_writes``: the caller's other outputs (``--explain``, ``--ledger``), checked
    with the database against every input before any work (:func:`kari.io.outputs.check_outputs`).
    ``flagged_rules``: ``use`` (the default) counts every rule, ``skip`` leaves out the KB rules ``kari induce --db``
    flagged, as players do by default (:func:`kari.rules.anchors.usable_rules`); the table's rule numbers are
    then those of the rules kept.
    """
    from kari.kb import open_db
    from kari.kb.store import remove_database

    _check(semantics, time_limit)
    check_coverage_outputs(rules_file, db, bench, also_writes)
    read = load_rule_file(rules_file)
    rules = usable_rules(read, flagged_rules)
    benchmark = None
    if bench is not None:  # its structure; its words are read below, into the database's vocabulary
        benchmark = read_labelled(bench, None)
    existed = str(db) == ":memory:" or Path(db).exists()
    con = open_db(db, create=benchmark is not None)  # with --bench a new database is created
    stored = False
    try:
        summary = coverage_loaded(rules, con, db_vocabulary(con), benchmark, semantics, time_limit,
                                  folder=Path(db).resolve().parent if str(db) != ":memory:" else None, db=Path(db),
                                  match_targets=match_targets)
        stored = True
        return replace(summary, skipped=len(read) - len(rules))
    finally:
        con.close()
        if not stored and not existed:
            remove_database(db)        # a failed command leaves no new database behind


def check_coverage_outputs(rules_file: str | Path, db: str | Path, bench: str | Path | None,
                           also_writes: Sequence[Output] = ()) -> None:
    """Refuse, before any work, a coverage database or one of ``also_writes`` that is one of the files
    ``kari coverage`` reads (the rules with their metadata twin, the benchmark's files) or another output."""
    check_outputs([Output(Path(db), "--db", OutputKind.DATABASE), *also_writes],
                  [*rule_file_inputs(rules_file), *bench_inputs(bench)])


def coverage_loaded(rules: Sequence[Rule], con: DuckDBPyConnection, vocab: Vocabulary, bench: Benchmark | None = None,
                    semantics: str = Semantics.ANY_PART, time_limit: float = 60.0, *, folder: Path | None = None,
                    db: Path | None = None, match_targets: TargetMatcher | None = None) -> CoverageSummary:
    """:func:`coverage` on loaded inputs: ``rules`` as read (their words and ``bench``'s, as written, are read
    into ``vocab`` here), the open KB connection ``con`` that receives the tables and the grown vocabulary;
    ``folder`` holds the temporary files of the write (default: the system's), ``db`` names the KB in errors;
    ``match_targets`` as in :func:`coverage`."""
    from kari.solver.store import kb_labels, write_coverage

    _check(semantics, time_limit)
    if bench is not None:
        objects, words = canonical_objects(list(bench.objects.values()), vocab)
        if not objects:
            raise KariError("the benchmark has no objects", file=str(bench.root / "objects.jsonl"), code="no-objects")
        labels = [(lab.affordance, lab.object, lab.label) for lab in bench.labels]
        games = bench.games
        reps: dict[str, list[str]] | None = select_representatives(bench)
    else:
        from kari.kb import objects_from_db

        objects, words = canonical_objects(objects_from_db(con), vocab)
        labels, games, reps = kb_labels(con), [], None
        if not objects:
            raise KariError("the KB has no objects with typed properties; load a KB or pass --bench",
                            file=str(db) if db is not None else None, code="no-objects")
    rule_words = CanonReport()
    rules = canonical_rules(rules, vocab, rule_words)
    kb, matches = _matches(rules, bench, match_targets)
    rows = compute_coverage(rules, objects, vocab, semantics, time_limit=time_limit)
    write_coverage(con, rows, semantics, labels, [(g.id, g.object, g.target) for g in games], reps,
                   folder=str(folder) if folder is not None else None, matches=matches)
    vocab.to_db(con)
    answers: dict[str, list[str]] | None = None
    if matches is not None:
        answers = {}
        for target, rule, *_ in matches:
            answers.setdefault(target, []).append(rule)
    return replace(summarise(rows, semantics, labels, games, answers), words=words.summary(),
                   rule_words=rule_words.summary(), kb=kb, flagged=sum(map(is_flagged, rules)))


def _matches(rules: Sequence[Rule], bench: Benchmark | None,
             match_targets: TargetMatcher | None) -> tuple[Any, list[MatchRow] | None]:
    """The KB coverage of a benchmark (None without one or without ``match_targets``) and the ``rule_matches``
    rows: each benchmark affordance's matched rule, or, for the KB's own labels, every KB verb grouped into a rule
    (and the rule's own name); None: each rule answers for its own name."""
    if bench is None:
        return None, sorted({(verb, r.affordance, verb, 1.0, MatchMode.EXACT.value) for r in rules
                             for verb in rule_verbs(r)})
    if match_targets is None:
        return None, None
    return match_targets(rules, bench)


def _check(semantics: str, time_limit: float) -> None:
    check_semantics(semantics)
    if not time_limit > 0:
        raise KariError(f"the time limit must be > 0 seconds, got {time_limit:g}", code="bad-option")
