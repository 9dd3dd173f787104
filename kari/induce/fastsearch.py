"""The offline Proposer's branch question and the branch guard's lifting, answered by exact enumeration over a
boolean objects x atoms matrix, for KB-scale evidence (thousands of objects, thousands of verbs).

``solver/propose.lp`` and ``solver/branch.lp`` state the criteria; grounding them costs a tenth of a second per
question once the closed-world negatives of a KB (every object that is not a positive) are in the program, which
dominates an induction over two thousand verbs. For the whole-object form (the default ``any-part`` reading) the
same criteria are answered here by enumerating every conjunction of at most k candidate atoms (Apriori-pruned: a
conjunction covering fewer than the support floor of positives, or none of the round's targets, is never
extended) with coverage counted on bit sets. :class:`VectorBranchSearch` is a drop-in for
:class:`kari.induce.offline.BranchSearch`; :func:`vector_guard` answers the guard's question for a conjunction
(:func:`kari.induce.guards.guard_branch`). Both reach the optimum of the same lexicographic objective as the
encodings (``tests/test_induce_fastsearch.py`` checks it against clingo on random evidence); among equally good
answers they take the first in sorted atom order. The ``strict`` PART form stays with clingo.

Objects may carry weights (:data:`WEIGHT_UNITS` steps of one: positive-unlabelled KB evidence,
:mod:`kari.induce.puweights`): every count of the criterion -- positives covered, new positives, negatives
covered, new negatives -- is then the sum of the covered objects' weights, in those units (an object of weight
1 counts :data:`WEIGHT_UNITS`); the support and frequency floors stay counts of objects. Without weights each
object weighs one unit and the search is the unweighted one.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kari.core.benchmark import ObjectRecord
from kari.domain.objects import object_view
from kari.core.terms import PREDICATES
from kari.vocab.vocabulary import Vocabulary
from kari.core.induce_config import SOLVER_TIME_LIMIT, ProposerSettings
from kari.induce.branches import BranchChoice, umbrella_values
from kari.induce.inputs import Weights
from kari.rules.ast import And, Atom, Node, Or, Part
from kari.induce.refusals import Refusals

Key = tuple[str, str]  # (PREDICATE, value)
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)
_BITWISE_COUNT = getattr(np, "bitwise_count", None)  # numpy >= 2.0


def _count(bits: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Set bits per row of the packed ``bits`` (rows x 64-bit words), within ``mask`` (words) when given."""
    if bits.shape[1] == 0:
        return np.zeros(bits.shape[0], dtype=np.int64)
    words = bits if mask is None else bits & mask
    counts: np.ndarray = (_BITWISE_COUNT(words).sum(axis=1, dtype=np.int64) if _BITWISE_COUNT is not None
                          else _POPCOUNT[words.view(np.uint8)].sum(axis=1))
    return counts


WEIGHT_UNITS = 8
"""An object's weight is counted in eighths (weights are rounded to them; 0 leaves the object out)."""


@functools.lru_cache(maxsize=4096)
def units(weight: float) -> int:
    """``weight`` (0..1) in :data:`WEIGHT_UNITS` steps."""
    return max(0, min(WEIGHT_UNITS, round(WEIGHT_UNITS * weight)))


def _units(weights: Mapping[str, float] | None, objects: Sequence[ObjectRecord]) -> list[int]:
    """Each object's weight in units (one unit each without weights)."""
    if not weights:
        return [1] * len(objects)
    if isinstance(weights, Weights):
        return weights.in_units([o.id for o in objects], units)
    return [units(weights.get(o.id, 1.0)) for o in objects]


