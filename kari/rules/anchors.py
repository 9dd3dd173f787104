"""What a KB-anchored rule's metadata says of its anchor in the KB (``kari induce --db`` writes it; docs/formats.md):
the KB verbs grouped into the rule (``group.members``), the KB's positive objects of the group (``kb_positives``)
and whether its held-out precision within the KB flagged it (``flagged``). Rules from elsewhere have none of these:
they answer to their own verb, have no KB positives and are not flagged.
"""

from __future__ import annotations

from kari.core.terms import normalise_term
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
