"""Where the KB-gap ledger's games come from and where it goes (:mod:`kari.report.ledger` computes it).

Games come either from a coverage database (``kari coverage --bench``'s ``coverage_games`` and ``rule_matches``
tables: each game's target with the rule matched to it, read under the coverage's own PART reading, and every
game's verdict checked against the solver's ``game_rule_match`` view) or from a played run (each record's
matched rules for its target, the cross-fitted fold's for a ``RULES.cv`` run, checked against the record's own
``target_rule_covers_object``). The ledger goes into the database (tables ``kb_gaps`` and ``kb_gap_games`` of
``kb/ledger.sql``, replaced in one transaction) and into a CSV or JSONL file (written atomically).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kari.io.sql import scalar
from kari.core.benchmark import ObjectRecord
from kari.vocab.vocabulary import Vocabulary
from kari.errors import KariError
from kari.explain.sources import open_objects, read_rules
from kari.io.atomic import atomic_write_text
from kari.io.escape import csv_row
from kari.report.ledger import GameRules, GameStatus, Ledger, kb_gap_ledger
from kari.resources import asset_path
from kari.rules.ast import Rule

if TYPE_CHECKING:
    from kari.explain.sources import ObjectSource
    from kari.report.inputs import ReportInputs, RuleReader
    from kari.game.summary import RunData
    from duckdb import DuckDBPyConnection

CSV_COLUMNS = ("rank", "target", "rule", "object", "part", "predicate", "value", "games", "branch", "game_ids",
               "object_source")
"""The columns of the ledger's CSV form (``game_ids`` joined by spaces)."""
LEDGER_FILE = "kb_gaps.csv"
"""The ledger's file in a report folder and a pipeline's output folder."""
REPORT_TOP = 20
"""Gaps shown in a report (the full ledger is its CSV file)."""


# --- games from a coverage database -----------------------------------------------------------------------------

def coverage_ledger(con: DuckDBPyConnection, rules: Sequence[Rule], objects: Mapping[str, ObjectRecord],
                    vocab: Vocabulary) -> Ledger:
    """The ledger of the games ``kari coverage --bench`` stored in ``con`` (``rules``: the canonical rules of
    that coverage; ``objects``: the benchmark's, read into ``vocab``). Each game's verdict must equal the
    solver's (``game_rule_match.target_covers_object``): a difference is a bug, never a silent disagreement."""
    semantics = scalar(con, "SELECT any_value(semantics) FROM coverage")
    if semantics is None:
        raise KariError("the database holds no coverage; run kari coverage --bench DIR first", code="ledger-input")
    by_name: dict[str, Rule] = {}
    for rule in rules:
        by_name.setdefault(rule.affordance, rule)
    matched: dict[str, list[Rule]] = {}
    for target, rule in con.execute("SELECT target, rule FROM rule_matches ORDER BY target, similarity DESC, rule"
                                    ).fetchall():
        if rule not in by_name:
            raise KariError(f"the coverage matched {target!r} to rule {rule!r}, which the rules file does not hold; "
                            "run kari coverage again", code="explain-mismatch")
        matched.setdefault(target, []).append(by_name[rule])
    games, solver = [], {}
    for game, obj, target, covers in con.execute(
            "SELECT game, object, target, target_covers_object FROM game_rule_match ORDER BY game").fetchall():
        if obj not in objects:
            raise KariError(f"game {game} hides {obj!r}, which the benchmark does not hold; run kari coverage again",
                            code="explain-mismatch")
        games.append(GameRules(game, obj, target, tuple(matched.get(target, ()))))
        solver[game] = bool(covers)
    if not games:
        raise KariError("the coverage holds no games: the ledger needs a benchmark's games (kari coverage --bench)",
                        code="ledger-input")
    ledger = kb_gap_ledger(games, objects, vocab, semantics)
    for gaps in ledger.games:
        if (gaps.status == GameStatus.COVERED) != solver[gaps.game]:
            raise KariError(f"the ledger says game {gaps.game} ({gaps.target} on {gaps.object}) is {gaps.status} but "
                            "the solver's game_rule_match disagrees (a bug in kari)", code="explain-mismatch")
    return ledger


def write_ledger(rules_file: str | Path, db: str | Path, bench: str | Path, out: str | Path | None = None) -> Ledger:
    """The ledger of the coverage ``kari coverage --bench bench`` wrote into ``db`` from ``rules_file``, written
    into ``db`` (tables ``kb_gaps``, ``kb_gap_games``) and, with ``out``, into a CSV or JSONL file."""
    from kari.kb import open_db

    if out is not None:
        ledger_format(out)
    with open_objects(bench, db) as source:
        ledger = coverage_ledger(source.kb, read_rules(source.vocab, rules_file), source.objects, source.vocab)
    con = open_db(db, create=False)
    try:
        write_ledger_tables(con, ledger)
    finally:
        con.close()
    if out is not None:
        write_ledger_file(ledger, out)
    return ledger


# --- games from a played run ------------------------------------------------------------------------------------

