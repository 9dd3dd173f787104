"""``kari coverage``: which rule covers which object, written as DuckDB tables and views."""

from __future__ import annotations

from pathlib import Path

import typer

from kari.cli.options import MATCH_DEFAULTS, MatchThreshold, RuleMatch, output, timeout
from kari.core.game_names import FlaggedRules
from kari.core.terms import Semantics
from kari.errors import KariError, one_of


def register(app: typer.Typer) -> None:
    """Add ``kari coverage`` to the root app."""

    @app.command("coverage")
    def coverage(
        rules: Path = typer.Option(..., "--rules", help="Rule file (.kari or .jsonl)."),
        db: Path = output(..., "--db", kind="database", help="DuckDB file (a kari KB; with --bench a new path is created); "
                                                  "tables coverage, coverage_labels, coverage_games, "
                                                  "rule_matches, representatives and views are (re)written."),
        bench: Path | None = typer.Option(None, "--bench", help="Benchmark directory; default: the KB's objects."),
        semantics: str = typer.Option(Semantics.ANY_PART.value, "--semantics",
                                      help=f"PART semantics: {one_of(Semantics)}."),
        time_limit: float = timeout(60.0, "--time-limit", help="Solver time limit in seconds."),
        explain: Path | None = output(None, "--explain", help="Also write one proof per rule x object row "
                                                                    "(JSONL; see kari explain) to this file."),
        ledger: Path | None = output(None, "--ledger", help="--bench: also write the KB-gap ledger (facts the "
                                           "KB does not state that would make a game's rule cover its hidden "
                                           "object, ranked by games decided) into tables kb_gaps, kb_gap_games "
                                           "and this file (.csv or .jsonl)."),
        match_threshold: MatchThreshold = MATCH_DEFAULTS[0],
        match: RuleMatch = MATCH_DEFAULTS[1],
        flagged_rules: str = typer.Option(FlaggedRules.USE.value, "--flagged-rules",
                                          help=f"KB rules kari induce --db flagged: {one_of(FlaggedRules)} them "
                                               "(default use: every rule is counted; skip leaves them out of the "
                                               "coverage, the proofs and the ledger, as kari play does by default)."),
    ) -> None:
        """Compute rule x object coverage with clingo and store it in --db (query it with `kari kb sql`); with
        --bench, benchmark affordances are matched to rule verbs (--match-threshold, --rule-match)."""
        from kari.game.kb_coverage import TargetMatching
        from kari.io.outputs import Output
        from kari.solver.run import check_coverage_outputs
        from kari.solver.run import coverage as run_coverage

        writes = [Output(path, option) for path, option in ((explain, "--explain"), (ledger, "--ledger"))
                  if path is not None]
        check_coverage_outputs(rules, db, bench, writes)  # refused before the database is touched
        if ledger is not None:
            from kari.report.ledger_store import ledger_format

            if bench is None:
                raise KariError("--ledger needs --bench DIR: the ledger counts a benchmark's games",
                                code="bad-option")
            ledger_format(ledger)
        summary = run_coverage(rules, db, bench, semantics, time_limit,
                               match_targets=TargetMatching(match_threshold, match) if bench is not None else None,
                               also_writes=writes, flagged_rules=flagged_rules)
        for line in summary.lines():
            typer.echo(line)
        typer.echo(f"wrote tables coverage, coverage_labels, coverage_games"
                   f"{', representatives' if bench is not None else ''}, rule_matches and views rule_recall, "
                   "rule_precision, "
                   f"affordance_coverage, game_rule_match into {db}")
        if explain is not None:
            from kari.explain.coverage import write_coverage_proofs

            proofs = write_coverage_proofs(rules, db, explain, bench, flagged_rules=flagged_rules)
            typer.echo(f"wrote {proofs} proofs into {explain}")
        if ledger is not None and bench is not None:  # --ledger without --bench was refused above
            from kari.report.ledger_store import write_ledger

            made = write_ledger(rules, db, bench, ledger)
            typer.echo(f"{made.line()}; wrote tables kb_gaps, kb_gap_games and views kb_gap_atoms, kb_gap_status "
                       f"into {db} and {ledger}")
