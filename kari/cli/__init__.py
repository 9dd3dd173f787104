"""The ``kari`` command: one typer app, one module per command group.

Each module in :data:`COMMAND_MODULES` exposes ``register(app)`` and keeps its commands thin: parse options,
call the library function of the same name, print. Heavy imports happen inside the commands.
"""

from __future__ import annotations

import importlib
import sys

import typer

from kari import __version__
from kari.errors import KariError

COMMAND_MODULES = ("kb", "bench", "rules", "solver", "induce", "play", "pipeline", "llm")

app = typer.Typer(
    name="kari",
    help="Symbolic affordance reasoning: KB store, KARI rules, ASP solver, rule induction, Affordance20Q games.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kari {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """kari: symbolic affordance reasoning."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"kari.cli.{_name}").register(app)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app; a :class:`KariError` becomes one line on stderr and its exit code."""
    try:
        app(args=argv)
    except KariError as exc:
        typer.echo(f"kari: {exc}", err=True)
        sys.exit(exc.exit_code)