def run_ledger(run: RunData, source: ObjectSource, read: RuleReader | None = None) -> tuple[Ledger | None, str]:
    """The ledger of a run played with rules (its records' matched rules for their targets, read by ``read`` into
    the source's vocabulary) on the source's benchmark objects, under the ``any-part`` reading the games use,
    and a note: why there is none, or how many games' verdicts differ from the run's own record of them."""
    from kari.report.inputs import PlayedRules

    path = run.config.rules
    if not path:
        return None, f"run {run.label} was played without rules: no KB-gap ledger"
    rules = PlayedRules(source, read)
    games, recorded = {}, {}
    for record in run.records:
        facts = record.rules
        if facts is None or record.game in games:
            continue
        if record.object not in source.objects:
            return None, f"the hidden object {record.object!r} of game {record.game} is not in {source.where}: " \
                         "no KB-gap ledger"
        names = facts.matched_rules(record.target)
        chosen = tuple(r for r in (rules.rule(str(path), facts.fold, n) for n in names) if r is not None)
        if len(chosen) < len(names):
            return None, f"the rules {path} no longer hold every rule run {run.label} was matched to: no KB-gap ledger"
        games[record.game] = GameRules(record.game, record.object, record.target, chosen)
        recorded[record.game] = facts.target_rule_covers_object
    if not games:
        return None, f"run {run.label} records no rule facts: no KB-gap ledger"
    ledger = kb_gap_ledger(games.values(), source.objects, source.vocab)
    differ = sum(1 for g in ledger.games if (g.status == GameStatus.COVERED) != recorded[g.game])
    note = (f"The ledger is of run `{run.label}`'s games and the rules it was matched to (`{path}`), on the objects "
            f"of {source.where}; the full ledger is `{LEDGER_FILE}`.")
    if differ:
        note += (f" {differ} games' verdicts differ from the run's own record (were the KB or the rules changed "
                 "after the run?).")
    return ledger, note


# --- writers ----------------------------------------------------------------------------------------------------

def write_ledger_tables(con: DuckDBPyConnection, ledger: Ledger) -> None:
    """Replace the rows of ``kb_gaps`` and ``kb_gap_games`` (``kb/ledger.sql``) with ``ledger``, in one
    transaction (or the caller's)."""
    from kari.io.transaction import transaction

    with transaction(con):
        con.execute(asset_path("kb", "ledger.sql").read_text(encoding="utf-8"))
        con.execute("DELETE FROM kb_gaps")
        con.execute("DELETE FROM kb_gap_games")
        if ledger.rows:
            con.executemany("INSERT INTO kb_gaps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            [(r.rank, r.target, r.rule, r.object, r.part, r.predicate, r.value, r.games, r.branch,
                              list(r.game_ids), r.object_source, ledger.semantics) for r in ledger.rows])
        if ledger.games:
            con.executemany("INSERT INTO kb_gap_games VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                            [(g.game, g.object, g.target, g.rule, g.status, len(g.decisions), g.unknown,
                              ledger.semantics) for g in ledger.games])


def ledger_format(path: str | Path) -> str:
    """``csv`` or ``jsonl``, from the file's suffix; anything else is an error."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".jsonl"):
        raise KariError("the ledger file must end in .csv or .jsonl", file=str(path), code="bad-option")
    return suffix[1:]


def ledger_csv(ledger: Ledger) -> str:
    """The ledger's rows as CSV text with a header (:data:`CSV_COLUMNS`; a text cell a spreadsheet would run as
    a formula starts with ``'``: :func:`kari.io.escape.csv_cell`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in ledger.rows:
        record = row.to_json()
        record["game_ids"] = " ".join(row.game_ids)
        writer.writerow(csv_row(record[c] for c in CSV_COLUMNS))
    return buffer.getvalue()


def write_ledger_file(ledger: Ledger, path: str | Path) -> None:
    """The ledger's rows as CSV or JSONL (by the suffix), written atomically."""
    if ledger_format(path) == "csv":
        atomic_write_text(path, ledger_csv(ledger))
    else:
        atomic_write_text(path, "".join(json.dumps({**r.to_json(), "semantics": ledger.semantics},
                                                   ensure_ascii=False) + "\n" for r in ledger.rows))


def report_ledger(runs: Sequence[RunData], source: Any, options: Any,
                  inputs: ReportInputs | None = None) -> tuple[Ledger | None, str]:
    """The ledger ``kari report`` shows: of the coverage split's source run (``source``: a
    :class:`~kari.report.inputs.CoverageSource`, None for none) on the runs' benchmark objects (``inputs``
    when the caller holds them, else :func:`kari.report.inputs.open_source` with ``options``), and a note."""
    from kari.report.inputs import open_source

    if source is None:
        return None, ""
    if inputs is not None:
        return run_ledger(source.run, inputs.objects, inputs.read_rules)
    objects, _, note = open_source(runs, options)
    if objects is None:
        return None, f"No KB-gap ledger: {note}."
    try:
        return run_ledger(source.run, objects)
    finally:
        objects.close()
