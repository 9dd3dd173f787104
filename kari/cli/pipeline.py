"""``kari pipeline``: the main job (KB -> induce -> coverage -> play -> report) on the bundled data, offline."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from kari.cli.options import MAX_GAMES, count
from kari.cli.options import seed as seed_option
from kari.core.game_defaults import DEFAULT_QUESTIONERS


def pipeline(
    out: Path = typer.Option(Path("runs/quickstart"), "--out", "-o", help="Output folder (resumable)."),
    kb: list[Path] = typer.Option([], "--kb", help="KB file(s) to load (default: the bundled KGTK KB)."),
    bench: Optional[Path] = typer.Option(None, "--bench", help="Benchmark directory (default: the bundled one)."),
    questioner: list[str] = typer.Option([], "--questioner", "-q",
                                         help="Players (repeatable), NAME[@K][+rules]: @K caps the positives "
                                              "greedy-ig's belief uses (@10: the paper's 10 representatives), "
                                              "+rules gives the cross-fitted rules (default: "
                                              f"{', '.join(DEFAULT_QUESTIONERS)})."),
    games: Optional[int] = count(None, "--games", "-n", high=MAX_GAMES, help="Play only the first N games."),
    seed: int = seed_option(0, "--seed", help="Seed of induction groups, representatives and random choices."),
) -> None:
    """Run the main job offline: load the KB, induce rules, compute coverage, play games, write a report."""
    from kari.pipeline import run_pipeline

    run_pipeline(out, kb_files=kb or None, bench=bench, questioners=questioner or DEFAULT_QUESTIONERS, games=games,
                 seed=seed, progress=sys.stderr.isatty(), echo=typer.echo)


def register(app: typer.Typer) -> None:
    """Add ``kari pipeline`` to the root app."""
    app.command("pipeline")(pipeline)
