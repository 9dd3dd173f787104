"""``kari vocab``: list the vocabulary a command would use (values, parents, provenance), optionally with a
benchmark's words read into it."""

from __future__ import annotations

import json
from pathlib import Path

import typer


def vocab(
    db: Path | None = typer.Option(None, "--db", help="KB database whose vocabulary to list (default: shipped)."),
    folder: Path | None = typer.Option(None, "--vocab", help="A folder of vocabulary TSV files instead."),
    bench: Path | None = typer.Option(None, "--bench", help="Read this benchmark's words in first (not stored)."),
    predicate: list[str] = typer.Option([], "--predicate", "-p", help="Only this predicate (repeatable)."),
    added: bool = typer.Option(False, "--added", help="Only values that are not in the shipped files."),
    search: str | None = typer.Option(None, "--search", "-s", help="Only values containing this text."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per value."),
) -> None:
    """One line per canonical value: PREDICATE, value, its is-a parents and where it came from ('shipped',
    the FILE:LINE that added it, or induce:<affordance>:round<n> for the Auditor); synonyms and word forms
    (plurals, British spellings, adjectives) are read into these values by every command."""
    from kari.core.terms import PREDICATES
    from kari.vocab.vocabulary import SHIPPED, open_vocabulary
    from kari.errors import unknown as unknown_name

    vocabulary = open_vocabulary(folder, db)
    if bench is not None:
        from kari.bench.reader import load_benchmark

        load_benchmark(bench, vocabulary)
    unknown = [p for p in predicate if p.upper() not in PREDICATES]
    if unknown:
        raise unknown_name("predicate", unknown[0], PREDICATES, code="bad-option")
    wanted = [p.upper() for p in predicate] or list(PREDICATES)
    parents: dict[tuple[str, str], list[str]] = {}
    for pred, child, parent in vocabulary.isa_pairs():
        parents.setdefault((pred, child), []).append(parent)
    shown = 0
    for pred in wanted:
        for value in sorted(vocabulary.values(pred)):
            provenance = vocabulary.provenance(pred, value) or ""
            if (added and provenance == SHIPPED) or (search and search.lower() not in value):
                continue
            up = parents.get((pred, value), [])
            shown += 1
            if as_json:
                typer.echo(json.dumps({"predicate": pred, "value": value, "parents": up, "provenance": provenance,
                                       "exclusive_group": vocabulary.exclusive_group(pred, value)}))
            else:
                typer.echo(f"{pred}\t{value}\t{','.join(up) or '-'}\t{provenance}")
    if not as_json:
        typer.echo(f"{shown} value(s)", err=True)


def register(app: typer.Typer) -> None:
    """Add ``kari vocab`` to the root app."""
    app.command("vocab")(vocab)
