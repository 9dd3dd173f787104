"""The game's default settings, named once (imported by the engine, the players, the run and the CLI).

Cheap to import: no numpy, no clingo (the guessing threshold is the solver's record of the paper's figure).
"""

from kari.core.game_names import FlaggedRules, RuleWeighting
from kari.core.solver_types import THRESHOLD as SOLVER_THRESHOLD

BUDGET = 20
"""Question turns per game before the forced guess (the paper's T)."""

MAX_REJECTIONS = 3
"""Consecutive rejected questions that force the guess."""

THRESHOLD = SOLVER_THRESHOLD
"""Hard belief b_t at which Optimal guesses (the paper's 0.9; named in :mod:`kari.core.solver_types`)."""

REPRESENTATIVES = 10
"""Representative objects per candidate affordance."""

EPS = 0.2
"""Soft belief: weight factor of a representative per answer that contradicts it (0 = hard elimination)."""

SMOOTHING = 0.0
"""Soft belief: probability that an answer follows the candidate's property frequencies rather than one
representative (kari.game.belief)."""

STOP_BELIEF = 0.5
"""greedy-ig: soft belief at which it guesses."""

MIN_GAIN = 0.02
"""greedy-ig: below this expected gain in bits (with lookahead) asking is not worth a turn.

EPS, SMOOTHING, STOP_BELIEF and LOOKAHEAD are the setting benchmarks/bench_players.py chooses on all the bundled
benchmark's games (best success rate with under 10 turns on solved games, over a grid of 48 settings); its 5-fold
cross-validation over games gives the held-out figure the README reports."""

LOOKAHEAD = 2
"""greedy-ig: questions looked ahead."""

RULE_SATISFIED = 3.0
"""greedy-ig +rules: factor on a candidate's soft belief once the answers satisfy its matched rule."""

RULE_FALSIFIED = 0.7
"""greedy-ig +rules: factor once the answers falsify it. Both chosen on a small grid on the bundled games with
cross-fitted rules, for the player that knows the paper's 10 representatives only (greedy-ig@10), where rules
add what the player does not know (README)."""

RULE_WEIGHTING = RuleWeighting.EVIDENCE
"""+rules players: each rule's factors from its own evidence, at most RULE_SATISFIED / RULE_FALSIFIED
(:mod:`kari.game.rule_weights`)."""

FLAGGED_RULES = FlaggedRules.SKIP
"""Players skip the KB rules ``kari induce --db`` flagged (``kari play --flagged-rules use`` uses them)."""

MATCH_THRESHOLD = 0.7
"""Least verb similarity of a rule matched to a candidate (the paper's 0.7)."""

TOP_K = 1
"""Rules matched per candidate."""

OPTIMAL_TIME_LIMIT = 30.0
"""Seconds the Optimal questioner's solver may take per plan."""

DEFAULT_QUESTIONERS = ("optimal", "greedy-ig", "greedy-ig+kb", "greedy-ig+rules", "greedy-ig@10", "greedy-ig@10+kb",
                       "greedy-ig@10+rules", "fix20q", "rules+kb", "rules")
"""The players of ``kari pipeline``, each ``NAME[@K][+kb|+rules]``: ``@K`` caps the positives the player's soft
belief may use (``@10``: the paper's 10 representatives, a player that knows little, as an LLM Questioner does);
``+kb`` gives it the KB-anchored rules, ``+rules`` the benchmark-supervised cross-fitted ones (the ``rules``
player gets those unless named ``rules+kb``)."""
