"""The players: one module per Questioner, built by name through :func:`make_questioner`.

``optimal`` (target-aware upper bound, the only player that sees the hidden object), ``fix20q``, ``greedy-ig``
(information gain on the soft belief; with ``--rules`` the "+rules" variant), ``rules`` (symbolic, asks matched
rules' atoms), ``llm`` and ``human``. The registry (:mod:`kari.game.questioners.registry`) imports a player's
module on demand, so that building one player never imports another's dependencies.
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.game.questioners.base import Questioner, QuestionerOptions, argmax_belief, resolve_guess
    from kari.game.questioners.registry import QUESTIONERS, make_questioner, questioner_class, sees_rules

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.game.questioners.base": ("Questioner", "QuestionerOptions", "argmax_belief", "resolve_guess"),
    "kari.game.questioners.registry": ("QUESTIONERS", "make_questioner", "questioner_class", "sees_rules"),
})