class _Levels:
    """Objects grouped by their weight (in units): ``(units, packed mask)`` per distinct weight, for weighted
    counts of packed bit rows."""

    def __init__(self, weights: Sequence[int]) -> None:
        values = sorted(set(weights))
        self.uniform = values in ([], [1])
        self.levels = [(v, _mask(len(weights), [i for i, w in enumerate(weights) if w == v])) for v in values if v]

    def count(self, bits: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """The weighted number of set bits per row (within ``mask`` when given)."""
        if self.uniform:
            return _count(bits, mask)
        total = np.zeros(bits.shape[0], dtype=np.int64)
        for value, level in self.levels:
            total += value * _count(bits, level if mask is None else level & mask)
        return total


def _packed(rows: np.ndarray) -> np.ndarray:
    """Atoms x objects booleans as packed 64-bit words (atoms x ceil(objects / 64))."""
    width = -(-rows.shape[1] // 64) * 8
    out = np.zeros((rows.shape[0], width), dtype=np.uint8)
    if rows.shape[1]:
        packed = np.packbits(rows, axis=1)
        out[:, : packed.shape[1]] = packed
    words: np.ndarray = out.view(np.uint64)
    return words


def _mask(size: int, members: Sequence[int]) -> np.ndarray:
    flags = np.zeros((1, size), dtype=bool)
    flags[0, list(members)] = True
    mask: np.ndarray = _packed(flags)[0]
    return mask


def _unpacked(words: np.ndarray, size: int) -> np.ndarray:
    return np.unpackbits(words.view(np.uint8), count=size).astype(bool)


class AtomMatrix:
    """Which of ``objects`` hold which of ``keys`` (whole-object reading, taxonomy applied), as boolean columns;
    without ``keys``, every atom some object holds, in sorted order."""

    def __init__(self, objects: Sequence[ObjectRecord], vocab: Vocabulary, keys: Sequence[Key] | None = None) -> None:
        self.objects = list(objects)
        table = _AtomTable.of(vocab)
        rows = table.row_ids(self.objects)
        if keys is None:
            seen = table.dense[rows].any(axis=0) if len(rows) else np.zeros(len(table.names), dtype=bool)
            keys = sorted((table.names[i] for i in np.flatnonzero(seen)))
        self.atoms: list[Key] = list(keys)
        self.column = {a: j for j, a in enumerate(self.atoms)}
        self.holds = table.block(rows, self.atoms)

    def columns(self, keys: Sequence[Key]) -> np.ndarray:
        """Objects x ``keys`` (a key no object holds is an all-false column)."""
        out = np.zeros((len(self.objects), len(keys)), dtype=bool)
        for j, key in enumerate(keys):
            i = self.column.get(key)
            if i is not None:
                out[:, j] = self.holds[:, i]
        return out


class _AtomTable:
    """Every object's whole-object atoms read once per vocabulary (memoised by object identity: hashing a whole
    record per question would cost more than the search), as rows of one dense boolean matrix."""

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab
        self.index: dict[Key, int] = {}
        self.names: list[Key] = []
        self.row_by_id: dict[int, int] = {}  # an object's id -> its row
        self.kept: list[ObjectRecord] = []  # each row's object, kept alive: no other object can take its id
        self.numbers: list[list[int]] = []
        self.dense = np.zeros((0, 0), dtype=bool)

    @classmethod
    def of(cls, vocab: Vocabulary) -> _AtomTable:
        memo = vocab.memo("atom_table")
        if "table" not in memo:
            memo["table"] = cls(vocab)
        table: _AtomTable = memo["table"]
        return table

    def row_ids(self, objects: Sequence[ObjectRecord]) -> np.ndarray:
        """The rows of ``objects`` in :attr:`dense` (new objects are read and added)."""
        try:  # the common case: every object read before (the table holds each, so no other object has its id)
            return np.fromiter(map(self.row_by_id.__getitem__, map(id, objects)), dtype=np.int64,
                               count=len(objects))
        except KeyError:
            pass
        ids = []
        for obj in objects:
            row = self.row_by_id.get(id(obj))
            if row is None:
                numbers = []
                for key in object_view(obj, self.vocab).whole:
                    if key not in self.index:
                        self.index[key] = len(self.names)
                        self.names.append(key)
                    numbers.append(self.index[key])
                row = self.row_by_id[id(obj)] = len(self.kept)
                self.kept.append(obj)
                self.numbers.append(numbers)
            ids.append(row)
        if self.dense.shape != (len(self.numbers), len(self.names)):
            self.dense = np.zeros((len(self.numbers), len(self.names)), dtype=bool)
            rows = np.repeat(np.arange(len(self.numbers)), np.array([len(n) for n in self.numbers], dtype=np.int64))
            columns = np.array([i for n in self.numbers for i in n], dtype=np.int64)
            self.dense[rows, columns] = True
        return np.array(ids, dtype=np.int64)

    def block(self, rows: np.ndarray, keys: Sequence[Key]) -> np.ndarray:
        """``rows`` x ``keys`` booleans (a key no object holds: all false)."""
        out = np.zeros((len(rows), len(keys)), dtype=bool)
        known = [(j, self.index[k]) for j, k in enumerate(keys) if k in self.index]
        if known and len(rows):
            columns = np.array([i for _, i in known], dtype=np.int64)
            out[:, [j for j, _ in known]] = self.dense[np.ix_(rows, columns)]
        return out


def rule_keys(body: Node) -> list[Key]:
    """The distinct ``(PREDICATE, value)`` atoms of a rule body, sorted."""
    return sorted({(a.predicate, a.value) for a in body.atoms()})


def holds_rule(body: Node, matrix: AtomMatrix) -> np.ndarray:
    """Which of the matrix's objects a rule body covers in the ``any-part`` reading (every atom on any part or
    the whole: the formula over the whole-object facts)."""
    if isinstance(body, Atom):
        column = matrix.column.get((body.predicate, body.value))
        return matrix.holds[:, column].copy() if column is not None else np.zeros(len(matrix.objects), dtype=bool)
    if isinstance(body, Part):
        return holds_rule(body.body, matrix)
    parts = [holds_rule(arg, matrix) for arg in body.args]
    if isinstance(body, Or):
        return np.logical_or.reduce(parts) if parts else np.zeros(len(matrix.objects), dtype=bool)
    return np.logical_and.reduce(parts) if parts else np.ones(len(matrix.objects), dtype=bool)


def _ancestor_pairs(keys: Sequence[Key], vocab: Vocabulary) -> np.ndarray:
    """keys x keys: True where the two atoms may not share a branch (one is-a the other, or they exclude each
    other through ancestors in one exclusive group; an atom that excludes itself is marked on the diagonal)."""
    n = len(keys)
    blocked = np.zeros((n, n), dtype=bool)
    by_predicate: dict[str, list[int]] = {}
    for i, (p, _) in enumerate(keys):
        by_predicate.setdefault(p, []).append(i)
    for predicate, members in by_predicate.items():
        ancestors = [vocab.ancestors(predicate, keys[i][1]) for i in members]
        values = sorted(set().union(*ancestors))
        column = {v: j for j, v in enumerate(values)}
        incidence = np.zeros((len(members), len(values)), dtype=bool)  # atom x value: the value is-a ancestor
        for row, anc in enumerate(ancestors):
            incidence[row, [column[a] for a in anc]] = True
        own = incidence[:, [column[keys[i][1]] for i in members]]  # own[i, j]: atom j's value is an ancestor of i
        is_a = (own | own.T) & ~np.eye(len(members), dtype=bool)
        excludes = np.zeros_like(is_a)
        groups: dict[str, list[int]] = {}
        for v, j in column.items():
            group = vocab.exclusive_group(predicate, v)
            if group is not None:
                groups.setdefault(group, []).append(j)
        for cols in groups.values():
            held = incidence[:, cols].astype(np.int64)  # atom x group member
            count = held.sum(axis=1)
            pairs = np.outer(count, count) - held @ held.T  # (a above one, b above the other) with a != b
            excludes |= pairs > 0  # some two different members of the group, one above each atom
        index = np.array(members)
        blocked[np.ix_(index, index)] = is_a | excludes
    return blocked


@dataclass(frozen=True)
class _Best:
    key: tuple[int, ...]
    atoms: tuple[int, ...]


class VectorBranchSearch:
    """:class:`kari.induce.offline.BranchSearch` for the whole-object form, by enumeration (module docstring)."""

    def __init__(self, positives: Sequence[ObjectRecord], negatives: Sequence[ObjectRecord], vocab: Vocabulary,
                 settings: ProposerSettings | None = None, *, time_limit: float = SOLVER_TIME_LIMIT,
                 refused: Refusals = Refusals(),
                 weights: Mapping[str, float] | None = None) -> None:
        self.settings = settings if settings is not None else ProposerSettings()
        known = list({o.id: o for o in positives}.values())
        ids = {k.id for k in known}
        others = list({o.id: o for o in negatives if o.id not in ids}.values())
        pos_units, neg_units = _units(weights, known), _units(weights, others)
        if weights:  # an object of weight 0 is left out
            others = [o for o, u in zip(others, neg_units) if u > 0]
            neg_units = [u for u in neg_units if u > 0]
        self.objects = [*known, *others]
        self.number = {o.id: i for i, o in enumerate(self.objects)}
        self.n_pos = len(known)
        self.vocab = vocab
        self.scale = WEIGHT_UNITS if weights else 1  # units of one object
        self.pos_levels, self.neg_levels = _Levels(pos_units), _Levels(neg_units)
        total = sum(pos_units) + sum(neg_units)
        prior = sum(pos_units) / total if total else 0.5
        self.constants = self.settings.constants(prior, len(known))
        matrix = AtomMatrix(self.objects, vocab, AtomMatrix(known, vocab).atoms)  # only a positive's atoms can be chosen
        avoid = {(p, v) for p in PREDICATES for v in umbrella_values(vocab, p)}
        holds = matrix.holds
        support = holds[: self.n_pos].sum(axis=0)
        frequency = holds.sum(axis=0)
        usable = [j for j, key in enumerate(matrix.atoms) if key not in avoid and key not in refused.values
                  and support[j] >= self.constants["min_sup"] and frequency[j] >= self.constants["min_freq"]]
        self.atoms: list[Key] = [matrix.atoms[j] for j in usable]
        index = {key: i for i, key in enumerate(self.atoms)}
        self.refused = {frozenset(index[k] for k in keys) for keys in refused.whole_sets()  # refused conjunctions
                        if all(k in index for k in keys)}
        columns = holds[:, usable].T  # candidate atoms x objects
        self.pos_bits = _packed(columns[:, : self.n_pos])
        self.neg_bits = _packed(columns[:, self.n_pos:])
        self.depth = np.array([len(vocab.ancestors(p, v)) for p, v in self.atoms], dtype=np.int64)
        self.blocked = _ancestor_pairs(self.atoms, vocab)
        self._holds_pos = columns[:, : self.n_pos]

    def best(self, targets: Sequence[ObjectRecord], *, round_targets: Sequence[ObjectRecord] = (),
             done: Sequence[ObjectRecord] = (), weight: float = 0.5) -> BranchChoice | None:
        """The optimal branch or None (see :meth:`kari.induce.offline.BranchSearch.best`)."""
        c = self.constants
        t = min(100, max(0, round(100 * weight)))
        target_rows = sorted({self.number[o.id] for o in targets if o.id in self.number and
                              self.number[o.id] < self.n_pos})
        focus_rows = sorted({self.number[o.id] for o in round_targets if o.id in self.number
                             and self.number[o.id] < self.n_pos}) or target_rows
        done_rows = sorted({self.number[o.id] - self.n_pos for o in done if o.id in self.number
                            and self.number[o.id] >= self.n_pos})
        if not focus_rows or not self.atoms:
            return None
        target_mask = _mask(self.n_pos, target_rows)
        focus_mask = _mask(self.n_pos, sorted(set(focus_rows) & set(target_rows)))
        fresh_mask = ~_mask(len(self.objects) - self.n_pos, done_rows)  # padding bits are 0 in every row
        # atoms seen on some focus object (propose.lp's seen/2)
        seen = self._holds_pos[:, focus_rows].any(axis=1)
        allowed = np.flatnonzero(seen & ~np.diagonal(self.blocked))
        best: _Best | None = None
        combos, pos = allowed[:, None], self.pos_bits[allowed]
        m_units = c["m"] * self.scale  # the m-estimate's prior weight, in the counts' units
        for size in range(1, c["k"] + 1):
            # positives first (few words): what covers too few, no focus, or cannot beat the best is never extended
            support, cov = _count(pos), self.pos_levels.count(pos)
            gain, focus = self.pos_levels.count(pos, target_mask), _count(pos, focus_mask)
            alive = (support >= c["min_sup"]) & (focus > 0)
            if best is not None:  # an extension gains at most what it has, at no cost
                alive &= -100 * gain <= best.key[0]
            combos, pos, cov, gain = combos[alive], pos[alive], cov[alive], gain[alive]
            if len(combos) == 0:
                break
            depth = self.depth[combos].sum(axis=1)
            for start in range(0, len(combos), _CHUNK):  # then the negatives, of the survivors only
                part = slice(start, start + _CHUNK)
                neg = np.bitwise_and.reduce(self.neg_bits[combos[part]], axis=1)
                ncov, cost = self.neg_levels.count(neg), self.neg_levels.count(neg, fresh_mask)
                n_cov, n_gain = cov[part], gain[part]
                precise = (100 - c["min_prec"]) * n_cov - c["min_prec"] * ncov >= m_units * (c["min_prec"] - c["prior"])
                valid = np.flatnonzero(precise)
                if self.refused:  # a branch refused this round is never chosen again
                    valid = valid[np.array([frozenset(int(a) for a in combos[part][v]) not in self.refused
                                            for v in valid], dtype=bool)]
                if not len(valid):
                    continue
                level5 = t * (n_gain + cost) - 100 * n_gain
                order = np.lexsort((valid, depth[part][valid], -n_cov[valid], level5[valid]))
                i = int(valid[order[0]])
                key = (int(level5[i]), -int(n_cov[i]), size, int(depth[part][i]))
                if best is None or key < best.key:
                    best = _Best(key, tuple(int(a) for a in combos[part][i]))
            if size == c["k"]:
                break
            if best is not None:
                keep = -100 * gain <= best.key[0]
                combos, pos = combos[keep], pos[keep]
            combos, pos = self._extend(combos, pos, allowed)
        if best is None:
            return None
        chosen = sorted(self.atoms[a] for a in best.atoms)
        nodes = tuple(Atom(p, v) for p, v in chosen)
        branch: Node = nodes[0] if len(nodes) == 1 else And(nodes)
        pos_hit = np.ones(self.n_pos, dtype=bool)
        neg_hit = np.ones(len(self.objects) - self.n_pos, dtype=bool)
        for a in best.atoms:
            pos_hit &= _unpacked(self.pos_bits[a], self.n_pos)
            neg_hit &= _unpacked(self.neg_bits[a], len(neg_hit))
        covers = tuple(sorted(self.objects[i].id for i in np.flatnonzero(pos_hit)))
        negatives = tuple(sorted(self.objects[self.n_pos + i].id for i in np.flatnonzero(neg_hit)))
        return BranchChoice(branch, covers, negatives, True)

    def _extend(self, combos: np.ndarray, pos: np.ndarray, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every combination extended by one allowed atom after its last one that no member blocks (with its
        positives' bits)."""
        if len(combos) == 0 or len(allowed) == 0:
            return np.zeros((0, combos.shape[1] + 1), dtype=np.int64), pos[:0]
        out_combos, out_pos = [], []
        step = max(1, _CHUNK * 4 // max(len(allowed) * combos.shape[1], 1))
        for start in range(0, len(combos), step):
            block = combos[start:start + step]
            ok = (allowed[None, :] > block[:, -1:]) & ~self.blocked[block][:, :, allowed].any(axis=1)
            rows, cols = np.nonzero(ok)
            if len(rows):
                out_combos.append(np.column_stack([block[rows], allowed[cols]]))
                out_pos.append(pos[start + rows] & self.pos_bits[allowed[cols]])
        if not out_combos:
            return np.zeros((0, combos.shape[1] + 1), dtype=np.int64), pos[:0]
        return np.concatenate(out_combos), np.concatenate(out_pos)


_CHUNK = 20_000
"""Combinations whose negatives are counted at once (bounds memory: chunk x atoms x words)."""


@dataclass(frozen=True)
class Lifting:
    """What the guard found for a conjunction: conflicting pairs, redundant atoms, and each kept atom's value
    after lifting (itself when not lifted)."""

    conflicts: tuple[tuple[str, str, str], ...]
    redundant: frozenset[Key]
    lifted: Mapping[Key, str]


def vector_guard(atoms: Sequence[Atom], positives: Sequence[ObjectRecord], negatives: Sequence[ObjectRecord],
                 vocab: Vocabulary, *, tolerance: int, avoid: frozenset[Key] = frozenset()) -> Lifting:
    """``solver/branch.lp`` for a whole-object conjunction: conflicts, redundant atoms and the lifting that keeps
    precision within ``tolerance`` percentage points with the most general values, then the fewest added
    negatives; never to a value in ``avoid``."""
    given = sorted({(a.predicate, a.value) for a in atoms})
    ancestors = {key: vocab.ancestors(*key) for key in given}
    conflicts = []
    for (p1, v1), (p2, v2) in itertools.combinations(given, 2):
        if p1 == p2 and _excludes(p1, ancestors[(p1, v1)], ancestors[(p2, v2)], vocab):
            low, high = sorted((v1, v2))
            conflicts.append((p1, low, high))
    if conflicts:
        return Lifting(tuple(sorted(conflicts)), frozenset(), {})
    redundant = frozenset(a for a in given for b in given if a != b and a[0] == b[0] and a[1] in ancestors[b])
    kept = [k for k in given if k not in redundant]
    options = [[v] + sorted(a for a in ancestors[(p, v)] - {v} if a not in umbrella_values(vocab, p)
                            and (p, a) not in avoid) for p, v in kept]
    objects = [*positives, *negatives]
    n_pos = len(positives)
    keys = sorted({(p, a) for (p, _), opts in zip(kept, options) for a in opts})
    column = {k: j for j, k in enumerate(keys)}
    holds = AtomMatrix(objects, vocab, keys).holds
    was = np.asarray(holds[:, [column[k] for k in kept]].all(axis=1))
    c_pos, total = int(was[:n_pos].sum()), int(was.sum())
    best: tuple[tuple[int, int], tuple[str, ...]] | None = None
    for choice in itertools.product(*options):
        selected = sorted({(p, a) for (p, _), a in zip(kept, choice)})
        if not _compatible(selected, vocab):
            continue
        now = np.asarray(holds[:, [column[k] for k in selected]].all(axis=1))
        added = now & ~was
        ap, an = int(added[:n_pos].sum()), int(added[n_pos:].sum())
        if (ap or an) and total == 0:
            continue
        lhs = ap * (100 * total + tolerance * total - 100 * c_pos) + an * (tolerance * total - 100 * c_pos)
        if lhs < -tolerance * total * total:
            continue
        key = (sum(len(vocab.ancestors(p, a)) for p, a in selected), an)
        if best is None or key < best[0]:
            best = (key, tuple(choice))
    lifted = {k: a for k, a in zip(kept, best[1])} if best is not None else {k: k[1] for k in kept}
    return Lifting((), redundant, lifted)


def _excludes(predicate: str, left: frozenset[str], right: frozenset[str], vocab: Vocabulary) -> bool:
    """Do two values (given as their ancestor sets) exclude each other (``solver/exclusive.lp``)?"""
    for a in left:
        group = vocab.exclusive_group(predicate, a)
        if group is not None and any(b != a and vocab.exclusive_group(predicate, b) == group for b in right):
            return True
    return False


def _compatible(selected: Sequence[Key], vocab: Vocabulary) -> bool:
    """No selected value is-a another, and no two exclude each other."""
    for (p1, a1), (p2, a2) in itertools.combinations(selected, 2):
        if p1 != p2:
            continue
        anc1, anc2 = vocab.ancestors(p1, a1), vocab.ancestors(p2, a2)
        if a2 in anc1 or a1 in anc2 or _excludes(p1, anc1, anc2, vocab):
            return False
    return True
