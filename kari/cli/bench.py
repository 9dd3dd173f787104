"""``kari bench show`` / ``validate`` / ``build``: summarise and check a benchmark directory, sample its games."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer

from kari.cli.options import MAX_GAMES, MAX_ITEMS, count, output
from kari.cli.options import seed as seed_option

if TYPE_CHECKING:
    from kari.domain.canon import CanonReport

bench_app = typer.Typer(help="Affordance20Q benchmark directories: show, validate, build games. "
                             "File formats: docs/formats.md.", no_args_is_help=True)


@bench_app.command("show")
def show(
    directory: Optional[Path] = typer.Argument(None, help="Benchmark directory (default: the bundled one)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """List the affordance ids (with descriptions, label and game counts) and count objects, labels and games."""
    import json

    from kari.bench.show import bench_overview
    from kari.resources import bundled_bench_dir

    overview = bench_overview(directory if directory is not None else bundled_bench_dir())
    typer.echo(json.dumps(overview.to_json(), indent=2, ensure_ascii=False) if as_json else overview.text(), nl=as_json)


@bench_app.command("validate")
def validate(
    directory: Optional[Path] = typer.Argument(None, help="Benchmark directory (default: the bundled one)."),
    vocab: Optional[Path] = typer.Option(None, "--vocab", help="Vocabulary folder of TSV files (default: shipped)."),
    db: Optional[Path] = typer.Option(None, "--db", help="KB database whose vocabulary to read (not written)."),
    words: int = count(10, "--words", low=0, high=MAX_ITEMS, help="List up to this many added, mapped and banned words."),
) -> None:
    """Check a benchmark directory: structural problems as FILE:LINE: code: message (exit 1 if any); how its
    words were read (canonical, mapped, added as new values, banned) as notes (never a failure)."""
    from kari.bench.validate import validate_bench
    from kari.errors import ExitCode
    from kari.vocab.vocabulary import open_vocabulary
    from kari.resources import bundled_bench_dir

    root = directory if directory is not None else bundled_bench_dir()
    report = validate_bench(root, open_vocabulary(vocab, db))
    for problem in report.problems:
        typer.echo(str(problem))
    for line in word_notes(report.words, words):
        typer.echo(line)
    counts = ", ".join(f"{n} {name.removesuffix('.jsonl')}" for name, n in report.counts.items())
    if report.problems:
        typer.echo(f"kari: {root}: {len(report.problems)} problem(s) ({counts})", err=True)
        raise typer.Exit(ExitCode.FINDINGS)
    typer.echo(f"{root}: ok ({counts})")


def word_notes(words: "CanonReport", limit: int) -> list[str]:
    """``note:`` lines: the counts, then up to ``limit`` examples of words added, mapped and banned."""
    lines = [f"note: {words.summary()}"]
    for how, title in (("added", "added as a new value"), ("variant", "mapped by word form"),
                       ("synonym", "mapped by synonym"), ("banned", "banned (never a fact)")):
        rows = words.distinct(how)
        for predicate, raw, value, source in rows[:limit]:
            target = "" if value is None or value == raw else f" -> {value}"
            lines.append(f"note: {title}: {predicate}:{raw}{target} ({source})")
        if len(rows) > limit:
            lines.append(f"note: ... and {len(rows) - limit} more {title}")
    return lines


@bench_app.command("build")
def build(
    directory: Path = typer.Argument(..., help="Benchmark directory with objects, affordances and labels."),
    games: Optional[int] = count(None, "--games", "-n", high=MAX_GAMES, help="Number of games (default: all eligible)."),
    seed: int = seed_option(0, "--seed", help="Sampling seed."),
    min_positives: int = count(10, "--min-positives", high=MAX_ITEMS,
                                      help="Only affordances with this many positive objects are candidates."),
    out: Optional[Path] = output(None, "--out", "-o", help="Output file (default: DIRECTORY/games.jsonl)."),
) -> None:
    """Sample games balanced across target affordances (seeded) and write games.jsonl atomically."""
    from kari.bench.build import build_games

    stats = build_games(directory, n_games=games, seed=seed, min_positives=min_positives, out=out)
    typer.echo(f"{stats.games} games ({stats.affordances} target affordances, {stats.objects} objects; "
               f"{stats.eligible_pairs} eligible pairs) -> {out or directory / 'games.jsonl'}")


def register(app: typer.Typer) -> None:
    """Add the ``bench`` group to the root app."""
    app.add_typer(bench_app, name="bench")
