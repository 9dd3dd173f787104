"""Coverage query: every rule x object, covered or not, with the witnessing branch and part (ASP path).

Rules are compiled in batches (bounded by the number of ASP rule bodies and by clingo's 32-bit integers) and
each batch is solved by a fresh, short-lived clingo Control over ``solver/facts.lp`` and
``solver/coverage_codes.lp``, the compact output form of ``solver/coverage.lp``: objects and parts are interned
to integers and every covering branch comes back as one integer.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from kari.core.benchmark import ObjectRecord
from kari.errors import KariError
from kari.rules.ast import Rule
from kari.domain.canon import canonical_rules
from kari.domain.objects import check_semantics, object_parts
from kari.solver.compile import compile_rule_batch, disjunct_count
from kari.solver.control import solve
from kari.solver.facts import object_facts, taxonomy_facts
from kari.core.solver_types import CoverageRow, coverage_row, gc_paused
from kari.vocab.vocabulary import Vocabulary
from kari.core.terms import Semantics

DEFAULT_BATCH_BODIES = 4000
"""Upper bound on ASP rule bodies per solver call (a batch always holds at least one rule)."""

_MAX_CODE = 2**31 - 1


def rule_batches(sizes: Sequence[int], max_bodies: int, max_rules: int) -> list[list[int]]:
    """Split rule indices into consecutive batches of at most ``max_bodies`` bodies and ``max_rules`` rules."""
    batches: list[list[int]] = [[]]
    total = 0
    for n, size in enumerate(sizes):
        if batches[-1] and (total + size > max_bodies or len(batches[-1]) >= max_rules):
            batches.append([])
            total = 0
        batches[-1].append(n)
        total += size
    return [b for b in batches if b]


def compute_coverage(rules: Sequence[Rule], objects: Sequence[ObjectRecord], vocab: Vocabulary,
                     semantics: str = Semantics.ANY_PART, time_limit: float = 30.0,
                     max_bodies: int = DEFAULT_BATCH_BODIES) -> list[CoverageRow]:
    """One :class:`CoverageRow` per rule x object (rule order, then object order), decided by clingo.

    Raises a :class:`KariError` for unknown predicates/values (naming the rule) and when ``time_limit``
    seconds are spent before every batch is solved.
    """
    normalised, best = _best_hits(rules, objects, vocab, semantics, time_limit, max_bodies)
    with gc_paused():
        return [coverage_row(rule.affordance, obj.id, True, hit[0], hit[1], r) if (hit := best.get((r, o)))
                else coverage_row(rule.affordance, obj.id, False, None, None, r)
                for r, rule in enumerate(normalised) for o, obj in enumerate(objects)]


def covered_pairs(rules: Sequence[Rule], objects: Sequence[ObjectRecord], vocab: Vocabulary,
                  semantics: str = Semantics.ANY_PART, time_limit: float = 30.0,
                  max_bodies: int = DEFAULT_BATCH_BODIES) -> set[tuple[str, str]]:
    """The ``(affordance, object id)`` pairs :func:`compute_coverage` finds covered, without building a row per
    rule x object (scoring many rules on many objects needs only these); the same checks and errors."""
    normalised, best = _best_hits(rules, objects, vocab, semantics, time_limit, max_bodies)
    return {(normalised[r].affordance, objects[o].id) for r, o in best}


def _best_hits(rules: Sequence[Rule], objects: Sequence[ObjectRecord], vocab: Vocabulary, semantics: str,
               time_limit: float, max_bodies: int
               ) -> tuple[list[Rule], dict[tuple[int, int], tuple[int, str | None]]]:
    """The canonical rules and, per covered (rule index, object index), the lowest covering branch and the
    smallest part that makes it true (None: the whole object), decided by clingo in batches."""
    check_semantics(semantics)
    normalised = canonical_rules(rules, vocab)
    if len({obj.id for obj in objects}) != len(objects):
        raise KariError("duplicate object ids in the coverage input", code="duplicate-object")
    parts = [object_parts(obj) for obj in objects]
    nobj, nbr = max(len(objects), 1), max((len(r.branches()) for r in normalised), default=1)
    npart = 1 + max((len(p) for p in parts), default=0)
    max_rules = _MAX_CODE // (nobj * nbr * npart)
    if max_rules < 1:
        raise KariError(f"{len(objects)} objects are too many for one coverage call; split the objects",
                        code="too-large")
    deadline = time.perf_counter() + time_limit
    facts = object_facts(objects, vocab) + "\n" + taxonomy_facts(vocab)
    constants = ["-c", f"nobj={nobj}", "-c", f"nbr={nbr}", "-c", f"npart={npart}"]
    best: dict[tuple[int, int], tuple[int, str | None]] = {}
    batches = rule_batches([disjunct_count(r, semantics) for r in normalised], max_bodies, max_rules)
    for done, batch in enumerate(batches):
        program = compile_rule_batch([normalised[n] for n in batch], range(len(batch)), semantics)
        remaining = deadline - time.perf_counter()
        outcome = None if remaining <= 0 else solve([facts, program], ["facts.lp", "coverage_codes.lp"],
                                                    time_limit=remaining, what="coverage", options=constants,
                                                    numbers_only=True)
        if outcome is None or outcome.timed_out:
            raise KariError(f"coverage hit the solver time limit of {time_limit:g} s after {done} of {len(batches)} "
                            f"rule batches; raise the time limit or pass fewer rules/objects", code="time-limit")
        for code in outcome.numbers:  # keep the lowest branch, then the smallest part (no part sorts last)
            rest, k = divmod(code, npart)
            rest, b = divmod(rest, nbr)
            r, o = divmod(rest, nobj)
            key = (batch[r], o)
            part = parts[o][k - 1] if k else None
            held = best.get(key)
            if held is None or (b, part is None, part or "") < (held[0], held[1] is None, held[1] or ""):
                best[key] = (b, part)
    return normalised, best
