"""Rules: a symbolic player that asks the atoms of the candidates' matched rules and guesses by rule coverage.

It keeps the answers as known atoms and evaluates every matched rule three-valued (true / false / unknown, the
any-part reading, with the is-a taxonomy: "yes" to steel makes metal true, "no" to metal makes steel false).
Each turn it asks the unknown atom that best splits the candidates still alive; it guesses when one candidate is
left, when exactly one candidate's rule is satisfied (rules state sufficient conditions), or when no live rule
has an unknown atom. A rule is taken as sufficient only when its own evidence says an object it covers is more
likely a positive than not (the cautious precision of :mod:`kari.game.rule_weights`, the 10% posterior
quantile, at least :data:`SUFFICIENT_PRECISION`; a rule with no recorded evidence is taken at its word): a
satisfied rule below that counts as open, so it neither ends the game nor outranks an undecided candidate.
Ranking: rule true > unknown (or no rule) > false; ties go to the rule with more confirmed atoms, then to the higher soft belief (:mod:`kari.game.belief`), then to the game's random
stream. Its questions come from the rules only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kari.game.questioners.base import Questioner, QuestionerOptions, argmax_belief
from kari.game.match import combined_body
from kari.game.rule_weights import RuleWeight, rule_weight
from kari.game.types import Action, Ask, GameSetup, GameState, Guess, Question, structured
from kari.domain.objects import answered, rule_status
from kari.vocab.vocabulary import Vocabulary
from kari.rules.ast import And, Atom, Node, Or, Part
from kari.core.game_names import Player
from kari.core.game_records import QuestionerInfo

Truth = bool | None


def confirmed_atoms(node: Node, known: Mapping[Question, bool], vocab: Vocabulary) -> int:
    """Atoms known true in the best satisfied-or-open branch (evidence strength of a rule)."""
    if isinstance(node, Atom):
        return 1 if answered((node.predicate, node.value), known, vocab) is True else 0
    if isinstance(node, Part):
        return confirmed_atoms(node.body, known, vocab)
    scores = [confirmed_atoms(arg, known, vocab) for arg in node.args if rule_status(arg, known, vocab) is not False]
    if isinstance(node, And):
        return sum(scores)
    return max(scores, default=0)


SUFFICIENT_PRECISION = 0.5
"""A satisfied rule decides only when the cautious estimate of its precision is at least this: more often right
than wrong."""


def _sufficient(weight: RuleWeight) -> bool:
    """Whether a rule of this weight may be read as a sufficient condition (module docstring)."""
    return weight.precision_low is None or weight.precision_low >= SUFFICIENT_PRECISION


class RulesQuestioner(Questioner):
    sees_rules = True
    name = Player.RULES

    def __init__(self, vocab: Vocabulary) -> None:
        self.vocab = vocab

    @classmethod
    def from_options(cls, options: QuestionerOptions) -> RulesQuestioner:
        return cls(options.vocab)

    def start(self, setup: GameSetup) -> None:
        super().start(setup)
        self.bodies: dict[str, Node] = {c: combined_body(setup.rules[c]) for c in setup.candidates
                                        if setup.rules.get(c)}
        self.sufficient = {c for c in self.bodies if _sufficient(rule_weight(setup.rules[c][0].rule))}

    def _status(self, known: Mapping[Question, bool]) -> dict[str, Truth]:
        status = {c: (rule_status(self.bodies[c], known, self.vocab) if c in self.bodies else None)
                  for c in self.setup.candidates}
        return {c: (None if s is True and c not in self.sufficient else s) for c, s in status.items()}

    def act(self, state: GameState) -> Action:
        known = dict(state.history)
        status = self._status(known)
        live = [c for c in self.setup.candidates if status[c] is not False]
        satisfied = [c for c in live if status[c] is True]
        if len(live) <= 1 or len(satisfied) == 1:
            return self._guess(state, known, status)
        question = self._best_question(live, status, known, state)
        return self._guess(state, known, status) if question is None else Ask(structured(question))

    def forced_guess(self, state: GameState, reason: str) -> Guess:
        known = dict(state.history)
        return self._guess(state, known, self._status(known))

    def _best_question(self, live: Sequence[str], status: Mapping[str, Truth],
                       known: Mapping[Question, bool], state: GameState) -> Question | None:
        """The unknown atom of the live, undecided rules that splits the live candidates most evenly."""
        open_rules = [c for c in live if c in self.bodies and status[c] is None]
        mentions: dict[Question, int] = {}
        for cand in open_rules:
            seen = set()
            for atom in self.bodies[cand].atoms():
                key = Question(atom.predicate, atom.value)
                if key in seen or state.was_asked(key) or answered(key, known, self.vocab) is not None:
                    continue
                seen.add(key)
                mentions[key] = mentions.get(key, 0) + 1
        if not mentions:
            return None
        total = len(live)
        return max(mentions, key=lambda q: (min(mentions[q], total - mentions[q]), mentions[q]))

    def _guess(self, state: GameState, known: Mapping[Question, bool], status: Mapping[str, Truth]) -> Guess:
        rank = {True: 2, None: 1, False: 0}

        def score(cand: str) -> tuple[int, int]:
            strength = confirmed_atoms(self.bodies[cand], known, self.vocab) if cand in self.bodies else 0
            return rank[status[cand]], strength

        best = max(score(c) for c in self.setup.candidates)
        tied = [c for c in self.setup.candidates if score(c) == best]
        if len(tied) == 1:
            return Guess(tied[0])
        soft = state.soft_beliefs  # ties: the soft belief over the representatives, then the game's random stream
        return Guess(argmax_belief(state, {c: soft.get(c, 0.0) for c in tied} if soft else None))

    def info(self) -> QuestionerInfo:
        return QuestionerInfo(candidates_with_rules=len(self.bodies))
