"""``kari explain``: why a rule covers an object or does not, as a proof (text or JSON)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer


def explain(
    affordance: str = typer.Argument(..., help="The rule's affordance (its name in --rules; the name of --rule)."),
    object_id: str = typer.Argument(..., metavar="OBJECT", help="The object's id in --bench or in the KB (--db)."),
    rules: Optional[Path] = typer.Option(None, "--rules", help="Rules file (.kari or .jsonl) holding the rule."),
    rule: Optional[str] = typer.Option(None, "--rule", help="The rule itself, e.g. 'PART(x, MADE_OF:metal)'."),
    bench: Optional[Path] = typer.Option(None, "--bench", help="Benchmark directory whose object to explain."),
    db: Optional[Path] = typer.Option(None, "--db", help="KB database: its vocabulary, and its objects with their "
                                      "edges (file, line) when no --bench is given."),
    vocab: Optional[Path] = typer.Option(None, "--vocab", help="Vocabulary folder (without --db; default: shipped)."),
    semantics: str = typer.Option("both", "--semantics", help="PART reading: any-part, strict or both."),
    as_json: bool = typer.Option(False, "--json", help="Print the proofs as JSON (docs/formats.md)."),
) -> None:
    """Explain a rule's verdict on one object: the branch that holds, each atom with the facts (part, is-a steps,
    KB edge with file and line) that make it true, or for each branch the atoms that fail, false or unknown."""
    from kari.domain.objects import SEMANTICS, check_semantics
    from kari.explain.proof import explain as make_proof
    from kari.explain.render import proof_text
    from kari.explain.sources import open_objects, read_rules

    readings = SEMANTICS[::-1] if semantics == "both" else (check_semantics(semantics),)
    with open_objects(bench, db, vocab) as source:
        chosen = read_rules(source.vocab, rules, rule, affordance)[0]
        obj = source.get(object_id)
        proofs = [make_proof(chosen, obj, source.vocab, reading, source.evidence) for reading in readings]
    if as_json:
        typer.echo(json.dumps([p.to_json() for p in proofs] if len(proofs) > 1 else proofs[0].to_json(), indent=2,
                              ensure_ascii=False))
    else:
        typer.echo("\n".join(proof_text(p) for p in proofs), nl=False)


def register(app: typer.Typer) -> None:
    """Add ``kari explain`` to the root app."""
    app.command("explain")(explain)
