"""Proofs for the rows of a coverage table: ``kari coverage --explain FILE`` writes one proof per rule x object.

The rows are read back from the database's ``coverage`` table (the solver's verdicts) and every proof is checked
against its row: a proof whose verdict differs from the solver's is an error, never a silent disagreement.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kari.errors import ExitCode, KariError
from kari.explain.proof import explain
from kari.explain.sources import open_objects, read_rules
from kari.io.atomic import atomic_open
from kari.core.game_names import FlaggedRules
from kari.rules.anchors import usable_rules


def coverage_proofs(rules_file: str | Path, db: str | Path, bench: str | Path | None = None, *,
                    flagged_rules: str = FlaggedRules.USE) -> Iterator[dict[str, Any]]:
    """One proof (:meth:`kari.explain.proof.Proof.to_json` plus ``rule_index``: the rule's index in the file, among the
    rules ``flagged_rules`` keeps as :func:`kari.solver.run.coverage` did) per row of the ``coverage`` table
    ``kari coverage`` wrote into ``db``, in table order."""
    with open_objects(bench, db) as source:
        rows = source.kb.execute("SELECT rule, affordance, object, covered, branch, part, semantics FROM coverage "
                                 "ORDER BY rule, object").fetchall()
        rules = usable_rules(read_rules(source.vocab, rules_file), flagged_rules)
        for index, affordance, object_id, covered, branch, part, semantics in rows:
            if index >= len(rules) or rules[index].affordance != affordance:
                raise KariError("the coverage table was not made from this rules file; run kari coverage again",
                                file=str(db), code="explain-mismatch")
            proof = explain(rules[index], source.get(object_id), source.vocab, semantics, source.evidence)
            differs = verdict_differences(proof.verdict(), (bool(covered), branch, part))
            if differs:
                raise KariError(f"the proof of {affordance} on {object_id} ({semantics}) disagrees with the solver's "
                                f"coverage row: {differs} (a bug in kari: the proof and the solver read the same "
                                "rule, object and vocabulary)", file=str(db), code="explain-mismatch",
                                exit_code=ExitCode.INTERNAL)
            yield {**proof.to_json(), "rule_index": index}


def verdict_differences(proof: tuple[bool, int | None, str | None], row: tuple[bool, int | None, str | None]) -> str:
    """What differs between a proof's verdict and a coverage row, field by field (``covered: proof True, solver
    False; branch: ...``); '' when they agree."""
    return "; ".join(f"{name}: proof {mine!r}, solver {theirs!r}"
                     for name, mine, theirs in zip(("covered", "branch", "part"), proof, row) if mine != theirs)


def write_coverage_proofs(rules_file: str | Path, db: str | Path, out: str | Path,
                          bench: str | Path | None = None, *, flagged_rules: str = FlaggedRules.USE) -> int:
    """Write :func:`coverage_proofs` as JSONL to ``out`` (atomically) and return how many were written."""
    count = 0
    with atomic_open(out) as handle:
        for proof in coverage_proofs(rules_file, db, bench, flagged_rules=flagged_rules):
            handle.write(json.dumps(proof, ensure_ascii=False) + "\n")
            count += 1
    return count
