"""What a KB-anchored rule's metadata says of its anchor in the KB (``kari induce --db`` writes it; docs/formats.md):
the KB verbs grouped into the rule (``group.members``), the KB's positive objects of the group (``kb_positives``)
and whether its held-out precision within the KB flagged it (``flagged``). Rules from elsewhere have none of these:
they answer to their own verb, have no KB positives and are not flagged. :func:`usable_rules` leaves the flagged ones
out (``--flagged-rules skip``).
"""

from __future__ import annotations

from collections.abc import Sequence

from kari.core.game_defaults import FLAGGED_RULES
from kari.core.game_names import FlaggedRules
from kari.core.terms import normalise_term
from kari.errors import choice
from kari.rules.ast import Rule


def rule_verbs(rule: Rule) -> list[str]:
    """The verbs a rule answers to: its own and those of the KB verbs grouped into it (rule metadata
    ``group.members``: each verb, and the KB's statements of it, ``used for cleaning``), normalised, without
    repeats."""
    members = ((rule.metadata or {}).get("group") or {}).get("members") or ()
    verbs = [rule.affordance, *(m.get("verb", "") for m in members if isinstance(m, dict)),
             *(s for m in members if isinstance(m, dict) for s in m.get("statements") or () if isinstance(s, str))]
    return list(dict.fromkeys(normalise_term(v) for v in verbs if v))


def kb_positives(rule: Rule) -> frozenset[str]:
    """The KB's positive objects of a KB-anchored rule (empty for any other rule)."""
    return frozenset((rule.metadata or {}).get("kb_positives") or ())


def is_flagged(rule: Rule) -> bool:
    """Did ``kari induce --db`` flag the rule (its held-out precision within the KB no better than the base rate,
    or not estimable; rule metadata ``flagged``)?"""
    return bool((rule.metadata or {}).get("flagged"))


def usable_rules(rules: Sequence[Rule], flagged: str | None = None) -> list[Rule]:
    """The rules a player is given: every one with ``flagged`` ``use``, else (``skip``; None: the default,
    :data:`~kari.core.game_defaults.FLAGGED_RULES`) the unflagged ones."""
    flagged = FLAGGED_RULES if flagged is None else flagged
    choice(flagged, FlaggedRules, "--flagged-rules", code="game-config")
    return list(rules) if flagged == FlaggedRules.USE else [r for r in rules if not is_flagged(r)]
