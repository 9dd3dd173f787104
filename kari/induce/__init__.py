"""KARI rule induction (method.md 2): Proposer, Validator and Auditor in a three-round, add-only loop.

Entry point: :func:`kari.induce.run.induce` (the ``kari induce`` command is a thin shell over it).
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.induce.folds import RuleSets, assign_folds, cv_dir, load_cross_fitted, read_rule_sets
    from kari.induce.inputs import Evidence
    from kari.induce.run import InduceOutcome, induce, induce_loaded

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.induce.folds": ("RuleSets", "assign_folds", "cv_dir", "load_cross_fitted", "read_rule_sets"),
    "kari.induce.inputs": ("Evidence",),
    "kari.induce.run": ("InduceOutcome", "induce", "induce_loaded"),
})
