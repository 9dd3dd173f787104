"""The ``kari`` command: one typer app (:mod:`kari.cli.root`), one module per command group.

Each group module (``kb``, ``bench``, ``vocab``, ``rules``, ``solver``, ``induce``, ``play``, ``merge``,
``pipeline``, ``llm``, ``creativity``, ``explain``, ``serve``) exposes ``register(app)`` and keeps its commands thin: parse options, call the
library function of the same name, print. Heavy imports happen inside the commands.
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.cli.root import COMMAND_MODULES, INTERNAL_ERROR_EXIT, app, main, run

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.cli.root": ("COMMAND_MODULES", "INTERNAL_ERROR_EXIT", "app", "main", "run"),
})
