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

>>> from kari.core.benchmark import ObjectRecord, Property
>>> from kari.vocab.vocabulary import Vocabulary
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

from kari.core.benchmark import ObjectRecord
from kari.domain.objects import answered, object_view
from kari.core.terms import History, Question, Semantics
from kari.vocab.vocabulary import Vocabulary
from kari.core.game_defaults import EPS, RULE_FALSIFIED, RULE_SATISFIED, SMOOTHING
from kari.rules.ast import Node, Rule
from kari.solver.compile import branch_disjuncts


def _entropy(mass: np.ndarray) -> np.ndarray:
    """Entropy in bits of the (unnormalised) distributions in the columns of ``mass`` (candidates x questions)."""
    total = mass.sum(axis=0)
    safe = np.where(total > 0, total, 1.0)
    p = mass / safe
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    entropy: np.ndarray = terms.sum(axis=0)
    return entropy


@dataclass
class RuleEvidence:
    """Matched rules as evidence: a candidate whose rule the answers satisfy gets its belief multiplied by
    ``satisfied``, one whose rule they falsify by ``falsified`` (rules state sufficient conditions, so a false
    rule is weak evidence against); ``weights`` gives each candidate's own pair (weighed by its rule's evidence,
    :mod:`kari.game.rule_weights`). Candidates without a rule keep factor 1. The status of a rule given the
    answers is three-valued (any-part reading, the taxonomy applied: :func:`kari.domain.objects.rule_status`)."""

    bodies: Mapping[str, Node]
    vocab: Vocabulary
    satisfied: float = RULE_SATISFIED
    falsified: float = RULE_FALSIFIED
    in_belief: bool = True  # False: the rules steer which question to ask, the belief (and the guess) ignore them
    weights: Mapping[str, tuple[float, float]] | None = None  # candidate -> (satisfied, falsified), else the above

    def factors_of(self, candidate: str) -> tuple[float, float]:
        """The (satisfied, falsified) factors of ``candidate``'s rule (:mod:`kari.game.rule_weights`)."""
        if self.weights is not None and candidate in self.weights:
            return self.weights[candidate]
        return self.satisfied, self.falsified

    def compile(self, candidates: Sequence[str], pool: Sequence[Question]) -> CompiledRules:
        """The rules of ``candidates`` as DNFs over their distinct atoms, with which atoms a "yes" or a "no" to
        each pool question decides (for fast what-if updates over the whole pool)."""
        return CompiledRules(self, candidates, pool)


