"""``kari explain``: why a rule covers an object or does not, as a proof (text or JSON)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from kari.cli.options import number
from kari.core.game_defaults import MATCH_THRESHOLD
from kari.core.game_names import MatchMode


def explain(
    affordance: str = typer.Argument(..., help="The affordance to explain: matched to a rule of --rules by "
                                     "similarity as the players match it (--rule-match), or the name of --rule."),
    object_id: str = typer.Argument(..., metavar="OBJECT", help="The object's id in --bench or in the KB (--db)."),
    rules: Optional[Path] = typer.Option(None, "--rules", help="Rules file (.kari or .jsonl) holding the rule."),
    rule: Optional[str] = typer.Option(None, "--rule", help="The rule itself, e.g. 'PART(x, MADE_OF:metal)'."),
    bench: Optional[Path] = typer.Option(None, "--bench", help="Benchmark directory whose object to explain."),
    db: Optional[Path] = typer.Option(None, "--db", help="KB database: its vocabulary, and its objects with their "
                                      "edges (file, line) when no --bench is given."),
    vocab: Optional[Path] = typer.Option(None, "--vocab", help="Vocabulary folder (without --db; default: shipped)."),
    semantics: str = typer.Option("both", "--semantics", help="PART reading: any-part, strict or both."),
    match: str = typer.Option(MatchMode.EMBEDDING.value, "--rule-match", "--match",
                              help="How AFFORDANCE finds its rule in --rules: embedding (the players' matcher: "
                              "MiniLM sentence similarity of the verbs, needs kari[embed]) or exact (the rule "
                              "named AFFORDANCE)."),
    match_threshold: float = number(MATCH_THRESHOLD, "--match-threshold", low=0, high=1,
                                    help="Min. verb similarity of a rule match (the players' threshold)."),
    as_json: bool = typer.Option(False, "--json", help="Print the proofs as JSON (docs/formats.md)."),
) -> None:
    """Explain a rule's verdict on one object: the branch that holds, each atom with the facts (part, is-a steps,
    KB edge with file and line) that make it true, or for each branch the atoms that fail, false or unknown.
    With --rules, AFFORDANCE gets the rule a player would get for it (the most similar rule verb at
    --match-threshold), and the output says which rule matched and at what similarity."""
    from kari.domain.objects import SEMANTICS, check_semantics
    from kari.errors import KariError, one_of
    from kari.explain.proof import explain as make_proof
    from kari.explain.render import proof_text
    from kari.explain.sources import open_objects, read_rules

    if (rules is None) == (rule is None):
        raise KariError("give either --rules FILE or --rule TEXT", code="bad-option")
    if match not in tuple(MatchMode):
        raise KariError(f"unknown --rule-match {match!r} (expected {one_of(MatchMode)})", code="bad-option")
    readings = SEMANTICS[::-1] if semantics == "both" else (check_semantics(semantics),)
    matched = None
    with open_objects(bench, db, vocab) as source:
        if rules is not None and match == MatchMode.EMBEDDING:
            from kari.game.match import rule_for

            matched, nearest = rule_for(affordance, read_rules(source.vocab, rules), threshold=match_threshold)
            if matched is None:
                near = f" (nearest: {nearest.rule.affordance}, similarity {nearest.similarity:.3f})" if nearest else ""
                raise KariError(f"no rule matches {affordance!r} at similarity >= {match_threshold:g}{near}; "
                                "--rule-match exact names a rule by its id", file=str(rules), code="unknown-affordance")
            chosen = matched.rule
        else:
            chosen = read_rules(source.vocab, rules, rule, affordance)[0]
        obj = source.get(object_id)
        proofs = [make_proof(chosen, obj, source.vocab, reading, source.evidence) for reading in readings]
    found = None if matched is None else {"affordance": affordance, **matched.to_json()}
    if as_json:
        shown = [{**({"match": found} if found else {}), **p.to_json()} for p in proofs]
        typer.echo(json.dumps(shown if len(shown) > 1 else shown[0], indent=2, ensure_ascii=False))
        return
    if found is not None:
        verb = f", verb {found['verb']!r}" if found["verb"] != found["rule"] else ""
        typer.echo(f"{affordance} -> rule {found['rule']} (similarity {found['similarity']:.3f}{verb}; embedding "
                   f"match at >= {match_threshold:g}, as the players match rules)")
    typer.echo("\n".join(proof_text(p) for p in proofs), nl=False)


def register(app: typer.Typer) -> None:
    """Add ``kari explain`` to the root app."""
    app.command("explain")(explain)
