"""Seeded K-fold split by OBJECT, evidence restricted to a set of objects, and the cross-fitted rule sets.

Every object of the input is in exactly one fold; the rules of fold ``k`` are induced WITHOUT fold ``k``'s
objects (neither their labels nor their properties count as evidence), so they may be judged on, or played
against, any object of fold ``k``. ``kari induce --cv K`` writes them beside the rules file::

    RULES.cv/folds.json      {"k": K, "seed": S, "fold_of": {object_id: fold}}
    RULES.cv/fold<k>.kari    rules induced without fold k's objects (k = 0 .. K-1)
    RULES.cv/fold<k>.jsonl   the same with per-branch evidence
    RULES.cv/cv.json         held-out and in-sample scores (kari.induce.heldout)

>>> folds = assign_folds(["a", "b", "c", "d", "e"], 2, seed=0)
>>> sorted(folds.values())
[0, 0, 0, 1, 1]
>>> assign_folds(["e", "d", "c", "b", "a"], 2, seed=0) == folds
True
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from kari.errors import KariError
from kari.induce.inputs import Evidence
from kari.rules import load_rule_file, load_rules
from kari.rules.ast import Rule

FOLDS_FILE = "folds.json"
CV_FILE = "cv.json"


def assign_folds(object_ids: Iterable[str], k: int, seed: int = 0) -> dict[str, int]:
    """Object id -> fold in ``0..k-1``: the sorted ids shuffled by a generator seeded with ``seed``, dealt
    round-robin (fold sizes differ by at most one; the same ids give the same folds in any order)."""
    if k < 2:
        raise KariError(f"--cv needs at least 2 folds (got {k})", code="induce-config")
    order = sorted(set(object_ids))
    if len(order) < k:
        raise KariError(f"--cv {k} needs at least {k} objects (the input has {len(order)})", code="induce-config")
    digest = hashlib.sha256(f"kari-cv:{seed}".encode()).digest()
    random.Random(int.from_bytes(digest[:8], "big")).shuffle(order)
    return {obj: i % k for i, obj in enumerate(order)}


def restrict(evidence: Evidence, keep: Collection[str]) -> Evidence:
    """``evidence`` with only the objects in ``keep`` (positives, labelled negatives, universe, edges); the
    choice of negatives (labelled or closed-world) stays the one of the full evidence."""
    return replace(
        evidence,
        positives=tuple(o for o in evidence.positives if o.id in keep),
        labelled_negatives=tuple(o for o in evidence.labelled_negatives if o.id in keep),
        universe=tuple(o for o in evidence.universe if o.id in keep),
        pooled=tuple(o for o in evidence.pooled if o.id in keep and _kin_kept(evidence, o.id, keep)),
        edges={o: e for o, e in evidence.edges.items() if o in keep},
        closed_world=evidence.uses_closed_world("auto") if evidence.closed_world is None else evidence.closed_world,
    )


def _kin_kept(evidence: Evidence, kin: str, keep: Collection[str]) -> bool:
    """Is a pooled kin still kin of a kept positive? (Kin of held-out positives only would leak them.)"""
    sources = evidence.pooled_from.get(kin)
    return sources is None or any(link.positive in keep for link in sources)


def restrict_all(evidence: Mapping[str, Evidence], keep: Collection[str]) -> dict[str, Evidence]:
    """:func:`restrict` for every affordance."""
    return {a: restrict(ev, keep) for a, ev in evidence.items()}


def evidence_objects(evidence: Mapping[str, Evidence]) -> list[str]:
    """Every object id the evidence knows (universe, positives, labelled negatives), sorted."""
    ids = {o.id for ev in evidence.values() for o in (*ev.universe, *ev.positives, *ev.labelled_negatives)}
    return sorted(ids)


def cv_dir(rules_file: str | Path) -> Path:
    """The cross-fitting folder beside a rules file: ``runs/rules.kari`` -> ``runs/rules.cv``."""
    return Path(rules_file).with_suffix(".cv")


def fold_rules_path(folder: Path, fold: int, suffix: str = ".jsonl") -> Path:
    """``folder/fold<k>.jsonl`` (or ``.kari``)."""
    return folder / f"fold{fold}{suffix}"


@dataclass(frozen=True)
class RuleSets:
    """Rules read once: one rules file (``folds == {0: rules}``, no ``fold_of``) or the cross-fitted sets of
    ``kari induce --cv`` (``folds[k]``: induced without fold k's objects; ``fold_of``: each object's fold)."""

    path: Path
    folds: Mapping[int, list[Rule]]
    fold_of: Mapping[str, int] | None = None


def read_rule_sets(path: str | Path) -> RuleSets:
    """A rules file (``.kari`` / ``.jsonl``; a ``.kari`` file with the metadata of the ``.jsonl`` beside it:
    :func:`kari.rules.load_rule_file`) or a ``RULES.cv`` folder of cross-fitted rule sets."""
    where = Path(path)
    if where.is_dir() or where.suffix == ".cv":
        folds, fold_of = load_cross_fitted(where)
        return RuleSets(where, folds, fold_of)
    return RuleSets(where, {0: load_rule_file(where)})


def load_cross_fitted(path: str | Path) -> tuple[dict[int, list[Rule]], dict[str, int]]:
    """The rule sets of ``kari induce --cv``: ``({fold: rules induced without that fold's objects},
    {object_id: fold})``. ``path`` is the ``RULES.cv`` folder or the rules file beside it.

    To judge or play object ``o`` with rules that never saw it, use ``rules[fold_of[o]]``."""
    folder = Path(path)
    if folder.suffix != ".cv" and not folder.is_dir():
        folder = cv_dir(folder)
    folds_path = folder / FOLDS_FILE
    if not folds_path.is_file():
        raise KariError("no cross-fitted rules here (run kari induce --cv K first)", file=str(folds_path),
                        code="missing-file")
    try:
        data = json.loads(folds_path.read_text(encoding="utf-8"))
        k = int(data["k"])
        fold_of = {str(o): int(f) for o, f in data["fold_of"].items()}
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
        raise KariError(f"broken folds file: {exc}", file=str(folds_path), code="cv-folds") from None
    bad = sorted(o for o, f in fold_of.items() if not 0 <= f < k)
    if bad:
        raise KariError(f"object {bad[0]!r} has a fold outside 0..{k - 1}", file=str(folds_path), code="cv-folds")
    rules = {fold: load_rules(fold_rules_path(folder, fold)) for fold in range(k)}
    return rules, fold_of
