"""The symbolic engine: KARI rules compiled to ASP (clingo) and the paper's computations as solver queries.

Fixed encodings live in ``solver/*.lp``; :mod:`kari.solver.control` is the only module that talks to clingo.
"""

from kari.exports import lazy_exports

__all__, __getattr__, __dir__ = lazy_exports(__name__, {
    "kari.domain.objects": ("SEMANTICS", "has_property"),
    "kari.core.terms": ("Question",),
    "kari.solver.compile": ("compile_rules",),
    "kari.solver.consistency": ("belief_trace", "beliefs", "consistent_counts", "consistent_representatives",
                                "information_gain", "question_pool", "select_representatives"),
    "kari.solver.coverage": ("compute_coverage",),
    "kari.solver.optimal": ("OptimalResult", "optimal_target_aware"),
    "kari.solver.pyeval": ("python_coverage",),
    "kari.solver.validation": ("covered_by_labels",),
    "kari.solver.run": ("CoverageSummary", "coverage_loaded"),
})
