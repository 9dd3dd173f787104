"""The symbolic engine: KARI rules compiled to ASP (clingo) and the paper's computations as solver queries.

Fixed encodings live in ``solver/*.lp``; :mod:`kari.solver.control` is the only module that talks to clingo.
"""

from typing import TYPE_CHECKING

from kari.exports import lazy_exports

if TYPE_CHECKING:  # the names as mypy reads them; at run time each is loaded on first use
    from kari.domain.objects import SEMANTICS, has_property
    from kari.core.terms import Question
    from kari.solver.compile import compile_rules
    from kari.solver.consistency import (
        belief_trace, beliefs, consistent_counts, consistent_representatives, information_gain, question_pool,
        select_representatives
    )
    from kari.solver.coverage import compute_coverage, covered_pairs
    from kari.solver.optimal import OptimalResult, optimal_target_aware
    from kari.solver.pyeval import python_coverage
    from kari.solver.validation import covered_by_labels
    from kari.solver.run import CoverageSummary, coverage_loaded

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.domain.objects": ("SEMANTICS", "has_property"),
    "kari.core.terms": ("Question",),
    "kari.solver.compile": ("compile_rules",),
    "kari.solver.consistency": ("belief_trace", "beliefs", "consistent_counts", "consistent_representatives",
                                "information_gain", "question_pool", "select_representatives"),
    "kari.solver.coverage": ("compute_coverage", "covered_pairs"),
    "kari.solver.optimal": ("OptimalResult", "optimal_target_aware"),
    "kari.solver.pyeval": ("python_coverage",),
    "kari.solver.validation": ("covered_by_labels",),
    "kari.solver.run": ("CoverageSummary", "coverage_loaded"),
})
