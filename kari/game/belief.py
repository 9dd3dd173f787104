"""The players' soft belief over candidates, with a noise model (the paper's metric keeps the hard b_t).

Model. The hidden object resembles one of the candidates' known positives (its representatives; never the
hidden object itself). An answer disagrees with that representative's facts with probability ``delta``
(the Oracle may be noisy, and the hidden object differs from any single representative on a few properties):
a contradicted representative is down-weighted by ``eps = delta / (1 - delta)``, not removed (``eps = 0`` is the
hard elimination of the paper's n_t). With ``smoothing = lam`` > 0 an answer is, with probability lam, drawn
from the candidate's property frequencies ``theta(a, q)`` (Laplace-smoothed over its representatives) instead
of from the one representative, so a property that varies within a candidate costs little and one that all its
representatives share decides::

    P(yes | representative r of candidate a, question q) = (1 - lam) * (1 - delta if r has q else delta)
                                                            + lam * theta(a, q)
    b_soft(a)  ~  f_a * sum_{r in reps(a)} prod_{answers so far} P(answer | r)

``f_a`` is the rule factor when matched rules are used (:class:`RuleEvidence`); a candidate's prior is its
number of representatives. Question choice (:meth:`BeliefModel.gains`): the expected information gain about
the candidate, ``H(b) - sum_ans P(ans) H(b | ans)``, for every question of the pool at once (numpy,
representatives x questions); :meth:`BeliefModel.lookahead_gains` adds the best follow-up question's expected
gain for the most promising questions.

>>> from kari.bench.model import ObjectRecord, Property
>>> from kari.domain.vocabulary import Vocabulary
>>> v = Vocabulary.load()
>>> metal = ObjectRecord("spoon", properties=(Property("whole", "MADE_OF", "metal"),))
>>> wood = ObjectRecord("bowl", properties=(Property("whole", "MADE_OF", "wood"),))
>>> model = BeliefModel({"eat_with": [metal], "hold": [wood]}, [("MADE_OF", "metal")], v, eps=0.1, smoothing=0.0)
>>> model.belief(model.weights([(("MADE_OF", "metal"), True)]))
{'eat_with': 0.909091, 'hold': 0.090909}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kari.bench.model import ObjectRecord
from kari.domain.objects import object_view, rule_status
from kari.domain.terms import History, Question
from kari.domain.vocabulary import Vocabulary
from kari.game.defaults import EPS, SMOOTHING
from kari.rules.ast import Node



def _entropy(mass: np.ndarray) -> np.ndarray:
    """Entropy in bits of the (unnormalised) distributions in the columns of ``mass`` (candidates x questions)."""
    total = mass.sum(axis=0)
    safe = np.where(total > 0, total, 1.0)
    p = mass / safe
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return terms.sum(axis=0)


@dataclass
class RuleEvidence:
    """Matched rules as evidence: a candidate whose rule the answers satisfy gets its belief multiplied by
    ``satisfied``, one whose rule they falsify by ``falsified`` (rules state sufficient conditions, so a false
    rule is weak evidence against). Candidates without a rule keep factor 1."""

    bodies: Mapping[str, Node]
    vocab: Vocabulary
    satisfied: float = 4.0
    falsified: float = 0.5

    def factors(self, candidates: Sequence[str], history: History) -> np.ndarray:
        """The factor of each candidate given the answers so far."""
        out = np.ones(len(candidates))
        for i, cand in enumerate(candidates):
            body = self.bodies.get(cand)
            if body is not None:
                status = rule_status(body, history, self.vocab)
                out[i] = self.satisfied if status is True else self.falsified if status is False else 1.0
        return out


class BeliefModel:
    """One game's representatives as a boolean matrix over the question pool, and the soft belief on it."""

    def __init__(self, reps: Mapping[str, Sequence[ObjectRecord]], pool: Sequence[Question], vocab: Vocabulary,
                 eps: float = EPS, smoothing: float = SMOOTHING, rules: RuleEvidence | None = None) -> None:
        if not 0.0 <= eps < 1.0 or not 0.0 <= smoothing <= 1.0:
            raise ValueError(f"need 0 <= eps < 1 and 0 <= smoothing <= 1, got {eps}, {smoothing}")
        self.candidates = tuple(reps)
        self.pool = [tuple(q) for q in pool]
        self.vocab = vocab
        self.eps = eps
        self.delta = eps / (1.0 + eps)
        self.smoothing = smoothing
        self.rules = rules
        self._views = [object_view(obj, vocab).whole for c in self.candidates for obj in reps[c]]
        owner = [i for i, c in enumerate(self.candidates) for _ in reps[c]]
        self.owner = np.zeros((len(self.candidates), len(owner)))
        self.owner[owner, np.arange(len(owner))] = 1.0
        self._column = {q: i for i, q in enumerate(self.pool)}
        self.facts = np.zeros((len(self._views), len(self.pool)), dtype=bool)
        for row, facts in enumerate(self._views):
            columns = [self._column[q] for q in facts if q in self._column]
            self.facts[row, columns] = True
        self._owner_index = np.array(owner, dtype=int)
        self._yes_like = self._likelihood(self.facts)  # P(yes | representative, question)
        self._rule_questions = self._questions_touching_rules()

    # --- belief ------------------------------------------------------------------------------------------------
    def _likelihood(self, facts: np.ndarray) -> np.ndarray:
        """P(yes | representative) for each column of the boolean representatives x questions ``facts``."""
        counts = self.owner @ facts
        size = self.owner.sum(axis=1)[:, None]
        theta = (counts + 1.0) / (size + 2.0)  # Laplace-smoothed share of the candidate's representatives
        own = np.where(facts, 1.0 - self.delta, self.delta)
        return (1.0 - self.smoothing) * own + self.smoothing * theta[self._owner_index]

    def yes_likelihood(self, question: Question) -> np.ndarray:
        """P(yes to ``question`` | representative), for each representative."""
        column = self._column.get(tuple(question))
        if column is not None:
            return self._yes_like[:, column]
        return self._likelihood(self.has(question)[:, None])[:, 0]

    def has(self, question: Question) -> np.ndarray:
        """Which representatives have ``question`` (any part, taxonomy applied)."""
        column = self._column.get(tuple(question))
        if column is not None:
            return self.facts[:, column]
        return np.array([tuple(question) in facts for facts in self._views], dtype=bool)

    def weights(self, history: History) -> np.ndarray:
        """Each representative's weight: the likelihood of the answers so far, relative to the best one (so the
        best representative weighs 1; without smoothing a representative weighs ``eps`` to the number of answers
        that contradict it). All zero when every representative is ruled out (only with eps = 0)."""
        log_w = np.zeros(len(self._views))
        with np.errstate(divide="ignore"):
            for question, answer in history:
                yes = self.yes_likelihood(question)
                log_w = log_w + np.log(yes if answer else 1.0 - yes)
        top = log_w.max(initial=-np.inf)
        return np.zeros_like(log_w) if not np.isfinite(top) else np.exp(log_w - top)

    def masses(self, weights: np.ndarray, history: History) -> np.ndarray:
        """Unnormalised belief per candidate: rule factor times the candidate's total weight."""
        mass = self.owner @ weights
        if self.rules is not None:
            mass = mass * self.rules.factors(self.candidates, history)
        return mass

    def fractions(self, weights: np.ndarray) -> dict[str, float]:
        """Per candidate, its representatives' mean weight (the soft form of "consistent representatives /
        representatives"; 1.0 when no answer contradicts any of them)."""
        counts = self.owner.sum(axis=1)
        mass = self.owner @ weights
        return {c: float(m / n) if n else 0.0 for c, m, n in zip(self.candidates, mass, counts)}

    def belief(self, weights: np.ndarray, history: History = ()) -> dict[str, float]:
        """b_soft over the candidates (uniform when every weight is 0, i.e. eps = 0 and no representative is left)."""
        mass = self.masses(weights, history)
        total = mass.sum()
        if total <= 0:
            return {c: round(1.0 / len(self.candidates), 6) for c in self.candidates}
        return {c: round(float(m / total), 6) for c, m in zip(self.candidates, mass)}

    def unasked(self, asked: frozenset[object]) -> np.ndarray:
        """A mask of the pool questions not asked yet (``asked``: the questions and pairs of the game so far)."""
        mask = np.ones(len(self.pool), dtype=bool)
        for item in asked:
            column = self._column.get(item) if isinstance(item, tuple) else None
            if column is not None:
                mask[column] = False
        return mask

    # --- question choice -----------------------------------------------------------------------------------------
    def _answer_masses(self, weights: np.ndarray, history: History,
                       columns: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Candidate x question masses after a "yes" and after a "no" to each pool question (or to ``columns``)."""
        yes_like = self._yes_like if columns is None else self._yes_like[:, columns]
        weighted_owner = self.owner * weights  # candidates x representatives
        yes = weighted_owner @ yes_like
        no = weighted_owner.sum(axis=1)[:, None] - yes
        if self.rules is not None:
            base = self.rules.factors(self.candidates, history)
            yes, no = yes * base[:, None], no * base[:, None]
            index = range(len(self.pool)) if columns is None else columns
            position = {int(c): i for i, c in enumerate(index)}
            for column in self._rule_questions:
                if column not in position:
                    continue
                question = self.pool[column]
                for answer, mass in ((True, yes), (False, no)):
                    changed = self.rules.factors(self.candidates, [*history, (question, answer)])
                    mass[:, position[column]] = mass[:, position[column]] / base * changed
        return yes, no

    def gains(self, weights: np.ndarray, history: History, columns: np.ndarray | None = None) -> np.ndarray:
        """Expected information gain (bits) about the candidate of asking each pool question (or ``columns``) next."""
        yes, no = self._answer_masses(weights, history, columns)
        total = yes.sum(axis=0) + no.sum(axis=0)
        safe = np.where(total > 0, total, 1.0)
        prior = self.masses(weights, history)
        prior_entropy = float(_entropy(prior[:, None])[0])
        expected = (yes.sum(axis=0) * _entropy(yes) + no.sum(axis=0) * _entropy(no)) / safe
        return np.maximum(prior_entropy - expected, 0.0)

    def lookahead_gains(self, weights: np.ndarray, history: History, allowed: np.ndarray,
                        width: int = 6, follow_ups: int = 24) -> np.ndarray:
        """Two-step value of the ``width`` best questions: the gain of asking it plus the expected gain of the
        best follow-up (among the ``follow_ups`` best one-step questions) after each answer; every other
        question keeps its one-step gain."""
        one = np.where(allowed, self.gains(weights, history), -1.0)
        order = np.argsort(-one)
        candidates = [int(c) for c in order[:follow_ups] if one[c] > 0]
        out = one.copy()
        for column in candidates[:width]:
            question = self.pool[column]
            yes_like = self._yes_like[:, column]
            p_yes = self.probability_yes(weights, yes_like)
            rest = np.array([c for c in candidates if c != column], dtype=int)
            follow = 0.0
            if len(rest):
                for answer, p in ((True, p_yes), (False, 1.0 - p_yes)):
                    if p > 0:
                        after = weights * (yes_like if answer else 1.0 - yes_like)
                        follow += p * float(self.gains(after, [*history, (question, answer)], rest).max())
            out[column] = one[column] + follow
        return out

    def probability_yes(self, weights: np.ndarray, yes_like: np.ndarray) -> float:
        """P(the next answer is yes) for a question with these per-representative yes likelihoods."""
        total = weights.sum()
        return 0.5 if total <= 0 else float((weights * yes_like).sum() / total)

    def _questions_touching_rules(self) -> list[int]:
        """Pool questions whose answer can change some rule's status (rule atoms and their is-a relatives)."""
        if self.rules is None:
            return []
        atoms = {(a.predicate, a.value) for body in self.rules.bodies.values() for a in body.atoms()}
        out = []
        for column, (predicate, value) in enumerate(self.pool):
            for atom_predicate, atom_value in atoms:
                if atom_predicate == predicate and (self.vocab.satisfies(predicate, value, atom_value)
                                                    or self.vocab.satisfies(predicate, atom_value, value)):
                    out.append(column)
                    break
        return out
