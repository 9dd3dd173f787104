"""``kari rules check/fmt/stats/compile``: thin shells over :mod:`kari.rules` (and ``kari.solver.compile_rules``)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from kari.core.formats import RuleForm
from kari.core.terms import Semantics

VOCAB_HELP = "Vocabulary: a folder of TSV files or a KB DuckDB file (default: the shipped vocabulary)."
DB_HELP = "KB database whose vocabulary (benchmark words and Auditor additions included) to use."


def check(
    files: list[Path] = typer.Argument(..., help="Rule files (.kari or .jsonl)."),
    vocab: Path | None = typer.Option(None, "--vocab", help=VOCAB_HELP),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
    strict: bool = typer.Option(False, "--strict", help="Warnings fail too."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print errors only, not warnings."),
) -> None:
    """Check rule files: one line per problem (FILE:LINE:COL: code: message); exit 1 when a rule is invalid, 2
    when a file cannot be read (missing, not UTF-8, not .kari or .jsonl)."""
    from kari.errors import ExitCode, KariError
    from kari.rules import check_file
    from kari.vocab.vocabulary import open_vocabulary

    vocabulary = open_vocabulary(vocab, db)
    errors = warnings = unreadable = 0
    for path in files:
        try:
            diagnostics = check_file(path, vocabulary)
        except KariError as exc:
            typer.echo(str(exc))
            unreadable += 1
            continue
        for diag in diagnostics:
            errors += diag.is_error
            warnings += not diag.is_error
            if diag.is_error or not quiet:
                typer.echo(str(diag))
    failed = bool(errors or unreadable or (strict and warnings))
    typer.echo(f"{'kari: ' if failed else ''}{len(files)} file(s): {errors} error(s), {warnings} warning(s)"
               + (f", {unreadable} unreadable" if unreadable else ""), err=True)
    if failed:
        raise typer.Exit(ExitCode.BAD_INPUT if unreadable else ExitCode.FINDINGS)


def fmt(
    file: Path = typer.Argument(..., help="A rule file (.kari or .jsonl)."),
    to: str | None = typer.Option(None, "--to", help=f"{' | '.join(RuleForm)} (default: the file's own form)."),
    in_place: bool = typer.Option(False, "--in-place", "-i", help="Rewrite FILE (atomically)."),
    normalise: bool = typer.Option(False, "--normalise", help="Replace synonym values by canonical ones."),
    simplify_: bool = typer.Option(False, "--simplify", help="Flatten AND/OR and drop duplicate arguments."),
    vocab: Path | None = typer.Option(None, "--vocab", help=VOCAB_HELP),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Print the rules of FILE in canonical text, pretty text, JSONL or English (comments inside rules are dropped)."""
    from kari.errors import KariError
    from kari.io.atomic import atomic_write_text
    from kari.rules import load_rules
    from kari.rules.normalise import normalise_rule
    from kari.rules.rulefile import format_rules
    from kari.rules.simplification import simplify_rule

    form = to or ("json" if file.suffix == ".jsonl" else "text")
    writable = {".kari": ("text", "pretty"), ".jsonl": ("json",)}.get(file.suffix, ())
    if in_place and form not in writable:
        raise KariError(f"--in-place cannot write --to {form} into a {file.suffix or 'suffix-less'} file",
                        file=str(file), code="bad-option")
    rules = load_rules(file)
    if normalise:
        from kari.vocab.vocabulary import open_vocabulary

        vocabulary = open_vocabulary(vocab, db)
        rules = [normalise_rule(rule, vocabulary) for rule in rules]
    if simplify_:
        rules = [simplify_rule(rule) for rule in rules]
    text = format_rules(rules, form)
    if in_place:
        atomic_write_text(file, text)
    else:
        typer.echo(text, nl=False)


def stats(
    file: Path = typer.Argument(..., help="A rule file (.kari or .jsonl)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Rules, branches, atoms per predicate, distinct values, PART count and depth of a rule file."""
    from kari.rules import load_rules, rule_stats

    figures = rule_stats(load_rules(file))
    if as_json:
        typer.echo(json.dumps(figures, indent=2))
        return
    for key, value in figures.items():
        shown = ", ".join(f"{k} {v}" for k, v in value.items()) if isinstance(value, dict) else value
        typer.echo(f"{key:<16}{shown}")


def compile_(
    file: Path = typer.Argument(..., help="A rule file (.kari or .jsonl)."),
    semantics: str = typer.Option(Semantics.ANY_PART.value, "--semantics",
                                  help=f"{' | '.join(Semantics)} (PART semantics)."),
    vocab: Path | None = typer.Option(None, "--vocab", help=VOCAB_HELP),
    db: Path | None = typer.Option(None, "--db", help=DB_HELP),
) -> None:
    """Print the ASP program the solver runs for the rules of FILE."""
    from kari.vocab.vocabulary import open_vocabulary
    from kari.errors import choice
    from kari.rules import load_rules
    from kari.solver import compile_rules

    choice(semantics, Semantics, "semantics", code="bad-option")
    typer.echo(compile_rules(load_rules(file), open_vocabulary(vocab, db), semantics), nl=False)


def _language_pointer() -> str:
    from kari.resources import asset_path

    try:
        grammar = asset_path("grammar")
    except FileNotFoundError:
        return ""
    return (f" The language and every check code: {grammar / 'README.md'}; grammar: {grammar / 'kari.ebnf'}; "
            f"worked examples: {grammar / 'examples' / 'valid'} and {grammar / 'examples' / 'invalid'}. "
            "File formats: docs/formats.md; the method: docs/method.md.")


_GROUP_HELP = "KARI rules: check, format, summarise and compile rule files." + _language_pointer()


def register(app: typer.Typer) -> None:
    """Add ``kari rules ...`` to the root app."""
    group = typer.Typer(help=_GROUP_HELP, no_args_is_help=True)
    group.command("check")(check)
    group.command("fmt")(fmt)
    group.command("stats")(stats)
    group.command("compile")(compile_)
    app.add_typer(group, name="rules")
