"""KARI rule induction (method.md 2): Proposer, Validator and Auditor in a three-round, add-only loop.

Entry point: :func:`kari.induce.run.induce` (the ``kari induce`` command is a thin shell over it).
"""

from kari.exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.induce.folds": ("RuleSets", "assign_folds", "cv_dir", "load_cross_fitted", "read_rule_sets"),
    "kari.induce.inputs": ("Evidence",),
    "kari.induce.run": ("InduceOutcome", "induce", "induce_loaded"),
})
