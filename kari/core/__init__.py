"""kari's terms and records: the fixed names, defaults and settings, and the typed records every layer above
shares (docs/architecture.md). A leaf package: its modules import the foundations and each other, nothing else.

- :mod:`kari.core.terms`: the predicate and dimension enums, :class:`~kari.core.terms.Question`, ``History`` and
  the one spelling normaliser;
- :mod:`kari.core.benchmark`: the typed records of a benchmark directory (:class:`~kari.core.benchmark.ObjectRecord`,
  ``Property``, ``Benchmark``, ...);
- :mod:`kari.core.records`: records that read and write their JSON object key for key (``Layout``, ``emit``);
- :mod:`kari.core.game_names`, :mod:`kari.core.game_defaults`: the game's fixed names (players, Oracles,
  Checkers, ``MatchMode``, rule weightings and origins) and its defaults;
- :mod:`kari.core.game_settings`: a ``kari play`` run's settings (``PlayConfig``, ``PlayerSettings``);
- :mod:`kari.core.game_records`: a played game's record (one ``games.jsonl`` line);
- :mod:`kari.core.solver_types`: the solver queries' typed results;
- :mod:`kari.core.induce_config`: the settings of an induction run.
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.core.terms import PREDICATES, WHOLE, Dimension, History, Predicate, Question, normalise_term
    from kari.core.benchmark import Affordance, Benchmark, Game, Label, ObjectRecord, Property, object_to_json
    from kari.core.records import JsonRecord, Layout, emit
    from kari.core.game_names import CheckerKind, MatchMode, OracleKind, Player, RuleColumn, RuleOrigin, RuleWeighting
    from kari.core.game_records import CheckRecord, GameRecord, TurnRecord, read_games
    from kari.core.game_settings import PlayConfig, PlayerSettings
    from kari.core.solver_types import CoverageDecision, CoverageRow
    from kari.core.induce_config import InduceConfig, ProposerSettings

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.core.terms": ("PREDICATES", "WHOLE", "Dimension", "History", "Predicate", "Question", "normalise_term"),
    "kari.core.benchmark": ("Affordance", "Benchmark", "Game", "Label", "ObjectRecord", "Property", "object_to_json"),
    "kari.core.records": ("JsonRecord", "Layout", "emit"),
    "kari.core.game_names": ("CheckerKind", "MatchMode", "OracleKind", "Player", "RuleColumn", "RuleOrigin",
                             "RuleWeighting"),
    "kari.core.game_records": ("CheckRecord", "GameRecord", "TurnRecord", "read_games"),
    "kari.core.game_settings": ("PlayConfig", "PlayerSettings"),
    "kari.core.solver_types": ("CoverageDecision", "CoverageRow"),
    "kari.core.induce_config": ("InduceConfig", "ProposerSettings"),
})