class CompiledRules:
    """One game's matched rules, vectorised: the factor of each candidate after each possible next answer.

    A rule's body is put in disjunctive normal form (any-part reading: :func:`kari.solver.compile.branch_disjuncts`);
    for monotone formulas, Kleene evaluation equals "true when some conjunct has only true atoms, false when every
    conjunct has a false atom". A "yes" to ``q`` makes every atom that ``q`` is-a true; a "no" makes every atom
    that is-a ``q`` false (:func:`kari.domain.objects.answered`)."""

    def __init__(self, evidence: RuleEvidence, candidates: Sequence[str], pool: Sequence[Question]) -> None:
        vocab = evidence.vocab
        self.evidence = evidence
        index: dict[tuple[str, str], int] = {}
        self.dnf: list[list[list[int]] | None] = []
        for cand in candidates:
            body = evidence.bodies.get(cand)
            if body is None:
                self.dnf.append(None)
                continue
            rule = Rule(cand, body)
            conjuncts = [[index.setdefault((p, v), len(index)) for _, p, v in d.atoms]
                         for branch in rule.branches() for d in branch_disjuncts(rule, branch, Semantics.ANY_PART)]
            self.dnf.append(conjuncts)
        self.atoms = list(index)
        owned = [(i, atoms) for i, dnf in enumerate(self.dnf) if dnf is not None for atoms in dnf]
        self._members = np.zeros((len(owned), len(self.atoms)))  # conjunct x atom
        self._owners = np.zeros((len(self.dnf), len(owned)))  # candidate x conjunct
        for k, (i, atoms) in enumerate(owned):
            self._members[k, atoms] = 1.0
            self._owners[i, k] = 1.0
        self._sizes = self._members.sum(axis=1)
        self._has_rule = np.array([dnf is not None for dnf in self.dnf])
        pairs = [evidence.factors_of(c) for c in candidates]
        self._satisfied = np.array([p[0] for p in pairs], dtype=float)[:, None]
        self._falsified = np.array([p[1] for p in pairs], dtype=float)[:, None]
        self._known: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self.yes = np.array([[qp == p and vocab.satisfies(p, qv, v) for p, v in self.atoms] for qp, qv in pool],
                            dtype=bool).reshape(len(pool), len(self.atoms))
        self.no = np.array([[qp == p and vocab.satisfies(p, v, qv) for p, v in self.atoms] for qp, qv in pool],
                           dtype=bool).reshape(len(pool), len(self.atoms))

    def known(self, history: History) -> tuple[np.ndarray, np.ndarray]:
        """Which atoms the answers so far make true, and which false (cached per history)."""
        key = tuple(history)
        if key not in self._known:
            truth = [answered(atom, history, self.evidence.vocab) for atom in self.atoms]
            self._known[key] = (np.array([t is True for t in truth], dtype=bool),
                                np.array([t is False for t in truth], dtype=bool))
        return self._known[key]

    def _factors(self, true: np.ndarray, false: np.ndarray) -> np.ndarray:
        """Candidates x rows: the factor of each candidate for each row of atom truths (rows x atoms)."""
        conjunct_true = (true @ self._members.T) >= self._sizes  # every atom of the conjunct is true
        conjunct_false = (false @ self._members.T) > 0  # some atom of the conjunct is false
        holds = (self._owners @ conjunct_true.T) > 0
        fails = (self._owners @ conjunct_false.T) >= self._owners.sum(axis=1)[:, None]
        out = np.where(holds, self._satisfied, np.where(fails, self._falsified, 1.0))
        return np.where(self._has_rule[:, None], out, 1.0)

    def factors(self, history: History) -> np.ndarray:
        """The factor of each candidate given the answers so far."""
        true, false = self.known(history)
        return self._factors(true[None, :], false[None, :])[:, 0]

    def after_answers(self, history: History, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Candidates x ``columns``: the factors after a "yes", and after a "no", to each of those pool questions."""
        true, false = self.known(history)
        rows = len(columns)
        # an atom the answers so far already decide keeps that value (the earliest answer wins, as in answered())
        yes = self._factors(true[None, :] | (self.yes[columns] & ~false[None, :]),
                            np.broadcast_to(false, (rows, len(false))))
        no = self._factors(np.broadcast_to(true, (rows, len(true))), false[None, :] | (self.no[columns] & ~true[None, :]))
        return yes, no


class BeliefModel:
    """One game's representatives as a boolean matrix over the question pool, and the soft belief on it."""

    def __init__(self, reps: Mapping[str, Sequence[ObjectRecord]], pool: Sequence[tuple[str, str]], vocab: Vocabulary,
                 eps: float = EPS, smoothing: float = SMOOTHING, rules: RuleEvidence | None = None) -> None:
        if not 0.0 <= eps < 1.0 or not 0.0 <= smoothing <= 1.0:
            raise ValueError(f"need 0 <= eps < 1 and 0 <= smoothing <= 1, got {eps}, {smoothing}")
        self.candidates = tuple(reps)
        self.pool = [Question(*q) for q in pool]
        self.vocab = vocab
        self.eps = eps
        self.delta = eps / (1.0 + eps)
        self.smoothing = smoothing
        self._views = [object_view(obj, vocab).whole for c in self.candidates for obj in reps[c]]
        owner = [i for i, c in enumerate(self.candidates) for _ in reps[c]]
        self.owner = np.zeros((len(self.candidates), len(owner)))
        self.owner[owner, np.arange(len(owner))] = 1.0
        self._column: dict[tuple[str, ...], int] = {q: i for i, q in enumerate(self.pool)}
        self.facts = np.zeros((len(self._views), len(self.pool)), dtype=bool)
        for row, facts in enumerate(self._views):
            columns = [self._column[q] for q in facts if q in self._column]
            self.facts[row, columns] = True
        self._owner_index = np.array(owner, dtype=int)
        self._yes_like = self._likelihood(self.facts)  # P(yes | representative, question)
        self._rules = rules.compile(self.candidates, self.pool) if rules is not None else None

    # --- belief ------------------------------------------------------------------------------------------------
    def _likelihood(self, facts: np.ndarray) -> np.ndarray:
        """P(yes | representative) for each column of the boolean representatives x questions ``facts``."""
        counts = self.owner @ facts
        size = self.owner.sum(axis=1)[:, None]
        theta = (counts + 1.0) / (size + 2.0)  # Laplace-smoothed share of the candidate's representatives
        own = np.where(facts, 1.0 - self.delta, self.delta)
        likelihood: np.ndarray = (1.0 - self.smoothing) * own + self.smoothing * theta[self._owner_index]
        return likelihood

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

    def masses(self, weights: np.ndarray, history: History, *, for_questions: bool = False) -> np.ndarray:
        """Unnormalised belief per candidate: the candidate's total weight, times its rule factor when the rules
        are evidence in the belief (or, ``for_questions``, when they only steer the questions)."""
        mass: np.ndarray = self.owner @ weights
        if self._rules is not None and (self._rules.evidence.in_belief or for_questions):
            mass = mass * self._rules.factors(history)
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
        if self._rules is not None:
            index = np.arange(len(self.pool)) if columns is None else np.asarray(columns)
            after_yes, after_no = self._rules.after_answers(history, index)
            yes, no = yes * after_yes, no * after_no
        return yes, no

    def gains(self, weights: np.ndarray, history: History, columns: np.ndarray | None = None) -> np.ndarray:
        """Expected information gain (bits) about the candidate of asking each pool question (or ``columns``) next."""
        yes, no = self._answer_masses(weights, history, columns)
        total = yes.sum(axis=0) + no.sum(axis=0)
        safe = np.where(total > 0, total, 1.0)
        prior = self.masses(weights, history, for_questions=True)
        prior_entropy = float(_entropy(prior[:, None])[0])
        expected = (yes.sum(axis=0) * _entropy(yes) + no.sum(axis=0) * _entropy(no)) / safe
        gains: np.ndarray = np.maximum(prior_entropy - expected, 0.0)
        return gains

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
