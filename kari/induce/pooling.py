"""Positive-unlabelled KB evidence: thin positives pooled through the KB's structure, implicit negatives weighed.

A KB states what objects afford, never (or rarely) what they do not; most verbs name one or two objects. For
each verb group (:func:`pool`):

* **pooled kin** -- the KB objects that are is-a parents, siblings or parts of a stated positive
  (:mod:`kari.induce.kinship`: a scythe cuts, and so, likely, does its sibling the sickle, its parent the edge
  tool, its part the blade) join the evidence as weighed positives (:data:`KIN_WEIGHT`): they count towards a
  branch's support and F-beta, but no branch is proposed for them alone (every branch covers a stated positive)
  and they are never negatives;
* **implicit negatives** -- every other KB object, weighed by how well the KB describes its uses
  (:func:`negative_weight`: an object the KB names several other uses of, and not this one, is likelier a true
  negative than one the KB names no use of); no object is a hard negative.

A group whose stated positives and pooled kin together are fewer than ``min_kb_objects`` distinct objects (by
default 2: one object and no kin) gets no rule (:func:`split_thin`): a rule induced from one object describes that
object, not what affords the verb, and its precision cannot be estimated out of sample. Its verbs are recorded
as left out (reason ``thin-evidence``).

The weights are read by the offline Proposer's counts (:mod:`kari.induce.fastsearch`) and by the held-out
precision of :mod:`kari.induce.kbweights`. Settings chosen on the bundled KB only (docs/results.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from kari.core.benchmark import ObjectRecord
from kari.induce.inputs import Evidence, KinLink, Weights
from kari.induce.kinship import Kinship
from kari.induce.targets import Reason

KIN_WEIGHT = {"parent": 1.0, "sibling": 1.0, "part": 1.0}
"""The weight of a pooled kin by how it is related to a stated positive (the strongest relation counts). Chosen on
the bundled KB and benchmark among 0.25, 0.5, 0.75 and 1 (docs/results.md): a kin still never makes a branch on its
own."""
NEGATIVE_FLOOR = 0.125
"""The weight of an implicit negative the KB names no use of."""
MAX_POOLED_PER_POSITIVE = 16
"""At most this many kin are pooled per stated positive (parts, then parents, then siblings; then by id); chosen on
the bundled pair among 4, 8, 16 and 32."""


def negative_weight(verbs: int) -> float:
    """An implicit negative's weight from the number of distinct verbs the KB states for it:
    ``(d + f) / (d + f + 1)`` with f chosen so that d = 0 gives :data:`NEGATIVE_FLOOR` (1 verb: 0.53, 3: 0.76)."""
    floor = NEGATIVE_FLOOR / (1.0 - NEGATIVE_FLOOR)
    return (verbs + floor) / (verbs + floor + 1.0)


def base_weights(objects: Sequence[ObjectRecord], verb_counts: Mapping[str, int]) -> Weights:
    """Every object's weight as an implicit negative (:func:`negative_weight`), shared by every group."""
    return Weights({o.id: round(negative_weight(verb_counts.get(o.id, 0)), 4) for o in objects})


def kin_of(positives: Sequence[str], kin: Kinship) -> tuple[dict[str, float], dict[str, tuple[KinLink, ...]]]:
    """The pooled kin of ``positives`` with their weights (module docstring), stated positives left out, and for
    each kin how it is kin of which positives (:class:`kari.induce.inputs.KinLink`)."""
    stated = set(positives)
    out: dict[str, float] = {}
    sources: dict[str, list[KinLink]] = {}
    for obj in sorted(stated):
        related = [(KIN_WEIGHT["part"], p, KinLink(obj, "part")) for p in kin.parts.get(obj, ())]
        related += [(KIN_WEIGHT["parent"], link.parent, KinLink(obj, "parent", link.how))
                    for link in kin.parents.get(obj, ()) if link.level == 1]
        related += [(KIN_WEIGHT["sibling"], s, KinLink(obj, "sibling", parent)) for s, parent in kin.sibling_links(obj)]
        taken = 0
        for weight, other, why in sorted(related, key=lambda item: (-item[0], item[1], item[2].via or "")):
            if other in stated or taken >= MAX_POOLED_PER_POSITIVE:
                continue
            taken += other not in out
            out[other] = max(out.get(other, 0.0), weight)
            sources.setdefault(other, []).append(why)
    return out, {k: tuple(v) for k, v in sources.items()}


def pool(evidence: Evidence, kin: Kinship, by_id: Mapping[str, ObjectRecord], base: Weights) -> Evidence:
    """``evidence`` with its pooled kin and its weights (module docstring)."""
    pooled, sources = kin_of([o.id for o in evidence.positives], kin)
    return replace(evidence, pooled=tuple(by_id[k] for k in sorted(pooled) if k in by_id),
                   weights=base.with_own(pooled), pooled_from=sources)


def evidence_objects(evidence: Evidence) -> int:
    """How many distinct KB objects a group's rule would rest on (:func:`_resting_on`)."""
    return len(_resting_on(evidence))


def _resting_on(evidence: Evidence) -> set[str]:
    """The KB objects a group's rule would rest on: its stated positives and its pooled kin."""
    return {o.id for o in (*evidence.positives, *evidence.pooled)}


def split_thin(grouped: Mapping[str, Evidence], min_objects: int) -> tuple[dict[str, Evidence], list[dict[str, object]]]:
    """The groups resting on at least ``min_objects`` KB objects (:func:`evidence_objects`; part-level groups, whose
    positives carry the attributes that enable the verb, are all kept), and a ``left_out`` record per KB verb of
    each thinner group (module docstring)."""
    kept: dict[str, Evidence] = {}
    left_out: list[dict[str, object]] = []
    for name, ev in grouped.items():
        resting = _resting_on(ev)
        found = len(resting)
        if ev.part_level or found >= min_objects:
            kept[name] = ev
            continue
        objects = ", ".join(sorted(resting)) or "none"
        detail = (f"group {name}: {found} KB object{'s' if found != 1 else ''} ({objects}) among its positives and "
                  f"pooled kin, fewer than {min_objects}")
        members = ev.members or ()
        rows = [(m.verb, list(m.raw), m.positives) for m in members] or [(name, list(ev.raw), len(ev.positives))]
        left_out += [{"verb": verb, "raw": raw, "reason": str(Reason.THIN_EVIDENCE), "detail": detail,
                      "positives": positives} for verb, raw, positives in rows]
    return kept, left_out
