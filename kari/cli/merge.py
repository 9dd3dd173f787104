"""``kari merge``: join the shards of one run (``kari play --shard K/N``, ``kari creativity solve --shard K/N``,
``kari induce --shard K/N``) into one run directory (and, for an induction, its rules file)."""

from __future__ import annotations

from pathlib import Path

import typer

from kari.cli.options import output


def merge(
    shards: list[Path] = typer.Argument(..., metavar="DIR...", help="The run directories of every shard of one "
                                        "run (all N of them)."),
    out: Path = output(..., "--out", "-o", kind="folder", help="The merged run directory (new, or an empty folder); "
                       "for the shards of kari induce, the .kari rules file to write (its .jsonl beside it, the run "
                       "directory OUT with suffix .run, or --run-dir)."),
    # checked by check_outputs in kari.induce.merge like every output; a plain option because the fuzz test's
    # worlds hold shards of kari play, for which --run-dir is refused
    run_dir: Path | None = typer.Option(None, "--run-dir", help="kari induce shards: the merged run directory "
                                        "(new, or an empty folder; default: OUT with suffix .run)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Join the shards of one run into one run directory whose records (games.jsonl or answers.jsonl, in the
    order of an unsharded run) and summary.json equal the run's played unsharded; the shards of an induction
    into the rules file, its JSONL and the run directory the unsharded induction writes (the vocabulary additions
    merged in affordance order and written back to the KB database). Shards of different settings or inputs,
    overlapping, missing or unfinished shards are refused, naming them (docs/cluster.md)."""
    import sys

    from kari.creativity.answers import ANSWERS_FILE
    from kari.errors import KariError
    from kari.core.game_records import GAMES_FILE
    from kari.induce.merge import is_induction_run

    inductions = [is_induction_run(d) for d in shards]
    if any(inductions):  # every directory must then be an induction shard (merge_shards names the first that is not)
        from kari.induce.merge import merge_shards

        outcome = merge_shards(shards, out, run_dir=run_dir, argv=["merge", *sys.argv[2:]],
                               progress=not quiet and sys.stderr.isatty())
        typer.echo(f"{len(shards)} shards merged: {len(outcome.rules)} rules for {len(outcome.results)} affordances "
                   f"-> {outcome.out} and {outcome.jsonl} (run directory {outcome.run_dir})")
        return
    if run_dir is not None:
        raise KariError("--run-dir is for the shards of kari induce", code="merge-shards")
    logs = [next((name for name in (GAMES_FILE, ANSWERS_FILE) if (d / name).is_file()), None) for d in shards]
    if None in logs:
        raise KariError(f"not a shard of 'kari play' or 'kari creativity solve' (no {GAMES_FILE} or "
                        f"{ANSWERS_FILE})", file=str(shards[logs.index(None)]), code="merge-shards")
    kinds = set(logs)
    if len(kinds) > 1:
        raise KariError("these are shards of different commands (kari play and kari creativity solve)",
                        code="merge-shards")
    if kinds == {GAMES_FILE}:
        from kari.cli.play import summary_line
        from kari.game.run import merge_runs as merge_games

        summary = merge_games(shards, out)
        typer.echo(f"{len(shards)} shards merged: {summary_line(summary, out)}")
        return
    from kari.creativity.run import merge_runs as merge_answers

    answers = merge_answers(shards, out)
    typer.echo(f"{len(shards)} shards merged: {answers['tasks']} tasks ({answers['answered']} answered), gold "
               f"correct {100 * (answers['gold_correct_rate'] or 0):.1f}% -> {out}")


def register(app: typer.Typer) -> None:
    """Add ``kari merge`` to the root app."""
    app.command("merge")(merge)
