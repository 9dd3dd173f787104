"""Target-blind questioning policy: the question tree minimising the expected number of questions (exact when proven).

Model. The hidden object is one of the representatives, each equally likely (the model under which
b_t(a) = n_t(a) / sum n_t is the posterior over candidates). Questions are answered truthfully
(:func:`has_property`). The game stops as soon as some candidate's belief exceeds the threshold, or when no
question can split the consistent representatives any further; the guess is then the argmax of the belief.

Optimality argument. After any history the state is exactly the set S of consistent representatives: the
beliefs, the stopping rule and every future answer depend on S only. Write C(S) for the minimum over policies
of the *total* number of questions asked, summed over the |S| equally likely hidden representatives in S
(the expected number is C(S)/|S|). A question that does not split S leaves the state unchanged and costs one
more question, so it is never part of an optimal policy; a splitting question q sends S to S_yes and S_no and
costs one question for each of the |S| representatives. Hence the Bellman equation
``C(S) = 0`` if S stops, else ``|S| + min_q [C(S_yes) + C(S_no)]`` over splitting q, whose solution is the
optimum (by induction on |S|: both children are strictly smaller). Representatives answering every pool question alike
are merged into classes, so a state is unsplittable exactly when it holds one class. We solve it by memoised depth-first
search with branch and bound: a stopping child costs 0 and any other child at least :meth:`PolicyTree.lower_bound_of`,
so ``|S| + LB(S_yes) + LB(S_no)`` bounds a question from below and a question is skipped only when that bound already
reaches the best total found; this never discards the minimum. The lower bound is the larger of ``|S|`` (a
non-stopping state asks once per representative) and a Huffman bound: when no candidate has 10 or more
representatives in S (threshold 0.9; in general: fewer than one other object fits a leaf), a multi-class leaf must be pure in one candidate, so the leaves refine the partition of S
into "pure classes of candidate c" (one block per c) and single mixed classes, and the total depth of any binary
tree over a partition is at least its Huffman cost (Huffman is monotone under refinement). The search starts from
the greedy information-gain tree as incumbent. Integer arithmetic throughout, so ties are exact and the choice
among equally good questions is deterministic.

Anytime. The search runs under ``time_limit``; when it runs out the tree played is the best one found (each state
follows its proven-optimal decision, else the best fully evaluated decision, else the greedy one), its cost is
never above the greedy tree's, and :attr:`PolicyTree.proven_optimal` is False; :attr:`PolicyTree.lower_bound`
then brackets the optimum.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Mapping, Sequence
from fractions import Fraction

from kari.bench.model import ObjectRecord
from kari.errors import KariError
from kari.domain.terms import History
from kari.domain.objects import object_view
from kari.domain.terms import Question
from kari.domain.vocabulary import Vocabulary

_INF = float("inf")


class _OutOfTime(Exception):
    """The search deadline passed (caught inside :class:`PolicyTree`, never escapes)."""


class PolicyTree:
    """The target-blind policy, exact when :attr:`proven_optimal` (``build_policy``).

    Representatives that answer every pool question alike can never be told apart; they are merged into one
    class whose weight per candidate is its number of representatives, so states are bit sets of classes.
    """

    def __init__(self, reps_objects: Mapping[str, Sequence[ObjectRecord]], vocab: Vocabulary,
                 pool: Sequence[Question], threshold: float = 0.9, time_limit: float = 0.8) -> None:
        self.candidates = tuple(reps_objects)
        self.threshold = Fraction(threshold).limit_denominator(10_000)
        self.time_limit = time_limit
        self._pool = list(dict.fromkeys(pool))
        classes: dict[frozenset[Question], list[int]] = {}
        for c, aff in enumerate(self.candidates):
            for obj in reps_objects[aff]:
                signature = object_view(obj, vocab).whole & frozenset(self._pool)
                classes.setdefault(signature, [0] * len(self.candidates))[c] += 1
        self._signatures = list(classes)
        weights = list(classes.values())
        # weighted counts by bit planes: count_c(S) = sum_k 2^k * popcount(S & plane[c][k])
        self._planes = [self._bit_planes([w[c] for w in weights]) for c in range(len(self.candidates))]
        self._size_planes = self._bit_planes([sum(w) for w in weights])
        self._class_size = [sum(w) for w in weights]
        # classes all of whose representatives belong to candidate c, and classes shared by several candidates
        self._pure = [sum(1 << i for i, w in enumerate(weights) if w[c] and w[c] == sum(w))
                      for c in range(len(self.candidates))]
        self._mixed = sum(1 << i for i, w in enumerate(weights) if sum(1 for n in w if n) > 1)
        self._yes = {q: self._yes_mask(q) for q in self._pool}
        by_mask: dict[int, Question] = {}
        for q, mask in self._yes.items():  # questions with the same yes-set are interchangeable: keep the first
            by_mask.setdefault(mask, q)
        self._questions = [(mask, q) for mask, q in by_mask.items()]
        self._exact: dict[int, tuple[int, Question | None]] = {}
        self._incumbent: dict[int, tuple[int, Question]] = {}  # best fully evaluated decision of unfinished states
        self._lower: dict[int, int] = {}
        self._greedy: dict[int, tuple[int, Question | None]] = {}
        self._deadline = _INF
        self.root = (1 << len(weights)) - 1
        self.proven_optimal = True
        total = self._size(self.root)
        self.lower_bound = self._solve_from(self.root)
        self.expected_questions = self.tree_cost(self.root) / total if total else 0.0

    # --- state arithmetic -----------------------------------------------------------------------------------
    @staticmethod
    def _bit_planes(values: Sequence[int]) -> list[int]:
        top = max(values, default=0).bit_length()
        return [sum(1 << i for i, v in enumerate(values) if v >> k & 1) for k in range(top)]

    @staticmethod
    def _weigh(state: int, planes: Sequence[int]) -> int:
        return sum((state & plane).bit_count() << k for k, plane in enumerate(planes))

    def _size(self, state: int) -> int:
        return self._weigh(state, self._size_planes)

    def _counts(self, state: int) -> list[int]:
        return [self._weigh(state, planes) for planes in self._planes]

    def _yes_mask(self, question: Question) -> int:
        return sum(1 << i for i, signature in enumerate(self._signatures) if question in signature)

    def stops(self, state: int) -> bool:
        """Some candidate's belief exceeds the threshold, or no representative is consistent."""
        size = self._size(state)
        if size == 0:
            return True
        return max(self._counts(state)) * self.threshold.denominator > self.threshold.numerator * size

    def _splits(self, state: int) -> list[tuple[int, int, Question]]:
        out, seen = [], set()
        for mask, q in self._questions:
            yes = state & mask
            if yes and yes != state and yes not in seen:
                seen.add(yes)
                seen.add(state ^ yes)
                out.append((yes, state ^ yes, q))
        return out

    def _final(self, state: int) -> bool:
        """The game ends here: threshold reached, or one class left (distinct classes differ on some question)."""
        return state.bit_count() <= 1 or self.stops(state)

    # --- bounds ---------------------------------------------------------------------------------------------
    def _huffman(self, state: int) -> int:
        """Huffman cost of {pure classes of each candidate} + {each mixed class}; 0 unless every n_c <= 9.

        With ``n_c`` representatives of c, a leaf dominated by c holds fewer than ``n_c / 9`` others, so when every
        ``n_c <= 9`` (threshold 0.9) multi-class leaves are pure and refine this partition (see the module doc).
        """
        th = self.threshold
        blocks = []
        for c, pure in enumerate(self._pure):
            n = self._weigh(state, self._planes[c])
            if n * (th.denominator - th.numerator) > th.numerator:  # a leaf could hold another candidate's object
                return 0
            weight = self._size(state & pure)
            if weight:
                blocks.append(weight)
        mixed = state & self._mixed
        while mixed:
            low = mixed & -mixed
            blocks.append(self._class_size[low.bit_length() - 1])
            mixed ^= low
        heapq.heapify(blocks)
        cost = 0
        while len(blocks) > 1:
            merged = heapq.heappop(blocks) + heapq.heappop(blocks)
            cost += merged
            heapq.heappush(blocks, merged)
        return cost

    def lower_bound_of(self, state: int) -> int:
        """A lower bound on C(state) (exact when the state is solved)."""
        if state in self._exact:
            return self._exact[state][0]
        bound = self._lower.get(state)
        if bound is None:
            bound = self._lower[state] = 0 if self._final(state) else max(self._size(state), self._huffman(state))
        return bound

    def _entropy(self, state: int) -> float:
        counts = [n for n in self._counts(state) if n]
        total = sum(counts)
        return -sum(n / total * math.log2(n / total) for n in counts) if total else 0.0

    def greedy_cost(self, state: int) -> int:
        """Total questions of the greedy information-gain tree from ``state`` (an upper bound on C)."""
        if state in self._greedy:
            return self._greedy[state][0]
        splits = [] if self._final(state) else self._splits(state)
        if not splits:
            self._greedy[state] = (0, None)
            return 0
        yes, no, q = min(splits, key=lambda s: self._size(s[0]) * self._entropy(s[0])
                         + self._size(s[1]) * self._entropy(s[1]))
        cost = self._size(state) + self.greedy_cost(yes) + self.greedy_cost(no)
        self._greedy[state] = (cost, q)
        return cost

    # --- the search -----------------------------------------------------------------------------------------
    def _cost(self, state: int, budget: float) -> float:
        """Exact C(state) when it is below ``budget``; otherwise some lower bound >= budget."""
        known = self.lower_bound_of(state)
        if state in self._exact or known >= budget:
            return known
        if self._final(state):
            self._exact[state] = (0, None)
            return 0
        if time.perf_counter() > self._deadline:
            raise _OutOfTime
        size = self._size(state)
        splits = self._splits(state)
        scored = sorted((size + self.lower_bound_of(y) + self.lower_bound_of(n), i)
                        for i, (y, n, _) in enumerate(splits))
        self._lower[state] = max(known, scored[0][0])
        best, best_q = budget, None
        for bound, i in scored:
            if bound >= best:
                break
            yes, no, q = splits[i]
            cost_yes = self._cost(yes, best - size - self.lower_bound_of(no))
            if size + cost_yes + self.lower_bound_of(no) >= best:
                continue
            total = size + cost_yes + self._cost(no, best - size - cost_yes)
            if total < best:
                best, best_q = total, q
                self._incumbent[state] = (int(best), q)
        if best_q is None:  # every question costs at least the budget
            self._lower[state] = max(self._lower[state], int(budget))
            return budget
        self._exact[state] = (int(best), best_q)
        self._incumbent.pop(state, None)
        return best

    def _solve_from(self, state: int) -> int:
        """Solve ``state`` within the time limit; return C(state) if proven, else the best lower bound found."""
        self._deadline = time.perf_counter() + self.time_limit
        upper = self.greedy_cost(state)
        try:
            self._cost(state, upper + 1)
        except _OutOfTime:
            self.proven_optimal = False
        return self.lower_bound_of(state)

    def _decision(self, state: int) -> Question | None:
        """The question the best known tree asks in ``state`` (None: stop)."""
        for table in (self._exact, self._incumbent, self._greedy):
            if state in table:
                return table[state][1]
        self.greedy_cost(state)
        return self._greedy[state][1]

    def tree_cost(self, state: int) -> int:
        """Total questions, over the representatives in ``state``, of the tree actually played from it."""
        if state in self._exact:
            return self._exact[state][0]
        q = self._decision(state)
        if q is None:
            return 0
        mask = self._yes[q]
        return self._size(state) + self.tree_cost(state & mask) + self.tree_cost(state & ~mask)

    # --- playing --------------------------------------------------------------------------------------------
    def state(self, history: History) -> int:
        """The consistent representatives (a bit set) after ``history``."""
        state = self.root
        for q, answer in history:
            if q not in self._yes:
                raise KariError(f"question {q[0]}:{q[1]} is not in the policy's question pool", code="policy-input")
            mask = self._yes[q]
            state &= mask if answer else self.root & ~mask
        return state

    def _known(self, state: int) -> None:
        if not any(state in table for table in (self._exact, self._incumbent, self._greedy)):
            self._solve_from(state)  # off the planned tree (e.g. an unplanned question was answered)

    def next_question(self, history: History) -> Question | None:
        """The next question of the best tree found, or None when the policy stops."""
        state = self.state(history)
        self._known(state)
        return self._decision(state)

    def guess(self, history: History) -> str:
        """The argmax of the belief (first candidate on ties; the first candidate when nothing is consistent)."""
        counts = self._counts(self.state(history))
        return self.candidates[counts.index(max(counts))] if self.candidates else ""

    def expected_turns(self, history: History = ()) -> float:
        """Expected number of further questions, under the tree played, from the state after ``history``."""
        state = self.state(history)
        self._known(state)
        return self.tree_cost(state) / self._size(state) if state else 0.0

    def info(self) -> dict[str, object]:
        """Facts for a game record: whether the tree is proven optimal, its expected cost and the lower bound."""
        total = self._size(self.root)
        return {"proven_optimal": self.proven_optimal, "expected_questions": round(self.expected_questions, 6),
                "lower_bound": round(self.lower_bound / total, 6) if total else 0.0}


def build_policy(reps_objects: Mapping[str, Sequence[ObjectRecord]], vocab: Vocabulary, pool: Sequence[Question],
                 threshold: float = 0.9, time_limit: float = 0.8) -> PolicyTree:
    """The target-blind policy over the candidates' representatives (see the module docstring).

    Exact when ``proven_optimal``; otherwise the best tree found within ``time_limit`` seconds.
    """
    return PolicyTree(reps_objects, vocab, pool, threshold, time_limit)
