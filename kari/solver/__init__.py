"""The symbolic engine: KARI rules compiled to ASP (clingo) and the paper's computations as solver queries.

Fixed encodings live in ``solver/*.lp``; :mod:`kari.solver.control` is the only module that talks to clingo.
"""

from kari.domain.objects import SEMANTICS, has_property
from kari.solver.compile import compile_rules
from kari.solver.consistency import (
                                     belief_trace,
                                     beliefs,
                                     consistent_counts,
                                     consistent_representatives,
                                     information_gain,
                                     question_pool,
                                     select_representatives,
)
from kari.solver.coverage import compute_coverage
from kari.solver.optimal import OptimalResult, optimal_target_aware
from kari.solver.pyeval import python_coverage
from kari.domain.terms import Question
from kari.solver.types import CoverageDecision, CoverageRow
from kari.solver.validation import covered_by_labels

__all__ = ["SEMANTICS", "CoverageDecision", "CoverageRow", "OptimalResult", "Question", "belief_trace",
           "beliefs", "compile_rules", "compute_coverage", "consistent_counts",
           "consistent_representatives", "covered_by_labels", "has_property",
           "information_gain", "optimal_target_aware", "python_coverage", "question_pool", "select_representatives"]
