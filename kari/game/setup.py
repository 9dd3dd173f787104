"""Build each game's :class:`GameSetup`: leave-one-out representatives, the question pool, matched rules.

Fairness: representatives are drawn with the game's hidden object excluded (``select_representatives(...,
exclude=(hidden,))``), for every player and for the metrics; only the Optimal upper bound is additionally
handed the hidden object by the engine. The metrics (hard b_t, IG_t) use the paper's 10 representatives per
candidate; the players' soft belief (``setup.model``) is built on every labelled positive of each candidate
except the hidden object (``model_reps`` caps it), so a candidate's prior is proportional to how many known
objects afford it. ``leave_one_out=False`` exists only to measure how much reading the
answer off the representatives inflates a player's score.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from kari.core.benchmark import Benchmark, Game, ObjectRecord
from kari.core.game_records import RuleFacts
from kari.domain.objects import object_view
from kari.game.belief import BeliefModel, RuleEvidence
from kari.core.game_defaults import (BUDGET, EPS, REPRESENTATIVES, RULE_FALSIFIED, RULE_SATISFIED, RULE_WEIGHTING,
                                     SMOOTHING)
from kari.game.match import RuleSource, combined_body, coverage_record
from kari.game.rule_weights import match_weights
from kari.game.types import GameSetup, Question
from kari.solver import question_pool, select_representatives
from kari.vocab.vocabulary import Vocabulary


def game_rng(seed: int, run: int, game_id: str) -> random.Random:
    """A random stream that depends only on (seed, run, game), so resumed and reordered runs agree."""
    return random.Random(f"kari-game:{seed}:{run}:{game_id}")


class SetupBuilder:
    """Makes game setups for one run configuration, caching representatives per hidden object."""

    def __init__(self, bench: Benchmark, vocab: Vocabulary, *, k: int = REPRESENTATIVES, seed: int = 0, budget: int = BUDGET,
                 leave_one_out: bool = True, rules: RuleSource | None = None, eps: float = EPS,
                 smoothing: float = SMOOTHING,
                 rule_evidence: bool = False, oracle_noise: float = 0.0, model_reps: int | None = None,
                 rule_factors: tuple[float, float] = (RULE_SATISFIED, RULE_FALSIFIED),
                 rules_in_belief: bool = True, rule_weighting: str = RULE_WEIGHTING) -> None:
        self.bench = bench
        self.vocab = vocab
        self.k = k
        self.seed = seed
        self.budget = budget
        self.leave_one_out = leave_one_out
        self.rules = rules
        self.eps = eps
        self.smoothing = smoothing
        self.rule_evidence = rule_evidence
        self.rule_factors = rule_factors
        self.rules_in_belief = rules_in_belief
        self.rule_weighting = rule_weighting
        self.oracle_noise = oracle_noise
        self.model_reps = model_reps
        self._model_reps: dict[str, Mapping[str, Sequence[str]]] = {}
        self._reps: dict[str, Mapping[str, Sequence[str]]] = {}
        self.descriptions = {a.id: a.description for a in bench.affordances.values()}

    def representatives(self, hidden: str) -> Mapping[str, Sequence[str]]:
        """Representative object ids per affordance for games hiding ``hidden`` (leave-one-out)."""
        if hidden not in self._reps:
            exclude = (hidden,) if self.leave_one_out else ()
            self._reps[hidden] = select_representatives(self.bench, k=self.k, seed=self.seed, exclude=exclude)
        return self._reps[hidden]

    def model_representatives(self, hidden: str) -> Mapping[str, Sequence[str]]:
        """The positives the players' soft belief is built on: ``model_reps`` per affordance (all when None),
        never the hidden object."""
        if hidden not in self._model_reps:
            k = self.model_reps if self.model_reps is not None else len(self.bench.objects)
            exclude = (hidden,) if self.leave_one_out else ()
            self._model_reps[hidden] = select_representatives(self.bench, k=k, seed=self.seed, exclude=exclude)
        return self._model_reps[hidden]

    def build(self, game: Game, run: int) -> tuple[GameSetup, ObjectRecord, RuleFacts | None]:
        """The setup a Questioner gets, the hidden object (for the engine) and the game's rule facts."""
        hidden = self.bench.objects[game.object]
        ids = self.representatives(game.object)
        reps = {c: tuple(self.bench.objects[o] for o in ids.get(c, ()) if o in self.bench.objects)
                for c in game.candidates}
        pool_objects = list({o.id: o for objs in reps.values() for o in objs}.values())
        pool: list[Question] = list(question_pool(pool_objects, self.vocab))
        matcher, fold = self.rules.for_object(game.object) if self.rules is not None else (None, None)
        matches = matcher.match(game.candidates) if matcher is not None else {}
        evidence = None
        weights = match_weights(matches, self.rule_weighting, satisfied=self.rule_factors[0],
                                falsified=self.rule_factors[1]) if matches else {}
        if self.rule_evidence and matches:
            evidence = RuleEvidence({c: combined_body(ms) for c, ms in matches.items() if ms}, self.vocab,
                                    *self.rule_factors, self.rules_in_belief,
                                    {c: (w.satisfied, w.falsified) for c, w in weights.items()})
        model_ids = self.model_representatives(game.object)
        model_reps = {c: tuple(self.bench.objects[o] for o in model_ids.get(c, ())) for c in game.candidates}
        facts = sorted({q for objs in model_reps.values() for o in objs for q in object_view(o, self.vocab).whole})
        setup = GameSetup(game_id=game.id, candidates=tuple(game.candidates),
                          descriptions={c: self.descriptions.get(c, "") for c in game.candidates},
                          reps=reps, pool=tuple(pool), budget=self.budget,
                          rng=game_rng(self.seed, run, game.id), rules=matches,
                          model=BeliefModel(model_reps, facts, self.vocab, self.eps, self.smoothing, evidence),
                          oracle_noise=self.oracle_noise,
                          noise_rng=random.Random(f"kari-oracle-noise:{self.seed}:{run}:{game.id}"), run=run)
        rules = None
        if matcher is not None:
            rules = replace(coverage_record(matches, game.target, hidden, self.vocab,
                                            self.rules.kind if self.rules is not None else None),
                            weights={c: w.to_json() for c, w in weights.items()} if self.rule_evidence else None,
                            fold=fold)  # cross-fitted: these rules were induced without this fold's objects
        return setup, hidden, rules
