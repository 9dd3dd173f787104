"""Fix20Q: a fixed list of questions in a fixed order, then a guess sampled from a softmax over the candidates'
representative fractions (method.md 4), in their soft form: a candidate's representatives' mean weight under the
soft belief (a representative loses weight for each answer that contradicts it instead of being removed). Scored as
the mean of 5 runs.

The default list is ``data/fix20q.tsv`` (20 ``DIMENSION<TAB>value`` rows, material first, then shape); users
pass their own with ``--questions FILE``.
"""

from __future__ import annotations

import csv
import math
import random
from pathlib import Path

from kari.errors import KariError
from kari.game.checker import predicate_of_dimension
from kari.game.questioners.base import Questioner, QuestionerOptions
from kari.game.types import Action, Ask, GameSetup, GameState, Guess, Question, structured
from kari.resources import asset_path
from kari.vocab.vocabulary import Vocabulary
from kari.core.game_names import Player

HEADER = ("dimension", "value")


def load_questions(path: str | Path | None, vocab: Vocabulary) -> list[Question]:
    """Read a question list (default: the shipped ``data/fix20q.tsv``); unknown dimensions or values are errors."""
    file = Path(path) if path is not None else asset_path("data", "fix20q.tsv")
    if not file.is_file():
        raise KariError("question list not found", file=str(file), code="missing-file")
    questions: list[Question] = []
    with file.open(encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(rows, None)
        if header is None or tuple(h.strip().lower() for h in header[:2]) != HEADER:
            raise KariError("expected header 'dimension<TAB>value'", file=str(file), line=1, code="questions-header")
        for row in rows:
            line = rows.line_num
            if not row or not "".join(row).strip() or row[0].startswith("#"):
                continue
            if len(row) < 2:
                raise KariError("expected 2 TAB-separated columns", file=str(file), line=line, code="questions-columns")
            predicate = predicate_of_dimension(row[0])
            if predicate is None:
                raise KariError(f"unknown dimension {row[0]!r} (MATERIAL, SHAPE, SIZE or SURFACE)", file=str(file),
                                line=line, col=1, code="questions-dimension")
            value = vocab.normalise(predicate, row[1])
            if value is None:
                raise KariError(f"{row[1]!r} is not a {predicate} value of the vocabulary", file=str(file), line=line,
                                col=len(row[0]) + 2, code="questions-value")
            questions.append(Question(predicate, value))
    if not questions:
        raise KariError("the question list is empty", file=str(file), code="questions-empty")
    return questions


def softmax_guess(fractions: dict[str, float], temperature: float, rng: random.Random) -> str:
    """Sample a candidate with probability proportional to ``exp(fraction / temperature)``."""
    names = list(fractions)
    top = max(fractions.values())
    weights = [math.exp((fractions[n] - top) / temperature) for n in names]
    return rng.choices(names, weights=weights, k=1)[0]


class Fix20QQuestioner(Questioner):
    name = Player.FIX20Q
    default_runs = 5

    def __init__(self, vocab: Vocabulary, questions: list[Question], temperature: float = 1.0) -> None:
        if temperature <= 0:
            raise KariError("the softmax temperature must be > 0", code="game-config")
        self.vocab = vocab
        self.questions = questions
        self.temperature = temperature

    @classmethod
    def from_options(cls, options: QuestionerOptions) -> Fix20QQuestioner:
        return cls(options.vocab, load_questions(options.questions, options.vocab), options.temperature)

    def start(self, setup: GameSetup) -> None:
        super().start(setup)
        self.plan = list(dict.fromkeys(self.questions))

    def act(self, state: GameState) -> Action:
        while self.plan and state.was_asked(self.plan[0]):
            self.plan.pop(0)
        if self.plan and len(state.turns) < self.setup.budget:
            return Ask(structured(self.plan.pop(0)))
        return self._guess(state)

    def forced_guess(self, state: GameState, reason: str) -> Guess:
        return self._guess(state)

    def _guess(self, state: GameState) -> Guess:
        model = self.setup.belief_model
        fractions = model.fractions(model.weights(state.history))
        return Guess(softmax_guess(fractions, self.temperature, self.setup.rng))
