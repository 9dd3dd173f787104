"""Seeded split of an affordance's positives into the loop's groups (method.md 2: three groups)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence


def split_groups(ids: Sequence[str], groups: int = 3, seed: int = 0, salt: str = "") -> list[list[str]]:
    """Shuffle ``ids`` with a generator seeded by ``(seed, salt)`` and deal them round-robin into ``groups``.

    The split of one affordance (``salt``) does not depend on which other affordances are in the run.
    Group 1 is never empty when ``ids`` is not; later groups may be empty when there are few positives.

    >>> split_groups(["a", "b", "c", "d"], 3, seed=1, salt="cut") == split_groups(["a", "b", "c", "d"], 3, 1, "cut")
    True
    >>> sorted(len(g) for g in split_groups([str(i) for i in range(10)], 3))
    [3, 3, 4]
    """
    digest = hashlib.sha256(f"{seed}:{salt}".encode()).digest()
    order = sorted(dict.fromkeys(ids))
    random.Random(int.from_bytes(digest[:8], "big")).shuffle(order)
    return [order[i::groups] for i in range(groups)]
