"""The ``kari`` command: one typer app (:mod:`kari.cli.root`), one module per command group.

Each group module (``kb``, ``bench``, ``vocab``, ``rules``, ``solver``, ``induce``, ``play``, ``merge``,
``pipeline``, ``llm``, ``creativity``, ``explain``, ``serve``) exposes ``register(app)`` and keeps its commands thin: parse options, call the
library function of the same name, print. Heavy imports happen inside the commands.
"""

from kari.exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.cli.root": ("COMMAND_MODULES", "INTERNAL_ERROR_EXIT", "app", "main", "run"),
})
