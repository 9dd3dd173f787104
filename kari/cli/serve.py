"""``kari serve``: a human study in the browser (:mod:`kari.serve`; needs the ``serve`` extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from kari.cli.options import MAX_BUDGET, MAX_GAMES, count
from kari.cli.options import seed as seed_option
from kari.errors import one_of
from kari.core import game_defaults as defaults
from kari.serve.settings import DEFAULT_ORACLE_PLAYER, MAX_PARTICIPANTS, ORACLE_PLAYERS, Mode

EXTRA_MISSING = "kari serve needs the serve extra: pip install 'kari[serve]' (Starlette and uvicorn)"


def serve(
    out: Path = typer.Option(..., "--out", "-o", help="The study's run directory (a kari play run directory, "
                             "resumed on restart; its serve/ folder is private: links and journal)."),
    bench: Optional[Path] = typer.Option(None, "--bench", help="Benchmark directory (default: the bundled one)."),
    port: int = typer.Option(8765, "--port", min=0, max=65535, help="TCP port (0: any free port, printed)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (default: this machine only; "
                             "for remote participants put a TLS proxy in front: docs/serve.md)."),
    mode: str = typer.Option(Mode.QUESTIONER.value, "--mode", help=f"What the participants play: {one_of(Mode)} "
                             "(questioner: they ask, the benchmark's facts answer; oracle: a kari player asks, "
                             "they answer about an object they are shown)."),
    participants: int = count(20, "--participants", "-n", high=MAX_PARTICIPANTS, help="Participants (links)."),
    per_game: int = count(1, "--per-game", "-k", high=MAX_PARTICIPANTS, help="Participants who play each game "
                          "(none plays a game twice)."),
    games: Optional[int] = count(None, "--games", high=MAX_GAMES, help="Use only the benchmark's first N games "
                                 "(default: all)."),
    questioner: Optional[str] = typer.Option(None, "--questioner", "-q", help=f"Oracle mode: the player who asks, "
                                             f"{one_of(ORACLE_PLAYERS)} (default {DEFAULT_ORACLE_PLAYER})."),
    budget: int = count(defaults.BUDGET, "--budget", high=MAX_BUDGET, help="Questions per game before a forced "
                        "guess."),
    seed: int = seed_option(0, "--seed", help="Seed of the assignment, the order and the representatives."),
    consent: Optional[Path] = typer.Option(None, "--consent", help="The consent text shown first (plain text; "
                                           "default: the shipped template, which must be edited)."),
    compare: list[Path] = typer.Option([], "--compare", help="A run directory the coordinator's report compares "
                                       "the study with (repeatable)."),
    vocab: Optional[Path] = typer.Option(None, "--vocab", help="Vocabulary folder (default: the shipped one)."),
    db: Optional[Path] = typer.Option(None, "--db", help="KB database whose vocabulary to use (read only)."),
    export: Optional[Path] = typer.Option(None, "--export", help="Do not serve: write the study's anonymised "
                                          "export (a run directory kari report reads) into this new folder."),
) -> None:
    """Serve a human study in the browser: each participant plays their games from their own link (consent
    first), every step journaled (a restart loses no answered turn), their games recorded in OUT as a kari play
    run (player human; docs/serve.md, docs/formats.md). Binds 127.0.0.1 unless --host says otherwise."""
    import importlib.util

    from kari.errors import KariError
    from kari.resources import bundled_bench_dir
    from kari.serve.settings import StudySettings

    if export is not None:
        from kari.serve.export import export_study

        written = export_study(out, export)
        typer.echo(f"{written} records exported (anonymised) -> {export}")
        return
    if any(importlib.util.find_spec(name) is None for name in ("starlette", "uvicorn")):
        raise KariError(EXTRA_MISSING, code="serve-missing")
    from kari.serve.server import bind
    from kari.serve.server import serve as run_server
    from kari.serve.store import open_study, study_config

    if questioner is None:
        questioner = DEFAULT_ORACLE_PLAYER if mode == Mode.ORACLE else "human"
    settings = StudySettings(mode=mode, participants=participants, per_game=per_game, games=games, seed=seed,
                             questioner=questioner)
    config = study_config((bench or bundled_bench_dir()).resolve(), settings, budget=budget, vocab=vocab,
                          db=db.resolve() if db else None)
    sock = bind(host, port)  # a port in use is refused before the study is opened
    try:
        with open_study(config, settings, out, consent=consent) as study:
            run_server(study, out, sock, compare=compare, announce=typer.echo)
    finally:
        sock.close()
    typer.echo(f"study stopped; {len(study.run.records)} games recorded -> {out}")


def register(app: typer.Typer) -> None:
    """Add ``kari serve`` to the root app."""
    app.command("serve")(serve)
