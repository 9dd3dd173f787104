"""Affordance20Q: the 20-Questions game over object properties (docs/method.md, section 3).

:mod:`kari.game.run` plays a benchmark's games into a resumable run directory (``kari play``); one game is
:func:`kari.game.engine.play_game`; the players are in :mod:`kari.game.questioners`, the Oracle and the Checker in
:mod:`kari.game.oracle` and :mod:`kari.game.checker`; :mod:`kari.game.metrics` scores records
(:mod:`kari.report` compares runs: ``kari report``).
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.game.engine import play_game
    from kari.game.metrics import score, summarise
    from kari.game.summary import RunData, RunSummary, Score
    from kari.game.run import PlayConfig, play, play_loaded
    from kari.game.setup import SetupBuilder
    from kari.game.types import Ask, GameSetup, GameState, Guess, Turn

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.game.engine": ("play_game",),
    "kari.game.metrics": ("score", "summarise"),
    "kari.game.summary": ("RunData", "RunSummary", "Score"),
    "kari.game.run": ("PlayConfig", "play", "play_loaded"),
    "kari.game.setup": ("SetupBuilder",),
    "kari.game.types": ("Ask", "GameSetup", "GameState", "Guess", "Turn"),
})
